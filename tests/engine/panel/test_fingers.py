"""The fingers flow: ROLL hides the hand, the buttons become fingers, the LEDs reveal the
winners, and the player's karma follows ``karma_after``."""

from __future__ import annotations

import pytest

from engine.panel import looks
from engine.panel.machine import PanelConfig
from engine.panel.model import Button
from tests.engine.panel.driver import FIELD, MINUS, MODE, PLUS, ROLL, HandDice, Panel

FINGER = {1: MODE, 2: FIELD, 3: MINUS, 4: PLUS, 5: ROLL}


def _fingers_panel(*hands: tuple[int, ...], **config: object) -> Panel:
    cfg = PanelConfig(systems=("fingers",), animation_seconds=0, **config)  # type: ignore[arg-type]
    return Panel(cfg, dice=HandDice(*hands))


@pytest.mark.parametrize("hand", [(1, 3), (2, 5), (4, 5), (1, 2)])
@pytest.mark.parametrize("guess", [1, 3, 5])
def test_leds_reveal_exactly_the_winning_fingers(hand: tuple[int, int], guess: int) -> None:
    panel = _fingers_panel(hand)
    panel.press(ROLL)
    assert panel.screen.kind == "guess"
    assert panel.leds == (1.0,) * 5  # all five fingers may be picked in a 2 of 5
    panel.press(FINGER[guess])
    assert panel.screen.kind == "reveal"
    assert panel.leds == tuple(1.0 if i in hand else 0.0 for i in range(1, 6))
    won = guess in hand
    assert panel.screen.big == ("SUCCESS" if won else "FAILURE")
    assert panel.rgb == (looks.GREEN if won else looks.RED)
    assert f"you picked {guess}" in panel.screen.lines
    assert f"winners {' '.join(map(str, hand))}" in panel.screen.lines


def test_button_is_finger() -> None:
    assert [b.finger for b in Button] == [1, 2, 3, 4, 5]


def test_only_fingers_in_play_count_and_a_wrong_one_is_ignored_with_feedback() -> None:
    panel = _fingers_panel((2,))
    panel.set_field("choices", 3)
    panel.set_field("winners", 1)
    panel.press(ROLL)
    assert panel.screen.big == "1-3"
    assert panel.leds == (1.0, 1.0, 1.0, 0.0, 0.0)
    effects = panel.press(PLUS)  # ring finger: not in a 1 of 3
    assert panel.state.mode == "guess"
    assert "finger 4 not in play" in panel.screen.lines
    assert effects.sounds == (looks.ERROR_SOUND,)
    assert effects.rolled is None
    panel.press(ROLL)  # pinky: not in play either, and ROLL does not roll here
    assert panel.state.mode == "guess"
    assert panel.dice.calls == 0
    panel.press(FIELD)
    assert panel.screen.kind == "reveal"
    assert panel.dice.calls == 1


def test_ailment_adds_a_finger() -> None:
    panel = _fingers_panel((4,))
    panel.set_field("choices", 3)
    panel.set_field("winners", 1)
    panel.set_field("ailment", True)
    panel.press(ROLL)
    assert panel.leds == (1.0, 1.0, 1.0, 1.0, 0.0)
    panel.press(PLUS)  # the ring finger is in play with the ailment
    assert panel.screen.kind == "reveal"
    assert panel.screen.big == "SUCCESS"


def test_karma_is_earned_on_failure_kept_per_player_and_spent() -> None:
    panel = _fingers_panel((1, 2), (1, 2), (3, 4, 5))
    panel.press(ROLL, ROLL)  # guess pinky: fails, karma 0 -> 1
    assert panel.state.slot.get("fingers", "karma") == 1
    panel.press(FIELD)  # back to setup: the player's karma is shown
    assert panel.screen.lines[-1] == "P1 karma 1"
    panel.press(ROLL, ROLL)  # fails again -> 2
    assert panel.state.slot.get("fingers", "karma") == 2
    panel.set_field("spend", 1)
    assert panel.screen.odds == pytest.approx(0.6)  # 2 of 5 becomes 3 of 5
    panel.press(ROLL, ROLL)  # hand of three, pinky wins; one karma spent
    assert panel.screen.big == "SUCCESS"
    assert panel.state.slot.get("fingers", "karma") == 1
    # the other player slots are untouched
    assert all(p.get("fingers", "karma") is None for p in panel.state.players[1:])


def test_spending_more_karma_than_held_is_a_message_not_a_roll() -> None:
    panel = _fingers_panel((1, 2))
    panel.set_field("spend", 1)
    assert panel.screen.odds is None
    lines = panel.screen.lines
    note = " ".join(lines[next(i for i, line in enumerate(lines) if line.startswith("!")):])
    assert note == "! spend: cannot spend 1 karma with karma 0"  # the panel's row, not --karma
    panel.press(ROLL)
    assert panel.screen.kind == "message"
    assert panel.dice.calls == 0
    assert panel.state.mode == "message"
    panel.press(MINUS)  # every button does its job again: spend back to 0
    assert panel.state.field_values()["spend"] == 0
    assert panel.screen.odds == pytest.approx(0.4)


def test_start_karma_setting_applies_to_fresh_players() -> None:
    panel = _fingers_panel((1, 2, 3), starts=(("karma", 2),))
    assert panel.screen.lines[-1] == "P1 karma 2"
    panel.set_field("spend", 1)
    panel.press(ROLL, MODE)  # thumb wins
    assert panel.state.slot.get("fingers", "karma") == 1


def test_automatic_tests_need_no_hand() -> None:
    panel = _fingers_panel()
    panel.set_field("winners", 5)
    assert panel.screen.odds == 1.0
    panel.press(ROLL, MINUS)
    assert panel.screen.big == "SUCCESS"
    assert "automatic" in panel.screen.lines
    assert panel.dice.calls == 0
