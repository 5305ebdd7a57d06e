"""Infinity: every worked example of the rules text, the rule tables, and single rolls."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.systems import get
from engine.systems.infinity.rules import (
    BONUS_COUNTS,
    CR_NAMES,
    combine,
    doubles_of,
    hot_cold_bonus,
    outcome_of,
    skill_bonus,
    success_rating,
)


def faces_for(bonus: int, double: int = 10) -> list[int]:
    """A (hot, cold) pair giving ``bonus``; a 0 is rolled as the double ``double``."""
    if bonus > 0:
        return [bonus, 10]
    if bonus < 0:
        return [10, -bonus]
    return [double, double]


# --- "Rolling the Dice" examples ---------------------------------------------------------


def test_example_hot_5_cold_1_bonus_is_minus_1() -> None:
    assert hot_cold_bonus(5, 1) == -1
    r = engine.roll("infinity", rating=8, cr=0, faces=[5, 1])
    assert (r["bonus"], r["total"], r["dice"]) == (-1, 7, [5, 1])


def test_example_hot_3_cold_4_bonus_is_plus_3() -> None:
    assert hot_cold_bonus(3, 4) == 3
    r = engine.roll("infinity", rating=8, cr=0, faces="3,4")
    assert (r["bonus"], r["total"]) == (3, 11)


def test_example_both_10_bonus_is_0() -> None:
    r = engine.roll("infinity", rating=8, cr=0, faces=[10, 10])
    assert (r["bonus"], r["total"], r["doubles"]) == (0, 8, "breakthrough")


def test_example_skill_8_ranges_from_minus_1_to_17() -> None:
    totals = {
        engine.roll("infinity", rating=8, faces=[h, c])["total"] for h in range(1, 11) for c in range(1, 11)
    }
    assert min(totals) == -1
    assert max(totals) == 17
    assert totals == set(range(-1, 18))
    assert [b for b, _ in BONUS_COUNTS] == list(range(-9, 10))


def test_bonus_distribution_is_triangular() -> None:
    assert dict(BONUS_COUNTS) == {b: 10 - abs(b) for b in range(-9, 10)}
    assert sum(w for _, w in BONUS_COUNTS) == 100


# --- Challenge Ratings and Success Ratings ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("routine", 0), ("easy", 5), ("moderate", 8), ("difficult", 10), ("formidable", 15),
        ("grueling", 20), ("monumental", 25), ("impossible", 30), ("nearly-impossible", 30),
        ("Difficult", 10), (" EASY ", 5),
    ],
)
def test_challenge_rating_by_name(name: str, value: int) -> None:
    r = engine.roll("infinity", rating=10, cr=name, faces=[10, 10])
    assert r["difficulty"] == value
    assert r["result"] == 10 - value


def test_cr_names_table_matches_text() -> None:
    assert dict(CR_NAMES) == {
        "routine": 0, "easy": 5, "moderate": 8, "difficult": 10, "formidable": 15,
        "grueling": 20, "monumental": 25, "impossible": 30, "nearly-impossible": 30,
    }


@pytest.mark.parametrize(
    ("result", "outcome", "sr"),
    [
        (-20, "failure", 0), (-1, "failure", 0), (0, "complication", 0),
        (1, "success", 1), (4, "success", 1), (5, "solid", 2), (9, "solid", 2),
        (10, "spectacular", 3), (14, "spectacular", 3), (15, "spectacular", 4), (19, "spectacular", 4),
        (20, "spectacular", 5), (25, "spectacular", 6), (30, "spectacular", 7),
    ],
)
def test_sr_table_row(result: int, outcome: str, sr: int) -> None:
    assert outcome_of(result) == outcome
    assert success_rating(result) == sr
    # and through a real roll: rating 30 against a CR that leaves this Result on a bonus of 0
    cr = 30 - result
    if 0 <= cr <= 100:
        r = engine.roll("infinity", rating=30, cr=cr, faces=[10, 10])
        assert (r["result"], r["outcome"], r["success_rating"], r["success"]) == (result, outcome, sr, result >= 1)


def test_example_result_15_earns_an_extra_sr() -> None:
    r = engine.roll("infinity", rating=25, cr="difficult", faces=[10, 10])
    assert r["result"] == 15
    assert r["outcome"] == "spectacular"
    assert r["success_rating"] == 4


# --- Declarations, Complication retries, modifiers -----------------------------------------


def test_example_declaration_adds_1() -> None:
    plain = engine.roll("infinity", rating=8, cr=10, faces=[1, 2])
    declared = engine.roll("infinity", rating=8, cr=10, declaration=True, faces=[1, 2])
    assert plain["total"] == 9
    assert declared["total"] == 10
    assert (plain["outcome"], declared["outcome"]) == ("failure", "complication")


def test_retry_after_complication_is_at_minus_3() -> None:
    first = engine.roll("infinity", rating=8, cr=10, faces=[2, 3])
    assert first["outcome"] == "complication"
    again = engine.roll("infinity", rating=8, cr=10, retry=True, faces=[2, 3])
    assert again["total"] == first["total"] - 3
    assert again["outcome"] == "failure"


def test_modifier_is_added_to_the_total() -> None:
    r = engine.roll("infinity", rating=8, cr=10, modifier=-4, declaration=True, retry=True, faces=[3, 4])
    assert r["total"] == 8 + 3 - 4 + 1 - 3


# --- Doubles Double Up ------------------------------------------------------------------


@pytest.mark.parametrize("face", range(1, 11))
def test_doubles_mishap_low_breakthrough_high(face: int) -> None:
    expected = "mishap" if face <= 5 else "breakthrough"
    assert doubles_of(face, face) == expected
    r = engine.roll("infinity", rating=8, cr=10, faces=[face, face])
    assert r["doubles"] == expected
    assert r["bonus"] == 0


def test_doubles_are_independent_of_the_outcome() -> None:
    # "If you're shooting, and roll Double 7's ... something nice happens (whether you Succeed or Fail)"
    failed = engine.roll("infinity", rating=2, cr=10, faces=[7, 7])
    won = engine.roll("infinity", rating=30, cr=10, faces=[7, 7])
    assert (failed["outcome"], failed["doubles"]) == ("failure", "breakthrough")
    assert (won["outcome"], won["doubles"]) == ("spectacular", "breakthrough")
    mishap_but_success = engine.roll("infinity", rating=20, cr=10, faces=[2, 2])
    assert (mishap_but_success["success"], mishap_but_success["doubles"]) == (True, "mishap")


def test_no_doubles_when_faces_differ() -> None:
    assert all(doubles_of(h, c) == "none" for h in range(1, 11) for c in range(1, 11) if h != c)


# --- Coordination -----------------------------------------------------------------------


def test_example_coordination_crime_scene_14_10_minus_1_gives_15() -> None:
    assert combine((14, 10, -1), (True, True, True), (None, None, None)).base == 14
    group = combine((14, 10, -1), (True, True, True), (None, None, None))
    assert group.base + group.coordination == 15
    # the same through a roll: ratings 11, 7, 0 with bonuses +3, +3, -1
    r = engine.roll("infinity", rating=11, cr=0, helper=[7, 0], faces=[3, 4, 3, 4, 5, 1])
    assert [p["total"] for p in r["participants"]] == [14, 10, -1]
    assert (r["base"], r["coordination"], r["total"]) == (14, 1, 15)


def test_example_coordination_third_gets_1_or_better_gives_16() -> None:
    group = combine((14, 10, 1), (True, True, True), (None, None, None))
    assert group.base + group.coordination == 16
    r = engine.roll("infinity", rating=11, cr=0, helper=[7, 2], faces=[3, 4, 3, 4, 5, 1])
    assert [p["total"] for p in r["participants"]] == [14, 10, 1]
    assert r["total"] == 16


def test_a_total_of_exactly_0_does_not_beat_routine() -> None:
    # "you must beat the Challenge. This means at least 1 Result Rating"
    assert combine((14, 0), (True, True), (None, None)).coordination == 0
    assert combine((14, 1), (True, True), (None, None)).coordination == 1


def test_coordination_base_need_not_be_the_roller() -> None:
    r = engine.roll("infinity", rating=4, cr=10, helper=[13], faces=[*faces_for(0, 10), *faces_for(1)])
    roller, helper = r["participants"]
    assert (roller["total"], helper["total"]) == (4, 14)
    assert (helper["base"], roller["adds"]) == (True, True)
    assert r["total"] == 15


def test_coordination_declaration_adds_1_to_the_base() -> None:
    r = engine.roll("infinity", rating=11, cr=0, helper=[7, 0], declaration=True, faces=[3, 4, 3, 4, 5, 1])
    assert r["total"] == 16


def test_example_car_mechanic_12_and_engineer_16_gives_13() -> None:
    group = combine((12, 16), (True, False), (None, None))
    assert (group.base, group.coordination) == (12, 1)
    r = engine.roll("infinity", rating=9, related=[13], cr=10, faces=[3, 4, 3, 4])
    assert [p["total"] for p in r["participants"]] == [12, 16]
    assert [p["role"] for p in r["participants"]] == ["roller", "related"]
    assert (r["base"], r["total"], r["result"], r["outcome"]) == (12, 13, 3, "success")


def test_related_total_that_fails_routine_adds_nothing() -> None:
    r = engine.roll("infinity", rating=9, related=[3], cr=10, faces=[3, 4, 10, 4])
    assert r["participants"][1]["total"] == -1
    assert r["total"] == 12


# --- Volley Attack ----------------------------------------------------------------------


def test_example_volley_robot_13_12_20_gives_15_then_attack_total_31() -> None:
    group = combine((13, 12, 20), (True, True, False), (16, 18, None))
    assert (group.base, group.coordination, group.damage) == (13, 2, 16)
    # firearms 13 (pistol 16), grenade 12 (damage 18), trick 20; the robot's Defense 25
    r = engine.roll(
        "infinity", rating=10, volley=True, damage=16, defense=25, attacker=["9:18"], related=[17],
        faces=[3, 4, 3, 4, 3, 4],
    )
    assert [p["total"] for p in r["participants"]] == [13, 12, 20]
    assert r["base"] == 13
    assert r["base"] + r["coordination"] == 15
    assert r["weapon_damage"] == 16
    assert r["total"] == 31
    assert (r["difficulty"], r["result"], r["damage"]) == (25, 6, 6)


def test_example_volley_grenade_rolled_higher_adds_grenade_damage_18() -> None:
    # "Had the character throwing grenades rolled higher, his total would be the base Total,
    # and he would add his grenade damage of 18"
    r = engine.roll(
        "infinity", rating=10, volley=True, damage=16, defense=25, attacker=["9:18"], related=[17],
        faces=[3, 4, 5, 10, 3, 4],
    )
    assert [p["total"] for p in r["participants"]] == [13, 14, 20]
    assert (r["base"], r["coordination"], r["weapon_damage"], r["total"]) == (14, 2, 18, 34)


def test_volley_tie_uses_the_bigger_weapon() -> None:
    group = combine((13, 13), (True, True), (16, 18))
    assert (group.base, group.damage, group.base_index) == (13, 18, 1)


def test_volley_below_defense_does_no_damage() -> None:
    r = engine.roll("infinity", rating=5, volley=True, damage=3, defense=40, faces=[3, 4])
    assert (r["total"], r["result"], r["damage"], r["outcome"]) == (11, -29, 0, "failure")


# --- Attribute to skill bonus -----------------------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "bonus"),
    [
        (0, 0), (1, 0), (3, 0), (4, 1), (5, 1), (6, 2), (8, 2), (10, 2), (11, 3), (12, 3),
        (13, 3), (15, 3), (16, 4), (20, 4), (21, 5), (136, 28), (200, 40),
    ],
)
def test_skill_bonus_table(attribute: int, bonus: int) -> None:
    assert skill_bonus(attribute) == bonus


def test_example_attribute_50_gives_plus_10() -> None:
    assert skill_bonus(50) == 10


@given(st.integers(min_value=4, max_value=10_000))
@settings(max_examples=60)
def test_skill_bonus_grows_by_one_every_5_points(attribute: int) -> None:
    assert skill_bonus(attribute + 5) == skill_bonus(attribute) + 1
    assert skill_bonus(attribute) <= skill_bonus(attribute + 1) <= skill_bonus(attribute) + 1


@pytest.mark.parametrize("bad", [-1, 2.5, "7", True, None])
def test_skill_bonus_rejects_non_attributes(bad: object) -> None:
    with pytest.raises(ValueError, match="attribute"):
        skill_bonus(bad)  # type: ignore[arg-type]


def test_rating_built_from_attribute_and_skill_points() -> None:
    r = engine.roll("infinity", attribute=11, skill_points=5, cr=10, faces=[10, 10])
    assert r["participants"][0]["rating"] == 8
    assert r["total"] == 8
    r = engine.roll("infinity", attribute=50, skill_points=3, cr=10, faces=[10, 10])
    assert r["total"] == 13
    odds = engine.odds("infinity", attribute=50, skill_points=3)
    assert odds["exact"] == engine.odds("infinity", rating=13)["exact"]


# --- Result value, JSON, describe --------------------------------------------------------


def test_roll_json_has_the_contract_fields() -> None:
    r = engine.roll("infinity", rating=8, cr="difficult", faces=[3, 4])
    for key in ("system", "params", "dice", "total", "outcome", "success", "doubles", "success_rating"):
        assert key in r
    assert r["system"] == "infinity"
    assert r["params"]["cr"] == 10
    assert json.loads(json.dumps(r)) == r


def test_describe_gives_2_to_4_lines() -> None:
    spec = get("infinity")
    single = spec.describe(engine.roll_result("infinity", rating=8, cr=10, faces=[2, 3]))
    assert 2 <= len(single) <= 4
    assert "hot 2" in single[0] and "cold 3" in single[0]
    assert "CR 10 (difficult)" in single[1]
    assert "COMPLICATION" in single[-1]
    volley = spec.describe(
        engine.roll_result(
            "infinity", rating=10, volley=True, damage=16, defense=25, attacker=["9:18"], related=[17],
            faces=[3, 4, 3, 4, 7, 7],
        )
    )
    assert 2 <= len(volley) <= 4
    assert any("Defense 25" in line for line in volley)
    assert any("damage 6" in line for line in volley)
    lucky = spec.describe(engine.roll_result("infinity", rating=8, faces=[7, 7]))
    assert "BREAKTHROUGH" in lucky[-1]


def test_describe_rejects_other_results() -> None:
    from engine.results import RollResult

    with pytest.raises(TypeError):
        get("infinity").describe(RollResult("x", {}, (), 0, "failure", False))


def test_spec_lists_outcomes_and_panel_fields() -> None:
    spec = get("infinity")
    assert spec.outcomes == ("failure", "complication", "success", "solid", "spectacular")
    assert [p.name for p in spec.params if p.panel] == ["rating", "cr", "declaration", "retry", "modifier"]
    listing = spec.describe_spec()
    assert json.loads(json.dumps(listing))["id"] == "infinity"


# --- Invariants of single rolls ------------------------------------------------------------

die = st.integers(min_value=1, max_value=10)


@given(
    hot=die, cold=die, rating=st.integers(0, 150), cr=st.integers(0, 100), modifier=st.integers(-50, 50),
    declaration=st.booleans(), retry=st.booleans(),
)
@settings(max_examples=150)
def test_single_roll_invariants(
    hot: int, cold: int, rating: int, cr: int, modifier: int, declaration: bool, retry: bool
) -> None:
    r = engine.roll(
        "infinity", rating=rating, cr=cr, modifier=modifier, declaration=declaration, retry=retry, faces=[hot, cold]
    )
    bonus = r["bonus"]
    assert -9 <= bonus <= 9
    assert bonus == (hot if hot < cold else -cold if cold < hot else 0)
    assert r["total"] == rating + bonus + modifier + declaration - 3 * retry
    assert r["result"] == r["total"] - cr
    assert r["outcome"] == outcome_of(r["result"])
    assert r["success"] == (r["result"] >= 1) == (r["success_rating"] >= 1)
    assert (r["doubles"] != "none") == (hot == cold)
    assert r["dice"] == [hot, cold]


# --- Review: a distant related skill's Coordination CR ------------------------------------
# "In general, the more distantly related a related skill is, the higher the Coordination CR
# would be ... the GM could require the player to actually roll ... a persuasion attempt (at
# a much higher CR)."


def test_distant_related_skill_must_beat_its_coordination_cr() -> None:
    # mechanic 12; persuasion 16 against Coordination CR 15 beats it (16 - 15 = 1) and adds +1
    r = engine.roll("infinity", rating=9, related=["13:15"], cr=10, faces=[3, 4, 3, 4])
    assert [p["total"] for p in r["participants"]] == [12, 16]
    assert r["participants"][1]["coordination_cr"] == 15
    assert (r["participants"][1]["adds"], r["coordination"], r["total"]) == (True, 1, 13)
    # a persuasion total of 15 only meets CR 15: no +1, though it beats CR 0 easily
    r = engine.roll("infinity", rating=9, related=["13:formidable"], cr=10, faces=[3, 4, 2, 4])
    assert r["participants"][1]["total"] == 15
    assert (r["participants"][1]["adds"], r["coordination"], r["total"]) == (False, 0, 12)


def test_coordination_cr_applies_to_volley_related_skills_too() -> None:
    # the robot with the trick at Coordination CR 20: the trick's 20 no longer adds
    r = engine.roll(
        "infinity", rating=10, volley=True, damage=16, defense=25, attacker=["9:18"], related=["17:20"],
        faces=[3, 4, 3, 4, 3, 4],
    )
    assert [p["total"] for p in r["participants"]] == [13, 12, 20]
    assert (r["coordination"], r["total"]) == (1, 30)


def test_coordination_cr_in_combine_defaults_to_routine() -> None:
    assert combine((12, 16), (True, False), (None, None)).coordination == 1
    assert combine((12, 16), (True, False), (None, None), (0, 15)).coordination == 1
    assert combine((12, 16), (True, False), (None, None), (0, 16)).coordination == 0


# --- Review: the human output tells every character's Doubles and how the total is built ---


def test_describe_shows_a_helpers_doubles() -> None:
    # Each character rolls their own dice, so a helper's 3-3 is that helper's Mishap.
    lines = get("infinity").describe(
        engine.roll_result("infinity", rating=14, helper=[10, 9], cr=0, faces=[2, 3, 3, 3, 7, 7])
    )
    others = lines[1]
    assert "helper 10 (mishap 3-3)" in others
    assert "helper 9 (breakthrough 7-7)" in others
    assert "Doubles" not in lines[-1]  # the roller's own 2-3 are not Doubles


def test_describe_shows_how_the_total_is_built() -> None:
    spec = get("infinity")
    single = spec.describe(engine.roll_result("infinity", rating=8, cr=10, faces=[3, 4]))
    assert single[1].startswith("total 11 vs CR 10")  # nothing to explain
    adjusted = spec.describe(
        engine.roll_result("infinity", rating=8, cr=10, declaration=True, retry=True, modifier=2, faces=[3, 4])
    )
    assert "total 11 = 11 +1 declaration -3 retry +2 modifier vs CR 10" in adjusted[1]
    volley = spec.describe(
        engine.roll_result(
            "infinity", rating=10, volley=True, damage=16, defense=25, attacker=["9:18"], related=[17],
            faces=[3, 4, 3, 4, 3, 4],
        )
    )
    assert "attack total 31 = 13 +2 coordinating +16 weapon vs Defense 25" in volley[2]
    alone = spec.describe(engine.roll_result("infinity", rating=13, volley=True, damage=16, defense=20, faces=[1, 2]))
    assert "attack total 30 = 14 +16 weapon vs Defense 20" in alone[1]
    distant = spec.describe(
        engine.roll_result("infinity", rating=9, related=["13:15"], cr=10, faces=[3, 4, 3, 4])
    )
    assert "related 16 vs CR 15" in distant[1]


def test_describe_labels_cr_30_with_the_texts_name() -> None:
    # the table's label for 30 is "Nearly Impossible", not "impossible"
    lines = get("infinity").describe(engine.roll_result("infinity", rating=8, cr=30, faces=[3, 4]))
    assert "CR 30 (nearly-impossible)" in lines[1]
