"""An OLED (or luma's ``dummy`` device) showing panel screens rendered by :mod:`.render`."""

from __future__ import annotations

import importlib
from typing import Any

from engine.errors import DicetowerError
from engine.panel.model import Screen
from hardware import backends
from hardware.backends import DisplayKind
from hardware.config.schema import DisplayConfig
from hardware.display.render import Renderer
from hardware.errors import HardwareError


def luma_class(kind: DisplayKind) -> Any:
    """The luma class a display kind names (``module:Class``), imported now."""
    module, _, name = kind.luma.partition(":")
    if not module or not name:
        raise ValueError(f"display kind {kind.name!r} is not drawn through luma")
    return getattr(importlib.import_module(module), name)


def open_luma(cfg: DisplayConfig, *, reuse: Any = None) -> Any:
    """The luma device the config names: an OLED of its kind over I2C or SPI, or ``dummy``.

    The kind's facts (its luma class, buses) are its row in
    :data:`hardware.backends.DISPLAY_KINDS`; its sizes and mode are the luma class's. luma
    registers every device it makes with ``atexit`` for good (about 320 KiB each), so a device
    is made only once the module answers on the bus (a missing or unplugged OLED is retried
    every ``retry_seconds`` for as long as the tower runs), and ``reuse``, the device this
    config opened before (closed since), is set up again on a fresh bus handle instead of a new
    one being made: a couple of KiB per reconnect of a loose cable.
    """
    kind = backends.DISPLAY_KINDS.get(cfg.kind)
    make = luma_class(kind)
    if not kind.buses:  # an in-memory device: nothing to wire
        # made in the renderer's mode, so that the frame it keeps is the frame drawn
        return make(width=cfg.width, height=cfg.height, rotate=cfg.rotate, mode=RENDER_MODE)
    interface = _open_bus(cfg)
    try:
        interface.command(0xAE)  # display off, the driver's first command anyway: does it answer?
    except BaseException:
        interface.cleanup()
        raise
    if type(reuse) is make:
        make.__init__(reuse, interface, width=cfg.width, height=cfg.height, rotate=cfg.rotate)
        return reuse
    return make(interface, width=cfg.width, height=cfg.height, rotate=cfg.rotate)


def _open_bus(cfg: DisplayConfig) -> Any:
    """luma's I2C or SPI interface for the configured bus."""
    from luma.core.interface import serial

    if cfg.bus == "i2c":
        return serial.i2c(port=cfg.i2c_port, address=cfg.i2c_address)
    try:
        return serial.spi(
            port=cfg.spi_port,
            device=cfg.spi_device,
            gpio_DC=cfg.spi_dc,
            gpio_RST=cfg.spi_reset,
            bus_speed_hz=cfg.spi_speed_hz,
        )
    except ImportError as exc:  # luma drives D/C through RPi.GPIO: a display failure, not a crash
        from luma.core.error import UnsupportedPlatform

        raise UnsupportedPlatform(f"an SPI display needs RPi.GPIO for its D/C pin ({exc}); "
                                  "pip install 'dicetower[pi]'") from None


#: The mode the renderer draws in; a device that takes another (a greyscale OLED's "RGB")
#: gets each frame converted.
RENDER_MODE = "1"


class DisplayFrameError(HardwareError, OSError):
    """luma refused a frame (an assertion on its mode or size, or any other error of the
    driver's): an OSError, so that :class:`hardware.display.ResilientDisplay` treats it as
    a failing display (logged once, retried) and the tower carries on."""


class OledDisplay:
    """Screens drawn on a luma device: render, set the contrast when it changes, display.

    ``image`` is the last picture sent (what the screen shows if the transfer went through).
    A device passed in by the caller (``owns_device=False``) is cleared on close but not shut
    down, so it can be shown on again.
    """

    def __init__(self, *, device: Any, renderer: Renderer | None = None, owns_device: bool = True) -> None:
        self.device = device
        self.owns_device = owns_device
        self.renderer = renderer or Renderer((device.width, device.height))
        self.image: Any = None
        self._contrast: int | None = None

    def show(self, screen: Screen) -> None:
        image = self.renderer.render(screen)
        level = max(0, min(255, round(screen.contrast * 255)))
        if level != self._contrast:
            self.device.contrast(level)
            self._contrast = level
        mode = self.device.mode  # luma's devices (and the bridge's) say theirs
        frame = image if image.mode == mode else image.convert(mode)
        try:
            self.device.display(frame)
        except (OSError, DicetowerError):
            raise
        except Exception as exc:  # luma checks a frame with assert: not a crash of the tower
            raise DisplayFrameError(f"{type(self.device).__name__} refused the frame: "
                                    f"{type(exc).__name__}: {exc}".rstrip(": ")) from exc
        self.image = image

    def ping(self) -> None:
        """A one-byte command (display on): raises while the bus does not answer."""
        self.device.show()

    def clear(self) -> None:
        self.device.clear()
        self.image = None

    def close(self) -> None:
        try:
            self.device.clear()
        finally:
            if self.owns_device:
                # luma's cleanup switches the panel off and releases the bus
                self.device.cleanup()
