"""Displays for panel screens: an OLED through luma (or luma's ``dummy``), a serial
character display, the terminal, or none, each behind :class:`ResilientDisplay` so that a
display that fails never stops the tower.

A display is any object with ``show(screen)``, ``clear()`` and ``close()`` (:class:`Display`);
one that can tell cheaply whether its bus answers again also has ``ping()`` (:class:`Pinging`),
and one that draws pictures keeps the last as ``image`` (:class:`Picturing`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TextIO, runtime_checkable

from engine.panel.model import Screen
from hardware import backends
from hardware.config.schema import DisplayConfig

if TYPE_CHECKING:
    from PIL import Image


class Display(Protocol):
    def show(self, screen: Screen) -> None: ...

    def clear(self) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class Pinging(Protocol):
    """A display that can tell cheaply whether its bus answers again (an OLED: one command
    byte), so a failed one is kept and asked rather than opened afresh at every retry."""

    def ping(self) -> None: ...


@runtime_checkable
class Picturing(Protocol):
    """A display that draws pictures: ``image`` is the last one sent (None once cleared)."""

    image: Image.Image | None


class NullDisplay:
    """``kind = "none"``: the tower runs on its LEDs alone."""

    def show(self, screen: Screen) -> None:
        pass

    def clear(self) -> None:
        pass

    def close(self) -> None:
        pass


def display_errors() -> tuple[type[BaseException], ...]:
    """What a failing display raises: OSError (I2C remote I/O error when the cable is pulled,
    pyserial's SerialException) and luma's own errors (device not found on the bus)."""
    errors: list[type[BaseException]] = [OSError]
    try:
        from luma.core.error import Error as LumaError

        errors.append(LumaError)
    except ImportError:  # luma is a dependency, but a serial-only build still works without it
        pass
    return tuple(errors)


@dataclass
class OpenContext:
    """What opening a display may use besides its config: test doubles passed in, the luma
    device opened last (set up again on a retry), the stream, the Pico's link."""

    stream: TextIO | None = None
    link: Any = None
    opened: list[Any] = field(default_factory=list)


#: How a display kind opens (the targets of :data:`hardware.backends.DISPLAY_KINDS`).
DisplayOpener = Callable[[DisplayConfig, OpenContext], Display]


def open_oled(cfg: DisplayConfig, ctx: OpenContext) -> Display:
    from hardware.display.oled import OledDisplay, open_luma

    luma = open_luma(cfg, reuse=ctx.opened[-1] if ctx.opened else None)
    ctx.opened[:] = [luma]
    return OledDisplay(device=luma)


def open_serial(cfg: DisplayConfig, ctx: OpenContext, port: Any = None) -> Display:
    from hardware.display.serial_text import SerialTextDisplay

    return SerialTextDisplay(
        port=port if port is not None else cfg.serial_port,
        cols=cfg.cols,
        rows=cfg.rows,
        protocol=cfg.protocol,
        baudrate=cfg.baudrate,
    )


def open_terminal(cfg: DisplayConfig, ctx: OpenContext) -> Display:
    from hardware.display.terminal import TerminalDisplay

    return TerminalDisplay(stream=ctx.stream or sys.stdout)


def open_none(cfg: DisplayConfig, ctx: OpenContext) -> Display:
    return NullDisplay()


def open_bridge(cfg: DisplayConfig, ctx: OpenContext) -> Display:
    """The Pico's SSD1306, drawn like a local OLED (changed bytes only)."""
    from firmware_bridge.display import BridgeOled
    from hardware.display.oled import OledDisplay

    if ctx.link is None:
        raise OSError("display kind bridge: no Pico link (set [bridge] port)")
    return OledDisplay(device=BridgeOled(ctx.link, width=cfg.width, height=cfg.height, address=cfg.i2c_address))


def opener(cfg: DisplayConfig, *, device: Any = None, port: Any = None,
           stream: TextIO | None = None, link: Any = None) -> Callable[[], Display]:
    """A function that opens the configured display (called again to retry after a failure).

    The kind is looked up in :data:`hardware.backends.DISPLAY_KINDS`. ``device`` (a luma
    device) and ``port`` (a pyserial port) are used instead of opening the configured ones:
    tests pass luma's ``dummy`` and ``serial_for_url("loop://")``. ``link`` is the Pico's
    (kind ``bridge``).
    """
    ctx = OpenContext(stream=stream, link=link)

    def open_display() -> Display:
        if device is not None:
            from hardware.display.oled import OledDisplay

            return OledDisplay(device=device, owns_device=False)
        kinds = backends.DISPLAY_KINDS
        if port is not None and not kinds.get(cfg.kind).luma:
            return open_serial(cfg, ctx, port)
        return kinds.load(cfg.kind)(cfg, ctx)

    return open_display


class ResilientDisplay:
    """A display that may fail: errors are caught, the display is retried (and the last
    screen redrawn) every ``retry_seconds``, and the tower carries on meanwhile.

    ``log(message)`` hears of each failure and recovery once (not of every retry).
    """

    def __init__(self, open_display: Callable[[], Display], *, retry_seconds: float = 2.0,
                 log: Callable[[str], None] | None = None) -> None:
        self._open = open_display
        self.retry_ns = round(retry_seconds * 1e9)
        self.log = log or (lambda message: None)
        self.display: Display | None = None
        self.screen: Screen | None = None  # the latest screen asked for
        self.shown: Screen | None = None  # the latest screen that reached the display
        self.failures = 0
        self.error: str | None = None
        self._retry_at: int | None = None
        self._errors = display_errors()

    @property
    def ok(self) -> bool:
        return self.error is None

    def show(self, screen: Screen, now_ns: int) -> None:
        self.screen = screen
        if self._retry_at is not None and now_ns < self._retry_at:
            return
        self._draw(now_ns)

    def poll(self, now_ns: int) -> None:
        """Retry a failed display when its time has come."""
        if self._retry_at is not None and now_ns >= self._retry_at and self.screen is not None:
            self._draw(now_ns)

    def deadline(self) -> int | None:
        return self._retry_at

    def _draw(self, now_ns: int) -> None:
        screen = self.screen
        if screen is None:
            return
        try:
            if self.display is not None and self.error is not None:
                self._reopen()
            if self.display is None:
                self.display = self._open()
            self.display.show(screen)
        except self._errors as exc:
            self._failed(exc, now_ns)
            return
        self.shown = screen
        if self.error is not None:
            self.log("display: working again")
        self.error = None
        self._retry_at = None

    def _reopen(self) -> None:
        """After a failure: ask the old display whether its bus answers again (cheap; raises
        while the cable is still out), then open it afresh so that it is set up again (a
        replugged OLED has lost its settings). Opening only once the bus answers keeps a long
        outage from piling up half-opened devices."""
        old = self.display
        if isinstance(old, Pinging):
            old.ping()
        self.display = None
        if old is not None:
            with contextlib.suppress(Exception):  # the old handle may be half dead
                old.close()

    def _failed(self, exc: BaseException, now_ns: int) -> None:
        self.failures += 1
        message = f"{type(exc).__name__}: {exc}".strip()
        if self.error is None:
            self.log(f"display: {message}; retrying every {self.retry_ns / 1e9:g} s, the LEDs carry on")
        self.error = message
        self._retry_at = now_ns + self.retry_ns
        if not isinstance(self.display, Pinging):
            broken, self.display = self.display, None
            if broken is not None:
                with contextlib.suppress(Exception):  # it is already failing
                    broken.close()

    def clear(self) -> None:
        if self.display is not None:
            with contextlib.suppress(*self._errors):
                self.display.clear()

    def close(self) -> None:
        display, self.display = self.display, None
        if display is not None:
            with contextlib.suppress(*self._errors):
                display.close()
