"""What no screen may say: a Python value leaking onto the table's screen instead of words.

``None`` (a field the rules left empty), ``nan``, a dict's or set's braces, ``True``/``False``
(the panel says yes/no), or the repr of a tuple, list, Fraction or dataclass. Used by the
random-walk screen checks and by the flow scripts' transcripts (tests/hardware/test_sim_flows.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WRONG = (
    ("None", re.compile(r"\bNone\b")),
    ("nan", re.compile(r"\bnan\b", re.IGNORECASE)),
    ("brace", re.compile(r"[{}]")),
    ("True/False", re.compile(r"\b(?:True|False)\b")),
    ("tuple or list repr", re.compile(r"[(\[]-?\d+, -?\d+|\(\)|\[\]")),
    ("object repr", re.compile(r"\b[A-Z]\w*\(\w+=|object at 0x|mappingproxy|Fraction\(")),
)


def wrong_words(line: str) -> list[str]:
    """What is wrong with one line of a screen (empty: nothing)."""
    return [name for name, pattern in _WRONG if pattern.search(line)]


def check_lines(lines: Iterable[str | None], where: object) -> None:
    """Fail naming the line and where it was seen when any line says a Python value."""
    for line in lines:
        if line is None:
            continue
        problems = wrong_words(line)
        assert not problems, f"{where}: {line!r} shows {', '.join(problems)}"
