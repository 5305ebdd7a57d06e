"""The command line's two streams, each written through one function.

:func:`out` writes what a command prints (results, listings, help). Standard output that
cannot be written raises :class:`OutputError`: closed (``dicetower systems >&-``), full
(``> /dev/full``), an I/O error. The command line turns it into exit status 5 with one line on
stderr; a pipe its reader closed (``| head``) is exit 0 (see :mod:`hardware.cli`). Nothing is
lost: a roll is printed only after its entry is in the roll log, so a result that could not be
shown is still in the log, and a ``--times`` run stops at the first result it cannot show.

:func:`say` writes one line on standard error (notes, warnings, errors; for ``run`` under
systemd, the journal). Control characters are escaped, so a line stays one line whatever it
quotes (a Pico's error text, a file name); a closed standard error is not an error: there is
nowhere left to say anything.
"""

from __future__ import annotations

import errno
import sys

from engine.errors import escape_controls
from hardware.errors import HardwareError

__all__ = ["OutputError", "escape_controls", "finish", "out", "say"]


class OutputError(HardwareError, OSError):
    """Standard output cannot be written (closed, full, an I/O error)."""


def out(text: str = "", *, end: str = "\n", flush: bool = False) -> None:
    """Write ``text`` and ``end`` to standard output (flushed when ``flush``)."""
    stream = sys.stdout
    if stream is None:  # the process was started with fd 1 closed
        raise OutputError(errno.EBADF, "standard output is closed")
    try:
        stream.write(text + end)
        if flush:
            stream.flush()
    except OSError as exc:
        raise OutputError(exc.errno, exc.strerror or str(exc)) from None
    except ValueError as exc:
        if isinstance(exc, UnicodeError):
            raise
        raise OutputError(errno.EBADF, "standard output is closed") from None  # "I/O operation on closed file"


def finish() -> None:
    """Flush standard output; :class:`OutputError` if what was written cannot get out."""
    stream = sys.stdout
    if stream is None:
        return  # nothing was written (out() refused it)
    try:
        stream.flush()
    except OSError as exc:
        raise OutputError(exc.errno, exc.strerror or str(exc)) from None
    except ValueError:
        raise OutputError(errno.EBADF, "standard output is closed") from None


def say(line: str) -> None:
    """One line on standard error, control characters escaped; silent when stderr is gone."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(escape_controls(line) + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass
