"""One code, one session: which session of a roll log carries a table seed already.

A table seed binds one session: the players set it after noting that session's commitment.
If the same code could be set on a second session, whoever reopened a session (root with the
unmodified program: ``session close``, ``session open``, ``session seed`` with the players'
code) could try sessions until the next roll suits them, and every one would carry the code
the players remember (docs/fairness.md, "Who can do what"). So the checkers call a code on two
sessions a problem, and the tower and ``dicetower session seed`` refuse a code the log holds
already: the players choose a new one for each session.

The search reads the whole log (rotated files too) at the speed of the disk: only lines that
mention the code are parsed. A table seed is set once per session, so this is paid once a
session, never per roll.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from hardware.files.rolllog import entries_mentioning

__all__ = ["CodeHolder", "code_holder"]


@dataclass(frozen=True)
class CodeHolder:
    """The session that carries a code, and the seq of its ``table_seed`` entry."""

    session: str
    seq: int


def code_holder(log_path: str | os.PathLike[str], text: str) -> CodeHolder | None:
    """The session of the log at ``log_path`` whose table seed is ``text`` (None: no session
    carries it). A log that does not exist yet carries none."""
    # canonical JSON escapes a printable-ASCII string exactly as json.dumps does
    needle = b'"table_seed":' + json.dumps(text).encode("ascii")
    for entry in entries_mentioning(log_path, (needle,)):
        if entry.get("kind") == "table_seed" and entry.get("table_seed") == text:
            return CodeHolder(str(entry.get("session")), int(entry.get("seq") or 0))
    return None
