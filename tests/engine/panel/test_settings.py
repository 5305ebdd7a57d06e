"""The settings menu opened by holding MODE."""

from __future__ import annotations

import pytest

from engine.panel.machine import PanelConfig
from engine.panel.menu import ITEMS, Item
from engine.systems import get
from tests.engine.panel.driver import FIELD, MINUS, MODE, PLUS, ROLL, HandDice, Panel


def _select(panel: Panel, item: object) -> None:
    for _ in panel.state.menu_items:
        if panel.state.item is item:
            return
        panel.tap(FIELD)
    raise AssertionError(f"no {item} in the menu")


def test_holding_mode_opens_settings_and_undoes_the_tap_that_started_it() -> None:
    panel = Panel()
    panel.press(MODE)  # press: next system at once ...
    assert panel.state.system_id == "horizons"
    panel.hold(MODE)  # ... but it was a hold: back to infinity, menu open
    assert panel.state.system_id == "infinity"
    assert panel.screen.kind == "settings"
    assert panel.screen.lines[0] == ">player P1"
    panel.release(MODE)
    panel.tap(MODE)  # a tap leaves the menu
    assert panel.screen.kind == "setup"
    assert panel.state.system_id == "infinity"


def test_a_hold_long_after_another_press_keeps_the_system() -> None:
    panel = Panel()
    panel.press(MODE)
    panel.press(PLUS)  # no release was seen for MODE, but another press came between
    panel.hold(MODE)
    assert panel.state.system_id == "horizons"
    assert panel.screen.kind == "settings"


def test_menu_items_in_order_and_exit() -> None:
    panel = Panel()
    panel.hold(MODE)
    names = []
    for _ in panel.state.menu_items:
        names.append(panel.state.item)
        panel.tap(FIELD)
    # the menu's own items, with the enabled systems' start values after animation (fingers' karma)
    at = ITEMS.index(Item.ANIMATION) + 1
    assert names == [*ITEMS[:at], *get("fingers").panel.starts, *ITEMS[at:]]
    assert [str(n) for n in names][at] == "start karma"
    _select(panel, Item.EXIT)
    panel.tap(ROLL)
    assert panel.screen.kind == "setup"
    assert panel.dice.calls == 0


def test_player_slot_brightness_and_animation() -> None:
    panel = Panel(PanelConfig(players=3, animation_seconds=0.8))
    panel.hold(MODE)
    panel.tap(PLUS, PLUS, PLUS)  # round: P2, P3, P1, then
    panel.tap(MINUS)  # back to P3
    assert panel.state.settings.player == 3
    _select(panel, Item.BRIGHTNESS)
    for _ in range(20):
        panel.tap(MINUS)
    assert panel.state.settings.brightness == 10
    assert panel.screen.contrast == pytest.approx(0.1)
    _select(panel, Item.ANIMATION)
    assert ">animation 0.8s" in panel.screen.lines
    for _ in range(10):
        panel.tap(MINUS)
    assert ">animation off" in panel.screen.lines
    panel.tap(MODE)
    assert panel.screen.lines[-1] == "P3"
    assert panel.screen.contrast == pytest.approx(0.1)
    panel.tap(ROLL)
    assert panel.screen.kind == "result"  # animation off: straight to the result


def test_reset_player_asks_once_more_and_clears_only_that_slot() -> None:
    panel = Panel(PanelConfig(systems=("fingers",), animation_seconds=0),
                  dice=HandDice((1, 2), (1, 2), (1, 2)))
    panel.tap(ROLL, ROLL)  # P1 fails: karma 1
    panel.hold(MODE)
    panel.release(MODE)
    panel.tap(PLUS)  # P2
    panel.tap(MODE)
    panel.tap(ROLL, ROLL, ROLL, ROLL)  # P2 fails twice: karma 2
    assert [p.get("fingers", "karma") for p in panel.state.players[:2]] == [1, 2]
    panel.hold(MODE)
    panel.release(MODE)
    _select(panel, Item.RESET)
    panel.tap(ROLL)
    assert panel.screen.lines[0] == ">reset player? ROLL"
    assert panel.state.slot.get("fingers", "karma") == 2
    panel.tap(ROLL)
    assert panel.state.slot.get("fingers", "karma") is None
    assert "P2 reset" in panel.screen.lines
    assert panel.state.players[0].get("fingers", "karma") == 1


def test_reset_is_disarmed_by_any_other_button() -> None:
    panel = Panel()
    panel.hold(MODE)
    _select(panel, Item.RESET_ALL)
    panel.tap(ROLL)
    assert panel.state.armed is Item.RESET_ALL
    panel.tap(PLUS)
    assert panel.state.armed is None


def test_start_karma_setting() -> None:
    panel = Panel(PanelConfig(systems=("fingers",)))
    panel.hold(MODE)
    start = get("fingers").panel.starts[0]
    _select(panel, start)
    for _ in range(9):
        panel.tap(PLUS)
    assert panel.state.settings.start(start) == 5 and panel.state.settings.starts == (("karma", 5),)
    panel.tap(MODE)
    assert panel.screen.lines[-1] == "P1 karma 5"


def test_a_menu_without_a_system_that_starts_a_value_has_no_start_item() -> None:
    panel = Panel(PanelConfig(systems=("d6cv", "infinity")))
    panel.hold(MODE)
    assert panel.state.menu_items == ITEMS


def test_hold_mode_during_a_finger_guess_is_the_thumb_not_the_menu() -> None:
    panel = Panel(PanelConfig(systems=("fingers",), animation_seconds=0), dice=HandDice((1, 2)))
    panel.press(ROLL)
    panel.press(MODE)  # thumb
    panel.hold(MODE)
    assert panel.screen.kind == "reveal"
