"""The tower's open dice sessions, kept on disk so a power cut cannot leave one unrevealed.

A session's seed is revealed when the session closes; until then it lives only in memory. If
the tower dies first (power cut, crash, ``kill -9``), every roll of that session would stay in
the log unverifiable for ever. So each session the tower opens is also written, before its
first roll, to ``DIR/open-sessions/<id>.json`` (mode 0600, atomic: it holds the seed, as
secret as the session itself) and removed once its ``reveal`` entry is in the log. At the next
start the tower reveals whatever is left there: it counts the session's rolls in the log and
appends the ``reveal`` (``reason: "restart"``) those rolls need to replay.

This directory is the tower's alone; ``dicetower session open`` keeps its session in
``DIR/session.json`` (:mod:`hardware.entropy.session_file`), and the two never mix.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hardware.entropy import session_file
from hardware.entropy.session_file import SessionFileError, StoredSession
from hardware.rolllog import entries_mentioning

__all__ = ["OPEN_SESSIONS_DIR", "OpenSessions", "SessionKeeper", "Trace"]

OPEN_SESSIONS_DIR = "open-sessions"


class SessionKeeper(Protocol):
    """What :class:`~hardware.entropy.session.SessionDice` tells about its sessions."""

    def opened(self, stored: StoredSession) -> None: ...

    def closed(self, session_id: str) -> None: ...


class _Appends(Protocol):
    def append(self, kind: str, **fields: Any) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Trace:
    """What the log holds of one session: its rolls, where the last one ended, and whether it
    was revealed already (a crash between the reveal and the file's removal)."""

    rolls: int = 0
    end: int = 0
    revealed: bool = False


class OpenSessions:
    """``DIR/open-sessions``: one file per open session of the tower. Failures to keep a file
    are reported through ``log`` and never stop a roll: the log still holds every roll, and the
    reveal at the session's normal end makes them checkable."""

    def __init__(self, state_dir: str | os.PathLike[str], *, log: Callable[[str], None] | None = None) -> None:
        self.state_dir = Path(state_dir)
        self.directory = self.state_dir / OPEN_SESSIONS_DIR  # never followed through a link (hardware.safefile)
        self._log = log or (lambda message: None)

    def __repr__(self) -> str:
        return f"OpenSessions({str(self.directory)!r})"

    def _file(self, session_id: str) -> Path:
        if not session_id.isalnum():
            raise ValueError(f"a session id is letters and digits, got {session_id!r}")
        return self.directory / f"{session_id}.json"

    def opened(self, stored: StoredSession) -> None:
        try:
            session_file.save_file(self._file(stored.id), stored, below=self.state_dir)
        except (OSError, SessionFileError) as exc:
            self._log(f"session {stored.id}: cannot keep its seed for a reveal after a power cut: {exc}")

    def closed(self, session_id: str) -> None:
        try:
            session_file.remove_file(self._file(session_id), below=self.state_dir)
        except SessionFileError as exc:
            self._log(f"session {session_id}: revealed, but {exc}")

    def left_open(self) -> list[Path]:
        from hardware.safefile import list_dir

        try:
            names = list_dir(self.directory, below=self.state_dir)
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._log(f"cannot look for sessions left open in {self.directory}: {exc.strerror or exc}")
            return []
        return sorted(self.directory / name for name in names if name.endswith(".json") and not name.startswith("."))

    def reveal_left_open(self, log: _Appends, log_path: str | os.PathLike[str], *,
                         skip: str | None = None) -> list[str]:
        """Reveal every session a stopped tower left open (see the module docstring); returns
        their ids. ``skip`` is the session this tower has open itself. A file that cannot be
        read is reported and left for a person to look at; a reveal the log cannot take leaves
        its file for the next start (the error propagates)."""
        stored: list[StoredSession] = []
        for path in self.left_open():
            if path.stem == skip:
                continue
            try:
                found = session_file.load_file(path, below=self.state_dir)
            except SessionFileError as exc:
                self._log(f"a session left open cannot be revealed: {exc}")
                continue
            if found is not None:
                stored.append(found)
        if not stored:
            return []
        traces = trace(log_path, [s.id for s in stored])
        done = []
        for s in stored:
            t = traces[s.id]
            if not t.revealed:
                entry = log.append("reveal", session=s.id, seed=s.material.encode().hex(), rolls=t.rolls,
                                   end=t.end, reason="restart",
                                   note="the tower stopped (a power cut or a crash) before this session was revealed")
                if entry.get("unrecorded"):  # a lenient log that could not write: try at the next start
                    continue
            self.closed(s.id)
            done.append(s.id)
        return done


def trace(log_path: str | os.PathLike[str], session_ids: list[str]) -> dict[str, Trace]:
    """Each session's :class:`Trace` from one pass over the log."""
    out = {sid: Trace() for sid in session_ids}
    for entry in entries_mentioning(log_path, [sid.encode("ascii") for sid in session_ids]):
        sid = entry.get("session")
        if sid not in out:
            continue
        t = out[sid]
        if entry.get("kind") == "roll" and isinstance(entry.get("end"), int):
            out[sid] = Trace(t.rolls + 1, entry["end"], t.revealed)
        elif entry.get("kind") == "reveal":
            out[sid] = Trace(t.rolls, t.end, True)
    return out
