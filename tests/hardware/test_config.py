"""The TOML config: the documented defaults, and every mistake named by its key."""

from __future__ import annotations

import dataclasses

import pytest

from engine.panel.model import Button
from hardware import tower_config as cfg
from hardware.cli import main


def test_default_toml_is_exactly_the_built_in_defaults() -> None:
    from_file = cfg.load(cfg.DEFAULT_TOML)
    built_in = cfg.load(None)
    assert dataclasses.replace(from_file, source="x") == dataclasses.replace(built_in, source="x")


def test_default_toml_is_exactly_the_dataclasses_defaults() -> None:
    """Each default lives in one place, its dataclass field (``config_key``); the loader reads
    it from there, and default.toml documents the same values."""
    assert dataclasses.replace(cfg.load(cfg.DEFAULT_TOML), source="defaults") == cfg.TowerConfig()


def test_default_wiring_is_the_documented_one_and_keeps_clear_of_i2c() -> None:
    c = cfg.load()
    assert c.buttons.pins == (5, 6, 13, 19, 26)
    assert c.leds.pins == (12, 16, 20, 21, 25)
    assert (c.rgb.red, c.rgb.green, c.rgb.blue) == (17, 27, 22)
    assert c.buzzer.pin == 18
    assert c.display.kind == "ssd1306" and c.display.i2c_address == 0x3C
    used = list(c.pin_uses().values())
    assert len(used) == len(set(used))
    assert not set(used) & {2, 3}


def test_a_config_file_changes_only_what_it_names(tmp_path) -> None:
    path = tmp_path / "tower.toml"
    path.write_text('[buttons]\nroll = 4\n[panel]\nsystems = ["d6cv", "fingers"]\n[display]\nkind = "serial"\n')
    c = cfg.load(path)
    assert c.buttons.pin(Button.ROLL) == 4
    assert c.buttons.pin(Button.MODE) == 5
    assert c.panel.systems == ("d6cv", "fingers")
    assert c.display.kind == "serial"
    assert c.source == str(path)


def test_a_led_can_be_left_out() -> None:
    c = cfg.loads("[leds]\nroll = false\n")
    assert c.leds.pins[4] is None
    assert "leds.roll" not in c.pin_uses()


def test_disabled_devices_keep_their_pins_out_of_the_way() -> None:
    c = cfg.loads('[rgb]\nenabled = false\nred = 5\n[buzzer]\nkind = "none"\n[encoder]\nenabled = false\n')
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
    with pytest.raises(cfg.ConfigError) as err:
        cfg.loads(text, source="tower.toml")
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
    defaults = cfg.load()
    uses = dict(defaults.pin_uses())
    uses.update({"encoder.a": cfg.EncoderConfig().a, "encoder.b": cfg.EncoderConfig().b})
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
    with pytest.raises(cfg.ConfigError) as err:
        cfg.loads(text)
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
    with pytest.raises(cfg.ConfigError) as err:
        cfg.loads(text)
    assert err.value.key == key
    assert "modules are" in err.value.detail


def test_the_oled_sizes_the_drivers_take_are_accepted() -> None:
    assert cfg.loads("[display]\nheight = 32\n").display.height == 32
    assert cfg.loads('[display]\nkind = "sh1106"\nheight = 128\n').display.height == 128
    assert cfg.loads('[display]\nkind = "terminal"\nwidth = 100\n').display.width == 100


@pytest.mark.parametrize(("port", "words"), [("", "expected a serial port"), ("bogus://x", "protocol 'bogus'")])
def test_a_serial_port_that_can_never_open_is_refused_at_load(port: str, words: str) -> None:
    # an unknown URL scheme was a ValueError from pyserial when the tower started: a traceback
    with pytest.raises(cfg.ConfigError) as err:
        cfg.loads(f'[display]\nkind = "serial"\nserial_port = "{port}"\n')
    assert err.value.key == "display.serial_port" and words in err.value.detail
    assert cfg.loads('[display]\nkind = "serial"\nserial_port = "loop://"\n').display.serial_port == "loop://"


def test_the_shipped_operator_combination_is_one_the_lock_accepts() -> None:
    # the config takes the default without loading the lock to check it (start-up time)
    from engine.panel.operator import check_buttons

    check_buttons(cfg.KioskConfig().operator_buttons)
    assert cfg.loads("").kiosk.operator_buttons == cfg.KioskConfig().operator_buttons
