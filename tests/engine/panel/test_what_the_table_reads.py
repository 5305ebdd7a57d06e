"""What the table reads on the panel (issue 18): each screen that said a wrong word, and the
rules' "when to roll" on the setup screen. Each roll is checked against ``engine.roll`` with
the same dice, so the screen and the library cannot disagree."""

from __future__ import annotations

import engine
from engine.dice import FacesDice
from engine.panel import pages, screens
from engine.panel.machine import PanelConfig
from engine.panel.state import Mode
from engine.systems import get
from tests.engine.panel.driver import MINUS, ROLL, Panel


def _panel(system: str, faces: list[int] | None = None) -> Panel:
    dice = FacesDice(faces) if faces is not None else None
    return Panel(PanelConfig(systems=(system,), animation_seconds=0), dice=dice)


def _text(panel: Panel) -> list[str]:
    return panel.screen.text()


def test_an_immortal_automatic_success_reads_auto_not_none() -> None:
    p = _panel("immortal", faces=[])  # no die is drawn
    p.set_field("attribute", 6)
    p.set_field("skill", 5)
    p.set_field("tn", 15)
    p.press(ROLL)
    assert p.effects[-1].rolled["automatic"] is True
    assert p.screen.title == screens.spread("immortal", "auto vs 15")
    assert "automatic 5x3>=15" in _text(p)


def test_an_opponent_total_typed_in_reads_as_a_total() -> None:
    p = _panel("immortal", faces=[7])
    p.set_field("opponent_total", 13)
    p.press(ROLL)
    rolled = p.effects[-1].rolled
    assert rolled == engine.roll("immortal", opponent_total=13, faces=[7])
    assert "opp. total 13" in _text(p)
    assert not any("None" in line for line in _text(p))


def test_a_roll_made_where_automatic_success_was_allowed_says_it_was_rolled() -> None:
    """Under ``auto success best`` (and ``no``) a rolled result says it rolled rather than
    declared, as the command line does."""
    # skill 4 x 3 >= TN 12, but a hostile needs the primary bonus: best rolls
    p = _panel("immortal", faces=[9, 8])
    p.set_field("attribute", 2)
    p.set_field("skill", 4)
    p.set_field("tn", 12)
    p.set_list("hostile", [(12, -1, 0, 0)])
    p.press(ROLL)
    rolled = p.effects[-1].rolled
    assert rolled["automatic_available"] and not rolled["automatic"]
    assert "rolled, not automatic: better chance" in " ".join(_text(p))
    p = _panel("immortal", faces=[3])
    p.set_field("attribute", 6)
    p.set_field("skill", 5)
    p.set_field("tn", 15)
    p.set_field("auto_success", "no")
    p.press(ROLL)
    assert "rolled: auto success off" in " ".join(_text(p))


def test_a_volley_make_up_line_names_the_weapon_damage() -> None:
    faces = [3, 5, 2, 5, 1, 2]
    expected = engine.roll("infinity", volley=True, damage=16, defense=31, attacker=["12:18"], related=["10"],
                           declaration=True, faces=faces)
    p = _panel("infinity", faces=faces)
    p.set_field("declaration", True)
    p.set_field("volley", True)
    p.set_field("damage", 16)
    p.set_field("defense", 31)
    p.set_list("attacker", [(12, 18)])
    p.set_list("related", [(10, 0)])
    p.press(ROLL)
    assert p.effects[-1].rolled == expected
    while p.state.mode is Mode.TURNS:
        p.press(ROLL)
    lines = _text(p)
    at = lines.index(f"{expected['total']} = base 14 +2")
    assert lines[at + 1] == "+1 decl. +18 weapon", lines  # a part is never broken between lines
    assert expected["total"] == 14 + 2 + 1 + 18


def test_a_related_characters_coordination_cr_starts_at_routine() -> None:
    """"Every other Skill Total that beats a CR 0 (Routine) adds +1": a related character
    added on the panel is the command line's plain --related 8 (35.8 %, not 30.2 %)."""
    p = _panel("infinity")
    p.set_list("related", [(8, 0)])
    assert p.value("related") == ((8, 0),)
    expected = engine.odds("infinity", related=["8"])["success"]
    assert abs(p.state.odds - expected) < 1e-12
    assert round(expected * 100, 1) == 35.8
    p.set_list("related", [(8, 228)])  # and reaches the command line's highest CR
    assert abs(p.state.odds - engine.odds("infinity", related=["8:228"])["success"]) < 1e-12


def test_a_chains_first_test_takes_every_finger_of_its_own_challenge() -> None:
    """Chain 1 of 5 then 1 of 3: the first guess may be finger 5 (the command line takes
    --guess 5,1), and the guess screen shows the test being played, not the first page."""
    p = _panel("fingers")
    p.set_list("chain", [(1, 5, 0), (1, 3, 0)])
    p.press(ROLL)
    assert p.state.mode is Mode.GUESS and p.state.fingers == (1, 2, 3, 4, 5)
    assert "fingers 1 of 5" in _text(p) and "test 1 of 2" in _text(p)
    p.press(ROLL)  # the pinky: finger 5
    assert p.state.mode is Mode.GUESS and p.state.fingers == (1, 2, 3)
    assert "fingers 1 of 3" in _text(p) and "test 2 of 2" in _text(p)
    p.press(MINUS)  # the middle finger: 3
    rolled = p.effects[-1].rolled
    assert rolled is not None and rolled["guess"] == 5
    assert rolled["params"]["guess"] == [5, 3]
    assert engine.odds("fingers", chain=["1/5", "1/3"], guess=[5, 1])  # the command line takes it too


def test_the_setup_screen_says_when_the_rules_call_for_no_roll() -> None:
    """Infinity, When to Roll: "The CR is equal or greater than the character's skill"; below
    it, no roll is needed (unless the player or adverse conditions call for one), and ROLL
    still rolls."""
    p = _panel("infinity")
    p.set_field("cr", 7)  # rating 8
    text = _text(p)
    assert text[-3:-1] == ["no roll needed:", "cr 7 < rating 8"], text
    assert p.leds[-1] == 1.0  # the ROLL LED: rolling anyway is one press away
    p.press(ROLL)
    assert p.effects[-1].rolled is not None
    p = _panel("infinity")
    p.set_field("cr", 8)  # equal: the rules call for a roll
    assert "no roll needed:" not in _text(p)
    p = _panel("infinity")
    p.set_list("helper", [(12,)])  # a group goes by its best primary rating, on the first page
    assert "no roll needed:" not in _text(p)  # the coordination page keeps its rows
    p.to_page(pages.FIRST)
    assert "cr 10 < rating 12" in _text(p)


def test_the_panels_ranges_come_from_the_rules() -> None:
    hostile = get("immortal").panel.lists["hostile"].parts[0]
    assert (hostile.lo, hostile.hi) == (1, 79)  # the command line's and docs/rules/immortal.md's
    p = _panel("immortal", faces=[10, 10])
    p.set_list("hostile", [(79, -1, 0, 0)])  # 60 was the panel's end
    p.press(ROLL)
    assert p.effects[-1].rolled == engine.roll("immortal", hostile=["79"], faces=[10, 10])


def test_no_roll_needed_keeps_the_session_and_its_table_seed_on_the_screen() -> None:
    """Was: with "no roll needed" up, the table seed line turned to a second page (and the
    screenshot showed it gone); the note now turns in the rows it leaves, if it must."""
    from engine.panel import sessions
    from engine.panel.model import Event, EventKind

    p = _panel("infinity")
    p.send(Event(EventKind.SESSION, text=sessions.committed("3fa2c1d0" * 8, table_seed="31425512")))
    p.set_field("cr", 4)
    p.set_field("rating", 5)
    for _ in range(4):  # as the clock runs on, whatever page is up
        text = _text(p)
        assert text[-2:] == ["P1          #3fa2c1d0", "table seed 31425512"], text
        assert "no roll needed:" in text and "cr 4 < rating 5" in text
        assert sum(line.startswith((" ", ">")) for line in text) >= 3  # three rows of the page still show
        p.tick(2.0)
