"""The tower's configuration: one TOML file of BCM pins, the display, entropy and panel options.

Everything has a default: :data:`DEFAULT_TOML` (``hardware/default.toml``) is the documented
default wiring, and a config file only needs the keys it changes. Unknown keys, wrong types,
out-of-range values and pins used twice (or taken by the display's bus) are a
:class:`ConfigError` naming the key, which the command line prints as one line (exit 2).
See ``docs/wiring.md``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import EngineError, ParameterError
from engine.panel.model import Button
from engine.panel.options import PanelConfig
from hardware import backends

DEFAULT_TOML = Path(__file__).resolve().parent / "default.toml"

#: gpiozero pin factories and display kinds the config may name (the registries' names).
PIN_FACTORIES = backends.PIN_FACTORIES.names()
DISPLAY_KINDS = backends.DISPLAY_KINDS.names()
SERIAL_PROTOCOLS = ("matrix-orbital", "sparkfun", "ansi", "plain")
BUZZER_KINDS = ("tonal", "active", "none")
#: Speakers a config may name (the others are the simulator's and the tests').
SPEAKER_KINDS = tuple(b.name for b in backends.SPEAKERS if b.config)

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

    pins: tuple[int, int, int, int, int] = (5, 6, 13, 19, 26)
    pull_up: bool = True
    bounce_seconds: float = 0.02
    hold_seconds: float = 0.8
    pin_bounce_seconds: float = 0.0  # also filter in the GPIO backend (0 = leave it to our debounce)

    def pin(self, button: Button) -> int:
        return self.pins[list(Button).index(button)]


@dataclass(frozen=True)
class LedsConfig:
    """One LED above each button (``None`` = not fitted)."""

    pins: tuple[int | None, int | None, int | None, int | None, int | None] = (12, 16, 20, 21, 25)
    active_high: bool = True


@dataclass(frozen=True)
class RgbConfig:
    """The outcome LED: three PWM pins, common cathode unless ``common_anode``."""

    red: int = 17
    green: int = 27
    blue: int = 22
    common_anode: bool = False


@dataclass(frozen=True)
class BuzzerConfig:
    """A passive piezo played with PWM tones (``tonal``) or an active buzzer (``active``)."""

    pin: int = 18
    kind: str = "tonal"  # tonal: passive piezo (PWM tones); active: on/off buzzer
    octaves: int = 2  # TonalBuzzer range around A4


@dataclass(frozen=True)
class EncoderConfig:
    """An optional rotary encoder's two quadrature pins."""

    a: int = 23
    b: int = 24


@dataclass(frozen=True)
class DisplayConfig:
    """Which display and how it is wired: an OLED on I2C or SPI, a serial text display, ..."""

    kind: str = "ssd1306"
    bus: str = "i2c"
    i2c_port: int = 1
    i2c_address: int = 0x3C
    spi_port: int = 0
    spi_device: int = 0
    spi_dc: int = 4
    spi_reset: int | None = None
    spi_speed_hz: int = 8_000_000
    width: int = 128
    height: int = 64
    rotate: int = 0  # quarter turns
    serial_port: str = "/dev/ttyUSB0"
    baudrate: int = 9600
    cols: int = 16
    rows: int = 2
    protocol: str = "matrix-orbital"
    retry_seconds: float = 2.0


@dataclass(frozen=True)
class EntropyConfig:
    """Where the dice's seed comes from (as ``--entropy``) and whether presses add to it."""

    source: str = "auto"  # as --entropy: auto, kernel, hwrng, buttons, file:PATH or a comma list
    button_timing: bool = True  # mix button press timings into the pool


@dataclass(frozen=True)
class SoundConfig:
    """Spoken results and setup pages (docs/speech.md). ``speak`` starts with speech on (the
    settings menu's "speech" switch changes it, and the panel remembers); ``language`` picks
    the phrase table and, with ``voice`` "", eSpeak NG's voice; ``device`` the ALSA device
    (``aplay -L``; "" = the default); ``still_seconds`` how long the buttons are still before
    a page is said."""

    speak: bool = False
    speaker: str = "espeak"
    language: str = "en"
    voice: str = ""
    rate: int = 175  # words per minute (espeak-ng -s)
    volume: int = 100  # espeak-ng -a, 0..200
    device: str = ""
    still_seconds: float = 1.0


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

    state_dir: str = ""
    tick_hz: float = 25.0  # clock ticks for animations, hold-repeat and idle
    unrecorded: str = "refuse"
    lock: bool = False  # settings only through the operator buttons (engine.panel.operator)
    operator_buttons: tuple[str, ...] = ("mode", "roll")  # held together: the settings menu


@dataclass(frozen=True)
class NetworkConfig:
    """Publishing the roll log over MQTT (docs/network.md); ``mqtt = ""`` is off."""

    mqtt: str = ""  # mqtt://HOST[:PORT] or mqtts://HOST[:PORT]
    store: str = ""
    tower: str = ""
    username: str = ""  # "" = the tower id
    password_file: str = ""  # first line: the broker password ("" = no password)
    ca_file: str = ""  # mqtts: the CA certificate to trust ("" = the system's)

    @property
    def enabled(self) -> bool:
        return bool(self.mqtt)


@dataclass(frozen=True)
class BridgeConfig:
    """The companion board (docs/bridge.md): ``port`` "" finds the first Pico by USB VID:PID
    (and ``serial_number`` if set); a path or pyserial URL; ``twin`` for the firmware twin."""

    port: str = ""
    serial_number: str = ""


#: Pico pins the bridge firmware keeps for itself: its OLED's I2C0 and the safe-boot pin.
BRIDGE_RESERVED = {8: "Pico I2C0 SDA (the bridge's OLED)", 9: "Pico I2C0 SCL (the bridge's OLED)",
                   14: "Pico safe-boot"}
#: GP pins a Raspberry Pi Pico brings out (GP25 is its on-board LED; GP23, GP24 and GP29 are
#: wired on the board itself). The same list as firmware_bridge/firmware/pins.py's USABLE.
PICO_PINS = (*range(0, 23), 25, 26, 27, 28)


@dataclass(frozen=True)
class TowerConfig:
    """The whole config; ``source`` names the file it came from (for messages)."""

    gpio_factory: str = "auto"
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
        if d.kind in ("ssd1306", "sh1106") and d.bus == "spi":
            uses["display.spi_dc"] = d.spi_dc
            if d.spi_reset is not None:
                uses["display.spi_reset"] = d.spi_reset
        return uses

    def reserved_pins(self) -> dict[int, str]:
        """Pins the display's bus takes (not drivable as GPIO while it is in use)."""
        d = self.display
        if self.gpio_factory == "bridge":
            return dict(BRIDGE_RESERVED)  # the pins are the Pico's; the Pi's buses are not involved
        if d.kind in ("ssd1306", "sh1106"):
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
    """Validate parsed TOML; every problem is a :class:`ConfigError` naming its key."""
    root = _Table(data, "", source)
    gpio = root.table("gpio")
    factory = gpio.choice("factory", "auto", PIN_FACTORIES)
    gpio.done()

    b = root.table("buttons")
    defaults = ButtonsConfig()
    buttons = ButtonsConfig(
        pins=tuple(b.pin(str(btn), defaults.pin(btn)) for btn in Button),  # type: ignore[arg-type]
        pull_up=b.boolean("pull_up", defaults.pull_up),
        bounce_seconds=b.number("bounce_ms", defaults.bounce_seconds * 1000, 0, 500) / 1000,
        hold_seconds=b.number("hold_ms", defaults.hold_seconds * 1000, 100, 10_000) / 1000,
        pin_bounce_seconds=b.number("pin_bounce_ms", defaults.pin_bounce_seconds * 1000, 0, 500) / 1000,
    )
    b.done()

    led_t = root.table("leds")
    led_defaults = LedsConfig()
    leds = LedsConfig(
        pins=tuple(  # type: ignore[arg-type]
            led_t.pin(str(btn), led_defaults.pins[i], optional=True) for i, btn in enumerate(Button)
        ),
        active_high=led_t.boolean("active_high", led_defaults.active_high),
    )
    led_t.done()

    rgb_t = root.table("rgb")
    rgb: RgbConfig | None = None
    if rgb_t.boolean("enabled", True):
        d = RgbConfig()
        rgb = RgbConfig(
            red=rgb_t.pin("red", d.red),
            green=rgb_t.pin("green", d.green),
            blue=rgb_t.pin("blue", d.blue),
            common_anode=rgb_t.boolean("common_anode", d.common_anode),
        )
    else:
        rgb_t.ignore("red", "green", "blue", "common_anode")
    rgb_t.done()

    bz_t = root.table("buzzer")
    bz_d = BuzzerConfig()
    kind = bz_t.choice("kind", bz_d.kind, BUZZER_KINDS)
    buzzer: BuzzerConfig | None = None
    if kind != "none":
        buzzer = BuzzerConfig(
            pin=bz_t.pin("pin", bz_d.pin), kind=kind, octaves=bz_t.integer("octaves", bz_d.octaves, 1, 3)
        )
    else:
        bz_t.ignore("pin", "octaves")
    bz_t.done()

    en_t = root.table("encoder")
    encoder: EncoderConfig | None = None
    if en_t.boolean("enabled", False):
        en_d = EncoderConfig()
        encoder = EncoderConfig(a=en_t.pin("a", en_d.a), b=en_t.pin("b", en_d.b))
    else:
        en_t.ignore("a", "b")
    en_t.done()

    display = _display(root.table("display"))

    ent_t = root.table("entropy")
    ent_d = EntropyConfig()
    entropy = EntropyConfig(
        source=ent_t.text("source", ent_d.source),
        button_timing=ent_t.boolean("button_timing", ent_d.button_timing),
    )
    if entropy.source != "auto":
        from engine.errors import ParameterError
        from hardware.entropy.pipeline import parse_spec

        try:
            parse_spec(entropy.source)
        except ParameterError as exc:
            raise ConfigError("entropy.source", exc.detail, source) from None
    ent_t.done()

    sound = _sound(root.table("sound"))
    panel = dataclasses.replace(_panel(root.table("panel")), speak=sound.speak)

    k_t = root.table("kiosk")
    k_d = KioskConfig()
    kiosk = KioskConfig(
        state_dir=k_t.path("state_dir", k_d.state_dir, special=(STATE_DIR_NONE,)),
        tick_hz=k_t.number("tick_hz", k_d.tick_hz, 1, 200),
        unrecorded=k_t.choice("unrecorded", k_d.unrecorded, UNRECORDED_CHOICES),
        lock=k_t.boolean("lock", k_d.lock),
        operator_buttons=_operator_buttons(k_t, k_d.operator_buttons),
    )
    k_t.done()

    br_t = root.table("bridge")
    bridge = BridgeConfig(port=br_t.text("port", ""), serial_number=br_t.text("serial_number", ""))
    br_t.done()
    network = _network(root.table("network"), kiosk)
    root.done()

    config = TowerConfig(
        gpio_factory=factory,
        buttons=buttons,
        leds=leds,
        rgb=rgb,
        buzzer=buzzer,
        encoder=encoder,
        display=display,
        entropy=entropy,
        panel=panel,
        kiosk=kiosk,
        network=network,
        bridge=bridge,
        sound=sound,
        source=source,
    )
    _check_pins(config)
    return config


def _operator_buttons(t: _Table, default: tuple[str, ...]) -> tuple[str, ...]:
    names = t.string_list("operator_buttons", default)
    if names == default:
        return names  # the shipped combination: no need to load the lock to check it
    from engine.panel.operator import check_buttons

    try:
        check_buttons(names)
    except ValueError as exc:
        raise t.error("operator_buttons", str(exc)) from None
    return names


def _display(t: _Table) -> DisplayConfig:
    d = DisplayConfig()
    kind = t.choice("kind", d.kind, DISPLAY_KINDS)
    bus = t.choice("bus", d.bus, ("i2c", "spi"))
    reset = t.pin("spi_reset", d.spi_reset, optional=True)
    cfg = DisplayConfig(
        kind=kind,
        bus=bus,
        i2c_port=t.integer("i2c_port", d.i2c_port, 0, 22),
        i2c_address=t.integer("i2c_address", d.i2c_address, 0x03, 0x77),
        spi_port=t.integer("spi_port", d.spi_port, 0, 6),
        spi_device=t.integer("spi_device", d.spi_device, 0, 1),
        spi_dc=t.pin("spi_dc", d.spi_dc),
        spi_reset=reset,
        spi_speed_hz=t.integer("spi_speed_hz", d.spi_speed_hz, 100_000, 32_000_000),
        width=t.integer("width", d.width, 64, 256),
        height=t.integer("height", d.height, 32, 128),
        rotate=t.integer("rotate", d.rotate, 0, 3),
        serial_port=t.text("serial_port", d.serial_port),
        baudrate=t.integer("baudrate", d.baudrate, 300, 4_000_000),
        cols=t.integer("cols", d.cols, 8, 80),
        rows=t.integer("rows", d.rows, 1, 8),
        protocol=t.choice("protocol", d.protocol, SERIAL_PROTOCOLS),
        retry_seconds=t.number("retry_seconds", d.retry_seconds, 0.1, 600),
    )
    t.done()
    _check_display_size(t, cfg)
    if cfg.kind == "serial":
        _check_serial_port(t, cfg.serial_port)
    return cfg


def _network(t: _Table, kiosk: KioskConfig) -> NetworkConfig:
    """``[network]``: the broker URL and ids are checked here, so a typo stops the tower at
    start-up with the key named, not silently later in the publisher's thread."""
    d = NetworkConfig()
    cfg = NetworkConfig(**{f.name: (t.path if f.name.endswith("_file") else t.text)(f.name, getattr(d, f.name))
                           for f in dataclasses.fields(NetworkConfig)})
    t.done()
    if not cfg.enabled:
        return cfg
    # imported only for a tower on the network: the broker module loads ssl (start-up time)
    from hardware.network import NetworkError
    from hardware.network.broker import parse_url
    from hardware.network.topics import check_id

    checks = (("mqtt", lambda: parse_url(cfg.mqtt)), ("store", lambda: check_id("store", cfg.store)),
              ("tower", lambda: check_id("tower", cfg.tower)))
    for key, check in checks:
        try:
            check()
        except NetworkError as exc:
            raise t.error(key, str(exc).partition(": ")[2]) from None
    if not kiosk.state_dir:
        raise t.error("mqtt", "needs kiosk.state_dir: the roll log kept there is what is published")
    return cfg


def _sound(t: _Table) -> SoundConfig:
    """``[sound]``: speech (docs/speech.md). The language's phrase table is loaded here, so a
    broken translation stops the tower at start-up with its key named."""
    d = SoundConfig()
    cfg = SoundConfig(
        speak=t.boolean("speak", d.speak),
        speaker=t.choice("speaker", d.speaker, SPEAKER_KINDS),
        language=t.text("language", d.language),
        voice=_sound_name(t, "voice", d.voice),
        rate=t.integer("rate", d.rate, 80, 450),
        volume=t.integer("volume", d.volume, 0, 200),
        device=_sound_name(t, "device", d.device),
        still_seconds=t.number("still_seconds", d.still_seconds, 0.2, 10),
    )
    t.done()
    if cfg.language != d.language:
        from engine.speech import SpeechError, table

        try:
            table(cfg.language)
        except SpeechError as exc:
            raise t.error("language", str(exc).partition(": ")[2]) from None
    return cfg


def _sound_name(t: _Table, name: str, default: str) -> str:
    value = t.text(name, default)
    if value and (value.startswith("-") or len(value) > SOUND_NAME_MOST or not set(value) <= SOUND_NAME_CHARS):
        raise t.error(name, f"expected a name of letters, digits and _+-.:=, (not starting with -, at most "
                            f"{SOUND_NAME_MOST}), got {value!r}")
    return value


#: PanelConfig fields that are not ``[panel]`` keys: set from another table.
_NOT_PANEL_KEYS = frozenset({"speak"})  # [sound] speak


def _panel(t: _Table) -> PanelConfig:
    """``[panel]`` keys are :class:`PanelConfig`'s fields; its own checks name the key
    (:attr:`ParameterError.key`)."""
    defaults = PanelConfig()
    known = {f.name: getattr(defaults, f.name) for f in dataclasses.fields(PanelConfig)
             if f.name not in _NOT_PANEL_KEYS}
    bounds = _panel_bounds()
    values: dict[str, Any] = {}
    for name, default in known.items():
        if name == "systems":
            values[name] = t.string_list(name, default)
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
        if exc.key in known:
            raise ConfigError(f"panel.{exc.key}", exc.detail, t.source) from None
        raise ConfigError("panel", str(exc), t.source) from None
    except ValueError as exc:
        raise ConfigError("panel", str(exc), t.source) from None


def _panel_bounds() -> dict[str, tuple[float, float]]:
    """Panel keys whose range the settings menu fixes: a value outside it would be clamped
    without a word (``start_karma = 9`` starting players at 5), so the config refuses it."""
    from engine.panel.menu import ANIMATION_RANGE, BRIGHTNESS_RANGE, KARMA_RANGE

    return {
        "players": (1, 9),
        "start_karma": (KARMA_RANGE[0], KARMA_RANGE[1]),
        "animation_seconds": (ANIMATION_RANGE[0] / 10, ANIMATION_RANGE[1] / 10),
        "brightness": (BRIGHTNESS_RANGE[0] / 100, BRIGHTNESS_RANGE[1] / 100),
    }


#: (width, height) each OLED driver accepts (luma.oled); anything else fails only when opened.
OLED_SIZES = {
    "ssd1306": ((128, 64), (128, 32), (64, 48), (64, 32)),
    "sh1106": ((128, 128), (128, 64), (128, 32)),
}


def _check_display_size(t: _Table, d: DisplayConfig) -> None:
    sizes = OLED_SIZES.get(d.kind)
    if sizes is None or (d.width, d.height) in sizes:
        return
    key = "height" if d.width in {w for w, _ in sizes} else "width"
    shown = ", ".join(f"{w}x{h}" for w, h in sizes)
    raise t.error(key, f"{d.kind} modules are {shown} pixels, got {d.width}x{d.height}")


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

    def string_list(self, name: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = self._get(name)
        if value is _MISSING:
            return tuple(default)
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
