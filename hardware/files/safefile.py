"""Opening files that a user, an editor, a broken card or another program may have replaced.

The one rule (docs/roll-log.md, "Files that cannot be turned against the tower"), applied here
for every file the program reads or writes in a state directory, and for the config, scripts
and password files:

- **no link is followed**: the file is opened with ``O_NOFOLLOW``; below a state directory
  (``below=``) every directory on the way (``players/``, ``open-sessions/``) is opened with
  ``O_DIRECTORY | O_NOFOLLOW`` and the file relative to it, so a symlinked ``players/`` cannot
  send a write elsewhere (the state directory itself is the user's choice, and is followed);
- **nothing blocks**: the open is ``O_NONBLOCK`` (a FIFO cannot hang it), then ``fstat``
  checks that it is a regular file (or a directory where one is expected) before anything is
  read, and only then is the descriptor made blocking again;
- **reads are capped** (``/dev/zero`` or a 2 GB file is refused by its size, not read) and
  **parsing is depth-capped** (:func:`check_nesting`: the parsers recurse, and a file of
  ``[[[[...`` would end in a ``RecursionError``).

Refusals are :class:`FileRefused` (an ``OSError``), whose ``strerror`` is a sentence naming
the path; a symbolic link at the file itself is the ``OSError`` of ``O_NOFOLLOW`` (``ELOOP``),
which callers word for their file.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hardware.errors import HardwareError

__all__ = [
    "FileRefused", "check_nesting", "list_dir", "load_json", "nesting_depth", "open_dir", "open_file",
    "read_capped", "read_text", "unlink",
]

#: Strings and comments (whose brackets do not nest), or one bracket. JSON and TOML alike.
_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]')
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NONBLOCK


class FileRefused(HardwareError, OSError):
    """The file is not something to read: not a regular file (or directory), too large,
    nested too deep, behind a symbolic link. ``strerror`` names the file and says why;
    ``reason`` is the why alone (for a message that names the file already)."""

    reason: str = ""


def _refused(code: int, shown: str | os.PathLike[str], reason: str, path: str | os.PathLike[str]) -> FileRefused:
    """``strerror`` is "SHOWN REASON" (``shown`` the file as the user knows it)."""
    exc = FileRefused(code, f"{os.fspath(shown)} {reason}")
    exc.filename = os.fspath(path)
    exc.reason = reason
    return exc


# --- directories -------------------------------------------------------------------------------


def open_dir(path: str | os.PathLike[str], *, below: str | os.PathLike[str] | None = None,
             create: bool = False, mode: int = 0o700) -> int:
    """A descriptor of the directory ``path`` (close it). With ``below``, ``path`` lies inside
    ``below`` and no directory after ``below`` is followed through a symbolic link (``create``
    makes the missing ones, ``mode``); without it the whole path is the user's and is followed.
    Raises ``FileNotFoundError`` when it is missing, :class:`FileRefused` when it is a link or
    not a directory."""
    path = Path(path)
    if below is None:
        if create:
            path.mkdir(parents=True, exist_ok=True)
        return _open_one_dir(path, None, str(path), follow=True)
    base = Path(below)
    fd = _open_one_dir(base, None, str(base), follow=True)
    try:
        for part in path.relative_to(base).parts:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, mode, dir_fd=fd)
            inner = _open_one_dir(part, fd, str(base / part), follow=False)
            os.close(fd)
            fd = inner
            base = base / part
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_one_dir(name: str | Path, dir_fd: int | None, shown: str, *, follow: bool) -> int:
    try:
        return os.open(name, _DIR_FLAGS | (0 if follow else os.O_NOFOLLOW), dir_fd=dir_fd)
    except NotADirectoryError:
        try:
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            info = None
        if info is not None and stat.S_ISLNK(info.st_mode):
            raise _refused(errno.ELOOP, shown, "is a symbolic link; directories in the state directory "
                           "are never followed through one", shown) from None
        raise _refused(errno.ENOTDIR, shown, "is not a directory", shown) from None


def list_dir(path: str | os.PathLike[str], *, below: str | os.PathLike[str] | None = None) -> list[str]:
    """The names in directory ``path`` (see :func:`open_dir` for ``below``)."""
    fd = open_dir(path, below=below)
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


def unlink(path: str | os.PathLike[str], *, below: str | os.PathLike[str] | None = None) -> None:
    """Remove the file ``path`` (a link itself, never what it points to); its directory is
    opened as :func:`open_dir` opens it. ``FileNotFoundError`` when it is gone."""
    path = Path(path)
    fd = open_dir(path.parent, below=below)
    try:
        os.unlink(path.name, dir_fd=fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _parent(path: Path, below: str | os.PathLike[str] | None) -> Iterator[int | None]:
    """The directory to open ``path`` in: its parent's descriptor with ``below``, else None
    (the parent is the user's, and ``path`` is opened as it is)."""
    if below is None:
        yield None
        return
    fd = open_dir(path.parent, below=below)
    try:
        yield fd
    finally:
        os.close(fd)


# --- files -------------------------------------------------------------------------------------


def open_file(path: str | os.PathLike[str], flags: int = os.O_RDONLY, mode: int = 0o600, *,
              below: str | os.PathLike[str] | None = None) -> int:
    """``os.open`` of a regular file without following a link and without blocking (then
    made blocking again). ``flags`` may add ``O_CREAT``, ``O_APPEND``, ``O_RDWR``... Raises
    the ``OSError`` of the open (``ELOOP`` for a symbolic link, ``FileNotFoundError``...) and
    :class:`FileRefused` for anything that is not a regular file (a FIFO, a device, a directory)."""
    path = Path(path)
    with _parent(path, below) as dir_fd:
        name = path.name if dir_fd is not None else path
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, mode, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = "a directory" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode) \
                else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a file"
            raise _refused(errno.EINVAL, path, f"is {what}, not a regular file", path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_capped(path: str | os.PathLike[str], max_bytes: int, *,
                below: str | os.PathLike[str] | None = None) -> bytes:
    """The bytes of the regular file ``path`` (see :func:`open_file`), if it holds at most
    ``max_bytes``; :class:`FileRefused` names what is wrong."""
    fd = open_file(path, below=below)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise _refused(errno.EFBIG, path, f"is {size} bytes, more than the {max_bytes} allowed", path)
        chunks, total = [], 0
        while chunk := os.read(fd, max_bytes + 1 - total):  # it may grow while being read
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise _refused(errno.EFBIG, path, f"is more than the {max_bytes} bytes allowed", path)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], max_bytes: int, *,
              below: str | os.PathLike[str] | None = None) -> str:
    """:func:`read_capped` as UTF-8 text; text that is not UTF-8 is :class:`FileRefused`."""
    data = read_capped(path, max_bytes, below=below)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _refused(errno.EILSEQ, path, f"is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line})",
                       path) from None


def load_json(path: str | os.PathLike[str], max_bytes: int, max_depth: int, *,
              below: str | os.PathLike[str] | None = None) -> Any:
    """The JSON value in ``path``: read capped, nesting checked, then parsed. A file that is
    not JSON (or not UTF-8) raises ``ValueError``, which callers report as damage; the rest as
    :func:`read_capped`."""
    text = read_capped(path, max_bytes, below=below).decode("utf-8")
    check_nesting(text, max_depth, path)
    return json.loads(text)


# --- nesting -----------------------------------------------------------------------------------


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


def check_nesting(text: str, max_depth: int, what: str | os.PathLike[str]) -> None:
    """Raise :class:`FileRefused` when ``text`` nests deeper than ``max_depth``."""
    depth = nesting_depth(text)
    if depth > max_depth:
        raise _refused(errno.EINVAL, what, f"nests {depth} levels deep, more than the {max_depth} allowed", what)
