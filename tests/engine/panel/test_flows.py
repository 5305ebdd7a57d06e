"""Each system's whole panel flow against the library: select, change fields, roll with a seed,
and the result screen, LEDs and RGB say what ``engine.roll`` says for the same seed."""

from __future__ import annotations

import pytest

import engine
from engine.panel import looks, screens
from engine.panel.machine import PanelConfig
from tests.engine.panel.driver import FIELD, MINUS, MODE, ROLL, Panel
from tests.support import seeded_dice


def _expected(system: str, seed: bytes, **params: object) -> dict:
    return engine.roll(system, rng=seeded_dice(seed), **params)


def _check_result(panel: Panel, expected: dict) -> None:
    rolled = panel.effects[-1].rolled
    assert rolled == expected
    screen = panel.screen
    assert screen.kind in ("result", "reveal")
    assert screen.big == screens.marquee(looks.big_word(expected["outcome"]), screens.BIG_WIDTH, 0)
    assert screen.dice == tuple(expected["dice"])
    result = panel.state.result
    assert result is not None
    assert panel.leds == looks.outcome_leds(result)
    assert panel.rgb == looks.outcome_rgb(result)


def _seed_where(system: str, wanted, **params: object) -> bytes:
    """The first seed whose roll has ``wanted(result_dict)``: deterministic, no guessing."""
    for i in range(500):
        seed = f"panel-{system}-{i}".encode()
        if wanted(_expected(system, seed, **params)):
            return seed
    raise AssertionError("no seed found")


def test_infinity_flow() -> None:
    seed = b"infinity-flow"
    panel = Panel(seed=seed)
    assert panel.screen.title.startswith("infinity")
    panel.set_field("cr", 15)
    assert any("cr 15 formidable" in line for line in panel.screen.lines)
    panel.set_field("declaration", True)
    params = {"rating": 8, "cr": 15, "declaration": True}
    odds = engine.odds("infinity", **params)["success"]
    assert panel.screen.odds == pytest.approx(odds)
    assert screens.percent(odds) in panel.screen.title
    assert panel.dice.calls == 0
    panel.press(ROLL)
    expected = _expected("infinity", seed, **params)
    _check_result(panel, expected)
    assert panel.screen.title == screens.spread("infinity", f"{expected['total']} vs 15")
    hot, cold = expected["dice"]
    assert any(line.startswith(f"hot {hot} cold {cold}") for line in panel.screen.lines)
    assert panel.screen.lines[0].startswith(expected["outcome"])


def test_infinity_names_the_challenge_ratings() -> None:
    panel = Panel()
    panel.set_field("cr", 30)
    assert panel.screen.lines[0] == ">cr 30 impossible"
    panel.press(MINUS)
    assert panel.screen.lines[0] == ">cr 29"


@pytest.mark.parametrize("kind", ["mishap", "breakthrough"])
def test_infinity_doubles_called_out(kind: str) -> None:
    seed = _seed_where("infinity", lambda r: r["doubles"] == kind)
    panel = Panel(seed=seed)
    panel.press(ROLL)
    _check_result(panel, _expected("infinity", seed))
    assert f"DOUBLES: {kind.upper()}" in panel.screen.lines


def test_infinity_complication_is_amber() -> None:
    seed = _seed_where("infinity", lambda r: r["outcome"] == "complication", rating=8, cr=8)
    panel = Panel(seed=seed)
    panel.set_field("cr", 8)
    panel.press(ROLL)
    assert panel.rgb == looks.AMBER
    assert looks.big_word("complication") == "COMPLICATION"
    assert panel.screen.big == "COMPLICATI"  # the first of the scrolled views
    panel.tick(2.0)  # five scroll steps of 0.4 s: past the pause at the start
    assert panel.screen.big == "MPLICATION"  # scrolled to its end, not cut


def test_horizons_flow() -> None:
    seed = b"horizons-flow"
    panel = Panel(seed=seed)
    panel.to_system("horizons")
    panel.set_field("trait", 4)
    panel.set_field("need", 3)
    panel.set_field("opponent_pool", 2)
    params = {"trait": 4, "skill": 1, "need": 3, "opponent_pool": 2}
    assert panel.screen.odds == pytest.approx(engine.odds("horizons", **params)["success"])
    panel.press(ROLL)
    expected = _expected("horizons", seed, **params)
    _check_result(panel, expected)
    assert panel.screen.title == screens.spread(
        "horizons", f"{expected['successes']} vs {expected['opponent_successes']}")
    lit = min(5, max(0, expected["successes"]))
    assert panel.leds == tuple([1.0] * lit + [0.0] * (5 - lit))


def test_d6cv_flow_and_criticals() -> None:
    seed = _seed_where("d6cv", lambda r: r["critical"] == "success", cv=8)
    panel = Panel(seed=seed)
    panel.to_system("d6cv")
    panel.set_field("cv", 8)
    assert panel.screen.odds == pytest.approx(engine.odds("d6cv", cv=8)["success"])
    panel.press(ROLL)
    expected = _expected("d6cv", seed, cv=8)
    _check_result(panel, expected)
    assert "CRITICAL SUCCESS" in panel.screen.lines
    assert panel.screen.title == screens.spread("d6cv", f"{expected['total']} vs 8")


def test_d6cv_critical_failure_called_out() -> None:
    seed = _seed_where("d6cv", lambda r: r["critical"] == "failure")
    panel = Panel(seed=seed)
    panel.to_system("d6cv")
    panel.press(ROLL)
    _check_result(panel, _expected("d6cv", seed))
    assert "CRITICAL FAILURE" in panel.screen.lines
    assert panel.rgb == looks.RED


def test_immortal_flow_shows_the_colour_of_the_roll() -> None:
    seed = b"immortal-flow"
    panel = Panel(seed=seed)
    panel.to_system("immortal")
    panel.set_field("tn", 12)
    panel.set_field("color", "blue")
    params = {"tn": 12, "color": "blue"}
    assert panel.screen.odds == pytest.approx(engine.odds("immortal", **params)["success"])
    panel.press(ROLL)
    expected = _expected("immortal", seed, **params)
    _check_result(panel, expected)
    assert panel.rgb == looks.colour_rgb("blue")
    assert panel.screen.title == screens.spread("immortal", f"{expected['total']} vs 12")
    assert "blue: perception" in panel.screen.lines


def test_immortal_failed_untrained_attempt_locks_the_skill_for_that_player() -> None:
    seed = _seed_where("immortal", lambda r: not r["success"], untrained=True, tn=14)
    panel = Panel(seed=seed)
    panel.to_system("immortal")
    panel.set_field("tn", 14)
    panel.set_field("untrained", True)
    panel.press(ROLL)
    assert panel.state.result is not None and panel.state.result.skill_locked
    assert "skill now LOCKED" in panel.screen.lines
    assert panel.state.slot.get("immortal", "locked:skill_locked") == (1,)  # skill slot 1
    calls = panel.dice.calls
    panel.press(ROLL)  # a second untrained attempt is refused, and shown, not crashed
    assert panel.screen.kind == "message"
    assert "locked" in " ".join(panel.screen.lines)
    assert panel.dice.calls == calls


def test_fingers_flow() -> None:
    seed = b"fingers-flow"
    panel = Panel(seed=seed)
    panel.to_system("fingers")
    panel.set_field("winners", 3)
    assert panel.screen.odds == pytest.approx(0.6)
    panel.press(ROLL)
    assert panel.screen.kind == "guess"
    assert panel.dice.calls == 0  # the hand is chosen at the guess
    panel.press(MINUS)  # middle finger
    expected = _expected("fingers", seed, winners=3, guess=[3], karma=0)
    _check_result(panel, expected)
    assert panel.screen.kind == "reveal"
    assert f"karma {expected['karma_after']}" in panel.screen.lines[-1]


def test_every_system_rolls_with_animation_and_skipping() -> None:
    panel = Panel(PanelConfig(animation_seconds=0.5))
    for system in engine.ids():
        panel.to_system(system)
        panel.press(ROLL)
        if system == "fingers":
            panel.press(MODE)  # thumb
        assert panel.screen.kind == "rolling"
        panel.press(FIELD)  # skips the animation, does nothing else
        assert panel.screen.kind in ("result", "reveal")
        assert panel.state.system_id == system
