"""What a tower's config holds: one frozen dataclass a TOML table, each key a field.

Every key is made with :func:`config_key`: its default (the one place it lives: the loader
reads it from the field, and ``hardware/default.toml``, :data:`DEFAULT_TOML`, is held equal to
the fields by a test), how :mod:`hardware.config.reader` reads it (a :class:`~hardware.config.table.Table`
reader, its range or choices), and the key's name and unit where they are not the field's.
``[panel]``'s keys are the engine's :class:`~engine.panel.options.PanelConfig` fields (the
engine knows no TOML): :data:`PANEL_KEYS` says how each is read, in the same form.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.panel.model import Button
from engine.panel.options import PanelConfig
from hardware import backends

DEFAULT_TOML = Path(__file__).resolve().parent.parent / "default.toml"

# gpiozero pin factories, display kinds and speakers a config may name are the registries'
# in hardware.backends (read when a config is checked, so a row added there is allowed here).
SERIAL_PROTOCOLS = ("matrix-orbital", "sparkfun", "ansi", "plain")
BUZZER_KINDS = ("tonal", "active", "none")

#: How one key is read: ``read`` (the reader), ``args`` (its range or choices), ``name`` (the
#: key, "" for the field's name), ``per`` (the key's units per field unit), ``optional`` (a
#: pin that may be ``false``). A plain mapping, as dataclass field metadata is.
KeySpec = Mapping[str, Any]


def key_spec(read: str, *args: Any, name: str = "", per: float = 1.0, optional: bool = False) -> KeySpec:
    """How a key is read (see :func:`config_key`), for a field that is not made here."""
    return {"read": read, "args": args, "name": name, "per": per, "optional": optional}


def config_key(default: Any, read: str, *args: Any, name: str = "", per: float = 1.0, optional: bool = False) -> Any:
    """A dataclass field that is a config key: how :func:`~hardware.config.reader.read_fields` reads it.

    ``read`` is the :class:`~hardware.config.table.Table` reader (``integer``, ``number``,
    ``choice``, ``pin``, ``path``, ...; ``pins`` is one pin key per button), ``args`` its range
    or choices (one may be a function, called when the config is checked: a registry's names,
    a range another module owns). ``name`` is the key when it is not the field's name; ``per``
    the key's units per field unit (``bounce_ms`` is 1000 per second). ``optional``: a pin
    that may be ``false``. The default is the field's: the one place each default lives
    (``default.toml`` is checked against them by a test).
    """
    return field(default=default, metadata=key_spec(read, *args, name=name, per=per, optional=optional))


@dataclass(frozen=True)
class ButtonsConfig:
    """Five momentary buttons to ground (pull-up) or to 3.3 V (``pull_up = false``)."""

    pins: tuple[int, int, int, int, int] = config_key((5, 6, 13, 19, 26), "pins")
    pull_up: bool = config_key(True, "boolean")
    bounce_seconds: float = config_key(0.02, "number", 0, 500, name="bounce_ms", per=1000)
    hold_seconds: float = config_key(0.8, "number", 100, 10_000, name="hold_ms", per=1000)
    # also filter in the GPIO backend (0 = leave it to our debounce)
    pin_bounce_seconds: float = config_key(0.0, "number", 0, 500, name="pin_bounce_ms", per=1000)

    def pin(self, button: Button) -> int:
        return self.pins[list(Button).index(button)]


@dataclass(frozen=True)
class LedsConfig:
    """One LED above each button (``None`` = not fitted)."""

    pins: tuple[int | None, int | None, int | None, int | None, int | None] = config_key(
        (12, 16, 20, 21, 25), "pins", optional=True)
    active_high: bool = config_key(True, "boolean")


@dataclass(frozen=True)
class RgbConfig:
    """The outcome LED: three PWM pins, common cathode unless ``common_anode``."""

    red: int = config_key(17, "pin")
    green: int = config_key(27, "pin")
    blue: int = config_key(22, "pin")
    common_anode: bool = config_key(False, "boolean")


@dataclass(frozen=True)
class BuzzerConfig:
    """A passive piezo played with PWM tones (``tonal``) or an active buzzer (``active``)."""

    pin: int = config_key(18, "pin")
    kind: str = config_key("tonal", "choice", BUZZER_KINDS)  # tonal: passive piezo (PWM tones); active: on/off buzzer
    octaves: int = config_key(2, "integer", 1, 3)  # TonalBuzzer range around A4


@dataclass(frozen=True)
class EncoderConfig:
    """An optional rotary encoder's two quadrature pins."""

    a: int = config_key(23, "pin")
    b: int = config_key(24, "pin")


@dataclass(frozen=True)
class DisplayConfig:
    """Which display and how it is wired: an OLED on I2C or SPI, a serial text display, ..."""

    kind: str = config_key("ssd1306", "choice", lambda: backends.DISPLAY_KINDS.config_names())
    bus: str = config_key("i2c", "choice", backends.DISPLAY_BUSES)
    i2c_port: int = config_key(1, "integer", 0, 22)
    i2c_address: int = config_key(0x3C, "integer", 0x03, 0x77)
    spi_port: int = config_key(0, "integer", 0, 6)
    spi_device: int = config_key(0, "integer", 0, 1)
    spi_dc: int = config_key(4, "pin")
    spi_reset: int | None = config_key(None, "pin", optional=True)
    spi_speed_hz: int = config_key(8_000_000, "integer", 100_000, 32_000_000)
    width: int = config_key(128, "integer", 64, 256)
    height: int = config_key(64, "integer", 32, 128)
    rotate: int = config_key(0, "integer", 0, 3)  # quarter turns
    serial_port: str = config_key("/dev/ttyUSB0", "text")
    baudrate: int = config_key(9600, "integer", 300, 4_000_000)
    cols: int = config_key(16, "integer", 8, 80)
    rows: int = config_key(2, "integer", 1, 8)
    protocol: str = config_key("matrix-orbital", "choice", SERIAL_PROTOCOLS)
    retry_seconds: float = config_key(2.0, "number", 0.1, 600)


@dataclass(frozen=True)
class EntropyConfig:
    """Where the dice's seed comes from (as ``--entropy``) and whether presses add to it."""

    source: str = config_key("auto", "text")  # as --entropy: auto, kernel, hwrng, buttons, file:PATH or a comma list
    button_timing: bool = config_key(True, "boolean")  # mix button press timings into the pool


@dataclass(frozen=True)
class SoundConfig:
    """Spoken results and setup pages (docs/speech.md). ``speak`` starts with speech on (the
    settings menu's "speech" switch changes it, and the panel remembers); ``language`` picks
    the phrase table and, with ``voice`` "", eSpeak NG's voice; ``device`` the ALSA device
    (``aplay -L``; "" = the default); ``still_seconds`` how long the buttons are still before
    a page is said."""

    speak: bool = config_key(False, "boolean")
    speaker: str = config_key("espeak", "choice", lambda: backends.SPEAKERS.config_names())
    language: str = config_key("en", "text")
    voice: str = config_key("", "text")
    rate: int = config_key(175, "integer", 80, 450)  # words per minute (espeak-ng -s)
    volume: int = config_key(100, "integer", 0, 200)  # espeak-ng -a
    device: str = config_key("", "text")
    still_seconds: float = config_key(1.0, "number", 0.2, 10)


#: eSpeak NG voice names (``en-us``, ``de``, ``en+f3``) and ALSA device names
#: (``plughw:CARD=Headphones,DEV=0``): letters, digits and ``_+-.:=,``, not starting with ``-``
#: (they go on espeak-ng's command line).
SOUND_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-.:=,")
SOUND_NAME_MOST = 80

#: ``kiosk.unrecorded``: what a roll whose log entry cannot be written does.
UNRECORDED_CHOICES = ("refuse", "show")
#: ``kiosk.state_dir`` that keeps nothing (no roll log, no memory).
STATE_DIR_NONE = "none"


@dataclass(frozen=True)
class KioskConfig:
    """Running unattended: where to remember things, and how often the clock ticks.

    ``state_dir``: "" is the default state directory ($STATE_DIRECTORY under systemd, else
    ~/.local/state/dicetower), "none" keeps nothing. ``unrecorded``: "refuse" (a roll that
    cannot be logged is not shown: "cannot record") or "show" (shown, marked UNRECORDED)."""

    state_dir: str = config_key("", "path", STATE_DIR_NONE)
    tick_hz: float = config_key(25.0, "number", 1, 200)  # clock ticks for animations, hold-repeat and idle
    unrecorded: str = config_key("refuse", "choice", UNRECORDED_CHOICES)
    lock: bool = config_key(False, "boolean")  # settings only through the operator buttons (engine.panel.operator)
    # held together: the settings menu
    operator_buttons: tuple[str, ...] = config_key(("mode", "roll"), "string_list")


@dataclass(frozen=True)
class NetworkConfig:
    """Publishing the roll log over MQTT (docs/network.md); ``mqtt = ""`` is off."""

    mqtt: str = config_key("", "text")  # mqtt://HOST[:PORT] or mqtts://HOST[:PORT]
    store: str = config_key("", "text")
    tower: str = config_key("", "text")
    username: str = config_key("", "text")  # "" = STORE/TOWER (what the shipped broker ACL binds)
    password_file: str = config_key("", "path")  # first line: the broker password ("" = no password)
    ca_file: str = config_key("", "path")  # mqtts: the CA certificate to trust ("" = the system's)

    @property
    def enabled(self) -> bool:
        return bool(self.mqtt)


@dataclass(frozen=True)
class WebConfig:
    """The phone page (docs/phone.md): ``enabled`` serves it, read-only, on ``listen``;
    ``pyodide`` names the folder of Pyodide's files ("" looks where tools/fetch_pyodide.py and
    deploy/install.sh put them)."""

    enabled: bool = config_key(False, "boolean")
    listen: str = config_key("0.0.0.0:80", "text")
    pyodide: str = config_key("", "path")


@dataclass(frozen=True)
class BridgeConfig:
    """The Pico (docs/bridge.md): ``port`` "" finds the first Pico by USB VID:PID
    (and ``serial_number`` if set); a path or pyserial URL; ``twin`` for the firmware twin."""

    port: str = config_key("", "text")
    serial_number: str = config_key("", "text")


@dataclass(frozen=True)
class TowerConfig:
    """The whole config; ``source`` names the file it came from (for messages). Which pins it
    drives and which the display takes: :mod:`hardware.config.pins`."""

    gpio_factory: str = config_key("auto", "choice", lambda: backends.PIN_FACTORIES.config_names(), name="factory")
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    leds: LedsConfig = field(default_factory=LedsConfig)
    rgb: RgbConfig | None = field(default_factory=RgbConfig)
    buzzer: BuzzerConfig | None = field(default_factory=BuzzerConfig)
    encoder: EncoderConfig | None = None
    display: DisplayConfig = field(default_factory=DisplayConfig)
    entropy: EntropyConfig = field(default_factory=EntropyConfig)
    panel: PanelConfig = field(default_factory=PanelConfig)
    kiosk: KioskConfig = field(default_factory=KioskConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    web: WebConfig = field(default_factory=WebConfig)
    bridge: BridgeConfig = field(default_factory=BridgeConfig)
    sound: SoundConfig = field(default_factory=SoundConfig)
    source: str = "defaults"


def _menu_bound(name: str, end: int, per: int = 1) -> Callable[[], float]:
    """One end of a settings menu range (``engine.panel.menu``'s ``NAME``, in its units ``per``
    the key's), looked up when a config is checked: the menu is not loaded with the schema."""

    def bound() -> float:
        from engine.panel import menu

        value: int = getattr(menu, name)[end]
        return value if per == 1 else value / per

    return bound


#: ``[panel]``'s keys: :class:`~engine.panel.options.PanelConfig`'s fields (their defaults are
#: the engine's), each read as the field of a ``config_key`` is. Where the settings menu fixes a
#: range, the key is held to it: a value outside would be clamped without a word (``animation_seconds
#: = 9`` starting at 3). A time without a range here is checked by PanelConfig itself,
#: whose error names its key.
PANEL_KEYS: Mapping[str, KeySpec] = {
    "systems": key_spec("string_list"),
    "hold_repeat_delay": key_spec("seconds"),
    "animation_seconds": key_spec("number", _menu_bound("ANIMATION_RANGE", 0, per=10),
                                  _menu_bound("ANIMATION_RANGE", 1, per=10)),  # tenths in the menu
    "animation_frame_seconds": key_spec("seconds"),
    "result_hold_seconds": key_spec("seconds"),
    "idle_seconds": key_spec("seconds"),
    "attract_step_seconds": key_spec("seconds"),
    "players": key_spec("integer", 1, 9),
    "brightness": key_spec("number", _menu_bound("BRIGHTNESS_RANGE", 0, per=100),
                           _menu_bound("BRIGHTNESS_RANGE", 1, per=100)),  # percent in the menu
}
#: PanelConfig fields that are no ``[panel]`` key: set from another table (``[sound] speak``,
#: ``[web]``'s address).
PANEL_FROM_ELSEWHERE = frozenset({"speak", "page_url"})
#: PanelConfig fields whose keys the systems declare: ``starts``, one ``start_PARAM`` key for
#: each value a system carries from roll to roll (its ``PanelSpec.starts``; fingers' karma).
PANEL_FROM_SYSTEMS = frozenset({"starts"})
