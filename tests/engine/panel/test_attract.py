"""Idle: the attract screen moves and dims; the press that wakes the panel does nothing else.
And the roll animation, on and off."""

from __future__ import annotations

import pytest

from engine.panel import looks, view
from engine.panel.machine import PanelConfig
from engine.panel.model import Event, EventKind
from tests.engine.panel.driver import FIELD, MINUS, MODE, PLUS, ROLL, Panel


def _asleep(config: PanelConfig | None = None) -> Panel:
    panel = Panel(config or PanelConfig(idle_seconds=300, attract_step_seconds=2, animation_seconds=0))
    panel.tick(299.0)
    assert panel.screen.kind == "setup"
    effects = panel.tick(1.5)
    assert panel.screen.kind == "attract"
    assert effects.leds == looks.LEDS_OFF
    return panel


def test_attract_after_idle_moves_and_dims() -> None:
    panel = _asleep()
    assert panel.screen.contrast < 0.5
    offsets = {panel.screen.offset}
    for _ in range(40):
        panel.tick(1.0)
        offsets.add(panel.screen.offset)
        x, y = panel.screen.offset
        assert 0 <= x <= view.ATTRACT_X and 0 <= y <= view.ATTRACT_Y
    assert len(offsets) >= 10  # it wanders, not just flips between two spots
    assert panel.dice.calls == 0


def test_attract_emits_a_screen_only_when_the_picture_moves() -> None:
    panel = _asleep()
    quiet = [panel.tick(0.1) for _ in range(5)]  # within one 2 s step
    assert all(e.screen is None for e in quiet)


def test_a_press_restarts_the_idle_time() -> None:
    panel = Panel(PanelConfig(idle_seconds=300))
    for _ in range(25):
        panel.tick(10.0)
    panel.press(FIELD)
    for _ in range(25):
        panel.tick(10.0)
    assert panel.screen.kind == "setup"  # 500 s in all, but only 250 s since the press
    panel.tick(60.0)
    assert panel.screen.kind == "attract"


@pytest.mark.parametrize("button", [MODE, FIELD, MINUS, PLUS, ROLL])
def test_the_waking_press_does_nothing_else(button) -> None:
    panel = _asleep()
    before = panel.state
    effects = panel.press(button)
    assert panel.screen.kind == "setup"
    assert panel.screen.contrast == pytest.approx(1.0)
    assert effects.sounds == (looks.WAKE_SOUND,)
    assert effects.rolled is None
    assert panel.state.system_id == before.system_id
    assert panel.state.field_index == before.field_index
    assert panel.state.values == before.values
    # nor does its hold (no settings menu, no repeat) or its release
    panel.hold(button)
    for _ in range(5):
        panel.tick(0.4)
    panel.release(button)
    assert panel.screen.kind == "setup"
    assert panel.state.values == before.values
    assert panel.dice.calls == 0
    # the next press works again
    panel.press(PLUS)
    assert panel.state.values != before.values


def test_waking_returns_to_the_screen_it_left() -> None:
    panel = Panel(PanelConfig(systems=("fingers",), idle_seconds=60))
    panel.press(ROLL)
    assert panel.screen.kind == "guess"
    panel.tick(61.0)
    assert panel.screen.kind == "attract"
    panel.press(PLUS)
    assert panel.screen.kind == "guess"
    assert panel.dice.calls == 0


def test_a_turn_wakes_too_without_turning_anything() -> None:
    panel = _asleep()
    values = panel.state.values
    panel.turn(3)
    assert panel.screen.kind == "setup"
    assert panel.state.values == values


def test_status_does_not_wake() -> None:
    panel = _asleep()
    panel.status("hwrng failed RCT")
    assert panel.screen.kind == "attract"
    assert "hwrng failed RCT" in panel.screen.lines


def test_animation_runs_on_ticks_then_shows_the_result() -> None:
    panel = Panel(PanelConfig(animation_seconds=0.8, animation_frame_seconds=0.1))
    effects = panel.press(ROLL)
    assert effects.rolled is not None  # the roll is made (and logged) at the press
    assert panel.screen.kind == "rolling"
    frames = []
    for _ in range(7):
        e = panel.tick(0.1)
        assert panel.screen.kind == "rolling"
        assert e.screen is not None
        frames.append((panel.screen.dice, panel.leds))
    assert len(set(frames)) > 1
    assert panel.dice.calls == 2  # the tumbling faces are not drawn from the dice
    e = panel.tick(0.15)
    assert panel.screen.kind == "result"
    assert e.sounds and e.sounds[0] in (looks.SUCCESS_SOUND, looks.FAILURE_SOUND, looks.MIXED_SOUND)


def test_animation_off_shows_the_result_at_the_press() -> None:
    panel = Panel(PanelConfig(animation_seconds=0))
    effects = panel.press(ROLL)
    assert panel.screen.kind == "result"
    assert effects.screen is not None and effects.screen.kind == "result"
    assert effects.sounds[0] == looks.ROLL_SOUND


def test_a_press_during_the_animation_only_skips_it() -> None:
    panel = Panel(PanelConfig(animation_seconds=2))
    panel.press(ROLL)
    panel.press(ROLL)  # no second roll
    assert panel.screen.kind == "result"
    assert panel.dice.calls == 2
    panel.send(Event(EventKind.HOLD, ROLL))
    assert panel.dice.calls == 2
