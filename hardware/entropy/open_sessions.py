"""A state directory's one open session, kept on disk and shared by every writer there.

One session at a time per roll log: a checker flags a ``session`` entry while another session
is unrevealed, and a roll naming any session but the open one. So the tower, every ``roll
--state-dir`` command, ``session open|seed|show|close`` all roll in *the* open session of the
state directory, whoever opened it, and open a new one only when none is open:

- Each session is written to ``DIR/open-sessions/ID.json`` (:mod:`~hardware.entropy.
  session_file`: the seed, who opened it, a cache of where it stands) *before* its
  ``session`` entry goes into the log, and removed once its ``reveal`` entry is in the log.
  A power cut or ``kill -9`` can therefore never leave a session in the log whose seed is lost.
- A writer (under the state directory's lock) first reveals the sessions whose opener is gone
  (:meth:`OpenSessions.joinable`): a tower's session left by an earlier run of the tower, a
  ``roll`` command's own session whose process died. It appends the ``reveal`` those
  sessions' logged rolls need (``"reason": "restart"``). A session opened with ``dicetower
  session open`` stays open until ``session close``, whoever rolls in it.
- Then it joins the session still open, if any, bringing its copy up to date from the log
  (:class:`~hardware.entropy.progress.Progress`), and only if none is open opens its own.
- Before each roll it reads the log entries appended since it last looked (:meth:`news`: the
  log's tail, read backwards; nothing when nothing was appended), so a roll another writer
  made in between, a table seed set by ``dicetower session seed`` and a reveal by ``session
  close`` are all taken into account.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from hardware.entropy import session_file
from hardware.entropy.progress import Progress
from hardware.entropy.session_file import Owner, SessionFileError, StoredSession
from hardware.rolllog import MAX_LINE_BYTES, LogError, chain_files, entry_hash, open_regular

__all__ = ["OPEN_SESSIONS_DIR", "Joined", "News", "OpenSessions", "SessionKeeper", "log_head"]

OPEN_SESSIONS_DIR = "open-sessions"
_CHUNK = 1 << 16
_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


@dataclass(frozen=True)
class News:
    """One session's log entries after a given entry (in log order), and the log's last seq."""

    entries: tuple[dict[str, Any], ...]
    head: int


@dataclass(frozen=True)
class Joined:
    """The state directory's open session, up to date with the log, and its kept file."""

    stored: StoredSession
    progress: Progress


class SessionKeeper(Protocol):
    """Where :class:`~hardware.entropy.session.SessionDice` keeps its sessions and learns what
    other writers did to them (a state directory; :class:`OpenSessions`). The caller holds the
    state directory's lock around every call."""

    owner: Owner

    def mine(self, stored: StoredSession) -> bool:
        """Whether this keeper's owner opened ``stored``."""
        ...

    def opened(self, stored: StoredSession, *, kind: str | None = None) -> StoredSession:
        """Keep a session about to be logged (as opened by ``kind``, default the keeper's
        owner) and return it as kept; ``SessionFileError`` if it cannot be kept."""
        ...

    def saved(self, stored: StoredSession) -> None:
        """Refresh a kept session's cache (best effort)."""
        ...

    def closed(self, session_id: str) -> None:
        """Forget a session whose reveal is in the log."""
        ...

    def head(self) -> int:
        """The seq of the log's last entry (0 for an empty log)."""
        ...

    def news(self, session_id: str, after: int | None) -> News:
        """The session's entries after entry ``after`` (None: from its session entry on)."""
        ...

    def joinable(self, log: _Appends, *, skip: frozenset[str] = frozenset()) -> Joined | None:
        """Reveal the sessions whose opener is gone, then the session still open, if any
        (never one of ``skip``: sessions the caller closed whose reveal waits for the log)."""
        ...


class _Appends(Protocol):
    def append(self, kind: str, **fields: Any) -> dict[str, Any]: ...


def _boot_id() -> str:
    try:
        return _BOOT_ID.read_text(encoding="ascii").strip()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    except OSError:
        return False
    return True


class OpenSessions:
    """``DIR/open-sessions`` and the roll log beside it, as :class:`SessionKeeper`.

    ``owner`` is who opens sessions through this keeper: ``tower`` (a run of the tower: it
    reveals every other tower session it finds, left by an earlier run), ``open`` (``dicetower
    session open``: the session outlives the command) or ``command`` (a ``roll`` command's own
    session). ``log`` hears problems with the files, which never stop a roll that can be
    logged and replayed."""

    def __init__(self, state_dir: str | os.PathLike[str], *, owner: str = "tower",
                 log: Callable[[str], None] | None = None) -> None:
        self.directory = Path(state_dir) / OPEN_SESSIONS_DIR
        self.state_dir = Path(state_dir)
        self.log_path = self.state_dir / "rolls.jsonl"
        self.owner = Owner(owner, os.getpid(), _boot_id(), secrets.token_hex(8))
        self._say = log or (lambda message: None)
        self._said: set[str] = set()  # problems said once (a broken directory is not news every 5 s)

    def _log(self, message: str) -> None:
        if message not in self._said:
            self._said.add(message)
            self._say(message)

    def __repr__(self) -> str:
        return f"OpenSessions({str(self.directory)!r}, owner={self.owner.kind!r})"

    def _file(self, session_id: str) -> Path:
        if not session_id.isalnum():
            raise ValueError(f"a session id is letters and digits, got {session_id!r}")
        return self.directory / f"{session_id}.json"

    # --- keeping the files ---------------------------------------------------------------------------

    def opened(self, stored: StoredSession, *, kind: str | None = None) -> StoredSession:
        """Keep ``stored`` as opened by this keeper's owner (or, with ``kind``, by that kind of
        owner: a session that takes over from a ``session open`` one stays open like it);
        returns it as kept."""
        owner = self.owner if kind is None else replace(self.owner, kind=kind)
        kept = replace(stored, owner=owner)
        try:
            self.directory.mkdir(mode=0o700, exist_ok=True)
            session_file.save_file(self._file(stored.id), kept)
        except (OSError, SessionFileError) as exc:
            # a session whose seed cannot be kept is not opened: if this process stopped, its
            # logged rolls could never be revealed (a full or read-only card: cannot record)
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise LogError(f"cannot keep the new session's seed in {self.directory}: {why}",
                           "cannot keep the seed") from None
        return kept

    def saved(self, stored: StoredSession) -> None:
        try:
            if self._file(stored.id).exists():
                session_file.save_file(self._file(stored.id), stored)
        except SessionFileError as exc:
            self._log(f"session {stored.id}: {exc}")

    def closed(self, session_id: str) -> None:
        try:
            session_file.remove_file(self._file(session_id))
        except SessionFileError as exc:
            self._log(f"session {session_id}: revealed, but {exc}")

    def mine(self, stored: StoredSession) -> bool:
        """Whether this keeper's owner opened ``stored``."""
        return stored.owner.token == self.owner.token

    def left_open(self) -> list[Path]:
        self._migrate()
        try:
            return sorted(p for p in self.directory.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._log(f"cannot look for sessions left open in {self.directory}: {exc.strerror or exc}")
            return []

    def _migrate(self) -> None:
        """An earlier version's ``DIR/session.json`` (``session open``) moves in with the rest."""
        old = self.state_dir / session_file.SESSION_FILE
        if not old.is_file() or old.is_symlink():
            return
        try:
            stored = session_file.load_file(old)
            if stored is not None:
                self.directory.mkdir(mode=0o700, exist_ok=True)
                session_file.save_file(self._file(stored.id), replace(stored, owner=Owner("open")))
            session_file.remove_file(old)
        except (OSError, SessionFileError) as exc:
            self._log(f"cannot move {old} into {self.directory}: {exc}")

    # --- reading the log -----------------------------------------------------------------------------

    def head(self) -> int:
        return log_head(self.log_path)

    def news(self, session_id: str, after: int | None) -> News:
        found: list[dict[str, Any]] = []
        head = 0
        for entry in _backwards(self.log_path):
            seq = entry["seq"]
            head = max(head, seq)
            if after is not None and seq <= after:
                break
            if entry.get("session") == session_id:
                found.append(entry)
                if after is None and entry.get("kind") == "session":
                    break  # the session's first entry: nothing of it comes before
        found.reverse()
        return News(tuple(found), head)

    # --- the open session ----------------------------------------------------------------------------

    def _kept(self, skip: Iterable[str]) -> Iterator[StoredSession]:
        """The kept sessions but ``skip``; a file that cannot be read is reported and left for
        a person to look at."""
        for path in self.left_open():
            if path.stem in skip:
                continue
            try:
                stored = session_file.load_file(path)
            except SessionFileError as exc:
                self._log(f"a session left open cannot be revealed: {exc}")
                continue
            if stored is not None:
                yield stored

    def joinable(self, log: _Appends, *, skip: frozenset[str] = frozenset()) -> Joined | None:
        """Reveal every kept session whose opener is gone (see the module docstring); return
        the session still open, up to date with the log, or None."""
        joined: Joined | None = None
        for stored in self._kept(skip):
            progress = self._caught_up(stored)
            if progress is None:
                continue
            if not self.mine(stored) and self._gone(stored.owner):
                self._reveal(log, stored, progress)
            elif joined is None:
                joined = Joined(stored, progress)
            else:
                self._log(f"session {stored.id} is open beside session {joined.stored.id}: one is revealed")
                self._reveal(log, stored, progress)
        return joined

    def reveal_left_open(self, log: _Appends, log_path: Any = None, *, skip: str | None = None) -> list[str]:
        """Reveal the sessions a stopped opener left open (the tower calls this at start-up,
        before it opens or joins one); returns their ids. A reveal the log cannot take leaves
        its file for the next time (a raised error, or an unrecorded entry)."""
        done = []
        for stored in self._kept([skip] if skip else []):
            if self.mine(stored) or not self._gone(stored.owner):
                continue
            progress = self._caught_up(stored)
            if progress is not None and self._reveal(log, stored, progress):
                done.append(stored.id)
        return done

    def _gone(self, owner: Owner) -> bool:
        """Whether a session's opener can no longer reveal it itself."""
        if owner.kind == "open":
            return False  # open until `dicetower session close`
        if owner.kind == "tower" and self.owner.kind == "tower":
            return True  # one tower per state directory: an earlier run's
        if owner.boot != self.owner.boot:
            return True  # opened before the machine last started
        if owner.pid == self.owner.pid:
            # commands in one process run one after another: another command's is left over
            return owner.kind == "command" and owner.token != self.owner.token
        return not _alive(owner.pid)

    def _caught_up(self, stored: StoredSession) -> Progress | None:
        """``stored`` brought up to date with the log; None (and the file removed) when the log
        has revealed it already, or never logged it (a stop between the file and the entry)."""
        progress = Progress.from_stored(stored)
        news = self.news(stored.id, stored.log_seq)
        for entry in news.entries:
            progress.apply(entry)
        if progress.revealed or not progress.logged:
            self.closed(stored.id)
            return None
        progress.log_seq = max(progress.log_seq or 0, news.head)
        return progress

    def _reveal(self, log: _Appends, stored: StoredSession, progress: Progress) -> bool:
        entry = log.append("reveal", session=stored.id, seed=stored.material.encode().hex(), rolls=progress.rolls,
                           end=progress.position, reason="restart",
                           note=f"revealed by the next writer: its opener ({stored.owner.kind}) stopped before "
                                "revealing it (a power cut, a crash, a kill)")
        if entry.get("unrecorded"):  # a lenient log that could not write: try again next time
            return False
        self.closed(stored.id)
        self._log(f"session {stored.id}, left open when its {stored.owner.kind} stopped, is revealed in the log")
        return True


def log_head(path: str | os.PathLike[str]) -> int:
    """The seq of the last whole entry of the log (0 when there is none)."""
    for entry in _backwards(Path(path)):
        return int(entry["seq"])
    return 0


def _backwards(path: Path) -> Iterator[dict[str, Any]]:
    """The log's whole entries, last first (the current file, then the rotated ones); lines
    that are not whole entries (a torn tail, damage) are skipped. Reads a chunk at a time."""
    try:
        files = chain_files(path)
    except FileNotFoundError:
        return
    except OSError as exc:  # the state directory is not one (a file in its place, no permission)
        raise LogError(f"cannot open the roll log {path}: {exc.strerror or exc}", exc.strerror or "") from None
    for file in reversed(files):
        try:
            fd = open_regular(file, os.O_RDONLY)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise LogError(f"cannot read the roll log {file}: {exc.strerror or exc}") from None
        try:
            yield from _file_backwards(fd)
        except OSError as exc:
            raise LogError(f"cannot read the roll log {file}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)


def _file_backwards(fd: int) -> Iterator[dict[str, Any]]:
    end = os.fstat(fd).st_size
    rest = b""
    chunk = 4096  # the last entry or two first (most reads want only those), then more at a time
    while end > 0:
        start = max(0, end - chunk)
        chunk = min(chunk * 4, _CHUNK)
        data = os.pread(fd, end - start, start) + rest
        end = start
        lines = data.split(b"\n")
        rest = lines.pop(0) if end > 0 else b""
        if len(rest) > MAX_LINE_BYTES:
            rest = b""  # an over-long line is damage: not held
        for raw in reversed(lines):
            entry = _whole(raw)
            if entry is not None:
                yield entry


def _whole(raw: bytes) -> dict[str, Any] | None:
    if not raw.startswith(b"{") or len(raw) > MAX_LINE_BYTES:
        return None
    with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
        entry = json.loads(raw)
        if isinstance(entry, dict) and isinstance(entry.get("seq"), int) and not isinstance(entry["seq"], bool) \
                and entry.get("hash") == entry_hash(entry):
            return entry
    return None
