"""The TOML config: the documented defaults, and every mistake named by its key."""

from __future__ import annotations

import dataclasses

import pytest

from engine.panel.model import Button
from hardware.cli import main
from hardware.config import ConfigError, reader, schema
from hardware.config.pins import pin_uses


def test_default_toml_is_exactly_the_built_in_defaults() -> None:
    from_file = reader.load(schema.DEFAULT_TOML)
    built_in = reader.load(None)
    assert dataclasses.replace(from_file, source="x") == dataclasses.replace(built_in, source="x")


def test_default_toml_is_exactly_the_dataclasses_defaults() -> None:
    """Each default lives in one place, its dataclass field (``config_key``); the loader reads
    it from there, and default.toml documents the same values."""
    assert dataclasses.replace(reader.load(schema.DEFAULT_TOML), source="defaults") == schema.TowerConfig()


def test_default_wiring_is_the_documented_one_and_keeps_clear_of_i2c() -> None:
    c = reader.load()
    assert c.buttons.pins == (5, 6, 13, 19, 26)
    assert c.leds.pins == (12, 16, 20, 21, 25)
    assert (c.rgb.red, c.rgb.green, c.rgb.blue) == (17, 27, 22)
    assert c.buzzer.pin == 18
    assert c.display.kind == "ssd1306" and c.display.i2c_address == 0x3C
    used = list(pin_uses(c).values())
    assert len(used) == len(set(used))
    assert not set(used) & {2, 3}


def test_a_config_file_changes_only_what_it_names(tmp_path) -> None:
    path = tmp_path / "tower.toml"
    path.write_text('[buttons]\nroll = 4\n[panel]\nsystems = ["d6cv", "fingers"]\n[display]\nkind = "serial"\n')
    c = reader.load(path)
    assert c.buttons.pin(Button.ROLL) == 4
    assert c.buttons.pin(Button.MODE) == 5
    assert c.panel.systems == ("d6cv", "fingers")
    assert c.display.kind == "serial"
    assert c.source == str(path)


def test_a_led_can_be_left_out() -> None:
    c = reader.loads("[leds]\nroll = false\n")
    assert c.leds.pins[4] is None
    assert "leds.roll" not in pin_uses(c)


def test_disabled_devices_keep_their_pins_out_of_the_way() -> None:
    c = reader.loads('[rgb]\nenabled = false\nred = 5\n[buzzer]\nkind = "none"\n[encoder]\nenabled = false\n')
    assert c.rgb is None and c.buzzer is None and c.encoder is None


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[buttons]\nrol = 3\n", "buttons.rol", "unknown key"),
        ("colour = 1\n", "colour", "unknown key"),
        ("[buttons]\nroll = 3\n", "buttons.roll", "I2C SCL"),
        ("[leds]\nmode = 5\n", "leds.mode", "already used by buttons.mode"),
        ("[buttons]\nroll = 40\n", "buttons.roll", "BCM pin number from 0 to 27"),
        ("[buttons]\nroll = \"26\"\n", "buttons.roll", "'26'"),
        ("[buttons]\nbounce_ms = -1\n", "buttons.bounce_ms", "from 0 to 500"),
        ("[display]\nkind = \"oled\"\n", "display.kind", "ssd1306, sh1106"),
        ("[display]\nbus = \"spi\"\n[buttons]\nroll = 10\n", "buttons.roll", "SPI MOSI"),
        ("[display]\ni2c_address = 200\n", "display.i2c_address", "from 3 to 119"),
        ("[panel]\nsystems = [\"chess\"]\n", "panel.systems", "chess"),
        ("[panel]\nplayers = 0\n", "panel.players", "1 to 9"),
        ("[panel]\nidle_seconds = -5\n", "panel.idle_seconds", "above 0"),
        ("[panel]\nbrightness = true\n", "panel.brightness", "true"),
        ("[entropy]\nsource = \"dice\"\n", "entropy.source", "dice"),
        ("[kiosk]\ntick_hz = 0\n", "kiosk.tick_hz", "from 1 to 200"),
        ("[gpio]\nfactory = \"gpio\"\n", "gpio.factory", "lgpio"),
        ("buttons = 3\n", "buttons", "expected a table"),
        ("[buttons\n", "toml", "not valid TOML"),
    ],
)
def test_every_mistake_names_its_key(text: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        reader.loads(text, source="tower.toml")
    assert err.value.key == key
    message = str(err.value)
    assert message.startswith(f"tower.toml: {key}: ")
    assert words in message
    assert "\n" not in message


@pytest.mark.parametrize("command", ["run", "sim"])
def test_the_command_line_prints_one_line_and_exits_2(tmp_path, capsys, command: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[leds]\nroll = 26\n")
    code = main([command, "--config", str(path)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.strip() == f"dicetower: error: {path}: leds.roll: BCM 26 is already used by buttons.roll"


def test_a_missing_config_file_is_one_line_too(tmp_path, capsys) -> None:
    code = main(["sim", "--config", str(tmp_path / "nope.toml"), "--press", "roll"])
    err = capsys.readouterr().err
    assert code == 2
    assert "nope.toml: file: cannot read" in err
    assert len(err.strip().splitlines()) == 1


def test_the_wiring_table_in_the_docs_matches_the_default_config() -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "wiring.md").read_text(encoding="utf-8")
    defaults = reader.load()
    uses = dict(pin_uses(defaults))
    uses.update({"encoder.a": schema.EncoderConfig().a, "encoder.b": schema.EncoderConfig().b})
    for key, pin in uses.items():
        assert re.search(rf"\| `{re.escape(key)}` \| {pin} \|", text), f"{key} = BCM {pin} is not in docs/wiring.md"
    assert f"`0x{defaults.display.i2c_address:X}`" in text
    assert "i2c_arm_baudrate=400000" in text


def test_a_config_file_that_is_not_utf8_is_one_line_naming_the_line(tmp_path, capsys) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes("[buttons]\nroll = 26\n# caf\u00e9 wiring\n".encode("latin-1"))
    code = main(["sim", "--config", str(path), "--press", "roll"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == f"dicetower: error: {path}: file: not UTF-8 text: byte 0xe9 on line 3 (TOML files are UTF-8)"


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        # the settings menu would clamp these without a word
        ("[panel]\nstart_karma = 9\n", "panel.start_karma", "from 0 to 5, got 9"),
        ("[panel]\nanimation_seconds = 10\n", "panel.animation_seconds", "from 0 to 3, got 10"),
        ("[panel]\nbrightness = 0.05\n", "panel.brightness", "from 0.1 to 1, got 0.05"),
        # a wrong type names the real range, not -inf..inf or 2**31
        ("[panel]\nplayers = 2.5\n", "panel.players", "from 1 to 9, got 2.5"),
        ("[panel]\nidle_seconds = \"5 min\"\n", "panel.idle_seconds", "expected a number of seconds, got '5 min'"),
    ],
)
def test_panel_values_are_held_to_the_ranges_the_panel_uses(text: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        reader.loads(text)
    assert err.value.key == key
    assert words in str(err.value)
    assert "inf" not in str(err.value) and "2147483" not in str(err.value)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[display]\nwidth = 100\n", "display.width"),
        ("[display]\nheight = 48\n", "display.height"),
        ("[display]\nkind = \"sh1106\"\nwidth = 64\nheight = 48\n", "display.width"),
    ],
)
def test_an_oled_size_its_driver_cannot_drive_is_refused_at_load(text: str, key: str) -> None:
    # luma refuses it only when the display is opened, which the tower retries for ever
    with pytest.raises(ConfigError) as err:
        reader.loads(text)
    assert err.value.key == key
    assert "modules are" in err.value.detail


def test_the_oled_sizes_the_drivers_take_are_accepted() -> None:
    assert reader.loads("[display]\nheight = 32\n").display.height == 32
    assert reader.loads('[display]\nkind = "sh1106"\nheight = 128\n').display.height == 128
    assert reader.loads('[display]\nkind = "terminal"\nwidth = 100\n').display.width == 100


@pytest.mark.parametrize(("port", "words"), [("", "expected a serial port"), ("bogus://x", "protocol 'bogus'")])
def test_a_serial_port_that_can_never_open_is_refused_at_load(port: str, words: str) -> None:
    # an unknown URL scheme was a ValueError from pyserial when the tower started: a traceback
    with pytest.raises(ConfigError) as err:
        reader.loads(f'[display]\nkind = "serial"\nserial_port = "{port}"\n')
    assert err.value.key == "display.serial_port" and words in err.value.detail
    assert reader.loads('[display]\nkind = "serial"\nserial_port = "loop://"\n').display.serial_port == "loop://"


def test_the_shipped_operator_combination_is_one_the_lock_accepts() -> None:
    # the config takes the default without loading the lock to check it (start-up time)
    from engine.panel.operator import check_buttons

    check_buttons(schema.KioskConfig().operator_buttons)
    assert reader.loads("").kiosk.operator_buttons == schema.KioskConfig().operator_buttons


# --- [panel] is read like every table; another module's words come as data -------------------


def test_every_panel_field_is_a_key_or_set_from_another_table() -> None:
    """A field added to the engine's PanelConfig must be given a way to be read (PANEL_KEYS),
    or be said to come from elsewhere: it is never silently no key at all."""
    from engine.panel.options import PanelConfig

    fields = {f.name for f in dataclasses.fields(PanelConfig)}
    assert set(schema.PANEL_KEYS) | schema.PANEL_FROM_ELSEWHERE | schema.PANEL_FROM_SYSTEMS == fields
    assert not set(schema.PANEL_KEYS) & (schema.PANEL_FROM_ELSEWHERE | schema.PANEL_FROM_SYSTEMS)


def test_the_documented_defaults_name_every_key_of_every_table() -> None:
    """default.toml lists each table's keys: the fields made with config_key, [panel]'s from
    PANEL_KEYS (read by the same loader). (A key whose default is none, ``spi_reset``, is a
    comment there.)"""
    import tomllib

    text = schema.DEFAULT_TOML.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    # systems' default is every installed system (no TOML value): a comment there, as are the
    # systems' own start_PARAM keys
    assert set(data["panel"]) == set(schema.PANEL_KEYS) - {"systems"}
    assert "\n# systems = [" in text and "\n# start_karma = 0\n" in text
    for table, cls in (("buttons", schema.ButtonsConfig), ("display", schema.DisplayConfig),
                       ("sound", schema.SoundConfig), ("kiosk", schema.KioskConfig)):
        keys = {f.metadata["name"] or f.name for f in dataclasses.fields(cls)
                if f.metadata.get("read") != "pins" and f.default is not None}  # TOML has no None: a comment there
        assert keys <= set(data[table]), f"[{table}] lacks {sorted(keys - set(data[table]))}"


def test_the_panel_is_read_by_the_field_driven_loader() -> None:
    from engine.panel.options import PanelConfig
    from hardware.config.table import Table

    t = Table({"players": 6, "brightness": 0.5}, "panel", "tower.toml")
    panel = reader.read_fields(t, PanelConfig, keys=schema.PANEL_KEYS, speak=True)
    assert (panel.players, panel.brightness, panel.speak) == (6, 0.5, True)
    assert panel.systems == PanelConfig().systems  # a key not given keeps the engine's default
    with pytest.raises(ConfigError) as err:
        reader.read_fields(Table({"speak": True}, "panel", "tower.toml"), PanelConfig, keys=schema.PANEL_KEYS)
    assert err.value.key == "panel.speak" and err.value.detail.startswith("unknown key")  # [sound] speak is the key


def _check_error(check) -> Exception:
    with pytest.raises(Exception) as err:  # whatever the other module raises
        check()
    return err.value


@pytest.mark.parametrize(("text", "key", "check"), [
    ('[kiosk]\nstate_dir = "/tmp/k"\n[network]\nmqtt = "ftp://x"\nstore = "s"\ntower = "t"\n', "network.mqtt",
     lambda: __import__("hardware.network.broker").network.broker.parse_url("ftp://x")),
    ('[kiosk]\nstate_dir = "/tmp/k"\n[network]\nmqtt = "mqtt://h:99999"\nstore = "s"\ntower = "t"\n', "network.mqtt",
     lambda: __import__("hardware.network.broker").network.broker.parse_url("mqtt://h:99999")),
    ('[kiosk]\nstate_dir = "/tmp/k"\n[network]\nmqtt = "mqtt://h"\nstore = "a b: c"\ntower = "t"\n', "network.store",
     lambda: __import__("hardware.network.topics").network.topics.check_id("store", "a b: c")),
    ('[sound]\nlanguage = "xx: yy"\n', "sound.language", lambda: __import__("engine.speech").speech.table("xx: yy")),
])
def test_another_modules_check_names_the_key_with_its_own_words(text: str, key: str, check) -> None:
    """The words come from the exception's ``detail``, whole, even where they hold ": "."""
    original = _check_error(check)
    with pytest.raises(ConfigError) as err:
        reader.loads(text, source="tower.toml")
    assert err.value.key == key
    assert err.value.detail == original.detail
    assert str(err.value) == f"tower.toml: {key}: {original.detail}"


def test_a_refused_file_is_named_once() -> None:
    with pytest.raises(ConfigError) as err:
        reader.load("/dev/zero")
    assert str(err.value) == "/dev/zero: file: is a device, not a regular file"


#: str methods that would cut a message apart.
_CUTTERS = {"split", "rsplit", "partition", "rpartition", "removeprefix", "removesuffix", "splitlines"}


def _cuts_a_message(path) -> list[str]:
    """Where ``path`` cuts an exception's message (``str(exc)``, ``exc.strerror``) apart."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    caught = {h.name for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler) and h.name}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CUTTERS):
            continue
        target = node.func.value
        if isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id == "str" \
                and target.args:
            target = target.args[0]
        if isinstance(target, ast.Attribute) and target.attr in {"strerror", "args"}:
            target = target.value
        if isinstance(target, ast.Name) and target.id in caught:
            found.append(f"{path.name}:{node.lineno}")
    return sorted(found)


def test_no_config_reader_cuts_an_exceptions_message_to_recover_a_key() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "hardware"
    readers = [*sorted((root / "config").glob("*.py")), root / "board" / "boardconf.py"]
    assert len(readers) >= 5
    assert [cut for path in readers for cut in _cuts_a_message(path)] == []


def test_the_cut_check_sees_a_cut(tmp_path) -> None:
    forged = tmp_path / "forged.py"
    forged.write_text("try:\n    f()\nexcept ValueError as exc:\n    raise E(str(exc).partition(': ')[2])\n"
                      "except OSError as exc:\n    raise E(str(exc.strerror).removeprefix('p '))\n")
    assert _cuts_a_message(forged) == ["forged.py:4", "forged.py:6"]
