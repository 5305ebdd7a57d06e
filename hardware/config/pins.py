"""The pin rules: which pins a config may drive, which ones its display's bus takes, and the
check that no pin is used twice (docs/wiring.md).

Pins are BCM numbers on the Pi's 40-pin header, or a Pico's GP numbers when the tower drives
its parts through the bridge (``[gpio] factory = "bridge"``, docs/bridge.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.panel.model import Button
from hardware import backends
from hardware.config import ConfigError

if TYPE_CHECKING:
    from hardware.config.schema import TowerConfig

#: Pins the 40-pin header offers as GPIO (BCM numbering).
BCM_PINS = range(0, 28)
#: GP numbers a config may name at all: a Pico's GP0..GP29 (which of them it brings out is
#: checked with the factory, in :func:`check_pins`).
ANY_PINS = range(0, 30)
I2C_PINS = {2: "I2C SDA", 3: "I2C SCL"}
SPI_PINS = {9: "SPI MISO", 10: "SPI MOSI", 11: "SPI SCLK"}
SPI_CE = {0: 8, 1: 7}
UART_PINS = {14: "UART TXD", 15: "UART RXD"}
UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")

#: Pico pins the bridge firmware keeps for itself: its OLED's I2C0 and the safe-boot pin.
BRIDGE_RESERVED = {8: "Pico I2C0 SDA (the bridge's OLED)", 9: "Pico I2C0 SCL (the bridge's OLED)",
                   14: "Pico safe-boot"}
#: GP pins a Raspberry Pi Pico brings out (GP25 is its on-board LED; GP23, GP24 and GP29 are
#: wired on the Pico itself). The same list as firmware_bridge/firmware/pins.py's USABLE.
PICO_PINS = (*range(0, 23), 25, 26, 27, 28)


def pin_uses(config: TowerConfig) -> dict[str, int]:
    """Every GPIO the config drives, by dotted key (for conflicts and the wiring table)."""
    uses: dict[str, int] = {}
    for button, pin in zip(Button, config.buttons.pins, strict=True):
        uses[f"buttons.{button}"] = pin
    for button, led in zip(Button, config.leds.pins, strict=True):
        if led is not None:
            uses[f"leds.{button}"] = led
    if config.rgb is not None:
        uses.update({"rgb.red": config.rgb.red, "rgb.green": config.rgb.green, "rgb.blue": config.rgb.blue})
    if config.buzzer is not None:
        uses["buzzer.pin"] = config.buzzer.pin
    if config.encoder is not None:
        uses.update({"encoder.a": config.encoder.a, "encoder.b": config.encoder.b})
    d = config.display
    if d.bus == "spi" and d.bus in backends.DISPLAY_KINDS.get(d.kind).buses:
        uses["display.spi_dc"] = d.spi_dc
        if d.spi_reset is not None:
            uses["display.spi_reset"] = d.spi_reset
    return uses


def reserved_pins(config: TowerConfig) -> dict[int, str]:
    """Pins the display's bus takes (not drivable as GPIO while it is in use)."""
    d = config.display
    if config.gpio_factory == "bridge":
        return dict(BRIDGE_RESERVED)  # the pins are the Pico's; the Pi's buses are not involved
    if d.bus in backends.DISPLAY_KINDS.get(d.kind).buses:
        if d.bus == "i2c" and d.i2c_port == 1:
            return dict(I2C_PINS)
        if d.bus == "spi" and d.spi_port == 0:
            return {**SPI_PINS, SPI_CE[d.spi_device]: f"SPI CE{d.spi_device}"}
    if d.kind == "serial" and d.serial_port in UART_PORTS:
        return dict(UART_PINS)
    return {}


def check_pins(config: TowerConfig) -> None:
    """Each pin one the header (or the Pico) offers, not taken by the display's bus (or the
    bridge firmware), and used once; else a :class:`ConfigError` naming the key."""
    reserved = reserved_pins(config)
    seen: dict[int, str] = {}
    bridge = config.gpio_factory == "bridge"
    label = "GP" if bridge else "BCM "
    for key, pin in pin_uses(config).items():
        if bridge and pin not in PICO_PINS:
            raise ConfigError(key, f"GP{pin} is not a pin a Raspberry Pi Pico brings out (GP0..GP22, GP26..GP28, "
                                   "or GP25, its on-board LED)", config.source)
        if not bridge and pin not in BCM_PINS:
            raise ConfigError(key, f"expected a BCM pin number from {BCM_PINS.start} to {BCM_PINS.stop - 1}, "
                                   f"got {pin}", config.source)
        if pin in reserved and bridge:
            raise ConfigError(key, f"GP{pin} is the {reserved[pin]} pin, kept by the bridge firmware", config.source)
        if pin in reserved:
            raise ConfigError(
                key, f"BCM {pin} is the {reserved[pin]} pin, taken by the {config.display.kind} display", config.source
            )
        if pin in seen:
            raise ConfigError(key, f"{label}{pin} is already used by {seen[pin]}", config.source)
        seen[pin] = key
