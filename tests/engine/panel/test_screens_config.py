"""Screen text helpers, the panel config's checks, and saving/restoring the panel."""

from __future__ import annotations

import json

import pytest

from engine.panel import screens
from engine.panel.machine import PanelConfig, initial, snapshot
from engine.panel.model import Event, EventKind
from tests.engine.panel.driver import PLUS, ROLL, HandDice, Panel


@pytest.mark.parametrize(
    ("p", "shown"),
    [(0.0, "0%"), (1.0, "100%"), (0.0004, "<0.1%"), (0.9996, ">99.9%"), (0.28, "28.0%"),
     (1 / 3, "33.3%")],
)
def test_percent(p: float, shown: str) -> None:
    assert screens.percent(p) == shown


def test_wrap_keeps_lines_short_and_cuts_the_rest() -> None:
    text = "spend: cannot spend 1 karma with --karma 0 and a much longer tail of words here"
    lines = screens.wrap(text, rows=2)
    assert len(lines) == 2
    assert all(len(line) <= 21 for line in lines)
    assert lines[0] == "spend: cannot spend 1"
    assert lines[1].endswith("~")
    assert screens.wrap("x" * 50, rows=3) == ("x" * 21, "x" * 21, "x" * 8)


def test_spread_fits_a_16_character_lcd_when_it_can() -> None:
    assert screens.spread("infinity", "28.0%") == "infinity   28.0%"
    assert len(screens.spread("immortal", "100 vs 60")) == 18  # wider, still <= 21


def test_status_event() -> None:
    event = Event(EventKind.STATUS, text="hwrng ok")
    assert str(event) == "status:hwrng ok"
    with pytest.raises(ValueError, match="needs a button"):
        Event(EventKind.PRESS)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"systems": ()}, "enable at least one"),
        ({"systems": ("infinity", "chess")}, "unknown system 'chess'"),
        ({"systems": ("d6cv", "d6cv")}, "each system once"),
        ({"hold_repeat_delay": 0}, "hold_repeat_delay"),
        ({"animation_seconds": -1}, "animation_seconds"),
        ({"idle_seconds": float("nan")}, "idle_seconds"),
        ({"players": 0}, "players"),
        ({"starts": (("karma", -1),)}, "start_karma"),
        ({"brightness": 0}, "brightness"),
    ],
)
def test_config_rejects_bad_values_naming_them(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PanelConfig(**kwargs)


def test_config_systems_are_normalised() -> None:
    assert PanelConfig(systems=(" Fingers ", "D6CV")).systems == ("fingers", "d6cv")


def test_snapshot_round_trips_through_json() -> None:
    config = PanelConfig(systems=("infinity", "fingers"), animation_seconds=0, players=2)
    panel = Panel(config, dice=HandDice((1, 2)))
    panel.set_field("cr", 15)
    panel.press(PLUS)  # cr 16
    panel.to_system("fingers")
    panel.press(ROLL, ROLL)  # pinky: fails, karma 1
    saved = json.loads(json.dumps(snapshot(panel.state)))
    state, effects = initial(config, 0.0, saved=saved)
    assert state.system_id == "fingers"
    assert state.values["infinity"]["cr"] == 16
    assert state.slot.get("fingers", "karma") == 1
    assert state.settings == panel.state.settings
    assert effects.screen is not None and effects.screen.lines[-1] == "P1 karma 1"


def test_restore_ignores_what_does_not_fit() -> None:
    config = PanelConfig(systems=("infinity",))
    saved = {
        "system": "chess",
        "settings": {"player": 9, "brightness": 55, "animation": True, "start_karma": 2},
        "values": {"infinity": {"cr": 999, "rating": 12, "declaration": "yes", "nope": 1},
                   "chess": {"x": 1}},
        "players": [{"infinity": "garbage"}, 7, {"fingers": {"karma": 3}}],
    }
    state, _ = initial(config, 0.0, saved=saved)
    assert state.system_id == "infinity"
    assert state.settings.player == 1 and state.settings.brightness == 100
    assert state.settings.starts == (("karma", 2),)  # an older snapshot's start_karma
    assert state.values["infinity"]["cr"] == 10 and state.values["infinity"]["rating"] == 12
    assert state.values["infinity"]["declaration"] is False
    assert "nope" not in state.values["infinity"]
    state, _ = initial(config, 0.0, saved="not a mapping")  # type: ignore[arg-type]
    assert state.system_id == "infinity"
