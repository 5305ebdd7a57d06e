"""What a luma device class says about itself: the sizes it drives and its image mode.

A display kind's row (:data:`hardware.backends.DISPLAY_KINDS`) names its luma class and no
more: luma's drivers own their sizes (a monochrome one in its ``__init__``'s table, a
greyscale or colour one in ``_supported_dimensions``) and their mode, so the config check and
the help text ask the class itself, by making it on luma's ``noop`` interface (no bus is
touched). luma is imported only when a question is asked.

luma's ``device.__init__`` registers an ``atexit`` hook that keeps every device it makes alive
(a few hundred KiB each: a Pi Zero's memory within the hour, tests/hardware/test_display.py),
so a probe's device is made with that registration switched off and is then let go.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import warnings
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from hardware.backends import DisplayKind

#: The widths and heights the config allows (``display.width`` 64..256, ``height`` 32..128),
#: in steps of 8: every size a luma.oled driver takes in that range is a multiple of 8.
WIDTHS = range(64, 257, 8)
HEIGHTS = range(32, 129, 8)


_PROBING = threading.Lock()


@contextlib.contextmanager
def _no_exit_hooks() -> Iterator[None]:
    """luma.core.device's ``atexit`` seen as one that keeps nothing, while a probe runs."""
    import luma.core.device as luma_device

    with _PROBING:
        real = luma_device.atexit
        luma_device.atexit = SimpleNamespace(register=lambda func, *args, **kwargs: func)
        try:
            yield
        finally:
            luma_device.atexit = real


def _probe(kind: DisplayKind, width: int, height: int) -> Any | None:
    """The kind's luma device made at this size on no bus, or None if luma refuses the size."""
    from luma.core.error import DeviceDisplayModeError
    from luma.core.interface.serial import noop

    from hardware.display.oled import luma_class

    make = luma_class(kind)
    with _no_exit_hooks(), warnings.catch_warnings():
        # a driver's __init__ draws a blank frame through Pillow calls it has deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            return make(noop(), width=width, height=height)
        except DeviceDisplayModeError:
            return None


def takes(kind: DisplayKind, width: int, height: int) -> bool:
    """Does the kind's luma driver take this size? (One device made; any size for a kind on
    no bus, such as luma's in-memory ``dummy``.)"""
    if not kind.luma or not kind.buses:
        return True
    return _probe(kind, width, height) is not None


@functools.cache
def sizes(kind: DisplayKind) -> tuple[tuple[int, int], ...]:
    """Every (width, height) within the config's range that the kind's driver takes, as
    luma answers (empty: any, for a kind on no bus or not drawn through luma)."""
    if not kind.luma or not kind.buses:
        return ()
    return tuple((w, h) for w in WIDTHS for h in HEIGHTS if _probe(kind, w, h) is not None)


def mode(kind: DisplayKind, width: int, height: int) -> str | None:
    """The PIL image mode the kind's driver takes frames in at this size (None: not luma's)."""
    if not kind.luma or not kind.buses:
        return None
    device = _probe(kind, width, height)
    return None if device is None else str(device.mode)
