"""Reading a tower's config: the TOML file, then every table field by field, then the checks
across tables (a ``[web]`` page needs ``[kiosk]``'s state directory, the pins of the whole
config are checked together).

A table's keys are its dataclass's fields (:mod:`hardware.config.schema`): :func:`read_fields`
reads each with the reader its spec names, ``[panel]`` (the engine's ``PanelConfig``) through
:data:`~hardware.config.schema.PANEL_KEYS`, all the same way. A table that is more than its
keys has a step here (:data:`_TABLE_STEPS`): a part that can be switched off, a value checked
against a registry or another module. Every problem is a :class:`~hardware.config.ConfigError`
naming its key; the words of a check another module makes come from its exception's
``detail`` (never cut out of its message).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine.errors import ParameterError
from engine.panel.model import Button
from engine.panel.options import PanelConfig
from hardware import backends
from hardware.config import ConfigError
from hardware.config.pins import check_pins
from hardware.config.schema import (
    PANEL_KEYS,
    SOUND_NAME_CHARS,
    SOUND_NAME_MOST,
    STATE_DIR_NONE,
    BridgeConfig,
    ButtonsConfig,
    BuzzerConfig,
    DisplayConfig,
    EncoderConfig,
    EntropyConfig,
    KeySpec,
    KioskConfig,
    LedsConfig,
    NetworkConfig,
    RgbConfig,
    SoundConfig,
    TowerConfig,
    WebConfig,
)
from hardware.config.table import Table

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: A config file is a few KiB; anything larger (or ``/dev/zero``) is not one.
MAX_CONFIG_BYTES = 1 << 20
#: Tables and arrays in a config nest 3 deep; 64 is far beyond any real one.
MAX_CONFIG_DEPTH = 64


def load(path: str | Path | None = None) -> TowerConfig:
    """The config from ``path`` (TOML), or the documented defaults when ``path`` is None."""
    if path is None:
        return from_mapping({}, source="defaults")
    import errno

    from hardware.files.paths import PathError, user_path
    from hardware.files.safefile import FileRefused, read_capped

    try:
        p = user_path(path, "--config") if isinstance(path, str) else Path(path)
    except PathError as exc:
        raise ConfigError("file", exc.detail, source=str(path)) from None
    try:
        # by the one rule (hardware.files.safefile): /dev/zero, a FIFO or a link is refused, not read
        data = read_capped(p, MAX_CONFIG_BYTES)
    except FileRefused as exc:
        raise ConfigError("file", exc.reason, source=str(p)) from None  # the line starts with the path
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

    from hardware.files.safefile import FileRefused, check_nesting

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
    root = Table(data, "", source)
    parts: dict[str, Any] = {"gpio_factory": _gpio(root.table("gpio"))}
    for name, step in _TABLE_STEPS:
        parts[name] = step(root.table(name), parts)
    root.done()
    config = TowerConfig(**parts, source=source)
    check_pins(config)
    return config


T = TypeVar("T", bound="DataclassInstance")


def read_fields(t: Table, cls: type[T], *, keys: Mapping[str, KeySpec] | None = None, **given: Any) -> T:
    """``cls`` (a config dataclass) from table ``t``: each field that is a key is read by its
    reader, in field order. A field is a key when it is made with
    :func:`~hardware.config.schema.config_key`, or, given ``keys`` (a class made elsewhere:
    PanelConfig), when ``keys`` names it. ``given`` fields are not read; the others keep their
    defaults. Leftover keys are refused, and a :class:`~engine.errors.ParameterError` the
    class raises for one of its keys' fields names that key."""
    values = dict(given)
    read: dict[str, str] = {}  # field -> its key
    for f in dataclasses.fields(cls):
        spec = keys.get(f.name) if keys is not None else f.metadata if "read" in f.metadata else None
        if f.name not in given and spec is not None:
            if f.default is dataclasses.MISSING and not t.given(spec["name"] or f.name):
                continue  # a default the class computes (PanelConfig's installed systems): left to it
            values[f.name] = _read_field(t, f, spec)
            read[f.name] = spec["name"] or f.name
    t.done()
    try:
        return cls(**values)
    except ParameterError as exc:  # the class's own check (PanelConfig's): its key is the field's
        if exc.key in read:
            raise t.error(read[exc.key], exc.detail) from None
        raise ConfigError(t.prefix, str(exc), t.source) from None
    except ValueError as exc:
        raise ConfigError(t.prefix, str(exc), t.source) from None


def _read_field(t: Table, f: dataclasses.Field[Any], spec: KeySpec | None = None) -> Any:
    """One field's value from its key (or, for ``pins``, from one key per button)."""
    meta = f.metadata if spec is None else spec
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


def _keys(cls: type[DataclassInstance]) -> tuple[str, ...]:
    """The keys of a config dataclass's table (what a switched-off part still allows)."""
    return tuple(f.metadata["name"] or f.name for f in dataclasses.fields(cls) if "read" in f.metadata)


def _field(cls: type[DataclassInstance], name: str) -> dataclasses.Field[Any]:
    return next(f for f in dataclasses.fields(cls) if f.name == name)


def _gpio(t: Table) -> str:
    """``[gpio] factory``: TowerConfig's ``gpio_factory``."""
    factory: str = _read_field(t, _field(TowerConfig, "gpio_factory"))  # a "choice" key: a str
    t.done()
    return factory


def _switched(t: Table, cls: type[T], name: str) -> T | None:
    """A part with an ``enabled`` key (``[rgb]``, ``[encoder]``), None when it is off; its
    other keys are still allowed. Whether it is on by default is TowerConfig's default."""
    declared = _field(TowerConfig, name)  # not TowerConfig(): its panel would import every system
    default = declared.default_factory() if declared.default_factory is not dataclasses.MISSING else declared.default
    if t.boolean("enabled", default is not None):
        return read_fields(t, cls)
    t.ignore(*_keys(cls))
    t.done()
    return None


def _buzzer(t: Table, parts: dict[str, Any]) -> BuzzerConfig | None:
    """``[buzzer]``: ``kind = "none"`` is no buzzer (its other keys still allowed)."""
    kind = _read_field(t, _field(BuzzerConfig, "kind"))
    if kind == "none":
        t.ignore(*_keys(BuzzerConfig))
        t.done()
        return None
    return read_fields(t, BuzzerConfig, kind=kind)


def _entropy(t: Table, parts: dict[str, Any]) -> EntropyConfig:
    """``[entropy]``: ``source`` is checked as ``--entropy`` would be."""
    cfg = read_fields(t, EntropyConfig)
    if cfg.source != EntropyConfig.source:
        from hardware.entropy.pipeline import parse_spec

        try:
            parse_spec(cfg.source)
        except ParameterError as exc:
            raise t.error("source", exc.detail) from None
    return cfg


def _kiosk(t: Table, parts: dict[str, Any]) -> KioskConfig:
    cfg = read_fields(t, KioskConfig)
    if cfg.operator_buttons != KioskConfig.operator_buttons:  # the shipped combination needs no check
        from engine.panel.operator import check_buttons

        try:
            check_buttons(cfg.operator_buttons)
        except ValueError as exc:
            raise t.error("operator_buttons", str(exc)) from None
    return cfg


def _display(t: Table, parts: dict[str, Any]) -> DisplayConfig:
    """``[display]``: its kind's row (hardware.backends) fixes the buses and sizes allowed."""
    cfg = read_fields(t, DisplayConfig)
    _check_display_bus(t, cfg)
    _check_display_size(t, cfg)
    if cfg.kind == "serial":
        _check_serial_port(t, cfg.serial_port)
    return cfg


def _network(t: Table, parts: dict[str, Any]) -> NetworkConfig:
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
            raise t.error(name, exc.detail) from None
    if not parts["kiosk"].state_dir:
        raise t.error("mqtt", "needs kiosk.state_dir: the roll log kept there is what is published")
    return cfg


def _web(t: Table, parts: dict[str, Any]) -> WebConfig:
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


def _sound(t: Table, parts: dict[str, Any]) -> SoundConfig:
    """``[sound]``: speech (docs/speech.md). The language's phrase table is loaded here, so a
    broken translation stops the tower at start-up with its key named."""
    cfg = read_fields(t, SoundConfig)
    for name, value in (("voice", cfg.voice), ("device", cfg.device)):
        _check_sound_name(t, name, value)
    if cfg.language != SoundConfig.language:
        from engine.speech import SpeechError, table

        try:
            table(cfg.language)
        except SpeechError as exc:
            raise t.error("language", exc.detail) from None
    return cfg


def _check_sound_name(t: Table, name: str, value: str) -> None:
    if value and (value.startswith("-") or len(value) > SOUND_NAME_MOST or not set(value) <= SOUND_NAME_CHARS):
        raise t.error(name, f"expected a name of letters, digits and _+-.:=, (not starting with -, at most "
                            f"{SOUND_NAME_MOST}), got {value!r}")


def _panel(t: Table, parts: dict[str, Any]) -> PanelConfig:
    """``[panel]``: PanelConfig's fields, read as every table's (:data:`PANEL_KEYS`), with
    ``speak`` from ``[sound]`` and ``starts`` from the systems' own ``start_PARAM`` keys."""
    systems = t.string_list("systems", None)
    return read_fields(t, PanelConfig, keys=PANEL_KEYS, speak=parts["sound"].speak, starts=_starts(t, systems))


def _starts(t: Table, systems: tuple[str, ...] | None) -> tuple[tuple[str, int], ...]:
    """``[panel] start_PARAM = N`` keys: the start value of a system's carried parameter
    (:class:`engine.systems.panel.Start`, fingers' ``start_karma``), within the range the
    settings menu would give it. Only a config with such a key imports the systems to find it
    (the enabled ones, or every installed one when the config names none)."""
    keys = sorted(k for k in t.data if isinstance(k, str) and k.startswith("start_"))
    if not keys:
        return ()
    from engine.systems import all_systems, get, installed

    specs = all_systems() if systems is None else tuple(get(s) for s in systems if installed(s))
    offered = {start.key: start for spec in specs for start in spec.panel.starts}
    out = []
    for key in keys:
        start = offered.get(key)
        if start is None:
            allowed = ", ".join(sorted(offered)) or "none: no enabled system has a start value"
            raise t.error(key, f"unknown key (a system's start value: {allowed})")
        out.append((start.param, t.integer(key, start.default, start.lo, start.hi)))
    return tuple(out)


#: The tables after ``[gpio]``, each read by its step (TowerConfig's field of the same name).
_TABLE_STEPS: tuple[tuple[str, Callable[[Table, dict[str, Any]], Any]], ...] = (
    ("buttons", lambda t, parts: read_fields(t, ButtonsConfig)),
    ("leds", lambda t, parts: read_fields(t, LedsConfig)),
    ("rgb", lambda t, parts: _switched(t, RgbConfig, "rgb")),
    ("buzzer", _buzzer),
    ("encoder", lambda t, parts: _switched(t, EncoderConfig, "encoder")),
    ("display", _display),
    ("entropy", _entropy),
    ("sound", _sound),
    ("panel", _panel),
    ("kiosk", _kiosk),
    ("bridge", lambda t, parts: read_fields(t, BridgeConfig)),
    ("network", _network),
    ("web", _web),
)


def _check_display_size(t: Table, d: DisplayConfig) -> None:
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


def _check_display_bus(t: Table, d: DisplayConfig) -> None:
    buses = backends.DISPLAY_KINDS.get(d.kind).buses
    if buses and d.bus not in buses:
        raise t.error("bus", f"{d.kind} modules come on {' or '.join(buses)}, got {d.bus!r}")


def _check_serial_port(t: Table, port: str) -> None:
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
