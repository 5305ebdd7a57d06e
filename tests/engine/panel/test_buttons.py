"""MODE, FIELD, MINUS/PLUS with hold-to-repeat, the encoder and the status line."""

from __future__ import annotations

from engine.panel import looks
from engine.panel.machine import PanelConfig
from tests.engine.panel.driver import FIELD, MINUS, MODE, PLUS, ROLL, Panel


def test_mode_goes_round_the_enabled_systems_in_order() -> None:
    panel = Panel(PanelConfig(systems=("d6cv", "fingers", "infinity")))
    seen = [panel.state.system_id]
    for _ in range(3):
        panel.tap(MODE)
        seen.append(panel.state.system_id)
    assert seen == ["d6cv", "fingers", "infinity", "d6cv"]
    assert panel.dice.calls == 0


def test_field_goes_round_the_first_page_and_its_more_row() -> None:
    panel = Panel()
    names = []
    for _ in range(7):
        field = panel.state.field()
        names.append(field.name if field is not None else str(panel.state.row().kind))
        panel.tap(FIELD)
    assert names == ["rating", "cr", "declaration", "retry", "modifier", "go", "rating"]


def test_the_selected_field_is_first_and_marked() -> None:
    panel = Panel()
    panel.tap(FIELD)
    screen = panel.screen
    assert screen.selected == 0
    assert screen.lines[0] == ">cr 10 difficult"
    assert [line[0] for line in screen.lines[1:5]] == [" "] * 4


def test_plus_and_minus_stop_at_the_ends_with_a_sound() -> None:
    panel = Panel()
    panel.to_system("d6cv")
    panel.to_field("skill")
    for _ in range(6):
        panel.tap(PLUS)
    assert panel.state.field_values()["skill"] == 4
    assert panel.screen.lines[0] == ">skill 4 mastery"
    effects = panel.press(PLUS)
    assert effects.sounds == (looks.LIMIT_SOUND,)
    assert effects.screen is None  # nothing changed on screen
    for _ in range(6):
        panel.tap(MINUS)
    assert panel.state.field_values()["skill"] == 0


def test_switches_flip_and_choices_go_round() -> None:
    panel = Panel()
    panel.to_system("immortal")
    panel.to_field("color")
    colours = []
    for _ in range(7):
        colours.append(panel.state.field_values()["color"])
        panel.tap(PLUS)
    assert colours == ["orange", "yellow", "green", "blue", "violet", "red", "orange"]
    panel.tap(MINUS, MINUS)  # from yellow, back round past the start
    assert panel.state.field_values()["color"] == "red"
    panel.to_field("untrained")
    panel.tap(PLUS)
    assert panel.state.field_values()["untrained"] is True
    panel.tap(MINUS)
    assert panel.state.field_values()["untrained"] is False


def test_hold_repeats_every_delay_on_ticks_until_release() -> None:
    panel = Panel(PanelConfig(hold_repeat_delay=0.4))
    panel.to_field("modifier")
    panel.press(PLUS)  # 1
    panel.hold(PLUS, dt=0.5)  # 2, repeats from here every 0.4 s
    assert panel.state.field_values()["modifier"] == 2
    panel.tick(0.3)
    assert panel.state.field_values()["modifier"] == 2
    panel.tick(0.15)  # 0.45 after the hold
    assert panel.state.field_values()["modifier"] == 3
    for _ in range(8):  # to 1.25 s after the hold: repeats at 0.8 and 1.2
        panel.tick(0.1)
    assert panel.state.field_values()["modifier"] == 5
    panel.hold(PLUS, dt=0.0)  # a repeated HOLD event does not add a step
    assert panel.state.field_values()["modifier"] == 5
    panel.release(PLUS, dt=0.0)
    for _ in range(10):
        panel.tick(0.4)
    assert panel.state.field_values()["modifier"] == 5
    assert panel.dice.calls == 0


def test_hold_minus_repeats_down_to_the_end_and_stops_there() -> None:
    panel = Panel()
    panel.to_system("fingers")
    panel.press(MINUS)
    panel.hold(MINUS)
    for _ in range(20):
        panel.tick(0.4)
    assert panel.state.field_values()["choices"] == 2


def test_a_late_tick_catches_up_a_few_steps_not_all() -> None:
    panel = Panel(PanelConfig(hold_repeat_delay=0.1))
    panel.to_field("rating")
    panel.hold(PLUS)  # 9
    panel.tick(10.0)  # the loop stalled: at most five steps, not a hundred
    assert panel.state.field_values()["rating"] == 14
    panel.tick(0.1)
    assert panel.state.field_values()["rating"] == 15


def test_another_press_stops_the_repeat() -> None:
    panel = Panel()
    panel.to_field("rating")
    panel.hold(PLUS)
    panel.press(FIELD)
    before = panel.state.field_values()["rating"]
    for _ in range(5):
        panel.tick(0.4)
    assert panel.state.field_values()["rating"] == before


def test_encoder_turns_change_the_selected_field() -> None:
    panel = Panel()
    panel.to_field("cr")
    panel.turn(+5)
    assert panel.state.field_values()["cr"] == 15
    panel.turn(-100)
    assert panel.state.field_values()["cr"] == 0


def test_status_line_shows_in_settings_and_never_rolls() -> None:
    panel = Panel()
    panel.status("kernel ok, hwrng ok")
    panel.hold(MODE)
    assert panel.screen.lines[-2:] == ("entropy kernel ok,", "hwrng ok")  # wrapped, not cut
    assert len(panel.screen.lines[-1]) <= 21
    assert panel.dice.calls == 0


def test_roll_on_the_result_screen_rolls_again_and_other_buttons_act_at_once() -> None:
    panel = Panel()
    panel.press(ROLL)
    first = panel.state.result
    panel.press(ROLL)
    assert panel.state.result is not first
    assert panel.dice.calls == 4  # two rolls of hot and cold
    panel.press(MODE)
    assert panel.state.system_id == "horizons"
    assert panel.screen.kind == "setup"


def test_result_returns_to_setup_after_the_hold_time() -> None:
    panel = Panel(PanelConfig(result_hold_seconds=10, animation_seconds=0))
    panel.press(ROLL)
    panel.tick(9.0)
    assert panel.screen.kind == "result"
    effects = panel.tick(1.5)
    assert panel.screen.kind == "setup"
    assert effects.screen is not None and effects.leds == (0.0, 0.0, 0.0, 0.0, 1.0)
    assert effects.rgb == looks.OFF
