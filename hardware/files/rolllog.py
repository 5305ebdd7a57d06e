"""The roll log: append-only JSON lines, each entry carrying the SHA-256 of the one before.

One entry per line, ``{"seq": N, "prev": HEX, "hash": HEX, "kind": ..., "time": ..., ...}``
in canonical JSON (sorted keys, no spaces, ASCII). ``hash`` is the SHA-256 of the entry's
canonical JSON without its ``hash`` field; ``prev`` is the previous entry's hash (64 zeros for
the first). Editing an entry breaks its own hash; editing it and recomputing that hash breaks
the next entry's ``prev``; dropping or reordering entries breaks ``seq`` and ``prev``.
:func:`verify` names the first entry where any of this happens.

Every append is one ``write`` of a whole line, then ``fsync``, under an exclusive ``flock``
on the file (the panel runtime and a command line may share a log). Files are opened with
``O_NOFOLLOW`` and must be regular files: a symbolic link at the log's path is refused.

A power cut can at worst leave the last line without its newline. If that line is a whole
entry (it parses and its hash checks) the next append completes it with the newline; only
what fails to parse or to hash is a torn tail, cut off and recorded in a ``recovered`` entry
(its length and SHA-256), so the chain stays whole and the loss is visible. An append that
fails part way (a full card) puts the file back as it was and raises :class:`LogError`.

The log rotates by size: when ``rolls.jsonl`` has reached ``rotate_bytes`` it is renamed
``rolls.N.jsonl`` (N one more than the highest already there, so ``rolls.1.jsonl`` is the
oldest) and a new ``rolls.jsonl`` goes on with the chain (``seq`` and ``prev`` continue).
:func:`read_entries` reads the files in that order, one line at a time, in constant memory.
Entry kinds written by dicetower: ``session``, ``additional``, ``roll``, ``reveal``,
``source_failed``, ``recovered`` (docs/fairness.md, docs/roll-log.md).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.chain import GENESIS, StoredEntry, canonical, chain_problem, entry_hash, parse_line
from hardware.errors import HardwareError
from hardware.files.safefile import FileRefused, open_file
from hardware.files.state import fsync_dir

__all__ = [
    "GENESIS", "MAX_LINE_BYTES", "ROTATE_BYTES", "LenientLog", "LogError", "LogProblem", "LogReport", "RollLog",
    "StoredEntry", "chain_files", "entry_hash", "last_entry", "last_lines", "parse_line", "read_entries", "read_error",
    "verify", "verify_entries",
]


#: Fields every entry has; callers may not set them.
RESERVED = frozenset({"seq", "prev", "hash", "kind", "time"})
#: A line longer than this is damage, not an entry (readers never hold more of it).
MAX_LINE_BYTES = 1 << 20
#: Default size at which ``rolls.jsonl`` is rotated (a few years of a busy store's rolls).
ROTATE_BYTES = 64 << 20
_CHUNK = 1 << 16


class LogError(HardwareError):
    """The roll log cannot be read or appended to (a symbolic link, I/O error, full card).

    ``unrevealed`` is set when a session's reveal is what failed: its seed, so the caller can
    still hand it to the player (the session's logged rolls cannot be replayed without it)."""

    unrevealed: str | None = None

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        #: a few words for a small display ("No space left on device")
        self.reason = reason or message


def _iso(t_ns: int) -> str:
    return datetime.fromtimestamp(t_ns / 1e9, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _short(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symbolic link refused"
    return "not a regular file" if isinstance(exc, FileRefused) else str(exc.strerror or exc)


def _why(exc: OSError, path: Path) -> str:
    if exc.errno == errno.ELOOP:
        return f"{path}: it is a symbolic link, and the roll log is never followed through one"
    if isinstance(exc, FileRefused):
        return str(exc.strerror)  # names the path itself
    return f"{path}: {exc.strerror or exc}"


def read_error(exc: OSError, path: Path) -> LogError:
    """The :class:`LogError` of a log file that cannot be read (``cannot read the roll log …``:
    exit 4 on the command line), worded as every reader of the log words it."""
    return LogError(f"cannot read the roll log {_why(exc, path)}", _short(exc))


def open_regular(path: Path, flags: int, mode: int = 0o644) -> int:
    """A file of the log, opened by the one rule (:func:`hardware.files.safefile.open_file`: no link
    followed, no blocking, a regular file). Raises OSError (ELOOP for a symlink)."""
    return open_file(path, flags, mode)


# --- the files of one log --------------------------------------------------------------------


def _rotated_pattern(path: Path) -> re.Pattern[str]:
    stem, suffix = (path.stem, path.suffix) if path.suffix else (path.name, "")
    return re.compile(rf"^{re.escape(stem)}\.([1-9][0-9]*){re.escape(suffix)}$")


def _rotated_name(path: Path, n: int) -> Path:
    stem, suffix = (path.stem, path.suffix) if path.suffix else (path.name, "")
    return path.with_name(f"{stem}.{n}{suffix}")


def _rotated(path: Path) -> list[tuple[int, Path]]:
    pattern = _rotated_pattern(path)
    try:
        names = os.listdir(path.parent)
    except FileNotFoundError:
        return []
    found = [(int(m.group(1)), path.parent / name) for name in names if (m := pattern.match(name))]
    return sorted(found)


def chain_files(path: str | os.PathLike[str]) -> list[Path]:
    """The files of the log whose current file is ``path``, oldest first: the rotated
    ``rolls.1.jsonl``, ``rolls.2.jsonl``, ... then ``rolls.jsonl`` itself (if it exists)."""
    path = Path(path)
    files = [p for _, p in _rotated(path)]
    if os.path.lexists(path):
        files.append(path)
    return files


# --- reading the end of a file ---------------------------------------------------------------


def _last_newline(fd: int, end: int) -> int:
    """Offset of the last newline before ``end``, or -1; reads backwards in small chunks."""
    pos = end
    while pos > 0:
        start = max(0, pos - _CHUNK)
        chunk = os.pread(fd, pos - start, start)
        i = chunk.rfind(b"\n")
        if i >= 0:
            return start + i
        pos = start
    return -1


def _tail(fd: int) -> tuple[bytes | None, int]:
    """The file's last newline-terminated line (without its newline; None when there is none,
    b"" standing for an over-long one) and the length of what follows the last newline (the
    unterminated tail)."""
    size = os.fstat(fd).st_size
    nl = _last_newline(fd, size)
    torn = size - (nl + 1)
    if nl < 0:
        return None, torn
    before = _last_newline(fd, nl)
    length = nl - (before + 1)
    return (os.pread(fd, length, before + 1) if length <= MAX_LINE_BYTES else b""), torn


def _whole(raw: bytes) -> dict[str, Any] | None:
    """The entry on an unterminated line if it is a whole one (parses, and its hash checks)."""
    entry = _valid(raw)
    if entry is None or entry.get("hash") != entry_hash(entry):
        return None
    return entry


class RollLog:
    """Appends hash-chained entries to one JSON-lines file (rotated by size).

    ``clock`` gives wall-clock nanoseconds for the ``time`` field (injected for tests).
    ``fsync=False`` skips the per-entry fsync (only for bulk tests; never on a device).
    ``rotate_bytes`` is the size at which the current file is rotated (None: never).
    ``write`` is the seam every byte goes through (``os.write``; tests inject a full disk).
    """

    def __init__(self, path: str | os.PathLike[str], *, clock: Callable[[], int] = time.time_ns,
                 fsync: bool = True, rotate_bytes: int | None = ROTATE_BYTES,
                 write: Callable[[int, bytes], int] = os.write) -> None:
        self.path = Path(path)
        self._clock = clock
        self._fsync = fsync
        self._rotate_bytes = rotate_bytes
        self._os_write = write
        self._directory: tuple[int, int] | None = None  # (st_dev, st_ino) of the directory appended in

    def __repr__(self) -> str:
        return f"RollLog({str(self.path)!r})"

    def append(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Append one entry and return it as written (with ``seq``, ``prev``, ``time``)."""
        clash = RESERVED & fields.keys()
        if clash:
            raise ValueError(f"entry fields {sorted(clash)} are set by the log itself")
        if not kind or not isinstance(kind, str):
            raise ValueError(f"entry kind must be a non-empty string, got {kind!r}")
        canonical(fields)  # a value JSON cannot hold fails here, before the file is touched
        while True:
            fd, created = self._open_locked()
            try:
                entry = self._append_locked(fd, kind, fields)
            finally:
                os.close(fd)  # also releases the lock
            if entry is not None:
                break
            # rotated: append to the new current file
        if created and self._fsync:
            fsync_dir(self.path.parent)
        return entry

    def _open_locked(self) -> tuple[int, bool]:
        """The current file, created if missing, under its exclusive lock. A file that was
        rotated away while this process waited for the lock is let go, and the new one taken."""
        while True:
            created = not os.path.lexists(self.path)
            try:
                self._same_directory(created)
                if created and self._directory is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = open_regular(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
            except OSError as exc:  # a LogError, never a bare OSError: the panel shows it
                raise LogError(f"cannot open the roll log {_why(exc, self.path)}", _short(exc)) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    current = os.stat(self.path, follow_symlinks=False)
                except FileNotFoundError:
                    current = None
                mine = os.fstat(fd)
                if current is not None and (current.st_ino, current.st_dev) == (mine.st_ino, mine.st_dev):
                    if self._directory is None:
                        parent = os.stat(self.path.parent)
                        self._directory = (parent.st_dev, parent.st_ino)
                    return fd, created
            except OSError as exc:
                os.close(fd)
                raise LogError(f"cannot lock the roll log {_why(exc, self.path)}", _short(exc)) from None
            os.close(fd)

    def _same_directory(self, created: bool) -> None:
        """Once this log has appended, its directory must stay the one it appended in: a state
        directory removed (or removed and made again) while a command or the tower runs would
        otherwise be recreated with a new chain starting at seq 1, silently cut off from the
        entries before it. Raises :class:`LogError` (nothing more is recorded). A directory made
        again may get the removed one's inode number back, and another writer's lock may be
        what made it again (``created``: the current file is missing), so a log of which no
        file is left at all is taken for a removed one too."""
        if self._directory is None:
            return
        try:
            now = os.stat(self.path.parent)
        except OSError:
            now = None
        if now is None or (now.st_dev, now.st_ino) != self._directory or (created and not chain_files(self.path)):
            raise LogError(f"cannot write the roll log {self.path}: its directory {self.path.parent} was removed "
                           "or replaced since the last entry; nothing more is recorded (a new chain is not started "
                           "in its place)", "state directory removed")

    def _append_locked(self, fd: int, kind: str, fields: dict[str, Any]) -> dict[str, Any] | None:
        size, lost = None, b""
        try:
            last, torn = _tail(fd)
            size = os.fstat(fd).st_size
            if torn and torn <= MAX_LINE_BYTES:
                unterminated = os.pread(fd, torn, size - torn)
                if _whole(unterminated) is not None:  # a whole entry that only lacks its newline
                    self._write(fd, b"\n")
                    last, torn = unterminated, 0
                    size += 1
            elif torn:  # longer than any line: not a write a power cut stopped, but damage; it is
                self._write(fd, b"\n")  # ended and kept in place (never read whole), then bridged
                last, torn = b"", 0
                size += 1
            if self._rotate_bytes is not None and not torn and last is not None and size >= self._rotate_bytes:
                self._rotate()
                return None
            prev, seq = self._chain_from(fd, last)
            if torn:
                lost = os.pread(fd, torn, size - torn)  # known before anything is cut, to put back
                prev, seq = self._recover(fd, lost, prev, seq)
            entry = {**fields, "seq": seq, "prev": prev, "kind": kind, "time": _iso(self._clock())}
            entry["hash"] = entry_hash(entry)
            self._write(fd, canonical(entry) + b"\n")
        except OSError as exc:
            if size is not None:
                _roll_back(fd, size, lost)
            raise LogError(f"cannot write the roll log {_why(exc, self.path)}", _short(exc)) from None
        return entry

    def _rotate(self) -> None:
        """Rename the full current file to the next ``rolls.N.jsonl`` (under its lock)."""
        taken = _rotated(self.path)
        target = _rotated_name(self.path, (taken[-1][0] if taken else 0) + 1)
        os.rename(self.path, target)
        fsync_dir(self.path.parent)

    def _chain_from(self, fd: int, last: bytes | None) -> tuple[str, int]:
        if last is None:
            return self._chain_from_rotated()
        entry = _valid(last)
        if entry is None:
            return self._bridge_damage(fd)
        return entry_hash(entry), entry["seq"] + 1

    def _chain_from_rotated(self) -> tuple[str, int]:
        """A new current file goes on from the last entry of the newest rotated file."""
        taken = _rotated(self.path)
        if not taken:
            return GENESIS, 1
        older = taken[-1][1]
        rfd = open_regular(older, os.O_RDONLY)
        try:
            last, _ = _tail(rfd)
            entry = _valid(last) if last is not None else None
            if entry is None:
                return self._last_valid(rfd)[:2]
            return entry_hash(entry), entry["seq"] + 1
        finally:
            os.close(rfd)

    def _last_valid(self, fd: int, *, before: Callable[[], tuple[str, int]] | None = None
                    ) -> tuple[str, int, int, str]:
        """Chain head after the file's last valid entry, the number of damaged lines
        after it, and their SHA-256 (joined by newlines); one line at a time. A file with no
        valid entry at all goes on from ``before()`` (the rotated files), if given."""
        prev, seq, damaged, digest, found = GENESIS, 1, 0, hashlib.sha256(), False
        for raw, terminated in _lines(fd):
            if not terminated:
                break  # the torn tail: the caller's
            entry = _valid(raw)
            if entry is not None:
                prev, seq, damaged, digest, found = entry_hash(entry), entry["seq"] + 1, 0, hashlib.sha256(), True
                continue
            if damaged:
                digest.update(b"\n")
            digest.update(raw)
            damaged += 1
        if not found and before is not None:
            prev, seq = before()
        return prev, seq, damaged, digest.hexdigest()

    def _bridge_damage(self, fd: int) -> tuple[str, int]:
        """The last line is not an entry (an editor's blank line, a corrupted card sector).

        An unattended tower must keep rolling, and the damage must stay visible: the damaged
        lines are kept in place, and a ``recovered`` entry chains on from the last valid entry,
        so ``log verify`` still names the first damaged line.
        """
        prev, seq, damaged, digest = self._last_valid(fd, before=self._chain_from_rotated)
        entry = {
            "seq": seq, "prev": prev, "kind": "recovered", "time": _iso(self._clock()),
            "damaged_lines": damaged, "damaged_sha256": digest,
            "note": "lines that are not log entries were found at the end; kept in place, the chain goes on "
                    "from the last valid entry",
        }
        head = entry["hash"] = entry_hash(entry)
        self._write(fd, canonical(entry) + b"\n")
        return head, seq + 1

    def _recover(self, fd: int, lost: bytes, prev: str, seq: int) -> tuple[str, int]:
        """Cut the torn tail ``lost`` off and log the cut; returns the new chain head."""
        size = os.fstat(fd).st_size
        os.ftruncate(fd, size - len(lost))
        entry = {
            "seq": seq, "prev": prev, "kind": "recovered", "time": _iso(self._clock()),
            "dropped_bytes": len(lost), "dropped_sha256": hashlib.sha256(lost).hexdigest(),
            "note": "an incomplete last line (power cut while writing?) was cut off",
        }
        head = entry["hash"] = entry_hash(entry)
        self._write(fd, canonical(entry) + b"\n")
        return head, seq + 1

    def _write(self, fd: int, data: bytes) -> None:
        written = 0
        while written < len(data):  # a short write on a full disk or a signal
            n = self._os_write(fd, data[written:])
            if n <= 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            written += n
        if self._fsync:
            os.fsync(fd)


def _roll_back(fd: int, size: int, lost: bytes) -> None:
    """After a failed append (a full card, an I/O error): put the file back as it was, so a
    write that stopped half way does not leave a torn line behind it (which the next append
    would record as a power cut). ``lost`` is a torn tail that the append had already cut."""
    try:
        os.ftruncate(fd, size - len(lost))
        if lost:
            os.write(fd, lost)
    except OSError:  # the original error is the one to report
        pass


class LenientLog:
    """A roll log for ``kiosk.unrecorded = "show"``: an append that fails is counted and
    remembered instead of raised, so the dice keep rolling without a log. The tower checks
    :attr:`failures` after each roll and marks the result UNRECORDED."""

    def __init__(self, log: RollLog) -> None:
        self.log = log
        self.failures = 0
        self.last_error = ""
        self.last_reason = ""

    def __repr__(self) -> str:
        return f"LenientLog({self.log!r})"

    @property
    def path(self) -> Path:
        return self.log.path

    def append(self, kind: str, **fields: Any) -> dict[str, Any]:
        try:
            return self.log.append(kind, **fields)
        except LogError as exc:
            self.failures += 1
            self.last_error, self.last_reason = str(exc), exc.reason
            return {**fields, "kind": kind, "seq": None, "unrecorded": True}


# --- reading -----------------------------------------------------------------------------------


def _lines(fd: int, start: int = 0) -> Iterator[tuple[bytes, bool]]:
    """Each line of the open file (from byte ``start``, a line's start) and whether it ended in
    a newline (only the last may not); a line longer than :data:`MAX_LINE_BYTES` comes as
    ``b""`` (its bytes are skipped, not held)."""
    for _, raw, terminated in _spans(fd, start):
        yield raw, terminated


def _spans(fd: int, start: int = 0) -> Iterator[tuple[int, bytes, bool]]:
    """:func:`_lines` with the byte offset each line starts at."""
    with os.fdopen(os.dup(fd), "rb", buffering=_CHUNK) as f:
        f.seek(start)
        offset = start
        while raw := f.readline(MAX_LINE_BYTES + 1):
            at, offset = offset, offset + len(raw)
            if raw.endswith(b"\n"):
                yield at, raw[:-1], True
            elif len(raw) <= MAX_LINE_BYTES:
                yield at, raw, False  # the unterminated end of the file
            else:
                more = raw
                while more and not more.endswith(b"\n"):
                    more = f.readline(_CHUNK)
                    offset += len(more)
                yield at, b"", bool(more)


def read_entries(path: str | os.PathLike[str]) -> Iterator[StoredEntry]:
    """Every line of the log whose current file is ``path`` (rotated files first, oldest
    first), parsed where possible; no chain checks. Streams: one line in memory at a time."""
    path = Path(path)
    files = chain_files(path)
    if not files:
        raise LogError(f"no roll log at {path}")
    line_no = 0
    for file in files:
        try:
            fd = open_regular(file, os.O_RDONLY)
        except OSError as exc:
            raise read_error(exc, file) from None
        try:
            for raw, terminated in _lines(fd):
                line_no += 1
                entry = parse_line(raw)
                complete = terminated or _whole(raw) is not None
                yield StoredEntry(line_no, raw, entry, complete)
        except OSError as exc:
            raise read_error(exc, file) from None
        finally:
            os.close(fd)


def last_lines(path: str | os.PathLike[str], n: int) -> Iterator[StoredEntry]:
    """The last ``n`` lines of the log, as :func:`read_entries` gives them (rotated files
    first, numbered through all files). Memory grows with ``n`` by 12 bytes a line, not by the
    entries: one pass keeps a ring of the last ``n`` line starts (file and offset), then the
    lines are read from the first of them. Both passes read the same open files, so a rotation
    in between changes nothing; lines appended in between are not shown."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    path = Path(path)
    files = chain_files(path)
    if not files:
        raise LogError(f"no roll log at {path}")
    fds: list[int] = []
    try:
        for file in files:
            try:
                fds.append(open_regular(file, os.O_RDONLY))
            except OSError as exc:
                raise read_error(exc, file) from None
        yield from _ring_tail(files, fds, n)
    finally:
        for fd in fds:
            os.close(fd)


def _ring_tail(files: list[Path], fds: list[int], n: int) -> Iterator[StoredEntry]:
    from array import array

    offsets, where = array("q", bytes(8 * n)), array("I", bytes(4 * n))
    count = 0
    for index, (file, fd) in enumerate(zip(files, fds, strict=True)):
        try:
            for at, _, _ in _spans(fd):
                slot = count % n
                offsets[slot], where[slot] = at, index
                count += 1
        except OSError as exc:
            raise read_error(exc, file) from None
    wanted = min(n, count)
    if not wanted:
        return
    first = count - wanted
    index, start = where[first % n], offsets[first % n]
    del offsets, where
    line_no = first
    for i in range(index, len(fds)):
        try:
            for raw, terminated in _lines(fds[i], start if i == index else 0):
                line_no += 1
                yield StoredEntry(line_no, raw, parse_line(raw), terminated or _whole(raw) is not None)
                if line_no >= count:
                    return
        except OSError as exc:
            raise read_error(exc, files[i]) from None


def entries_mentioning(path: str | os.PathLike[str], needles: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    """The parsed entries of the whole log (rotated files first) whose line contains one of
    ``needles``; other lines are skipped unparsed, so a search for one session's entries
    reads a large log at the speed of the disk. A missing log yields nothing."""
    wanted = tuple(needles)
    for file in chain_files(path):
        try:
            fd = open_regular(file, os.O_RDONLY)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise read_error(exc, file) from None
        try:
            for raw, _ in _lines(fd):
                if any(n in raw for n in wanted):
                    entry = parse_line(raw)
                    if entry is not None:
                        yield entry
        except OSError as exc:
            raise read_error(exc, file) from None
        finally:
            os.close(fd)


def last_entry(path: str | os.PathLike[str], kind: str, *, max_bytes: int = 1 << 20,
               where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any] | None:
    """The last whole entry of ``kind`` (for which ``where`` holds, if given), looking back at
    most ``max_bytes`` from the end of the log (into rotated files if the current one is
    shorter); reads backwards, a chunk at a time (the state caches' check after a crash)."""
    budget = max_bytes
    for file in reversed(chain_files(path)):
        found, used = _last_in_file(file, kind, budget, where)
        budget -= used
        if found is not None or budget <= 0:
            return found
    return None


def _last_in_file(path: Path, kind: str, max_bytes: int,
                  where: Callable[[dict[str, Any]], bool] | None) -> tuple[dict[str, Any] | None, int]:
    try:
        fd = open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return None, 0
    except OSError as exc:
        raise read_error(exc, path) from None
    try:
        size = end = os.fstat(fd).st_size
        floor = max(0, end - max_bytes)
        while end > floor:
            nl = _last_newline(fd, end)
            start = max(nl + 1, floor)
            if end - start <= MAX_LINE_BYTES:
                entry = _whole(os.pread(fd, end - start, start).rstrip(b"\n"))
                if entry is not None and entry.get("kind") == kind and (where is None or where(entry)):
                    return entry, size - start
            if nl < 0:
                break
            end = nl
    except OSError as exc:
        raise read_error(exc, path) from None
    finally:
        os.close(fd)
    return None, size - floor


def _valid(raw: bytes) -> dict[str, Any] | None:
    """The entry on a line, if the line is one (a JSON object with a whole-number ``seq``)."""
    entry = parse_line(raw)
    seq = entry.get("seq") if entry is not None else None
    if isinstance(seq, bool) or not isinstance(seq, int):
        return None
    return entry


@dataclass(frozen=True)
class LogProblem:
    """The first place the chain breaks: line number and what is wrong there."""

    line_no: int
    message: str

    def __str__(self) -> str:
        return f"entry {self.line_no}: {self.message}"


@dataclass(frozen=True)
class LogReport:
    """Result of :func:`verify`: entries checked, hash of the last good entry, first problem."""

    path: Path
    entries: int
    head: str
    problem: LogProblem | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def verify(path: str | os.PathLike[str]) -> LogReport:
    """Check the whole chain; stop at the first bad entry.

    An entry is bad when its line is not complete JSON with ``seq``/``prev``/``hash``/``kind``,
    when its content does not match its own ``hash`` (edited), when its ``seq`` is not one more
    than the previous one (entries dropped, duplicated or moved), or when its ``prev`` is not
    the previous entry's hash (the previous entry edited and re-hashed, or this one replaced).
    """
    path = Path(path)
    return verify_entries(read_entries(path), path)


def verify_entries(entries: Iterable[StoredEntry], path: str | os.PathLike[str] = "-") -> LogReport:
    """:func:`verify` on entries from anywhere (a file, a broker's stream), in log order."""
    prev, seq, count = GENESIS, 0, 0
    for stored in entries:
        problem = chain_problem(stored, prev, seq)
        if problem is not None:
            return LogReport(Path(path), count, prev, LogProblem(stored.line_no, problem))
        prev, seq, count = (stored.entry or {})["hash"], seq + 1, count + 1
    return LogReport(Path(path), count, prev, None)
