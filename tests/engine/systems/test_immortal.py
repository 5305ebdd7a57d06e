"""Immortal: every worked example of the rules text, each as its own test, plus the rules
around them (untrained attempts, automatic success, opposed rolls, hostiles, colours)."""

from __future__ import annotations

import pytest

import engine
from engine.errors import FacesError, ParameterError
from engine.systems import get
from engine.systems.immortal.rules import (
    COLOR_ATTRIBUTES,
    COLOR_RGB,
    TEXT_COLORS,
    Hostile,
    Opponent,
    spend_bonus,
)

SPEC = get("immortal")


def roll(faces, **params):
    return engine.roll("immortal", faces=faces, **params)


# --- worked examples of the rules text -------------------------------------------------------


def test_chasm_strength_5_rolls_5_vs_12_fails():
    # "he rolls a 5 and adds his strength of 5. His result is a 10, not enough"
    r = roll([5], attribute=5, tn=12, color="orange")
    assert r["dice"] == [5]
    assert r["total"] == 10
    assert r["tn"] == 12
    assert r["outcome"] == "failure" and r["success"] is False
    assert r["automatic"] is False
    assert (r["color"], r["attribute_name"]) == ("orange", "strength")


def test_clinging_agility_6_rolls_4_vs_9_succeeds():
    # "The player rolls a 4, adds his agility of 6 for a total of 10. He successfully clings"
    r = roll([4], attribute=6, tn=9, color="yellow")
    assert r["total"] == 10
    assert r["outcome"] == "success" and r["success"] is True
    assert (r["color"], r["attribute_name"]) == ("yellow", "agility")


def test_hacking_will_6_roll_6_skill_4_is_16_vs_15_succeeds():
    # "Alex makes Allyn's red roll (a 6) adds his will (6) and adds his hacking skill of 4.
    # The total roll is a 16."
    r = roll([6], attribute=6, skill=4, tn=15, color="red")
    assert r["total"] == 16
    assert r["success"] is True
    assert r["primary_bonus"] == 1
    assert r["automatic"] is False  # 4 x 3 = 12 < 15
    assert (r["color"], r["attribute_name"]) == ("red", "will")


def test_hacking_rank_5_is_automatic_vs_15():
    # "If he possessed a hacking skill of 5 ... he could declare automatic success. 5 x 3 = 15."
    r = roll([], attribute=6, skill=5, tn=15, color="red")
    assert r["automatic"] is True
    assert r["dice"] == []  # no die is drawn
    assert r["total"] is None
    assert r["success"] is True and r["outcome"] == "success"
    assert r["primary_bonus"] == 0
    assert engine.odds("immortal", attribute=6, skill=5, tn=15)["exact"]["success"] == "1"


def test_hacking_rank_4_cannot_convert_to_12_plus_roll():
    # "Allyns could not, however, convert his 4 ranks to 12 and add 3 from his roll."
    # With will 6 a rolled 3 gives 3 + 6 + 4 = 13 < 15: no automatic success, no 12 + 3.
    r = roll([3], attribute=6, skill=4, tn=15, color="red")
    assert r["automatic"] is False
    assert r["dice"] == [3]
    assert r["total"] == 13
    assert r["success"] is False
    # Even with no attribute at all, the roll is d10 + attribute + skill, never 12 + d10.
    r0 = roll([3], attribute=0, skill=4, tn=15)
    assert (r0["total"], r0["success"], r0["automatic"]) == (7, False, False)


def test_untrained_attempt_is_tn_plus_5_and_a_failure_locks_the_skill():
    # "the target number increases by 5 ... If the roll fails, the character may not make a
    # roll requiring that same skill thereafter until he gains at least 1 rank"
    failed = roll([8], attribute=6, tn=10, untrained=True)
    assert failed["tn"] == 15
    assert failed["total"] == 14
    assert failed["success"] is False
    assert failed["skill_locked"] is True
    made = roll([9], attribute=6, tn=10, untrained=True)
    assert (made["total"], made["success"], made["skill_locked"]) == (15, True, False)
    trained = roll([8], attribute=6, tn=10)
    assert trained["success"] is True and trained["skill_locked"] is False


def test_untrained_without_rank_would_have_hacked_only_at_20():
    # Had Alex not possessed the hacking skill: TN 15 + 5 = 20 against d10 + will 6.
    odds = engine.odds("immortal", attribute=6, tn=15, untrained=True)
    assert odds["exact"]["success"] == "0"
    assert roll([10], attribute=6, tn=15, untrained=True)["skill_locked"] is True


def test_untrained_strict_rule_refuses_the_attempt():
    # "Option one is to deny any attempt to perform the action without the skill."
    with pytest.raises(ParameterError) as err:
        roll([8], attribute=6, tn=10, untrained=True, untrained_rule="strict")
    assert err.value.param == "untrained"
    assert "strict" in str(err.value)
    with pytest.raises(ParameterError):
        engine.odds("immortal", attribute=6, tn=10, untrained=True, untrained_rule="strict")
    # The strict rule leaves trained rolls alone.
    assert roll([8], attribute=6, tn=10, untrained_rule="strict")["success"] is True


def test_locked_skill_refuses_an_untrained_retry_until_a_rank_is_gained():
    # "In other words, option one takes effect."
    with pytest.raises(ParameterError) as err:
        roll([8], attribute=6, tn=10, untrained=True, skill_locked=True)
    assert err.value.param == "untrained"
    # One rank lifts the lock: a trained roll is allowed.
    r = roll([8], attribute=6, skill=1, tn=10, skill_locked=True)
    assert r["success"] is True and r["skill_locked"] is False


def test_hostile_will_6_rolls_5_is_11_vs_12_fails_without_the_bonus():
    # "He rolls a 5, adds his will attribute (6) for a total of 11 ... he would normally fail"
    # Primary exactly 15 (roll 5): no point above the primary TN, so the hostile fails.
    r = roll([5, 5], attribute=6, skill=4, tn=15, color="red", hostile="12:6")
    assert r["primary_success"] is True and r["primary_bonus"] == 0
    (h,) = r["hostiles"]
    assert (h["die"], h["total"], h["tn"], h["success"]) == (5, 11, 12, False)
    assert r["success"] is False and r["outcome"] == "failure"
    # The same with the primary bonus rule switched off, even after a 16.
    off = roll([6, 5], attribute=6, skill=4, tn=15, hostile="12:6", bonus_sharing="none")
    assert off["hostiles"][0]["success"] is False and off["success"] is False


def test_hostile_primary_bonus_16_vs_15_turns_11_into_12():
    # "Alex's score of 11 now becomes a 12 and successfully defeats the secondary target number"
    r = roll([6, 5], attribute=6, skill=4, tn=15, color="red", hostile="12:6")
    assert r["dice"] == [6, 5]
    assert r["total"] == 16 and r["primary_bonus"] == 1
    (h,) = r["hostiles"]
    assert (h["total"], h["bonus_used"], h["success"]) == (11, 1, True)
    assert (h["color"], h["attribute_name"]) == ("red", "will")
    assert r["bonus_left"] == 0
    assert r["success"] is True


def test_hostile_takes_no_normal_skill():
    # "He cannot add his hacking skill since the difficulty involves concentration"
    r = roll([6, 5], attribute=6, skill=4, tn=15, hostile="12:6", bonus_sharing="none")
    assert r["hostiles"][0]["total"] == 11


def test_legacy_concentration_rank_4_gives_15_or_16_with_the_bonus():
    # "allows him to add 4 to his roll, giving him a total of 15, 16 if he counts his primary
    # bonus" (automatic success switched off to see the roll).
    r = roll([6, 5], attribute=6, skill=4, tn=15, hostile="12:6:4", auto_success="no")
    (h,) = r["hostiles"]
    assert (h["total"], h["legacy"], h["automatic"], h["success"]) == (15, 4, False, True)
    # The bonus is not needed, so none of it is spent.
    assert h["bonus_used"] == 0 and r["bonus_left"] == 1
    assert h["total"] + r["primary_bonus"] == 16


def test_legacy_rank_4_automatically_defeats_hostile_12():
    # "he automatically defeats the hostile without rolling (4 times 3=12 ...)"
    r = roll([6], attribute=6, skill=4, tn=15, color="red", hostile="12:6:4")
    assert r["dice"] == [6]  # the hostile draws no die
    (h,) = r["hostiles"]
    assert h["automatic"] is True and h["die"] is None and h["total"] is None
    assert h["success"] is True and r["success"] is True
    # Rank 4 does not automatically defeat a 13.
    r13 = roll([6, 2], attribute=6, skill=4, tn=15, hostile="13:6:4")
    assert r13["hostiles"][0]["automatic"] is False


def test_automatic_never_applies_when_opposed():
    # "Automatic success can never be applied in a situation where one skill opposes another."
    rolled = roll([2, 6], attribute=6, skill=5, opponent="6+3")
    assert rolled["automatic"] is False
    assert rolled["dice"] == [2, 6]
    assert rolled["opponent"]["total"] == 15 and rolled["tn"] == 15
    assert rolled["total"] == 13 and rolled["success"] is False
    known = roll([2], attribute=6, skill=5, opponent_total=15)
    assert known["automatic"] is False and known["dice"] == [2] and known["success"] is False
    # The same skill against a plain TN 15 is automatic.
    assert roll([], attribute=6, skill=5, tn=15)["automatic"] is True
    assert float(engine.odds("immortal", attribute=6, skill=5, opponent_total=15)["success"]) < 1


# --- the rest of the mechanics ----------------------------------------------------------------


def test_opposed_roll_opponent_total_is_the_tn_and_ties_go_to_the_roller():
    r = roll([4, 5], attribute=5, skill=2, opponent="4+2")  # 11 vs 5 + 4 + 2 = 11
    assert r["opponent"] == {"attribute": 4, "skill": 2, "die": 5, "total": 11}
    assert r["tn"] == 11 and r["total"] == 11 and r["success"] is True
    r2 = roll([4, 6], attribute=5, skill=2, opponent="4+2")
    assert r2["tn"] == 12 and r2["success"] is False


def test_opposed_untrained_adds_5_to_the_opponent_total():
    r = roll([10, 1], attribute=6, opponent="6", untrained=True)  # 16 vs 7 + 5
    assert r["opponent"]["total"] == 7 and r["tn"] == 12
    assert r["success"] is True and r["skill_locked"] is False


def test_draw_order_primary_then_each_hostile_then_opponent():
    r = roll([7, 2, 9, 3], attribute=5, skill=2, opponent="5", hostile=["12:4", "10:5"])
    assert r["total"] == 14
    assert [h["die"] for h in r["hostiles"]] == [2, 9]
    assert r["opponent"]["die"] == 3
    assert r["dice"] == [7, 2, 9, 3]


def test_automatic_hostile_is_skipped_in_the_draw_order():
    r = roll([7, 9], attribute=5, hostile=["12::4", "10"], tn=8)
    assert r["hostiles"][0]["die"] is None and r["hostiles"][1]["die"] == 9


def test_hostile_without_attribute_uses_the_primary_attribute_and_colour():
    r = roll([5, 5], attribute=7, tn=10, color="blue", hostile="12")
    (h,) = r["hostiles"]
    assert (h["attribute"], h["total"], h["color"], h["attribute_name"]) == (
        7, 12, "blue", "perception")
    other = roll([5, 5], attribute=7, tn=10, color="blue", hostile="12:3:0:green")
    assert other["hostiles"][0]["color"] == "green"
    assert other["hostiles"][0]["attribute_name"] == "stamina"


def test_pool_bonus_is_spent_on_the_smallest_deficits_first():
    # Primary 10 + 8 = 18 vs 15: bonus 3. Hostiles short by 3 and by 1: the 1 is covered
    # first, the 3 cannot be covered any more, so the roll fails.
    r = roll([10, 8, 6], attribute=8, tn=15, hostile=["14:3", "12:5"])
    a, b = r["hostiles"]
    assert (a["total"], b["total"]) == (11, 11)
    assert (a["bonus_used"], a["success"]) == (0, False)
    assert (b["bonus_used"], b["success"]) == (1, True)
    assert r["bonus_left"] == 2 and r["success"] is False


def test_pool_bonus_covers_all_when_the_deficits_sum_to_it():
    r = roll([10, 9, 6], attribute=8, tn=15, hostile=["14:3", "12:5"])  # short 2 and 1
    assert [h["bonus_used"] for h in r["hostiles"]] == [2, 1]
    assert r["bonus_left"] == 0 and r["success"] is True


def test_each_rule_applies_the_whole_bonus_to_every_hostile():
    r = roll([10, 8, 6], attribute=8, tn=15, hostile=["14:3", "12:5"], bonus_sharing="each")
    assert [h["bonus_used"] for h in r["hostiles"]] == [3, 1]
    assert r["bonus_left"] == 3 and r["success"] is True


def test_failed_primary_gives_no_bonus_and_fails_the_roll():
    r = roll([1, 10], attribute=5, tn=12, hostile="12:5")
    assert r["primary_success"] is False and r["primary_bonus"] == 0
    assert r["hostiles"][0]["success"] is True
    assert r["success"] is False


def test_automatic_primary_scores_no_bonus_for_hostiles():
    r = roll([5], attribute=6, skill=5, tn=15, hostile="12:6", auto_success="yes")
    assert r["automatic"] is True and r["primary_bonus"] == 0
    assert r["hostiles"][0]["total"] == 11 and r["success"] is False


def test_automatic_success_rule_can_be_switched_off():
    r = roll([1], attribute=6, skill=5, tn=15, auto_success="no")
    assert r["automatic"] is False and r["total"] == 12 and r["success"] is False


def test_every_colour_names_its_attribute_and_the_text_colours_are_fixed():
    assert {c: COLOR_ATTRIBUTES[c] for c in TEXT_COLORS} == {
        "blue": "perception", "orange": "strength", "yellow": "agility", "red": "will"}
    assert set(COLOR_RGB) == set(COLOR_ATTRIBUTES) == set(SPEC.param("color").choices)
    for color, name in COLOR_ATTRIBUTES.items():
        r = roll([5], attribute=5, tn=10, color=color)
        assert (r["color"], r["attribute_name"]) == (color, name)


def test_spend_bonus_rules():
    assert spend_bonus(3, [3, 1, 0], "pool") == (0, 1, 0)
    assert spend_bonus(4, [3, 1, 0], "pool") == (3, 1, 0)
    assert spend_bonus(3, [3, 1, 4], "each") == (3, 1, 0)
    assert spend_bonus(3, [3, 1], "none") == (0, 0)
    assert spend_bonus(0, [1], "pool") == (0,)


def test_hostile_and_opponent_items_parse_and_print_canonically():
    assert Hostile.parse("12") == Hostile(12)
    assert Hostile.parse(" 12 : 6 : 4 : Red ") == Hostile(12, 6, 4, "red")
    assert Hostile.parse({"tn": 12, "legacy": 4}) == Hostile(12, None, 4)
    assert Hostile.parse(12).text == "12"
    assert Hostile(12, None, 4).text == "12::4"
    assert Hostile(12, 6, 0, "red").text == "12:6::red"
    assert Opponent.parse("6+2") == Opponent(6, 2)
    assert Opponent.parse({"attribute": 4}).text == "4"
    assert Opponent(6, 2).text == "6+2"


def test_params_echo_round_trips():
    r = roll([6, 5, 3], attribute=6, skill=4, tn=15, hostile=[{"tn": 12, "attribute": 6},
                                                          "13::2:blue"], color="red")
    assert r["params"]["hostile"] == ["12:6", "13::2:blue"]
    again = engine.roll("immortal", faces=r["dice"], **r["params"])
    assert again == r


def test_faces_round_trip_from_text():
    r = engine.roll("immortal", faces="6,5", attribute=6, skill=4, tn=15, color="red",
                    hostile=["12:6"])
    assert r["dice"] == [6, 5] and r["success"] is True


def test_describe_lines():
    r = engine.roll_result("immortal", faces=[6, 5], attribute=6, skill=4, tn=15, color="red",
                           hostile="12:6")
    lines = SPEC.describe(r)
    assert 2 <= len(lines) <= 4
    assert lines[0] == "red roll (will): 6 + 6 + 4 = 16 vs TN 15"
    assert "+1 bonus" in lines[1] and "ok" in lines[1]
    assert lines[-1].startswith("SUCCESS")
    auto = SPEC.describe(engine.roll_result("immortal", faces=[], attribute=6, skill=5, tn=15))
    assert "no roll" in auto[0] and auto[-1] == "SUCCESS (automatic)"
    locked = SPEC.describe(engine.roll_result("immortal", faces=[1], attribute=2,
                                              untrained=True))
    assert "(untrained +5)" in locked[0] and "locked" in locked[-1]
    opposed = SPEC.describe(engine.roll_result("immortal", faces=[3, 4], attribute=2,
                                               opponent="3+1"))
    assert "opponent 8" in opposed[0] and opposed[-1] == "FAILURE"


def test_spec_lists_parameters_for_the_panel():
    spec = SPEC.describe_spec()
    assert spec["outcomes"] == ["success", "failure"]
    names = [p["name"] for p in spec["params"]]
    for required in ("attribute", "skill", "tn", "color", "untrained", "hostile"):
        assert required in names
    for p in SPEC.params:
        if p.kind == "list":
            assert p.panel is False
        if p.kind == "int":
            assert p.lo is not None and p.hi is not None and p.lo <= p.default <= p.hi


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"attribute": 21}, "attribute"),
        ({"attribute": -1}, "attribute"),
        ({"attribute": "strong"}, "attribute"),
        ({"skill": 11}, "skill"),
        ({"tn": 0}, "tn"),
        ({"tn": 61}, "tn"),
        ({"color": "purple"}, "color"),
        ({"untrained": "maybe"}, "untrained"),
        ({"untrained_rule": "cruel"}, "untrained-rule"),
        ({"bonus_sharing": "split"}, "bonus-sharing"),
        ({"hostile": "0"}, "hostile"),
        ({"hostile": "80"}, "hostile"),
        ({"hostile": "12:21"}, "hostile"),
        ({"hostile": "12:6:11"}, "hostile"),
        ({"hostile": "12:6:4:pink"}, "hostile"),
        ({"hostile": "12:6:4:red:5"}, "hostile"),
        ({"hostile": "abc"}, "hostile"),
        ({"hostile": ":6"}, "hostile"),
        ({"hostile": [{"attribute": 6}]}, "hostile"),
        ({"hostile": [True]}, "hostile"),
        ({"hostile": ["12"] * 7}, "hostile"),
        ({"opponent": "6+2+1"}, "opponent"),
        ({"opponent": "6+"}, "opponent"),
        ({"opponent": "21"}, "opponent"),
        ({"opponent": "6+11"}, "opponent"),
        ({"opponent": ["6", "5"]}, "opponent"),
        ({"opponent": [{"skill": 2}]}, "opponent"),
        ({"opponent_total": 61}, "opponent-total"),
        ({"opponent": "6", "opponent_total": 12}, "opponent-total"),
        ({"untrained": True, "skill": 2}, "skill"),
        ({"untrained": True, "untrained_rule": "strict"}, "untrained"),
        ({"untrained": True, "skill_locked": True}, "untrained"),
        ({"luck": 3}, "luck"),
    ],
)
def test_bad_parameters_name_the_parameter(params, param):
    with pytest.raises(ParameterError) as err:
        engine.roll("immortal", faces=[5], **params)
    assert err.value.param == param
    assert f"--{param}" in str(err.value)
    with pytest.raises(ParameterError):
        engine.odds("immortal", **params)


@pytest.mark.parametrize(
    ("faces", "params", "needle"),
    [
        ([11], {}, "not on a d10"),
        ([0], {}, "not on a d10"),
        ([5], {"hostile": "12"}, "too few"),
        ([5], {"opponent": "5"}, "too few"),
        ([], {}, "too few"),
        ([5, 5], {}, "too many"),
        ([5], {"skill": 5, "tn": 15}, "too many"),  # automatic: no die to take
        ([5, 5], {"hostile": "12::4"}, "too many"),  # automatic hostile
        ("5,x", {}, "not a die face"),
    ],
)
def test_bad_faces_raise_faces_error(faces, params, needle):
    with pytest.raises(FacesError) as err:
        engine.roll("immortal", faces=faces, **params)
    assert err.value.param == "faces"
    assert needle in str(err.value)


def test_describe_does_not_call_a_failed_hostile_an_automatic_failure():
    # Regression: an automatic primary with a failed hostile was shown "FAILURE (automatic)",
    # which reads as an automatic failure; the verdict now says which part held.
    auto = SPEC.describe(engine.roll_result("immortal", faces=[1], attribute=6, skill=5, tn=15,
                                            color="red", hostile="12", auto_success="yes"))
    assert auto[-1] == "FAILURE (primary automatic; a hostile failed)"
    made = SPEC.describe(engine.roll_result("immortal", faces=[7, 1], attribute=6, skill=4,
                                            tn=15, hostile="14"))
    assert made[-1] == "FAILURE (primary made, bonus 2; a hostile failed)"
    missed = SPEC.describe(engine.roll_result("immortal", faces=[1, 10], attribute=6, skill=4,
                                              tn=15, hostile="12"))
    assert missed[-1] == "FAILURE"
    won = SPEC.describe(engine.roll_result("immortal", faces=[], attribute=6, skill=5,
                                           tn=15, hostile="12::4"))
    assert won[-1] == "SUCCESS (automatic)"
