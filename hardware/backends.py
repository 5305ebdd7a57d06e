"""The tower's backends by kind: pin factories, display kinds, entropy sources, speakers.

One table per kind. The config check (allowed values), the command line's help text and the
code that opens a backend all read these tables, so a backend is added in one place. A
backend's ``target`` (``module:attribute``) is imported only when that backend is chosen.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Backend:
    """One choice: its name in the config, one line for help texts, what opens it."""

    name: str
    help: str
    target: str = ""  # "module:attribute"; "" when the caller handles it (auto, none, file:)
    bridge: bool = False  # opened on the companion board's link
    config: bool = True  # a config file may name it (not the simulator's or the tests' own)


class Registry:
    """The backends of one kind, in the order help texts list them."""

    def __init__(self, kind: str, backends: Iterable[Backend]) -> None:
        self.kind = kind
        self._backends = {b.name: b for b in backends}

    def names(self) -> tuple[str, ...]:
        return tuple(self._backends)

    def __contains__(self, name: object) -> bool:
        return name in self._backends

    def __iter__(self):
        return iter(self._backends.values())

    def get(self, name: str) -> Backend:
        try:
            return self._backends[name]
        except KeyError:
            raise ValueError(f"{self.kind}: one of {', '.join(self.names())}, got {name!r}") from None

    def load(self, name: str) -> Any:
        """The object the backend's target names (a class or an opening function)."""
        module, _, attribute = self.get(name).target.partition(":")
        if not module:
            raise ValueError(f"{self.kind} {name!r} has nothing to open")
        return getattr(importlib.import_module(module), attribute)

    def help(self) -> str:
        """``name (what it is), ...`` for a help text."""
        return ", ".join(f"{b.name} ({b.help})" for b in self)


PIN_FACTORIES = Registry("pin factory", (
    Backend("auto", "the first that works of lgpio, rpigpio, pigpio, native"),
    Backend("lgpio", "Pi 5 and current Raspberry Pi OS", "gpiozero.pins.lgpio:LGPIOFactory"),
    Backend("rpigpio", "RPi.GPIO, older boards", "gpiozero.pins.rpigpio:RPiGPIOFactory"),
    Backend("pigpio", "the pigpio daemon", "gpiozero.pins.pigpio:PiGPIOFactory"),
    Backend("native", "gpiozero's pure-Python fallback", "hardware.panel_io:native_factory"),
    Backend("mock", "gpiozero's mock pins", "hardware.panel_io:mock_factory"),
    Backend("bridge", "the Pico companion board's GP pins", "firmware_bridge.pins:BridgeFactory", bridge=True),
))
#: What ``auto`` tries, in order.
AUTO_PIN_FACTORIES = ("lgpio", "rpigpio", "pigpio", "native")

DISPLAY_KINDS = Registry("display kind", (
    Backend("ssd1306", "OLED on I2C or SPI", "hardware.display:open_oled"),
    Backend("sh1106", "OLED on I2C or SPI", "hardware.display:open_oled"),
    Backend("serial", "serial character display", "hardware.display:open_serial"),
    Backend("terminal", "text on stdout", "hardware.display:open_terminal"),
    Backend("dummy", "luma's in-memory device", "hardware.display:open_oled"),
    Backend("none", "no display", "hardware.display:open_none"),
    Backend("bridge", "the Pico companion board's OLED", "hardware.display:open_bridge", bridge=True),
))
#: Display kinds driven through luma (they take the I2C/SPI keys and sizes).
LUMA_KINDS = ("ssd1306", "sh1106", "dummy")

ENTROPY_SOURCES = Registry("entropy source", (
    Backend("kernel", "the kernel's getrandom", "hardware.entropy.pipeline:kernel_entry"),
    Backend("hwrng", "/dev/hwrng", "hardware.entropy.pipeline:hwrng_entry"),
    Backend("buttons", "button press timing", "hardware.entropy.pipeline:buttons_entry"),
    Backend("bridge", "the Pico's ring oscillator, raw bits", "hardware.entropy.pipeline:bridge_entry", bridge=True),
))

SPEAKERS = Registry("speaker", (
    Backend("espeak", "eSpeak NG on the sound card", "hardware.speech.espeak:EspeakSpeaker"),
    Backend("log", "a line per sentence in the log, no sound", "hardware.speech.fakes:LogSpeaker"),
    Backend("wav", "eSpeak NG into a WAV file per sentence (sim --out)", "hardware.speech.espeak:WavSpeaker",
            config=False),
    Backend("record", "the sentences kept in memory (tests)", "hardware.speech.fakes:RecordingSpeaker",
            config=False),
))
