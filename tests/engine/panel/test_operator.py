"""The kiosk's operator lock in front of the real machine: MODE held alone opens nothing, the
operator buttons held together open the settings, and a press that forms the combination
does nothing else (ROLL while MODE is down does not roll)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.panel.machine import PanelConfig
from engine.panel.model import Button, Event, EventKind
from engine.panel.operator import DEFAULT_BUTTONS, OperatorLock, check_buttons, filter_event
from engine.panel.state import Mode
from tests.engine.panel.driver import FIELD, MINUS, MODE, PLUS, ROLL, Panel


class LockedPanel(Panel):
    """The driver's panel with the lock in front of it."""

    def __init__(self, buttons=DEFAULT_BUTTONS, **kwargs) -> None:
        super().__init__(PanelConfig(animation_seconds=0), **kwargs)
        self.lock = OperatorLock(frozenset(buttons))

    def send(self, event: Event, dt: float = 0.05):
        self.lock, passed = filter_event(self.lock, event)
        effects = None
        for e in passed:
            effects = super().send(e, dt)
        if not passed:
            self.now += dt
        return effects


def test_mode_held_alone_opens_nothing() -> None:
    panel = LockedPanel()
    panel.press(MODE)
    panel.hold(MODE)
    panel.release(MODE)
    assert panel.state.mode is Mode.SETUP
    assert panel.state.system_id == "horizons"  # the hold was only a press


def test_mode_then_roll_held_opens_the_settings_without_rolling() -> None:
    panel = LockedPanel()
    panel.press(MODE)
    panel.press(ROLL)  # forms the combination: no roll
    assert panel.state.mode is Mode.SETUP and panel.dice.calls == 0
    panel.hold(MODE)
    assert panel.state.mode is Mode.SETTINGS
    assert panel.state.system_id == "infinity"  # MODE's tap taken back, as for a plain hold
    panel.hold(ROLL)  # ROLL's own hold does nothing more
    panel.release(ROLL)
    panel.release(MODE)
    assert panel.state.mode is Mode.SETTINGS and panel.dice.calls == 0
    panel.tap(MODE)  # and the menu works as usual: MODE leaves it
    assert panel.state.mode is Mode.SETUP


def test_another_combination() -> None:
    panel = LockedPanel(buttons=(MINUS, PLUS))
    panel.press(MINUS)
    panel.press(PLUS)
    panel.hold(MINUS)
    assert panel.state.mode is Mode.SETTINGS
    panel.hold(PLUS)  # a swallowed press's hold must not adjust a setting
    assert panel.state.settings == LockedPanel(buttons=(MINUS, PLUS)).state.settings


def test_without_the_lock_events_pass_unchanged() -> None:
    lock = OperatorLock()
    for event in (Event(EventKind.TICK), Event(EventKind.STATUS, text="x"), Event(EventKind.TURN, steps=2)):
        assert filter_event(lock, event) == (lock, (event,))


def test_check_buttons() -> None:
    assert check_buttons(("mode", "roll")) == frozenset({MODE, ROLL})
    for bad, message in ((("mode",), "at least two"), (("mode", "mode"), "listed twice"), (("mode", "x"), "'x'")):
        with pytest.raises(ValueError, match=message):
            check_buttons(bad)
    with pytest.raises(ValueError, match="at least two"):
        OperatorLock(frozenset({MODE}))


BUTTONS = [MODE, FIELD, MINUS, PLUS, ROLL]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["press", "release", "hold", "tick"]), st.sampled_from(BUTTONS)),
                max_size=40))
def test_the_settings_open_only_after_the_whole_combination_was_down(actions) -> None:
    """Any sequence of button events: the menu opens only once MODE and ROLL were down together."""
    panel = LockedPanel()
    down: set[Button] = set()
    together = False
    for action, button in actions:
        if action == "tick":
            panel.tick(0.3)
        elif action == "press":
            if button in down:
                continue  # a real button cannot be pressed twice without a release
            down.add(button)
            panel.press(button)
        elif action == "release":
            if button not in down:
                continue
            down.discard(button)
            panel.release(button)
        elif button in down:
            panel.hold(button)
        together = together or {MODE, ROLL} <= down
        if panel.state.mode in (Mode.SETTINGS, Mode.SESSION):
            assert together
