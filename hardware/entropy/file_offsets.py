"""How far each ``file:PATH`` entropy source has been read: ``DIR/entropy-files.json``.

A regular file given as ``file:PATH`` (a capture of a noise source) holds a fixed supply of
bytes, and bytes used to seed one session must never seed another: a seed built from them
again would repeat entropy a witness may already know (``reused-entropy``). So the state
directory keeps, for each such file (by its resolved path), the offset up to which it has been
read, and the first bytes of it (a fingerprint: the same capture copied under another name is
refused too). Every read starts at the kept offset, and the new offset is written atomically
(:func:`hardware.files.state.atomic_write_json`) *before* the bytes read are used: a stop between
the two wastes bytes, it never uses them twice. A file that has too few bytes left for a
session, that is shorter than what was read of it (replaced by another), or that starts like
one read already is a one-line error naming it, and no roll. Written under the state
directory's lock, which every caller that opens a session holds.

A device or a FIFO (``/dev/hwrng``, ``/dev/urandom``) is a stream: read on, never from a
start, and needs no offset. A regular file without a state directory is refused: there would
be no place to keep the offset, and each run would read it again from its start.
"""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path
from typing import Any

from hardware.errors import HardwareError

__all__ = ["OFFSETS_FILE", "FileOffsets", "OffsetError"]

OFFSETS_FILE = "entropy-files.json"
_VERSION = 1
_MAX_BYTES = 1 << 20
_MAX_DEPTH = 4
#: Bytes of a file's start kept as its fingerprint (hashed).
HEAD_BYTES = 64


class OffsetError(HardwareError):
    """The offsets cannot be read or written (the message names the file and why)."""


class FileOffsets:
    """``DIR/entropy-files.json``: the offset read so far of each ``file:`` source."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / OFFSETS_FILE

    def __repr__(self) -> str:
        return f"FileOffsets({str(self.path)!r})"

    def _load(self) -> dict[str, Any]:
        from hardware.files.safefile import FileRefused, load_json

        try:
            data = load_json(self.path, _MAX_BYTES, _MAX_DEPTH, below=self.state_dir)
        except (FileNotFoundError, NotADirectoryError):
            return {}
        except FileRefused as exc:
            raise OffsetError(f"cannot read {self.path}: {exc.strerror}") from None
        except OSError as exc:
            why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or exc
            raise OffsetError(f"cannot read {self.path}: {why}") from None
        except ValueError:
            raise OffsetError(f"{self.path} (how far captures were read) is damaged: move it away only with "
                              "captures never read here") from None
        files = data.get("files") if isinstance(data, dict) and data.get("version") == _VERSION else None
        if not isinstance(files, dict) or not all(_entry_ok(v) for v in files.values()):
            raise OffsetError(f"{self.path} (how far captures were read) is not dicetower's: move it away only with "
                              "captures never read here")
        return files

    def take(self, name: str, fd: int, size: int, n: int) -> bytes:
        """The next ``n`` bytes of the regular file open as ``fd`` (resolved path ``name``,
        ``size`` bytes long), its offset moved past them in the state directory before they
        are returned. ``ValueError`` (one line naming the file) when it cannot give them
        without reading a byte twice; :class:`OffsetError` when the offsets cannot be kept."""
        files = self._load()
        kept = files.get(name)
        start = int(kept["offset"]) if kept is not None else 0
        if kept is None:
            head = _head(fd)
            twin = None if head is None else next((other for other, v in files.items()
                                                   if v.get("head") == head and other != name), None)
        shown = os.path.basename(name)
        if kept is None:
            if twin is not None:
                raise ValueError(f"{shown} starts with the same bytes as {twin}, read already: a capture is never "
                                 "read twice; give a new one")
        elif size < start:
            raise ValueError(f"{shown} is {size} bytes, fewer than the {start} read from it already (replaced?): it "
                             "is never read again from its start; give a new capture a new name")
        left = size - start
        if left < n:
            raise ValueError(f"{shown} is exhausted: {left} of its {size} bytes are left unread, a session needs {n}; "
                             "a capture is never read twice: give a new one")
        data = os.pread(fd, n, start)
        if len(data) != n:
            raise ValueError(f"{shown} is exhausted: it gave {len(data)} of the {n} bytes a session needs")
        entry = {"offset": start + n, "head": kept["head"] if kept is not None else _head(fd)}
        self._save({**files, name: entry})
        return data

    def _save(self, files: dict[str, Any]) -> None:
        from hardware.files.safefile import FileRefused
        from hardware.files.state import atomic_write_json

        try:
            atomic_write_json(self.path, {"version": _VERSION, "files": files}, below=self.state_dir)
        except (FileRefused, OSError) as exc:
            raise OffsetError(f"cannot keep how far it was read in {self.path}: {exc.strerror or exc}; the bytes "
                              "read are not used") from None


def _entry_ok(value: Any) -> bool:
    offset = value.get("offset") if isinstance(value, dict) else None
    return isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0


def _head(fd: int) -> str | None:
    """The fingerprint of a file's first bytes (None for a file too short to have one)."""
    first = os.pread(fd, HEAD_BYTES, 0)
    return hashlib.sha256(first).hexdigest() if len(first) == HEAD_BYTES else None
