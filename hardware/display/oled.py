"""An OLED (or luma's ``dummy`` device) showing panel screens rendered by :mod:`.render`."""

from __future__ import annotations

from typing import Any

from engine.panel.model import Screen
from hardware.config import DisplayConfig
from hardware.display.render import Renderer


def open_luma(cfg: DisplayConfig, *, reuse: Any = None) -> Any:
    """The luma device the config names: ``ssd1306``/``sh1106`` over I2C or SPI, or ``dummy``.

    luma registers every device it makes with ``atexit`` for good (about 320 KiB each), so a
    device is made only once the module answers on the bus (a missing or unplugged OLED is
    retried every ``retry_seconds`` for as long as the tower runs), and ``reuse``, the device
    this config opened before (closed since), is set up again on a fresh bus handle instead
    of a new one being made: a couple of KiB per reconnect of a loose cable.
    """
    if cfg.kind == "dummy":
        from luma.core.device import dummy

        return dummy(width=cfg.width, height=cfg.height, rotate=cfg.rotate, mode="1")
    from luma.core.interface import serial
    from luma.oled import device as oled

    if cfg.bus == "i2c":
        interface = serial.i2c(port=cfg.i2c_port, address=cfg.i2c_address)
    else:
        try:
            interface = serial.spi(
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
    try:
        interface.command(0xAE)  # display off, the driver's first command anyway: does it answer?
    except BaseException:
        interface.cleanup()
        raise
    make = oled.sh1106 if cfg.kind == "sh1106" else oled.ssd1306
    if type(reuse) is make:
        make.__init__(reuse, interface, width=cfg.width, height=cfg.height, rotate=cfg.rotate)
        return reuse
    return make(interface, width=cfg.width, height=cfg.height, rotate=cfg.rotate)


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
        self.device.display(image)
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
