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
- Every file here is read and written by the one rule of :mod:`hardware.safefile` (the folder
  and its files never followed through a link, no FIFO waited on, sizes and depths capped),
  the log too. A kept file that cannot be read is left for a person; if it is the only file
  of the session the log holds open, writers stop rather than open one beside it.
  ``session show`` reads all this without the lock and writes nothing (:meth:`showable`).
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
from hardware.entropy.session_file import Owner, SessionFileError, SessionWriteError, StoredSession
from hardware.rolllog import MAX_LINE_BYTES, LogError, chain_files, entry_hash, open_regular, read_error
from hardware.safefile import list_dir

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
    """Where :class:`~hardware.entropy.session_dice.SessionDice` keeps its sessions and learns what
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
        self.state_dir = Path(state_dir)
        self.directory = self.state_dir / OPEN_SESSIONS_DIR  # never followed through a link (hardware.safefile)
        self.log_path = self.state_dir / "rolls.jsonl"
        self.owner = Owner(owner, os.getpid(), _boot_id(), secrets.token_hex(8))
        self._say = log or (lambda message: None)
        self._said: set[str] = set()  # problems said once (a broken directory is not news every 5 s)
        self._listing_problem: str | None = None  # why open-sessions/ could not be listed, last time

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
        returns it as kept. A session whose seed cannot be kept is not opened: if this process
        stopped, its logged rolls could never be revealed. A full or read-only card is
        :class:`~hardware.entropy.session_file.SessionWriteError` (a ``LogError``: cannot
        record, exit 4); an ``open-sessions`` that is not a directory of ours (a link, a file)
        is :class:`~hardware.entropy.session_file.SessionFileError` (exit 2: a person moves it)."""
        owner = self.owner if kind is None else replace(self.owner, kind=kind)
        kept = replace(stored, owner=owner)
        try:
            session_file.save_file(self._file(stored.id), kept, below=self.state_dir)
        except SessionWriteError as exc:
            raise SessionWriteError(f"cannot keep the new session's seed in {self.directory}: {exc.reason}",
                                    exc.reason) from None
        return kept

    def saved(self, stored: StoredSession) -> None:
        """Refresh the cache of a kept session (never recreating one that was forgotten). Best
        effort: the log is the truth, and the next writer catches up from it."""
        path = self._file(stored.id)
        try:
            if os.path.lexists(path):
                session_file.save_file(path, stored, below=self.state_dir)
        except SessionFileError as exc:
            self._log(f"session {stored.id}: {exc}")

    def closed(self, session_id: str) -> None:
        try:
            session_file.remove_file(self._file(session_id), below=self.state_dir)
        except SessionFileError as exc:
            self._log(f"session {session_id}: revealed, but {exc}")

    def mine(self, stored: StoredSession) -> bool:
        """Whether this keeper's owner opened ``stored``."""
        return stored.owner.token == self.owner.token

    def left_open(self, *, say: bool = True) -> list[Path]:
        """The kept files in ``open-sessions/`` (listed through a descriptor: the folder is
        never followed through a link). Only lists: nothing is moved or written. A folder that
        cannot be listed lists nothing, and is said (unless not ``say`` and it is the folder
        itself, which the caller refuses: :meth:`_refuse_lost`)."""
        self._listing_problem = None
        try:
            names = list_dir(self.directory, below=self.state_dir)
        except FileNotFoundError:
            return []
        except OSError as exc:
            problem = f"cannot look for sessions left open in {self.directory}: {exc.strerror or exc}"
            if exc.filename == str(self.directory):  # the folder itself, not the state directory
                self._listing_problem = problem
            if say or self._listing_problem is None:
                self._log(problem)
            return []
        return sorted(self.directory / name for name in names if name.endswith(".json") and not name.startswith("."))

    @property
    def legacy_file(self) -> Path:
        """Where earlier versions kept the ``session open`` session."""
        return self.state_dir / session_file.SESSION_FILE

    def _legacy(self) -> StoredSession | None:
        """The session in an earlier version's ``DIR/session.json`` (a ``session open`` one),
        read by the one rule (a link, a FIFO, a huge or deep file there is refused, never
        followed or waited on); None when there is none. Raises ``SessionFileError``."""
        stored = session_file.load_file(self.legacy_file)
        return replace(stored, owner=Owner("open")) if stored is not None else None

    def _migrate(self, stored: StoredSession) -> None:
        """Move the legacy session in with the rest (under the lock, like every keeper write);
        trouble is said and the file stays where it is, read again next time."""
        try:
            session_file.save_file(self._file(stored.id), stored, below=self.state_dir)
            session_file.remove_file(self.legacy_file)
        except SessionFileError as exc:
            self._log(f"cannot move {self.legacy_file} into {self.directory}: {exc}")

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

    def _kept(self, skip: Iterable[str], unreadable: dict[Path, str] | None = None, *,
              migrate: bool = True) -> Iterator[StoredSession]:
        """The kept sessions but ``skip``, the legacy ``session.json`` first (moved in when
        ``migrate``; read where it is otherwise). A file (or the folder) that cannot be read is
        left for a person to look at: noted in ``unreadable`` (path -> why) for the caller to
        refuse or say (:meth:`_passed_over`), or said at once without it."""
        problems: dict[Path, str] = {} if unreadable is None else unreadable
        listed = self.left_open(say=False)
        if self._listing_problem is not None:
            problems[self.directory] = self._listing_problem
        paths: list[Path | None] = [None, *listed]  # None: the legacy file
        seen: set[str] = set()  # a legacy file moved in, but not yet removed, is there twice
        for path in paths:
            if path is not None and (path.stem in skip or path.stem in seen):
                continue
            try:
                stored = self._legacy() if path is None else session_file.load_file(path, below=self.state_dir)
            except SessionFileError as exc:
                problems[path or self.legacy_file] = str(exc)
                continue
            if stored is None or stored.id in skip or stored.id in seen:
                continue
            seen.add(stored.id)
            if path is None and migrate:
                self._migrate(stored)
            yield stored
        if unreadable is None:
            self._passed_over(problems)

    def _passed_over(self, unreadable: dict[Path, str]) -> None:
        """Say each file (or the folder) that could not be read and is left for a person."""
        for path, why in unreadable.items():
            if path == self.directory:
                self._log(why)
            elif path == self.legacy_file:
                self._log(f"cannot move {path} into {self.directory}: {why}")
            else:
                self._log(f"a session left open cannot be revealed: {why}")

    def joinable(self, log: _Appends, *, skip: frozenset[str] = frozenset()) -> Joined | None:
        """Reveal every kept session whose opener is gone (see the module docstring); return
        the session still open, up to date with the log, or None. When none is, but the log
        holds a session open whose file cannot be read, that file is
        :class:`~hardware.entropy.session_file.SessionFileError`: a session opened now would
        stand beside it in the log, for ever, though a person could still put the file back."""
        joined: Joined | None = None
        unreadable: dict[Path, str] = {}
        for stored in self._kept(skip, unreadable):
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
        if joined is None and unreadable:
            self._refuse_lost(unreadable, skip)
        self._passed_over(unreadable)
        return joined

    def showable(self) -> Joined | None:
        """The open session as :meth:`joinable` would find it, read without writing anything:
        no lock is needed (kept files are replaced atomically, the log is only appended to),
        and nothing is moved, revealed or removed, so it works on a read-only card. The legacy
        ``session.json`` is read where it is. A session whose opener is gone (the next writer
        reveals it) is passed over, as is a kept file the log has revealed or never logged."""
        unreadable: dict[Path, str] = {}
        shown: Joined | None = None
        for stored in self._kept((), unreadable, migrate=False):
            progress = self._progress(stored)
            if shown is None and not progress.revealed and progress.logged \
                    and (self.mine(stored) or not self._gone(stored.owner)):
                shown = Joined(stored, progress)
        if shown is None and unreadable:
            self._refuse_lost(unreadable, frozenset())
        self._passed_over(unreadable)
        return shown

    def _refuse_lost(self, unreadable: dict[Path, str], skip: frozenset[str]) -> None:
        """Raise ``SessionFileError`` when ``open-sessions/`` cannot be looked into (no session
        can be found or kept there), or when the session the log holds open has only a file
        that cannot be read (its own, or the legacy ``session.json``)."""
        if self.directory in unreadable:
            raise SessionFileError(f"{unreadable[self.directory]}; every session's seed is kept there: move it away")
        open_id = self._open_in_log()
        if open_id is None or open_id in skip:
            return
        for path, why in unreadable.items():
            if path.stem == open_id or path == self.legacy_file:
                raise SessionFileError(f"{why}; the log holds session #{open_id[:8]} open and only this file can "
                                       "reveal it: put it back, or move it away to give up its seed")

    def _open_in_log(self) -> str | None:
        """The session the log holds open: its last ``session`` entry, unless revealed after."""
        revealed: set[Any] = set()
        for entry in _backwards(self.log_path):
            kind, sid = entry.get("kind"), entry.get("session")
            if kind == "reveal":
                revealed.add(sid)
            elif kind == "session":
                return sid if isinstance(sid, str) and sid not in revealed else None
        return None

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

    def _progress(self, stored: StoredSession) -> Progress:
        """Where ``stored`` stands, as the log says (in memory: nothing is written). The file's
        cache (DRBG, roll count, table seed, log_seq) is never taken on trust: the DRBG is
        re-derived from the seed and every logged entry of the session, from its ``session``
        entry on, so a damaged or edited cache changes nothing the table is shown."""
        progress = Progress.fresh(stored.material, stored.block_bytes, None)
        news = self.news(stored.id, None)
        for entry in news.entries:
            progress.apply(entry)
        progress.log_seq = max(progress.log_seq or 0, news.head)
        return progress

    def _caught_up(self, stored: StoredSession) -> Progress | None:
        """``stored`` brought up to date with the log; None (and the file removed) when the log
        has revealed it already, or never logged it (a stop between the file and the entry)."""
        progress = self._progress(stored)
        if progress.revealed or not progress.logged:
            self.closed(stored.id)
            return None
        return progress

    def _reveal(self, log: _Appends, stored: StoredSession, progress: Progress) -> bool:
        entry = log.append("reveal", session=stored.id, seed=stored.material.encode().hex(), rolls=progress.rolls,
                           end=progress.position, reason="restart",
                           by="tower" if self.owner.kind == "tower" else "command-line",
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
    that are not whole entries (a torn tail, damage) are skipped. Reads a chunk at a time;
    each file is opened by the one rule (:func:`hardware.rolllog.open_regular`: a FIFO or a
    link at ``rolls.jsonl`` is refused, never waited on or followed)."""
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
            raise read_error(exc, file) from None
        try:
            yield from _file_backwards(fd)
        except OSError as exc:
            raise read_error(exc, file) from None
        finally:
            os.close(fd)


def _file_backwards(fd: int) -> Iterator[dict[str, Any]]:
    end = os.fstat(fd).st_size
    rest = b""  # the start of a line whose end was read already
    overlong = False  # inside a line longer than any entry: damage, skipped without holding it
    chunk = 4096  # the last entry or two first (most reads want only those), then more at a time
    while end > 0:
        start = max(0, end - chunk)
        chunk = min(chunk * 4, _CHUNK)
        data = os.pread(fd, end - start, start)
        end = start
        if overlong:
            newline = data.rfind(b"\n")
            if newline < 0:
                continue
            data, overlong = data[:newline], False
        else:
            data += rest
        lines = data.split(b"\n")
        rest = lines.pop(0) if end > 0 else b""
        if len(rest) > MAX_LINE_BYTES:
            rest, overlong = b"", True
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
