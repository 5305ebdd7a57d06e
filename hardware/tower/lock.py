"""The state directory's lock, as the tower takes it: around every roll, and every opening,
following and revealing of the directory's one open session, which the command line may
share (docs/roll-log.md).

Without a state directory there is nothing to lock. A lock that cannot be taken (no lock
file on a read-only card) is said once and the step goes on unlocked: the roll log then
says on the display why the roll cannot be recorded.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from hardware.once import Once

__all__ = ["DirectoryLock"]


class DirectoryLock:
    """Call it for a context manager holding the lock of ``state_dir`` (None: no directory,
    no lock). Not re-entrant: never nested."""

    def __init__(self, state_dir: Path | None, *, log: Callable[[str], None]) -> None:
        self.state_dir = state_dir
        self._said = Once(log)

    def __call__(self) -> contextlib.AbstractContextManager[None]:
        if self.state_dir is None:
            return contextlib.nullcontext()
        from hardware.files.locking import LockError, state_lock

        try:
            lock = state_lock(self.state_dir, clean=False)  # cleaned once at start (hardware.cli.tower.keep)
            lock.__enter__()
        except LockError as exc:  # no lock file (a read-only card): the log says more at the roll
            self._said.say(str(exc), f"state lock: {exc}")
            return contextlib.nullcontext()
        self._said.over()
        return _Entered(lock)


class _Entered(contextlib.AbstractContextManager[None]):
    """A context manager already entered; leaving it leaves the wrapped one."""

    def __init__(self, inner: contextlib.AbstractContextManager[object]) -> None:
        self._inner = inner

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._inner.__exit__(kind, exc, tb)
