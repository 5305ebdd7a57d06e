"""Reading small files that a user, an editor or a broken card may have turned into anything.

State files and the config are read whole and parsed, so before parsing they are checked:
a regular file (``/dev/zero`` or a FIFO would be an unbounded or endless read), at most a
given size, and nested no deeper than a given depth (the parsers recurse, and a file of
``[[[[...`` would end in a ``RecursionError``). State files are also opened with
``O_NOFOLLOW``: a symbolic link planted in a state directory is refused, not followed.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

__all__ = ["FileRefused", "check_nesting", "nesting_depth", "read_capped"]

#: Strings and comments (whose brackets do not nest), or one bracket. JSON and TOML alike.
_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]')


class FileRefused(OSError):
    """The file is not something to parse: not a regular file, too large, nested too deep."""


def read_capped(path: str | os.PathLike[str], max_bytes: int, *, follow: bool = True) -> bytes:
    """The file's bytes, if it is a regular file of at most ``max_bytes``.

    Raises ``FileNotFoundError`` and the other OSErrors of opening as they are, ELOOP for a
    symbolic link when ``follow`` is false, and :class:`FileRefused` naming what is wrong."""
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(errno.EINVAL, f"{path} is not a regular file")
        if info.st_size > max_bytes:
            raise FileRefused(errno.EFBIG, f"{path} is {info.st_size} bytes, more than the {max_bytes} allowed")
        chunks, total = [], 0
        while chunk := os.read(fd, max_bytes + 1 - total):  # it may grow while being read
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise FileRefused(errno.EFBIG, f"{path} is more than the {max_bytes} bytes allowed")
        return b"".join(chunks)
    finally:
        os.close(fd)


def nesting_depth(text: str) -> int:
    """How deep ``[`` and ``{`` nest in JSON or TOML text (brackets in strings and comments
    do not count)."""
    depth = deepest = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in ("]", "}"):
            depth = max(0, depth - 1)
    return deepest


def check_nesting(text: str, max_depth: int, what: str | Path) -> None:
    """Raise :class:`FileRefused` when ``text`` nests deeper than ``max_depth``."""
    depth = nesting_depth(text)
    if depth > max_depth:
        raise FileRefused(errno.EINVAL, f"{what} nests {depth} levels deep, more than the {max_depth} allowed")
