"""d6cv: every worked example of the rules text as its own test, then the rules around them
(criticals, Dice Contests, repeat, changing and construction checks), ``--faces`` and every
class of bad input."""

from __future__ import annotations

from fractions import Fraction

import pytest

import engine
from engine.errors import FacesError, ParameterError
from engine.systems import get
from engine.systems.d6cv.rules import COMPLEXITIES
from tests.support import seeded_dice

SPEC = get("d6cv")


def roll(faces, **params):
    return engine.roll("d6cv", faces=faces, **params)


def exact(**params) -> Fraction:
    return Fraction(engine.odds("d6cv", **params)["exact"]["success"])


# --- worked examples of the rules text -------------------------------------------------------


def test_cv_5_with_stat_5_fails_only_on_a_critical_failure():
    # "A CV of 5 means that a character with a corresponding stat of 5 will only fail the task
    # on a Critical Failure."
    for face in range(1, 7):
        r = roll([face], stat=5, cv=5)
        assert r["success"] is (face != 1), face
        assert r["critical"] == {1: "failure", 6: "success"}.get(face, "none")
    assert exact(stat=5, cv=5) == Fraction(5, 6)
    # Without criticals the lowest total, 5 + 1 = 6, already beats 5.
    assert exact(stat=5, cv=5, criticals=False) == 1


def test_cv_10_stat_5_must_roll_a_6():
    # "A CV of 10 means that the character must roll a 6 to succeed (Stat 5 + Roll 6 > 10)."
    for face in range(1, 7):
        r = roll([face], stat=5, cv=10)
        assert r["total"] == 5 + face
        assert r["success"] is (face == 6), face
    assert exact(stat=5, cv=10) == Fraction(1, 6)
    # The example holds with criticals off too: 11 > 10 is an ordinary success.
    assert roll([6], stat=5, cv=10, criticals=False)["critical"] == "none"
    assert exact(stat=5, cv=10, criticals=False) == Fraction(1, 6)


def test_actions_succeed_only_by_beating_the_cv():
    # "Actions succeed only by beating the CV." A total equal to the CV fails.
    r = roll([3], stat=5, cv=8)
    assert (r["total"], r["cv"], r["success"], r["outcome"]) == (8, 8, False, "failure")
    assert roll([4], stat=5, cv=8)["success"] is True


def test_stat_scale_zero_incapable_five_average_ten_natural_limit():
    # "0 is considered completely incapable, 5 is considered average, and 10 is considered the
    # natural biological limit." Stat 10 meets CV 10 like stat 5 meets CV 5.
    assert exact(stat=10, cv=10) == exact(stat=5, cv=5) == Fraction(5, 6)
    assert exact(stat=0, cv=5, criticals=False) == Fraction(1, 6)  # only a 6 beats 5
    assert SPEC.param("stat").hi == 15  # room above the natural limit for the superhuman


def test_critical_success_succeeds_regardless_of_the_cv():
    # "A Critical Success will cause an action to succeed regardless of the CV."
    r = roll([6], stat=0, cv=25, modifier=-10)
    assert (r["success"], r["critical"], r["total"]) == (True, "success", -4)
    assert exact(stat=0, cv=25, modifier=-10) == Fraction(1, 6)


def test_critical_failure_fails_regardless_of_the_cv():
    r = roll([1], stat=15, skill=4, modifier=10, cv=0)
    assert (r["success"], r["critical"], r["total"]) == (False, "failure", 30)


def test_criticals_can_be_turned_off():
    assert roll([1], stat=15, cv=0, criticals=False)["success"] is True
    assert roll([6], stat=0, cv=25, criticals=False)["success"] is False
    assert roll([6], stat=0, cv=25, criticals="no")["critical"] == "none"


def test_skill_bonus_from_untrained_0_to_mastery_4():
    # "a bonus is applied ... between +0 for Untrained, up to +4 for Mastery"
    assert roll([2], stat=5, skill="untrained", cv=7)["total"] == 7
    r = roll([2], stat=5, skill="mastery", cv=7)
    assert (r["total"], r["success"]) == (11, True)
    assert r["params"]["skill"] == 4


def test_situation_modifier_when_being_attacked():
    # "attempting to do something is harder when being attacked, for example"
    calm = roll([4], stat=5, cv=8)
    attacked = roll([4], stat=5, cv=8, modifier=-2)
    assert (calm["total"], calm["success"]) == (9, True)
    assert (attacked["total"], attacked["success"]) == (7, False)


# --- Dice Contests -----------------------------------------------------------------------------


def test_targeted_contest_the_actor_must_be_greater_a_tie_goes_to_the_target():
    # "the acting character's Dice Contest value must be greater than the target character's"
    tie = roll([3, 3], stat=5, contest="targeted", opponent_stat=5)
    assert tie["dice"] == [3, 3]
    assert (tie["total"], tie["opponent_total"], tie["success"]) == (8, 8, False)
    assert tie["cv"] is None
    win = roll([4, 3], stat=5, contest="targeted", opponent_stat=5)
    assert (win["total"], win["opponent_total"], win["success"]) == (9, 8, True)


def test_untargeted_contest_ties_are_settled_with_a_re_roll():
    # "In all other cases, ties are settled with a re-roll."
    decided = roll([3, 3], stat=6, contest="untargeted", opponent_stat=5)
    assert (decided["total"], decided["opponent_total"], decided["success"]) == (9, 8, True)
    tied = roll([2, 3, 4, 5, 4, 2], stat=6, contest="untargeted", opponent_stat=5,
                criticals=False)
    # 8 vs 8 tie, 10 vs 10 tie, then 10 vs 7: each re-roll draws the d6 then the opponent's.
    assert tied["dice"] == [2, 3, 4, 5, 4, 2]
    assert tied["checks"][0]["rolls"] == [2, 4, 4]
    assert tied["checks"][0]["opponent_rolls"] == [3, 5, 2]
    assert (tied["total"], tied["opponent_total"], tied["success"]) == (10, 7, True)
    # The same tie in a targeted contest goes to the target, no re-roll.
    assert roll([2, 3], stat=6, contest="targeted", opponent_stat=5)["success"] is False


def test_contest_draws_the_d6_then_the_opponents():
    r = roll([5, 2], stat=3, contest="targeted", opponent_stat=4, opponent_skill=2)
    assert (r["total"], r["opponent_total"]) == (8, 8)
    assert r["checks"][0]["rolls"] == [5] and r["checks"][0]["opponent_rolls"] == [2]


def test_contest_criticals_rank_before_totals():
    # The actor's natural 6 wins against a much stronger opponent ...
    r = roll([6, 5], stat=0, contest="targeted", opponent_stat=15)
    assert (r["success"], r["critical"]) == (True, "success")
    # ... the opponent's natural 6 beats the actor's big total ...
    r = roll([5, 6], stat=15, contest="targeted", opponent_stat=0)
    assert (r["success"], r["critical"]) == (False, "failure")
    # ... the opponent's natural 1 hands the actor the win ...
    r = roll([2, 1], stat=0, contest="targeted", opponent_stat=15)
    assert (r["success"], r["critical"]) == (True, "success")
    # ... and equal criticals compare totals (two 6s: the higher stat wins).
    r = roll([6, 6], stat=4, contest="targeted", opponent_stat=5)
    assert (r["success"], r["critical"]) == (False, "none")
    r = roll([1, 1], stat=6, contest="untargeted", opponent_stat=5)
    assert (r["success"], r["critical"]) == (True, "none")


def test_untargeted_double_six_with_equal_totals_re_rolls():
    r = roll([6, 6, 4, 3], stat=5, contest="untargeted", opponent_stat=5)
    assert r["checks"][0]["rolls"] == [6, 4]
    assert r["success"] is True


def test_contest_odds_condition_on_no_tie():
    # Without criticals, equal stats: P(win) = P(lose) and ties re-roll, so exactly 1/2;
    # targeted: ties (6 of 36) go to the target, 15/36 wins.
    assert exact(contest="untargeted", criticals=False) == Fraction(1, 2)
    assert exact(contest="targeted", criticals=False) == Fraction(15, 36)


# --- extended checks -----------------------------------------------------------------------


def test_repeat_check_meditation_once_an_hour_all_must_succeed():
    # "Mediation generally needs a Repeat check, once an hour, for example"
    r = roll([4, 5, 3], stat=5, cv=7, repeat=3)
    assert [c["success"] for c in r["checks"]] == [True, True, True]
    assert [c["cv"] for c in r["checks"]] == [7, 7, 7]
    assert r["success"] is True
    p = exact(stat=5, cv=7)
    assert exact(stat=5, cv=7, repeat=3) == p**3


def test_repeat_check_stops_at_the_first_failure():
    r = roll([4, 1], stat=5, cv=7, repeat=3)
    assert r["dice"] == [4, 1]
    assert len(r["checks"]) == 2
    assert (r["success"], r["critical"]) == (False, "failure")
    with pytest.raises(FacesError, match="too many faces"):
        roll([4, 1, 5], stat=5, cv=7, repeat=3)


def test_changing_check_hanging_off_the_cliff_gets_harder():
    # "each round you hang off the cliff, it's a little harder to hang on as you tire out"
    r = roll([4, 4, 4, 4], stat=5, cv=6, repeat=4, cv_step=1)
    assert [c["cv"] for c in r["checks"]] == [6, 7, 8, 9]
    assert [c["success"] for c in r["checks"]] == [True, True, True, False]
    assert r["success"] is False and r["cv"] == 9
    expected = Fraction(1)
    for cv in (6, 7, 8, 9):
        expected *= exact(stat=5, cv=cv)
    assert exact(stat=5, cv=6, repeat=4, cv_step=1) == expected


def test_changing_check_understanding_a_dialect_gets_easier():
    # "understanding a dialect gets easier and easier until the CV is less than 2": keep
    # trying, the first success ends it.
    r = roll([2, 3, 2], stat=3, cv=8, repeat=8, cv_step=-2, goal="any")
    assert [c["cv"] for c in r["checks"]] == [8, 6, 4]
    assert [c["success"] for c in r["checks"]] == [False, False, True]
    assert r["success"] is True and r["total"] == 5
    # By the time the CV is below 2, stat 3 only fails on a natural 1.
    assert exact(stat=3, cv=1) == Fraction(5, 6)
    fail = Fraction(1)
    for cv in (8, 6, 4, 2, 0, 0, 0, 0):  # below 0 the CV runs on, but stat 3 already wins on 2+
        fail *= 1 - exact(stat=3, cv=cv)
    assert exact(stat=3, cv=8, repeat=8, cv_step=-2, goal="any") == 1 - fail


def test_construction_complexity_sets_minimum_skill_cv_and_base_time():
    # "it determines what minimum skill level is required ..., it determines the CV
    # difficulty ..., and it determines the base time to produce or build the project"
    assert [c.cv for c in COMPLEXITIES] == [5, 7, 9, 11, 13]
    assert [c.min_skill for c in COMPLEXITIES] == [0, 1, 2, 3, 4]
    r = roll([3], stat=6, skill=2, construction="blueprint", complexity=2)
    assert (r["cv"], r["total"], r["success"]) == (9, 11, True)
    assert r["base_time"] == "1 week"
    assert r["checks"][0]["part"] == "blueprint"
    with pytest.raises(ParameterError, match="--skill"):
        roll([3], stat=6, skill=1, construction="execution", complexity=2)


def test_construction_is_harder_each_level_at_the_edge_of_skill():
    # The reading CV = 5 + 2 x complexity: at exactly the minimum skill, an average builder
    # finds each level harder; a gifted master finds none of them hard.
    edge = [exact(stat=5, skill=c, construction="execution", complexity=c) for c in range(5)]
    assert edge == [Fraction(5, 6), Fraction(5, 6), Fraction(2, 3), Fraction(1, 2),
                    Fraction(1, 3)]
    master = {exact(stat=8, skill=4, construction="execution", complexity=c) for c in range(5)}
    assert master == {Fraction(5, 6)}


def test_construction_untrained_to_master_by_name():
    # "The GM designates a project to be of a certain level of complexity - Untrained to Master."
    r = roll([5], stat=5, skill="mastery", construction="execution", complexity="master")
    assert (r["cv"], r["total"], r["success"], r["base_time"]) == (13, 14, True, "1 year")
    assert roll([2], stat=5, construction="blueprint", complexity="untrained")["cv"] == 5


def test_construction_project_is_blueprint_then_execution():
    # "they come in two flavors, Blueprint and Execution"
    r = roll([4, 2], stat=4, skill=1, construction="project", complexity=1)
    assert [c["part"] for c in r["checks"]] == ["blueprint", "execution"]
    assert [c["success"] for c in r["checks"]] == [True, False]
    assert r["success"] is False
    stage = exact(stat=4, skill=1, construction="blueprint", complexity=1)
    assert exact(stat=4, skill=1, construction="execution", complexity=1) == stage
    assert exact(stat=4, skill=1, construction="project", complexity=1) == stage**2
    failed_blueprint = roll([2], stat=4, skill=1, construction="project", complexity=1)
    assert len(failed_blueprint["checks"]) == 1  # nothing to build without a design


def test_construction_ignores_cv_and_keeps_the_modifier():
    plain = roll([4], stat=5, construction="blueprint", complexity=0, cv=25)
    assert plain["cv"] == 5 and plain["success"] is True
    assert roll([4], stat=5, construction="blueprint", modifier=-4)["success"] is False


def test_construction_repeated_over_periods():
    r = roll([3, 3, 3, 3], stat=6, skill=3, construction="project", complexity=3, repeat=2)
    assert [c["part"] for c in r["checks"]] == ["blueprint", "blueprint", "execution",
                                                "execution"]
    assert all(c["cv"] == 11 for c in r["checks"]) and r["success"] is True


# --- faces, describe, result shape -----------------------------------------------------------


def test_faces_round_trip_reproduces_a_seeded_roll():
    for params in ({"stat": 5, "cv": 8}, {"contest": "untargeted", "repeat": 3},
                   {"cv": 6, "repeat": 5, "cv_step": 1}):
        rolled = engine.roll("d6cv", rng=seeded_dice(b"d6cv-faces"), **params)
        again = engine.roll("d6cv", faces=rolled["dice"], **params)
        assert again == rolled


def test_faces_as_typed_text():
    assert engine.roll("d6cv", faces="5", stat=5, cv=7)["total"] == 10


def test_result_has_the_contract_fields():
    r = roll([5], stat=5, cv=7)
    for key in ("system", "params", "dice", "total", "outcome", "success", "critical"):
        assert key in r
    assert r["system"] == "d6cv"
    assert r["params"]["cv"] == 7
    assert set(SPEC.outcomes) == {"success", "failure"}


def test_describe_is_a_few_short_lines():
    for faces, params in (([6], {"stat": 5, "cv": 10}), ([1], {}),
                          ([3, 3, 4, 2], {"contest": "untargeted"}),
                          ([4, 5, 2], {"repeat": 3, "cv_step": 1}),
                          ([4, 5], {"construction": "project", "complexity": 1, "skill": 1})):
        lines = SPEC.describe(engine.roll_result("d6cv", faces=faces, **params))
        assert 2 <= len(lines) <= 4
        assert all(isinstance(line, str) and line for line in lines)
    lines = SPEC.describe(engine.roll_result("d6cv", faces=[6], stat=5, cv=10))
    assert "critical success" in lines[-1]
    lines = SPEC.describe(engine.roll_result("d6cv", faces=[4, 5], construction="project",
                                             complexity=1, skill=1))
    assert "1 day" in lines[-1]


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "flag"),
    [
        ({"stat": 16}, "--stat"),
        ({"stat": -1}, "--stat"),
        ({"stat": "strong"}, "--stat"),
        ({"skill": 5}, "--skill"),
        ({"modifier": 11}, "--modifier"),
        ({"cv": 36}, "--cv"),
        ({"criticals": "maybe"}, "--criticals"),
        ({"contest": "duel"}, "--contest"),
        ({"opponent_stat": 16}, "--opponent-stat"),
        ({"opponent_skill": -1}, "--opponent-skill"),
        ({"repeat": 0}, "--repeat"),
        ({"repeat": 25}, "--repeat"),
        ({"cv_step": 6}, "--cv-step"),
        ({"goal": "most"}, "--goal"),
        ({"construction": "factory"}, "--construction"),
        ({"complexity": 5}, "--complexity"),
        ({"luck": 3}, "--luck"),
        ({"contest": "targeted", "construction": "blueprint"}, "--contest"),
        ({"contest": "untargeted", "cv_step": 1}, "--cv-step"),
        ({"construction": "project", "complexity": 3, "skill": 2}, "--skill"),
    ],
)
def test_bad_parameters_name_the_parameter(params, flag):
    with pytest.raises(ParameterError) as info:
        engine.odds("d6cv", **params)
    assert str(info.value).startswith(flag + ":")
    with pytest.raises(ParameterError, match=flag):
        engine.roll("d6cv", rng=seeded_dice(b"bad"), **params)


@pytest.mark.parametrize(
    ("faces", "params", "match"),
    [
        ([7], {}, "not on a d6"),
        ([0], {}, "not on a d6"),
        ([], {}, "too few"),
        ([3, 4], {}, "too many"),
        ([3], {"contest": "targeted"}, "too few"),
        ([3, 3], {"contest": "untargeted"}, "too few"),  # the tie needs a re-roll
        ([4, 4], {"repeat": 3}, "too few"),
        ("a,b", {}, "not a die face"),
    ],
)
def test_bad_faces_raise_faces_error(faces, params, match):
    with pytest.raises(FacesError, match=match) as info:
        engine.roll("d6cv", faces=faces, **params)
    assert str(info.value).startswith("--faces:")


# --- regressions -----------------------------------------------------------------------------


def test_describe_writes_a_negative_bonus_as_a_minus():
    # Was "d6 3 + -3 = 0 vs opponent d6 4 + -10 = -6".
    lines = SPEC.describe(engine.roll_result(
        "d6cv", faces=[3, 4], stat=0, modifier=-3, contest="targeted", opponent_stat=0,
        opponent_modifier=-10))
    assert lines[0] == "targeted contest: d6 3 - 3 = 0 vs opponent d6 4 - 10 = -6"
    assert "+ -" not in " ".join(lines)
    lines = SPEC.describe(engine.roll_result("d6cv", faces=[4], stat=5, modifier=-2))
    assert lines[0] == "d6 4 + stat 5 + skill 0 - 2 = 7 vs CV 5"


def test_describe_names_the_project_part_that_decided():
    # A failed blueprint ends the project without an execution roll; the output used to show
    # "d6 1 + stat 5 ..." with nothing saying which part failed.
    lines = SPEC.describe(engine.roll_result("d6cv", faces=[1], construction="project"))
    assert lines[0].startswith("blueprint: d6 1 + stat 5")
    lines = SPEC.describe(engine.roll_result("d6cv", faces=[3, 4, 5, 1], construction="project",
                                             repeat=2))
    assert lines[0].startswith("execution: d6 1 + stat 5")
    assert "blueprint 3+5=8 vs CV 5 ok" in lines[1] and "execution 1+5=6 vs CV 5 x" in lines[1]
    assert 2 <= len(lines) <= 4
    # One-part checks keep their plain first line.
    lines = SPEC.describe(engine.roll_result("d6cv", faces=[3], construction="blueprint"))
    assert lines[0].startswith("d6 3 + stat 5")


# --- the result screen (issue 29) ------------------------------------------------------------


def _screen(faces, **params) -> list[str]:
    return [str(line) for line in SPEC.panel.details(engine.roll("d6cv", faces=faces, **params))]


@pytest.mark.parametrize(("faces", "won", "mark"), [
    ([3, 6], False, "opp. 6 =12 CRIT"),  # the opponent's 6 decided it: not the player's fumble
    ([4, 1], True, "opp. 1 =7 FUMBLE"),  # the opponent's 1: no critical of the player's 4
    ([6, 4], True, "you 6 =11 CRIT"),
    ([1, 3], False, "you 1 =6 FUMBLE"),
])
def test_a_contest_names_the_die_whose_critical_decided_it(faces, won, mark) -> None:
    """Was ``fail FUMBLE`` on the player's 3 when the opponent's 6 decided, ``CRIT`` on the
    player's 4 when the opponent rolled a 1; the command line says "lost on a critical"."""
    lines = _screen(faces, stat=5, contest="targeted", opponent_stat=6)
    text = " ".join(lines)
    assert f"{'won' if won else 'lost'} on a critical" in lines
    assert mark in text
    assert "CRITICAL" not in text  # that is a check's own critical, not a contest's
    assert text.count("CRIT") + text.count("FUMBLE") == 1


def test_a_re_rolled_tie_reads_as_two_exchanges_not_a_sum() -> None:
    """Was ``contest vs 6: 4+4 =9`` for a tie and its re-roll (the command line: "after 1 tie")."""
    lines = _screen([4, 3, 4, 1], stat=5, contest="untargeted", opponent_stat=6)
    text = " ".join(lines)
    assert "4+4" not in text
    assert text.startswith("success won on a critical tie: you 4 =9 opp. 3 =9 contest: you 4 =9")
    assert "opp. 1 =7 FUMBLE ok" in text
