"""Following a roll log as it grows: the entries after a given seq, in order, each once.

The steady state reads the current file from a byte offset (a roll costs one ``stat`` and one
short read, not a re-read of the log). Anything older than the current file's first entry
(after a rotation or at start-up) comes from :func:`hardware.files.rolllog.read_entries`,
which walks the rotated files in chain order. Lines that are not entries (damage the log
bridged with a ``recovered`` entry) are skipped; a torn last line waits until it is whole.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hardware.files.rolllog import GENESIS, MAX_LINE_BYTES, LogError, parse_line, read_entries
from hardware.files.safefile import open_file

Entry = dict[str, Any]


def _entry(raw: bytes) -> Entry | None:
    entry = parse_line(raw)
    if entry is None:
        return None
    seq = entry.get("seq")
    return entry if isinstance(seq, int) and not isinstance(seq, bool) else None


class LogTail:
    """The entries of the log at ``path`` after ``after_seq``; :meth:`read` gives the next ones.

    ``after_hash`` is the hash the entry at ``after_seq`` must have (the cursor's): if the log
    holds another entry there, it is not the log the cursor was written for (a new card), and
    the tail starts again from its first entry and calls ``on_restart``. ``on_note`` hears
    about that, and about entries that are gone from the log (rotated files deleted).
    """

    def __init__(self, path: str | os.PathLike[str], after_seq: int = 0, after_hash: str = GENESIS, *,
                 on_note: Callable[[str], None] | None = None,
                 on_restart: Callable[[], None] | None = None) -> None:
        self.path = Path(path)
        self.last_seq = after_seq
        self._check = (after_seq, after_hash) if after_seq else None
        self._on_note = on_note or (lambda note: None)
        self._on_restart = on_restart or (lambda: None)
        self._inode: tuple[int, int] | None = None
        self._offset = 0

    def pending(self) -> bool:
        """Whether the log holds bytes beyond what was read (a new entry, or a rotation)."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) != self._inode or st.st_size != self._offset

    def read(self, limit: int) -> list[Entry]:
        """Up to ``limit`` new entries, oldest first; [] when there is nothing new (or no log yet)."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            return []
        except OSError:
            return []  # unreadable for now (a card being remounted): try again on the next poll
        inode = (st.st_dev, st.st_ino)
        if inode != self._inode or st.st_size < self._offset:
            self._inode, self._offset = inode, 0  # rotated or replaced: read the new file from its start
        if st.st_size == self._offset:
            return []
        out: list[Entry] = []
        try:
            with os.fdopen(open_file(self.path), "rb") as f:  # a FIFO or link there is refused, not waited on
                f.seek(self._offset)
                while len(out) < limit:
                    raw = f.readline(MAX_LINE_BYTES + 1)
                    if len(raw) > MAX_LINE_BYTES:  # damage, not an entry: skipped without holding it
                        while raw and not raw.endswith(b"\n"):
                            self._offset += len(raw)
                            raw = f.readline(MAX_LINE_BYTES + 1)
                        if not raw.endswith(b"\n"):
                            break
                        self._offset += len(raw)
                        continue
                    if not raw.endswith(b"\n"):
                        break  # nothing more, or a line still being written
                    entry = _entry(raw)
                    if entry is not None and not self._take(entry, out, limit):
                        break
                    self._offset += len(raw)
        except OSError:
            pass  # keep what was read; the rest on the next poll
        return out

    def _take(self, entry: Entry, out: list[Entry], limit: int) -> bool:
        """Add ``entry`` (or the older entries it shows are missing) to ``out``; False when
        the line must be read again (older entries came first and filled ``out``)."""
        seq = entry["seq"]
        if self._check is not None and seq == self._check[0] and not self._verify_cursor(entry):
            self._offset = 0  # start again from the first entry, on the next read
            return False
        if seq <= self.last_seq:
            return True
        if seq > self.last_seq + 1:  # older entries are in rotated files (or were asked for again)
            out.extend(self._older(seq, limit - len(out)))
            if len(out) >= limit:
                return False
            if self.last_seq + 1 != seq:  # not in any file any more (rotated files deleted)
                self._on_note(f"roll-log entries {self.last_seq + 1}..{seq - 1} are no longer in the log; "
                              f"going on from entry {seq}")
        out.append(entry)
        self.last_seq = seq
        return True

    def _verify_cursor(self, entry: Entry) -> bool:
        """Whether the log holds the cursor's entry; if not, start again from its beginning."""
        expected = self._check[1] if self._check is not None else None
        self._check = None
        if entry.get("hash") == expected:
            return True
        self._on_note(f"the roll log's entry {entry['seq']} is not the one the cursor names "
                          "(a new log?); publishing it from its first entry")
        self.last_seq = 0
        self._on_restart()
        return False

    def _older(self, before: int, limit: int) -> list[Entry]:
        out: list[Entry] = []
        for stored in self._entries():
            entry = stored.entry
            if entry is None or not stored.complete or not isinstance(entry.get("seq"), int):
                continue
            seq = entry["seq"]
            if seq >= before or len(out) >= limit:
                break
            if self._check is not None and seq == self._check[0] and not self._verify_cursor(entry):
                return self._older(before, limit)  # from the first entry (the check is done now)
            if seq == self.last_seq + 1:
                out.append(entry)
                self.last_seq = seq
        return out

    def _entries(self) -> Iterator[Any]:
        try:
            yield from read_entries(self.path)
        except (LogError, OSError):
            return
