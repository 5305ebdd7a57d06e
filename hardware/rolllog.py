"""The roll log: append-only JSON lines, each entry carrying the SHA-256 of the one before.

One entry per line, ``{"seq": N, "prev": HEX, "hash": HEX, "kind": ..., "time": ..., ...}``
in canonical JSON (sorted keys, no spaces, ASCII). ``hash`` is the SHA-256 of the entry's
canonical JSON without its ``hash`` field; ``prev`` is the previous entry's hash (64 zeros for
the first). Editing an entry breaks its own hash; editing it and recomputing that hash breaks
the next entry's ``prev``; dropping or reordering entries breaks ``seq`` and ``prev``.
:func:`verify` names the first entry where any of this happens.

Every append is one ``write`` of a whole line, then flush and ``fsync``, under an exclusive
``flock`` (the panel runtime and a command line may share a log). A power cut can at worst
leave the last line incomplete: the next append cuts that torn tail off and records the cut
in a ``recovered`` entry (its length and SHA-256), so the chain stays whole and the loss is
visible. An append that fails part way (a full card) puts the file back as it was. Entry
kinds written by dicetower: ``session``, ``additional``, ``roll``, ``reveal``,
``source_failed``, ``recovered`` (see docs/fairness.md).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from hardware.state import fsync_dir

__all__ = [
    "GENESIS", "LogError", "LogProblem", "LogReport", "RollLog", "StoredEntry", "entry_hash", "read_entries", "verify",
    "verify_entries",
]

#: ``prev`` of the first entry.
GENESIS = "0" * 64
#: Fields every entry has; callers may not set them.
RESERVED = frozenset({"seq", "prev", "hash", "kind", "time"})


class LogError(EngineError):
    """The roll log cannot be appended to (unreadable last entry, I/O error)."""


def entry_hash(entry: dict[str, Any]) -> str:
    """SHA-256 of the entry's canonical JSON without its ``hash`` field."""
    return hashlib.sha256(_canonical({k: v for k, v in entry.items() if k != "hash"})).hexdigest()


def _canonical(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _iso(t_ns: int) -> str:
    return datetime.fromtimestamp(t_ns / 1e9, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _tail(fd: int) -> tuple[bytes | None, int]:
    """The last complete line of the file (without newline) and the length of a torn tail
    (bytes after the last newline)."""
    size = os.lseek(fd, 0, os.SEEK_END)
    if size == 0:
        return None, 0
    chunk = 8192
    data = b""
    pos = size
    while True:
        start = max(0, pos - chunk)
        os.lseek(fd, start, os.SEEK_SET)
        data = os.read(fd, pos - start) + data
        pos = start
        newlines = data.count(b"\n")
        torn = len(data) - (data.rfind(b"\n") + 1) if newlines else len(data)
        if newlines >= 2 or (newlines == 1 and pos == 0) or (newlines == 0 and pos == 0):
            break
        chunk *= 2
    if newlines == 0:
        return None, torn
    body = data[: len(data) - torn - 1]  # up to, not including, the last newline
    return body[body.rfind(b"\n") + 1 :], torn


class RollLog:
    """Appends hash-chained entries to one JSON-lines file.

    ``clock`` gives wall-clock nanoseconds for the ``time`` field (injected for tests).
    ``fsync=False`` skips the per-entry fsync (only for bulk tests; never on a device).
    """

    def __init__(self, path: str | os.PathLike[str], *, clock: Callable[[], int] = time.time_ns,
                 fsync: bool = True) -> None:
        self.path = Path(path)
        self._clock = clock
        self._fsync = fsync

    def __repr__(self) -> str:
        return f"RollLog({str(self.path)!r})"

    def append(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Append one entry and return it as written (with ``seq``, ``prev``, ``time``)."""
        clash = RESERVED & fields.keys()
        if clash:
            raise ValueError(f"entry fields {sorted(clash)} are set by the log itself")
        if not kind or not isinstance(kind, str):
            raise ValueError(f"entry kind must be a non-empty string, got {kind!r}")
        created = not self.path.exists()
        try:
            if created:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:  # a LogError, never a bare OSError: the panel shows it and carries on
            raise LogError(f"cannot open the roll log {self.path}: {exc.strerror or exc}") from None
        size, lost = None, b""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            last, torn = _tail(fd)
            size = os.lseek(fd, 0, os.SEEK_END)
            prev, seq = self._chain_from(last, fd)
            if torn:
                os.lseek(fd, size - torn, os.SEEK_SET)
                lost = os.read(fd, torn)  # known before anything is cut, so a failure can put it back
                prev, seq = self._recover(fd, lost, prev, seq)
            entry = {**fields, "seq": seq, "prev": prev, "kind": kind, "time": _iso(self._clock())}
            entry["hash"] = entry_hash(entry)
            self._write(fd, _canonical(entry))
        except OSError as exc:
            if size is not None:
                _roll_back(fd, size, lost)
            raise LogError(f"cannot write the roll log {self.path}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)  # also releases the lock
        if created and self._fsync:
            fsync_dir(self.path.parent)
        return entry

    def _chain_from(self, last: bytes | None, fd: int) -> tuple[str, int]:
        if last is None:
            return GENESIS, 1
        entry = _valid(last)
        if entry is None:
            return self._bridge_damage(fd)
        return entry_hash(entry), entry["seq"] + 1

    def _bridge_damage(self, fd: int) -> tuple[str, int]:
        """The last line is not an entry (an editor's blank line, a corrupted card sector).

        An unattended tower must keep rolling, and the damage must stay visible: the damaged
        lines are kept in place, and a ``recovered`` entry chains on from the last valid entry,
        so ``log verify`` still names the first damaged line.
        """
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        lines = b"".join(chunks).split(b"\n")
        lines.pop()  # the torn tail (or b""): handled by the caller
        prev, seq, damaged = GENESIS, 1, []
        for raw in reversed(lines):
            entry = _valid(raw)
            if entry is not None:
                prev, seq = entry_hash(entry), entry["seq"] + 1
                break
            damaged.append(raw)
        damaged.reverse()
        bad = b"\n".join(damaged)
        entry = {
            "seq": seq, "prev": prev, "kind": "recovered", "time": _iso(self._clock()),
            "damaged_lines": len(damaged), "damaged_sha256": hashlib.sha256(bad).hexdigest(),
            "note": "lines that are not log entries were found at the end; kept in place, the chain goes on "
                    "from the last valid entry",
        }
        entry["hash"] = entry_hash(entry)
        self._write(fd, _canonical(entry))
        return entry["hash"], seq + 1

    def _recover(self, fd: int, lost: bytes, prev: str, seq: int) -> tuple[str, int]:
        """Cut the torn tail ``lost`` off and log the cut; returns the new chain head."""
        size = os.lseek(fd, 0, os.SEEK_END)
        os.ftruncate(fd, size - len(lost))
        entry = {
            "seq": seq, "prev": prev, "kind": "recovered", "time": _iso(self._clock()),
            "dropped_bytes": len(lost), "dropped_sha256": hashlib.sha256(lost).hexdigest(),
            "note": "an incomplete last line (power cut while writing?) was cut off",
        }
        entry["hash"] = entry_hash(entry)
        self._write(fd, _canonical(entry))
        return entry["hash"], seq + 1

    def _write(self, fd: int, line: bytes) -> None:
        data = line + b"\n"
        written = os.write(fd, data)
        while written < len(data):  # a short write on a full disk or a signal
            written += os.write(fd, data[written:])
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


@dataclass(frozen=True)
class StoredEntry:
    """One line of a log file: its 1-based line number, raw bytes, and parsed entry (or None)."""

    line_no: int
    raw: bytes
    entry: dict[str, Any] | None
    complete: bool


def read_entries(path: str | os.PathLike[str]) -> Iterator[StoredEntry]:
    """Every line of the log, parsed where possible; no chain checks."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    torn = lines.pop()  # b"" when the file ends with a newline
    for i, raw in enumerate(lines, start=1):
        yield StoredEntry(i, raw, _parse(raw), True)
    if torn:
        yield StoredEntry(len(lines) + 1, torn, _parse(torn), False)


def _valid(raw: bytes) -> dict[str, Any] | None:
    """The entry on a line, if the line is one (a JSON object with a whole-number ``seq``)."""
    entry = _parse(raw)
    seq = entry.get("seq") if entry is not None else None
    if isinstance(seq, bool) or not isinstance(seq, int):
        return None
    return entry


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        entry = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    return entry if isinstance(entry, dict) else None


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
        problem = _check(stored, prev, seq)
        if problem is not None:
            return LogReport(Path(path), count, prev, LogProblem(stored.line_no, problem))
        prev, seq, count = (stored.entry or {})["hash"], seq + 1, count + 1
    return LogReport(Path(path), count, prev, None)


def _check(stored: StoredEntry, prev: str, seq: int) -> str | None:
    entry = stored.entry
    if not stored.complete:
        return "incomplete last line (no newline; power cut while writing?)"
    if entry is None:
        return "not a JSON object (edited or damaged)"
    missing = [k for k in ("seq", "prev", "hash", "kind") if k not in entry]
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    if entry["hash"] != entry_hash(entry):
        return "its content does not match its own hash: the entry was edited"
    got = entry["seq"]
    if got != seq + 1:
        if isinstance(got, int) and got > seq + 1:
            return f"seq is {got}, expected {seq + 1}: entries before it were dropped"
        return f"seq is {got}, expected {seq + 1}: entries were duplicated or reordered"
    if entry["prev"] != prev:
        if not seq:
            return "its prev hash is not the start of the log: entries before it were removed"
        return (
            f"its prev hash does not match entry {seq}'s hash ({str(entry['prev'])[:12]}… != {prev[:12]}…): "
            f"entry {seq} was edited and re-hashed, or this entry replaced"
        )
    return None
