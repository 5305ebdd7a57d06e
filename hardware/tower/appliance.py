"""The tower as a service: run until a signal, then shut down cleanly (LEDs off, display
cleared, the session revealed), telling systemd (``Type=notify``) along the way."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hardware.tower.loop import Tower
    from hardware.tower.sdnotify import Notifier

__all__ = ["run_forever", "stop_on_signals"]


@contextlib.contextmanager
def stop_on_signals(signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
                    ) -> Iterator[threading.Event]:
    """An event set by SIGTERM (systemd stop), SIGINT (Ctrl-C) or SIGHUP; the previous handlers
    come back afterwards."""
    stop = threading.Event()
    previous: dict[int, Any] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for sig in signals:
        previous[sig] = signal.signal(sig, handler)
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def run_forever(tower: Tower, stop: threading.Event | None = None, *, notifier: Notifier | None = None) -> None:
    """Run until ``stop`` is set (by default: until SIGTERM/SIGINT), then shut down cleanly
    (LEDs off, display cleared). Pass the event of a :func:`stop_on_signals` entered before
    the tower was built, so a signal during start-up also ends in a clean shutdown.

    ``notifier`` (systemd's, under ``Type=notify``) hears READY once the loop starts, the
    watchdog and the status line from every pass, and STOPPING when shutdown begins."""
    if stop is None:
        with stop_on_signals() as stop:
            run_forever(tower, stop, notifier=notifier)
        return
    waker = threading.Thread(target=_wake_on, args=(stop, tower), daemon=True)
    waker.start()
    each_pass = None
    if notifier is not None:
        notifier.ready(tower.service_status())
        each_pass = _feeder(notifier)
    try:
        tower.run(stop, each_pass=each_pass)
    finally:
        if notifier is not None:
            notifier.stopping(f"stopping after {tower.service_status()}")
        tower.close()


def _feeder(notifier: Notifier) -> Callable[[Tower], None]:
    def feed(tower: Tower) -> None:
        notifier.watchdog()
        notifier.status(tower.service_status())

    return feed


def _wake_on(stop: threading.Event, tower: Tower) -> None:
    stop.wait()
    tower.io.inputs.wake()
