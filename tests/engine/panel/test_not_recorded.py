"""``machine.not_recorded``: a roll whose log entry could not be written leaves the panel as it
was before the roll, saying "cannot record", with the whole picture and the error sound."""

from __future__ import annotations

import dataclasses

from engine.panel import looks
from engine.panel.machine import PanelConfig, initial, not_recorded
from engine.panel.state import Mode
from engine.panel.view import render

_BEFORE, _ = initial(PanelConfig(players=2), 10.0)


def test_the_panel_is_as_before_the_roll_and_says_cannot_record() -> None:
    state, fx = not_recorded(_BEFORE, "roll log: No space left on device; roll not shown", 10.5)
    assert state.mode is Mode.MESSAGE
    assert state.message == ("cannot record", "roll log: No space left on device; roll not shown")
    assert state.result is None and state.fingerprint == "" and state.fingers == ()
    assert state.now == state.shown_at == 10.5
    assert state.values == _BEFORE.values and state.players == _BEFORE.players  # not the roll's slots
    assert fx.sounds == (looks.ERROR_SOUND,)
    assert state.view == render(dataclasses.replace(state, view=None))
    assert (fx.screen, fx.leds, fx.rgb) == (state.view.screen, state.view.leds, state.view.rgb)
    assert fx.rolled is None


def test_the_message_is_cut_to_what_a_message_holds() -> None:
    state, _ = not_recorded(_BEFORE, "x" * 500, 11.0)
    assert state.message == ("cannot record", "x" * 160)


def test_it_is_pure() -> None:
    first = not_recorded(_BEFORE, "roll log: read-only", 12.0)
    assert not_recorded(_BEFORE, "roll log: read-only", 12.0) == first
    assert _BEFORE.mode is not Mode.MESSAGE
