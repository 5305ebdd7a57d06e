"""One writer at a time in a state directory: an exclusive ``flock`` on ``DIR/.lock``.

Everything that reads, rolls and writes in a state directory (the panel runtime, every CLI
command, a session opened by one process and rolled in by others) holds this lock around
the whole load -> roll -> append -> save step, so two writers never lose an update. ``flock``
locks belong to an open file description: each :func:`state_lock` opens the file anew, so it
excludes other threads of the same process too. It is not re-entrant: taking it twice in one
thread deadlocks, so take it once at the outermost step.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hardware.errors import HardwareError

__all__ = ["LOCK_NAME", "LockError", "state_lock"]

#: The lock file's name inside a state directory.
LOCK_NAME = ".lock"


class LockError(HardwareError):
    """The state directory's lock file cannot be opened (a symlink, no permission, no room)."""


@contextmanager
def state_lock(directory: str | os.PathLike[str], *, clean: bool = True) -> Iterator[None]:
    """Hold the exclusive lock of ``directory`` (created if missing) for the ``with`` block.

    The lock file is opened by the one rule (:func:`hardware.files.safefile.open_file`: a FIFO,
    a symbolic link or a directory there is refused, never waited on). Once it is held, the
    temp files a killed writer left are removed (:func:`hardware.files.state.clean_temp`): every
    command that takes the lock cleans up after the one that died holding it. A process that
    takes the lock again and again (the tower at each roll) passes ``clean=False`` after its
    first time: a directory listing per roll buys nothing."""
    from hardware.files.safefile import FileRefused, open_file
    from hardware.files.state import clean_temp

    path = Path(directory) / LOCK_NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_file(path, os.O_RDWR | os.O_CREAT)
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else \
            "not a regular file" if isinstance(exc, FileRefused) else exc.strerror or exc
        raise LockError(f"cannot open the lock file {path}: {why}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if clean:
            clean_temp(directory)
        yield
    finally:
        os.close(fd)  # also releases the lock
