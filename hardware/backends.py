"""The tower's backends by kind: pin factories, display kinds, entropy sources, speakers.

One table per kind. The config check (allowed values), the command line's help text and the
code that opens a backend all read these tables, so a backend is added in one place. A
backend's ``target`` (``module:attribute``) is imported only when that backend is chosen.

Display kinds carry their facts as data (:class:`DisplayKind`: the luma class by name, the
buses a module comes on); the sizes and the image mode are the luma class's own, asked of it
(:mod:`hardware.display.luma_facts`), so an OLED that luma.oled drives, monochrome or
greyscale, is one row in :data:`DISPLAY_KINDS` (docs/architecture.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from hardware.display import DisplayOpener
    from hardware.entropy.sources import EntropySource, SourceContext
    from hardware.speech import Speaker


@dataclass(frozen=True)
class Backend:
    """One choice: its name in the config, one line for help texts, what opens it."""

    name: str
    help: str
    target: str = ""  # "module:attribute"; "" when the caller handles it (auto, none, file:)
    bridge: bool = False  # opened on the Pico's link (the bridge)
    config: bool = True  # a config file may name it (not the simulator's or the tests' own)


@dataclass(frozen=True)
class DisplayKind(Backend):
    """A display kind and its facts, read by the config check, the help text and the opener.

    ``luma`` names the luma class that drives it (``module:Class``; "" for a display not
    drawn through luma), looked up only when the display is opened. ``buses`` are the buses
    its module comes on (the config's ``bus`` key; empty for one on no bus of the Pi's, such
    as luma's in-memory ``dummy``): a kind on a bus takes the bus's pins. The sizes its driver
    takes and the image mode it draws in are luma's, not copied here: the config check and the
    help text ask the class (:mod:`hardware.display.luma_facts`), and each frame is converted
    to the device's mode.
    """

    luma: str = ""
    buses: tuple[str, ...] = ()


B = TypeVar("B", bound=Backend)
T = TypeVar("T")


class Registry(Generic[B, T]):
    """The backends of one kind, in the order help texts list them. ``B`` is the row's type,
    ``T`` what every row's target is (an opening function or a class of that kind): the one
    place the type checker takes on trust, as :meth:`load` imports it by name."""

    def __init__(self, kind: str, backends: Iterable[B]) -> None:
        self.kind = kind
        self._backends = {b.name: b for b in backends}

    def names(self) -> tuple[str, ...]:
        return tuple(self._backends)

    def config_names(self) -> tuple[str, ...]:
        """The names a config file may use (not the simulator's or the tests' own)."""
        return tuple(b.name for b in self if b.config)

    def __contains__(self, name: object) -> bool:
        return name in self._backends

    def __iter__(self) -> Iterator[B]:
        return iter(self._backends.values())

    def adding(self, *backends: B) -> Registry[B, T]:
        """This registry with more rows after its own (a test's kind, a plug-in's)."""
        return Registry(self.kind, (*self, *backends))

    def get(self, name: str) -> B:
        try:
            return self._backends[name]
        except KeyError:
            raise ValueError(f"{self.kind}: one of {', '.join(self.names())}, got {name!r}") from None

    def load(self, name: str) -> T:
        """The object the backend's target names (a class or an opening function)."""
        module, _, attribute = self.get(name).target.partition(":")
        if not module:
            raise ValueError(f"{self.kind} {name!r} has nothing to open")
        # a registry's row by name: the module is imported only once its backend is chosen
        target: T = getattr(importlib.import_module(module), attribute)
        return target

    def help(self) -> str:
        """``name (what it is), ...`` for a help text."""
        return ", ".join(f"{b.name} ({b.help})" for b in self)


#: gpiozero's pin factory classes (gpiozero ships no types: what they make is theirs).
PIN_FACTORIES: Registry[Backend, Callable[..., Any]] = Registry("pin factory", (
    Backend("auto", "the first that works of lgpio, rpigpio, pigpio, native"),
    Backend("lgpio", "Pi 5 and current Raspberry Pi OS", "gpiozero.pins.lgpio:LGPIOFactory"),
    Backend("rpigpio", "RPi.GPIO, older Pis", "gpiozero.pins.rpigpio:RPiGPIOFactory"),
    Backend("pigpio", "the pigpio daemon", "gpiozero.pins.pigpio:PiGPIOFactory"),
    Backend("native", "gpiozero's pure-Python fallback", "hardware.panel.io:native_factory"),
    Backend("mock", "gpiozero's mock pins", "hardware.panel.io:mock_factory"),
    Backend("bridge", "the Pico's GP pins (the bridge)", "firmware_bridge.pins:BridgeFactory", bridge=True),
))
#: What ``auto`` tries, in order.
AUTO_PIN_FACTORIES = ("lgpio", "rpigpio", "pigpio", "native")

#: The buses a display module may come on (the config's ``display.bus``).
DISPLAY_BUSES = ("i2c", "spi")


def oled(name: str, help: str, buses: tuple[str, ...] = DISPLAY_BUSES) -> DisplayKind:
    """An OLED that luma.oled drives with its class of the same name (monochrome, or
    greyscale: frames are drawn in black and white and converted to the device's mode)."""
    return DisplayKind(name, help, "hardware.display:open_oled", luma=f"luma.oled.device:{name}", buses=buses)


DISPLAY_KINDS: Registry[DisplayKind, DisplayOpener] = Registry("display kind", (
    oled("ssd1306", "OLED on I2C or SPI (the 0.96-inch module)"),
    oled("sh1106", "1.3-inch OLED on I2C or SPI"),
    oled("sh1107", "1.5-inch OLED on I2C or SPI"),
    oled("ssd1309", "2.42-inch OLED on I2C or SPI"),
    oled("ssd1305", "OLED on I2C or SPI"),
    oled("ssd1315", "OLED on I2C or SPI"),
    oled("ssd1322", "greyscale OLED on SPI", ("spi",)),
    oled("ssd1325", "greyscale OLED on SPI", ("spi",)),
    oled("ssd1327", "1.5-inch greyscale OLED on I2C or SPI"),
    DisplayKind("serial", "serial character display", "hardware.display:open_serial"),
    DisplayKind("terminal", "text on stdout", "hardware.display:open_terminal"),
    DisplayKind("dummy", "luma's in-memory device", "hardware.display:open_oled", luma="luma.core.device:dummy"),
    DisplayKind("none", "no display", "hardware.display:open_none"),
    DisplayKind("bridge", "the Pico's OLED (the bridge)", "hardware.display:open_bridge", bridge=True),
))

@dataclass(frozen=True)
class EntropyKind(Backend):
    """An entropy source and every fact about it, in one row (pyserial's ``protocol_<scheme>``
    modules are the model: a source found by name), read by ``--entropy``, the config, the help
    text, ``auto`` and the estimators (:mod:`hardware.entropy.assessment`).

    ``target`` builds it from a :class:`~hardware.entropy.sources.SourceContext`. ``claim``:
    the bits of entropy a byte source claims per byte before any estimate (None for a source
    whose samples are not bytes); ``design_factor``: the share of the minimum SP 800-90B
    estimate credited; ``floor``: the estimate below which the source is refused (bits per
    sample); ``windows``: (start-up samples, later window); ``auto``: its place in ``auto``'s
    list (None: ``auto`` leaves it out); ``ceiling``: the most min-entropy per sample that is
    credited before the design factor, whatever the estimate (None: the estimate alone).
    docs/fairness.md has the reasons for each figure (the bridge's: docs/bridge.md, section 7).
    """

    claim: float | None = None
    ceiling: float | None = None
    design_factor: float = 0.5
    floor: float = 2.0
    windows: tuple[int, int] = (1024, 1024)
    auto: int | None = None


ENTROPY_SOURCES: Registry[EntropyKind, Callable[[SourceContext], EntropySource]] = Registry("entropy source", (
    # The kernel CSPRNG and a whitened hardware RNG look perfect to any statistic whether or
    # not they are, so half; 1024 random bytes score 3.5 to 5.8, text under 1.6, a counter 0.1.
    EntropyKind("kernel", "the kernel's getrandom", "hardware.entropy.pipeline:kernel_entry",
                claim=4.0, design_factor=0.5, floor=2.0, auto=2),
    EntropyKind("hwrng", "/dev/hwrng", "hardware.entropy.pipeline:hwrng_entry",
                claim=2.0, design_factor=0.5, floor=2.0, auto=1),
    # Judged on 16 to 64 presses, where even perfect samples score only 2 to 3.5 bits; credited
    # its estimate, at most 2 bits a press.
    EntropyKind("buttons", "button press timing", "hardware.entropy.pipeline:buttons_entry",
                design_factor=1.0, floor=0.5, windows=(16, 64), auto=3),
    # Single ring-oscillator bits in windows of 8192, against the byte sources' rate: 2 bits a
    # byte is 0.25 bit a bit. The RP2040's datasheet promises no entropy for them ("does not
    # meet the requirements of randomness for security systems"), so nothing above the 0.5 bit
    # the health tests are tuned for is credited, and half of that: at most 0.25 bit a raw bit
    # (docs/bridge.md, section 7).
    EntropyKind("bridge", "the Pico's ring oscillator, raw bits", "hardware.entropy.pipeline:bridge_entry",
                bridge=True, ceiling=0.5, design_factor=0.5, floor=0.25, windows=(8192, 8192), auto=4),
    # file:PATH (a capture, a device): can be anything, so a quarter. Named only as file:PATH.
    EntropyKind("file", "a file or device, as file:PATH", "", config=False,
                claim=1.0, design_factor=0.25, floor=2.0),
))


def auto_sources() -> tuple[EntropyKind, ...]:
    """The rows ``--entropy auto`` uses, in its order."""
    return tuple(sorted((k for k in ENTROPY_SOURCES if k.auto is not None), key=lambda k: k.auto or 0))


#: Speaker classes: ``(sound, *, log, **options)``, the options each its own (the WAV speaker's directory).
SPEAKERS: Registry[Backend, Callable[..., Speaker]] = Registry("speaker", (
    Backend("espeak", "eSpeak NG on the sound card", "hardware.speech.espeak:EspeakSpeaker"),
    Backend("log", "a line per sentence in the log, no sound", "hardware.speech.fakes:LogSpeaker"),
    Backend("wav", "eSpeak NG into a WAV file per sentence (sim --out)", "hardware.speech.espeak:WavSpeaker",
            config=False),
    Backend("record", "the sentences kept in memory (tests)", "hardware.speech.fakes:RecordingSpeaker",
            config=False),
))
