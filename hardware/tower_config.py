"""The tower's configuration: one TOML file of BCM pins, the display, entropy and panel options.

Everything has a default, kept in one place: the dataclass fields below, each made with
:func:`config_key` (its reader, range or choices, the key's name and unit), which the loader
(:func:`read_fields`, one named step per table in :func:`from_mapping`) reads; the documented
default wiring ``hardware/default.toml`` (:data:`DEFAULT_TOML`) says the same (a test holds
them equal), and a config file only needs the keys it changes. Unknown keys, wrong types,
out-of-range values and pins used twice (or taken by the display's bus) are a
:class:`ConfigError` naming the key, which the command line prints as one line (exit 2).
See ``docs/wiring.md``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from engine.errors import EngineError, ParameterError
from engine.panel.model import Button
from engine.panel.options import PanelConfig
from hardware import backends

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

DEFAULT_TOML = Path(__file__).resolve().parent / "default.toml"

# gpiozero pin factories, display kinds and speakers a config may name are the registries'
# in hardware.backends (read when a config is checked, so a row added there is allowed here).
SERIAL_PROTOCOLS = ("matrix-orbital", "sparkfun", "ansi", "plain")
BUZZER_KINDS = ("tonal", "active", "none")

#: Pins the 40-pin header offers as GPIO (BCM numbering).
BCM_PINS = range(0, 28)
#: GP numbers a config may name at all: a Pico's GP0..GP29 (which of them it brings out is
#: checked with the factory, in ``_check_pins``).
ANY_PINS = range(0, 30)
I2C_PINS = {2: "I2C SDA", 3: "I2C SCL"}
SPI_PINS = {9: "SPI MISO", 10: "SPI MOSI", 11: "SPI SCLK"}
SPI_CE = {0: 8, 1: 7}
UART_PINS = {14: "UART TXD", 15: "UART RXD"}
UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")


def config_key(default: Any, read: str, *args: Any, name: str = "", per: float = 1.0, optional: bool = False) -> Any:
    """A dataclass field that is a config key: how :func:`read_fields` reads it.

    ``read`` is the :class:`_Table` reader (``integer``, ``number``, ``choice``, ``pin``,
    ``path``, ...; ``pins`` is one pin key per button), ``args`` its range or choices (a
    choice list may be a function, read when the config is checked: a registry's names).
    ``name`` is the key when it is not the field's name; ``per`` the key's units per field
    unit (``bounce_ms`` is 1000 per second). ``optional``: a pin that may be ``false``.
    The default is the field's: the one place each default lives (``default.toml`` is
    checked against them by a test).
    """
    meta = {"read": read, "args": args, "name": name, "per": per, "optional": optional}
    return field(default=default, metadata=meta)


class ConfigError(EngineError, ValueError):
    """A config key is unknown or its value is not allowed; ``key`` is dotted (``buttons.roll``)."""

    def __init__(self, key: str, message: str, source: str = "config") -> None:
        super().__init__(f"{source}: {key}: {message}")
        self.key = key
        self.detail = message
        self.source = source


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


#: A config file is a few KiB; anything larger (or ``/dev/zero``) is not one.
MAX_CONFIG_BYTES = 1 << 20
#: Tables and arrays in a config nest 3 deep; 64 is far beyond any real one.
MAX_CONFIG_DEPTH = 64
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
    """The companion board (docs/bridge.md): ``port`` "" finds the first Pico by USB VID:PID
    (and ``serial_number`` if set); a path or pyserial URL; ``twin`` for the firmware twin."""

    port: str = config_key("", "text")
    serial_number: str = config_key("", "text")


#: Pico pins the bridge firmware keeps for itself: its OLED's I2C0 and the safe-boot pin.
BRIDGE_RESERVED = {8: "Pico I2C0 SDA (the bridge's OLED)", 9: "Pico I2C0 SCL (the bridge's OLED)",
                   14: "Pico safe-boot"}
#: GP pins a Raspberry Pi Pico brings out (GP25 is its on-board LED; GP23, GP24 and GP29 are
#: wired on the board itself). The same list as firmware_bridge/firmware/pins.py's USABLE.
PICO_PINS = (*range(0, 23), 25, 26, 27, 28)


@dataclass(frozen=True)
class TowerConfig:
    """The whole config; ``source`` names the file it came from (for messages)."""

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

    def pin_uses(self) -> dict[str, int]:
        """Every GPIO the config drives, by dotted key (for conflicts and the wiring table)."""
        uses: dict[str, int] = {}
        for button, pin in zip(Button, self.buttons.pins, strict=True):
            uses[f"buttons.{button}"] = pin
        for button, led in zip(Button, self.leds.pins, strict=True):
            if led is not None:
                uses[f"leds.{button}"] = led
        if self.rgb is not None:
            uses.update({"rgb.red": self.rgb.red, "rgb.green": self.rgb.green, "rgb.blue": self.rgb.blue})
        if self.buzzer is not None:
            uses["buzzer.pin"] = self.buzzer.pin
        if self.encoder is not None:
            uses.update({"encoder.a": self.encoder.a, "encoder.b": self.encoder.b})
        d = self.display
        if d.bus == "spi" and d.bus in backends.DISPLAY_KINDS.get(d.kind).buses:
            uses["display.spi_dc"] = d.spi_dc
            if d.spi_reset is not None:
                uses["display.spi_reset"] = d.spi_reset
        return uses

    def reserved_pins(self) -> dict[int, str]:
        """Pins the display's bus takes (not drivable as GPIO while it is in use)."""
        d = self.display
        if self.gpio_factory == "bridge":
            return dict(BRIDGE_RESERVED)  # the pins are the Pico's; the Pi's buses are not involved
        if d.bus in backends.DISPLAY_KINDS.get(d.kind).buses:
            if d.bus == "i2c" and d.i2c_port == 1:
                return dict(I2C_PINS)
            if d.bus == "spi" and d.spi_port == 0:
                return {**SPI_PINS, SPI_CE[d.spi_device]: f"SPI CE{d.spi_device}"}
        if d.kind == "serial" and d.serial_port in UART_PORTS:
            return dict(UART_PINS)
        return {}


def load(path: str | Path | None = None) -> TowerConfig:
    """The config from ``path`` (TOML), or the documented defaults when ``path`` is None."""
    if path is None:
        return from_mapping({}, source="defaults")
    import errno

    from hardware.paths import PathError, user_path
    from hardware.safefile import FileRefused, read_capped

    try:
        p = user_path(path, "--config") if isinstance(path, str) else Path(path)
    except PathError as exc:
        raise ConfigError("file", exc.detail, source=str(path)) from None
    try:
        # by the one rule (hardware.safefile): /dev/zero, a FIFO or a link is refused, not read
        data = read_capped(p, MAX_CONFIG_BYTES)
    except FileRefused as exc:
        raise ConfigError("file", str(exc.strerror).removeprefix(f"{p} "), source=str(p)) from None
    except OSError as exc:
        # The line starts with the path (the source): say it once.
        why = "it is a symbolic link; name the file it points to" if exc.errno == errno.ELOOP else exc.strerror
        raise ConfigError("file", f"cannot read it: {why or exc}", source=str(p)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            "file", f"not UTF-8 text: byte 0x{data[exc.start]:02x} on line {line} (TOML files are UTF-8)", source=str(p)
        ) from None
    return loads(text, source=str(p))


def loads(text: str, source: str = "config") -> TowerConfig:
    import tomllib  # only when there is a file to read: start-up without one skips it

    from hardware.safefile import FileRefused, check_nesting

    try:
        check_nesting(text, MAX_CONFIG_DEPTH, "the config")  # tomllib recurses: no RecursionError
        data = tomllib.loads(text)
    except FileRefused as exc:
        raise ConfigError("toml", str(exc.strerror), source=source) from None
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError("toml", f"not valid TOML: {exc}", source=source) from None
    return from_mapping(data, source=source)


def from_mapping(data: Mapping[str, Any], source: str = "config") -> TowerConfig:
    """Validate parsed TOML; every problem is a :class:`ConfigError` naming its key.

    Each table is read by its step below (in an order where a table checked against another
    comes after it: ``[network]`` needs ``[kiosk]``, ``[panel]`` takes ``[sound]``'s
    ``speak``), then the pins of the whole config are checked together."""
    root = _Table(data, "", source)
    parts: dict[str, Any] = {"gpio_factory": _gpio(root.table("gpio"))}
    for name, step in _TABLE_STEPS:
        parts[name] = step(root.table(name), parts)
    root.done()
    config = TowerConfig(**parts, source=source)
    _check_pins(config)
    return config


T = TypeVar("T", bound="DataclassInstance")


def read_fields(t: _Table, cls: type[T], **given: Any) -> T:
    """``cls`` (a config dataclass) from table ``t``: each field made with :func:`key` is read
    by its reader, in field order; ``given`` fields are not read. Leftover keys are refused."""
    values = dict(given)
    for f in dataclasses.fields(cls):
        if f.name not in given and "read" in f.metadata:
            values[f.name] = _read_field(t, f)
    t.done()
    return cls(**values)


def _read_field(t: _Table, f: dataclasses.Field[Any]) -> Any:
    """One field's value from its key (or, for ``pins``, from one key per button)."""
    meta = f.metadata
    read, name, per = meta["read"], meta["name"] or f.name, meta["per"]
    default: Any = f.default
    if read == "pins":
        return tuple(t.pin(str(button), pin, optional=meta["optional"])
                     for button, pin in zip(Button, default, strict=True))
    if read == "pin":
        return t.pin(name, default, optional=meta["optional"])
    if read == "path":
        return t.path(name, default, special=meta["args"])
    args = tuple(arg() if callable(arg) else arg for arg in meta["args"])
    if per != 1:
        return getattr(t, read)(name, default * per, *args) / per
    return getattr(t, read)(name, default, *args)


def _keys(cls: type) -> tuple[str, ...]:
    """The keys of a config dataclass's table (what a switched-off part still allows)."""
    return tuple(f.metadata["name"] or f.name for f in dataclasses.fields(cls) if "read" in f.metadata)


def _field(cls: type, name: str) -> dataclasses.Field[Any]:
    return next(f for f in dataclasses.fields(cls) if f.name == name)


def _gpio(t: _Table) -> str:
    """``[gpio] factory``: TowerConfig's ``gpio_factory``."""
    factory = _read_field(t, _field(TowerConfig, "gpio_factory"))
    t.done()
    return factory


def _switched(t: _Table, cls: type[T], name: str) -> T | None:
    """A part with an ``enabled`` key (``[rgb]``, ``[encoder]``), None when it is off; its
    other keys are still allowed. Whether it is on by default is TowerConfig's default."""
    declared = next(f for f in dataclasses.fields(TowerConfig) if f.name == name)
    default = declared.default_factory() if declared.default_factory is not dataclasses.MISSING else declared.default
    if t.boolean("enabled", default is not None):
        return read_fields(t, cls)
    t.ignore(*_keys(cls))
    t.done()
    return None


def _buzzer(t: _Table, parts: dict[str, Any]) -> BuzzerConfig | None:
    """``[buzzer]``: ``kind = "none"`` is no buzzer (its other keys still allowed)."""
    kind = _read_field(t, _field(BuzzerConfig, "kind"))
    if kind == "none":
        t.ignore(*_keys(BuzzerConfig))
        t.done()
        return None
    return read_fields(t, BuzzerConfig, kind=kind)


def _entropy(t: _Table, parts: dict[str, Any]) -> EntropyConfig:
    """``[entropy]``: ``source`` is checked as ``--entropy`` would be."""
    cfg = read_fields(t, EntropyConfig)
    if cfg.source != EntropyConfig.source:
        from engine.errors import ParameterError
        from hardware.entropy.pipeline import parse_spec

        try:
            parse_spec(cfg.source)
        except ParameterError as exc:
            raise t.error("source", exc.detail) from None
    return cfg


def _kiosk(t: _Table, parts: dict[str, Any]) -> KioskConfig:
    cfg = read_fields(t, KioskConfig)
    if cfg.operator_buttons != KioskConfig.operator_buttons:  # the shipped combination needs no check
        from engine.panel.operator import check_buttons

        try:
            check_buttons(cfg.operator_buttons)
        except ValueError as exc:
            raise t.error("operator_buttons", str(exc)) from None
    return cfg


def _display(t: _Table, parts: dict[str, Any]) -> DisplayConfig:
    """``[display]``: its kind's row (hardware.backends) fixes the buses and sizes allowed."""
    cfg = read_fields(t, DisplayConfig)
    _check_display_bus(t, cfg)
    _check_display_size(t, cfg)
    if cfg.kind == "serial":
        _check_serial_port(t, cfg.serial_port)
    return cfg


def _network(t: _Table, parts: dict[str, Any]) -> NetworkConfig:
    """``[network]``: the broker URL and ids are checked here, so a typo stops the tower at
    start-up with the key named, not silently later in the publisher's thread."""
    cfg = read_fields(t, NetworkConfig)
    if not cfg.enabled:
        return cfg
    # imported only for a tower on the network: the broker module loads ssl (start-up time)
    from hardware.network import NetworkError
    from hardware.network.broker import parse_url
    from hardware.network.topics import check_id

    checks = (("mqtt", lambda: parse_url(cfg.mqtt)), ("store", lambda: check_id("store", cfg.store)),
              ("tower", lambda: check_id("tower", cfg.tower)))
    for name, check in checks:
        try:
            check()
        except NetworkError as exc:
            raise t.error(name, str(exc).partition(": ")[2]) from None
    if not parts["kiosk"].state_dir:
        raise t.error("mqtt", "needs kiosk.state_dir: the roll log kept there is what is published")
    return cfg


def _web(t: _Table, parts: dict[str, Any]) -> WebConfig:
    """``[web]``: the listen address is checked here, and the page needs the roll log kept in
    ``kiosk.state_dir`` (it is what the page checks)."""
    cfg = read_fields(t, WebConfig)
    if not cfg.enabled:
        return cfg
    from hardware.web.server import parse_listen

    try:
        parse_listen(cfg.listen)
    except ValueError as exc:
        raise t.error("listen", str(exc)) from None
    if not parts["kiosk"].state_dir or parts["kiosk"].state_dir == STATE_DIR_NONE:
        raise t.error("enabled", "needs kiosk.state_dir: the roll log kept there is what the phone page checks")
    parts["panel"] = dataclasses.replace(parts["panel"], page_url=page_url(cfg.listen))
    return cfg


def page_url(listen: str) -> str:
    """The address a phone on the table's network opens the page at: the tower's name under
    mDNS (the installer sets avahi up), with the port unless it is 80."""
    import socket

    from hardware.web.server import parse_listen

    _, port = parse_listen(listen)
    host = socket.gethostname().split(".")[0] or "dicetower"
    return f"http://{host}.local/" if port == 80 else f"http://{host}.local:{port}/"


def _sound(t: _Table, parts: dict[str, Any]) -> SoundConfig:
    """``[sound]``: speech (docs/speech.md). The language's phrase table is loaded here, so a
    broken translation stops the tower at start-up with its key named."""
    cfg = read_fields(t, SoundConfig)
    for name in ("voice", "device"):
        _check_sound_name(t, name, getattr(cfg, name))
    if cfg.language != SoundConfig.language:
        from engine.speech import SpeechError, table

        try:
            table(cfg.language)
        except SpeechError as exc:
            raise t.error("language", str(exc).partition(": ")[2]) from None
    return cfg


def _check_sound_name(t: _Table, name: str, value: str) -> None:
    if value and (value.startswith("-") or len(value) > SOUND_NAME_MOST or not set(value) <= SOUND_NAME_CHARS):
        raise t.error(name, f"expected a name of letters, digits and _+-.:=, (not starting with -, at most "
                            f"{SOUND_NAME_MOST}), got {value!r}")


def _panel_with_speak(t: _Table, parts: dict[str, Any]) -> PanelConfig:
    """``[panel]``, with ``speak`` from ``[sound]``."""
    return dataclasses.replace(_panel(t), speak=parts["sound"].speak)


#: The tables after ``[gpio]``, each read by its step (TowerConfig's field of the same name).
_TABLE_STEPS: tuple[tuple[str, Callable[[_Table, dict[str, Any]], Any]], ...] = (
    ("buttons", lambda t, parts: read_fields(t, ButtonsConfig)),
    ("leds", lambda t, parts: read_fields(t, LedsConfig)),
    ("rgb", lambda t, parts: _switched(t, RgbConfig, "rgb")),
    ("buzzer", _buzzer),
    ("encoder", lambda t, parts: _switched(t, EncoderConfig, "encoder")),
    ("display", _display),
    ("entropy", _entropy),
    ("sound", _sound),
    ("panel", _panel_with_speak),
    ("kiosk", _kiosk),
    ("bridge", lambda t, parts: read_fields(t, BridgeConfig)),
    ("network", _network),
    ("web", _web),
)


#: PanelConfig fields that are not ``[panel]`` keys: set from another table.
_NOT_PANEL_KEYS = frozenset({"speak", "page_url"})  # [sound] speak; [web]'s address


def _panel(t: _Table) -> PanelConfig:
    """``[panel]`` keys are :class:`PanelConfig`'s fields; its own checks name the key
    (:attr:`ParameterError.key`)."""
    # the defaults as declared: PanelConfig() itself would list the installed systems, which
    # imports each one (their order is on their specs); a config naming its systems imports
    # only the first at start
    known = {f.name: f.default for f in dataclasses.fields(PanelConfig)
             if f.name not in _NOT_PANEL_KEYS and f.name != "systems"}
    bounds = _panel_bounds()
    values: dict[str, Any] = {}
    systems = t.string_list("systems", None)
    if systems is not None:
        values["systems"] = systems
    starts = _starts(t, systems)
    if starts:
        values["starts"] = starts
    for name, default in known.items():
        if name in ("systems", "starts"):
            continue
        elif isinstance(default, bool):
            values[name] = t.boolean(name, default)
        elif isinstance(default, int):
            lo, hi = bounds.get(name, (0, 2**31 - 1))
            values[name] = t.integer(name, default, int(lo), int(hi))
        elif isinstance(default, float) and name in bounds:
            values[name] = t.number(name, default, *bounds[name])
        elif isinstance(default, float):
            values[name] = t.seconds(name, default)  # its range is PanelConfig's to check
        else:
            values[name] = t.raw(name, default)
    t.done()
    try:
        return PanelConfig(**values)
    except ParameterError as exc:
        if exc.key in known or exc.key == "systems":
            raise ConfigError(f"panel.{exc.key}", exc.detail, t.source) from None
        raise ConfigError("panel", str(exc), t.source) from None
    except ValueError as exc:
        raise ConfigError("panel", str(exc), t.source) from None


def _starts(t: _Table, systems: tuple[str, ...] | None) -> tuple[tuple[str, int], ...]:
    """``[panel] start_PARAM = N`` keys: the start value of a system's carried parameter
    (:class:`engine.systems.panel.Start`, fingers' ``start_karma``), within the range the
    settings menu would give it. Only a config with such a key imports the systems to find it
    (the enabled ones, or every installed one when the config names none)."""
    keys = sorted(k for k in t.data if isinstance(k, str) and k.startswith("start_"))
    if not keys:
        return ()
    from engine.systems import all_systems, get

    specs = all_systems() if systems is None else tuple(get(s) for s in systems if _installed(s))
    offered = {start.key: start for spec in specs for start in spec.panel.starts}
    out = []
    for key in keys:
        start = offered.get(key)
        if start is None:
            allowed = ", ".join(sorted(offered)) or "none: no enabled system has a start value"
            raise t.error(key, f"unknown key (a system's start value: {allowed})")
        out.append((start.param, t.integer(key, start.default, start.lo, start.hi)))
    return tuple(out)


def _installed(system: str) -> bool:
    from engine.systems import installed

    return installed(system)


def _panel_bounds() -> dict[str, tuple[float, float]]:
    """Panel keys whose range the settings menu fixes: a value outside it would be clamped
    without a word (``start_karma = 9`` starting players at 5), so the config refuses it."""
    from engine.panel.menu import ANIMATION_RANGE, BRIGHTNESS_RANGE

    return {
        "players": (1, 9),
        "animation_seconds": (ANIMATION_RANGE[0] / 10, ANIMATION_RANGE[1] / 10),
        "brightness": (BRIGHTNESS_RANGE[0] / 100, BRIGHTNESS_RANGE[1] / 100),
    }


def _check_display_size(t: _Table, d: DisplayConfig) -> None:
    """The sizes the kind's luma driver takes (asked of the class: luma owns them): anything
    else would fail only when the display is opened."""
    if (d.kind, d.width, d.height) == (DisplayConfig.kind, DisplayConfig.width, DisplayConfig.height):
        return  # the shipped module needs no probe: luma's import is 60 ms of start-up (a test holds luma to it)
    kind = backends.DISPLAY_KINDS.get(d.kind)
    if not kind.luma or not kind.buses:
        return
    from hardware.display import luma_facts

    if luma_facts.takes(kind, d.width, d.height):
        return
    sizes = luma_facts.sizes(kind)
    key = "height" if d.width in {w for w, _ in sizes} else "width"
    shown = ", ".join(f"{w}x{h}" for w, h in sizes)
    raise t.error(key, f"{d.kind} modules are {shown} pixels, got {d.width}x{d.height}")


def _check_display_bus(t: _Table, d: DisplayConfig) -> None:
    buses = backends.DISPLAY_KINDS.get(d.kind).buses
    if buses and d.bus not in buses:
        raise t.error("bus", f"{d.kind} modules come on {' or '.join(buses)}, got {d.bus!r}")


def _check_serial_port(t: _Table, port: str) -> None:
    """A device path, or a pyserial URL whose scheme pyserial knows (an unknown one is a
    ValueError when the port is opened, which would stop the tower instead of being retried)."""
    if not port.strip():
        raise t.error("serial_port", f"expected a serial port such as /dev/ttyUSB0 or /dev/serial0, got {port!r}")
    if "://" not in port:
        return
    import serial

    try:
        serial.serial_for_url(port, do_not_open=True)
    except (ValueError, serial.SerialException) as exc:
        raise t.error("serial_port", f"{exc}: expected a device such as /dev/ttyUSB0 or a pyserial URL, "
                                     f"got {port!r}") from None


def _check_pins(config: TowerConfig) -> None:
    reserved = config.reserved_pins()
    seen: dict[int, str] = {}
    bridge = config.gpio_factory == "bridge"
    label = "GP" if bridge else "BCM "
    for key, pin in config.pin_uses().items():
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


_MISSING = object()


class _Table:
    """One TOML table being read: typed getters that name the key, and a check for leftovers."""

    def __init__(self, data: Any, prefix: str, source: str) -> None:
        if not isinstance(data, Mapping):
            raise ConfigError(prefix or "config", f"expected a table, got {_kind(data)}", source)
        self.data = dict(data)
        self.prefix = prefix
        self.source = source
        self.used: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def error(self, name: str, message: str) -> ConfigError:
        return ConfigError(self.key(name), message, self.source)

    def _get(self, name: str) -> Any:
        self.used.add(name)
        return self.data.get(name, _MISSING)

    def table(self, name: str) -> _Table:
        value = self._get(name)
        return _Table({} if value is _MISSING else value, self.key(name), self.source)

    def ignore(self, *names: str) -> None:
        """Keys that are allowed but unused (a disabled device's pins)."""
        for name in names:
            self._get(name)

    def raw(self, name: str, default: Any) -> Any:
        value = self._get(name)
        return default if value is _MISSING else value

    def boolean(self, name: str, default: bool) -> bool:
        value = self._get(name)
        if value is _MISSING:
            return default
        if not isinstance(value, bool):
            raise self.error(name, f"expected true or false, got {_show(value)}")
        return value

    def integer(self, name: str, default: int, lo: int, hi: int) -> int:
        value = self._get(name)
        if value is _MISSING:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(name, f"expected a whole number from {lo} to {hi}, got {_show(value)}")
        if not lo <= value <= hi:
            raise self.error(name, f"expected a whole number from {lo} to {hi}, got {value}")
        return value

    def number(self, name: str, default: float, lo: float, hi: float) -> float:
        value = self._get(name)
        if value is _MISSING:
            return float(default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.error(name, f"expected a number from {_num(lo)} to {_num(hi)}, got {_show(value)}")
        if not lo <= value <= hi:
            raise self.error(name, f"expected a number from {_num(lo)} to {_num(hi)}, got {_num(value)}")
        return float(value)

    def seconds(self, name: str, default: float) -> float:
        """A number of seconds whose range the caller checks."""
        value = self._get(name)
        if value is _MISSING:
            return float(default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.error(name, f"expected a number of seconds, got {_show(value)}")
        return float(value)

    def text(self, name: str, default: str) -> str:
        value = self._get(name)
        if value is _MISSING:
            return default
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, got {_show(value)}")
        return value

    def path(self, name: str, default: str, *, special: tuple[str, ...] = ()) -> str:
        """A path (kept as written; "" and ``special`` words pass as they are): checked now by
        :func:`hardware.paths.user_path`, so a NUL or a ``~user`` with no such user stops the
        tower at start-up with the key named."""
        from hardware.paths import PathError, user_path

        value = self.text(name, default)
        if value and value.strip().lower() not in special:
            try:
                user_path(value, self.key(name))
            except PathError as exc:
                raise self.error(name, exc.detail) from None
        return value

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.text(name, default)
        if value not in choices:
            raise self.error(name, f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    @overload
    def string_list(self, name: str, default: tuple[str, ...]) -> tuple[str, ...]: ...

    @overload
    def string_list(self, name: str, default: None) -> tuple[str, ...] | None: ...

    def string_list(self, name: str, default: tuple[str, ...] | None) -> tuple[str, ...] | None:
        value = self._get(name)
        if value is _MISSING:
            return None if default is None else tuple(default)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(name, f"expected a list of strings, got {_show(value)}")
        return tuple(value)

    def pin(self, name: str, default: int | None, *, optional: bool = False) -> Any:
        value = self._get(name)
        if value is _MISSING:
            return default
        if optional and value is False:
            return None  # `roll = false`: not fitted
        if isinstance(value, bool) or not isinstance(value, int) or value not in ANY_PINS:
            allowed = f"a BCM pin number from {BCM_PINS.start} to {BCM_PINS.stop - 1}"
            if optional:
                allowed += " (or false: not fitted)"
            raise self.error(name, f"expected {allowed}, got {_show(value)}")
        return value

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            allowed = ", ".join(sorted(self.used)) or "none"
            raise self.error(unknown[0], f"unknown key (allowed here: {allowed})")


def _kind(value: Any) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean"}.get(type(value), type(value).__name__)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    return str(value)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
