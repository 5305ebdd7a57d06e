"""Infinite Horizons rolls: the text's worked examples, --faces, opposed rolls, mitigation,
the tracks in a roll, parameter errors, and the dice against the exact odds."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.errors import EntropyError, FacesError, ParameterError
from engine.systems.horizons.rules import chains
from tests.support import chi_square_p, seeded_dice

SPEC = engine.get("horizons")


def roll(faces, **params):
    return engine.roll_result("horizons", faces=faces, **params)


# -- worked examples of the text ------------------------------------------------------------


def test_lock_pick_pool_six_dice_need_three():
    # "Finesse 3 and Thievery 2, your dice pool is 1 (base) + 3 (Finesse) + 2 (Thievery) = 6
    # dice ... counting any 7s, 8s, 9s, or 10s as Successes ... The GM might require 3"
    opened = roll([7, 3, 10, 8, 2, 1, 9], trait=3, skill=2, need=3)
    assert opened.pool == 6
    assert opened.successes == 4  # 7, 10, its re-roll 8, 9
    assert opened.outcome == "success" and opened.success
    stuck = roll([7, 3, 6, 8, 2, 1], trait=3, skill=2, need=3)
    assert stuck.successes == 2
    assert stuck.outcome == "failure" and not stuck.success


def test_river_pool_six_dice_need_two():
    # "Body 4 and Athletics 1, your dice pool is 1 (base) + 4 (Body) + 1 (Athletics) = 6 dice
    # ... The GM might require 2 successes to safely clear the river."
    cleared = roll([1, 2, 7, 4, 5, 9], trait=4, skill=1, need=2)
    assert cleared.pool == 6 and cleared.successes == 2 and cleared.success
    swept = roll([1, 2, 7, 4, 5, 6], trait=4, skill=1, need=2)
    assert swept.successes == 1 and swept.outcome == "failure"


def test_net_successes_four_minus_two_is_two():
    # "You roll for your attack and get 4 successes. Your opponent ... gets 2 successes. You
    # have 2 net successes (4 - 2 = 2)."
    result = roll([7, 8, 9, 7, 1, 7, 7, 2], pool=5, opponent_pool=3)
    assert (result.successes, result.opponent_successes, result.net) == (4, 2, 2)
    assert result.winner == "actor"
    assert result.outcome == "success"


def test_three_vs_five_opponent_has_two_net():
    # "You roll for your attack and 3 successes. Your opponent ... gets 5 successes. Your
    # opponent has 2 net successes (5 - 3 = 2). They have successfully negated your attack"
    result = roll([7, 8, 9, 1, 7, 8, 9, 7, 8], pool=4, opponent_pool=5)
    assert (result.successes, result.opponent_successes) == (3, 5)
    assert result.net == -2 and result.winner == "opponent"
    assert abs(result.net) == 2
    assert result.outcome == "failure"


def test_explode_example_a_ten_then_reroll():
    # "Whenever you roll a 10 ... it counts as a Success, and then you get to roll that die
    # again! This new roll can also generate successes and potentially explode again"
    once = roll([10, 7], pool=1, need=2)
    assert once.dice == (10, 7) and once.successes == 2 and once.explosions == 1
    twice = roll([10, 10, 3], pool=1, need=2)
    assert twice.successes == 2 and twice.explosions == 2
    # "There's no limit to how many times a die can explode"
    many = roll([10] * 12 + [9], pool=1, need=13)
    assert many.successes == 13 and many.success
    with pytest.raises(FacesError, match="too few"):
        roll([10], pool=1)


def test_wound_spill_over_in_a_roll_minor_full_fills_a_major_box():
    # "if all your Minor boxes are filled, and you take another source of Minor damage, it
    # instead fills one Major box." Body 2 + Resolve 1: 7 Minor boxes, all filled.
    result = roll([7, 1], pool=2, body=2, resolve=1, wounds="7")
    assert result.damage == 1
    assert result.wounds_after.to_dict()["minor"] == 7
    assert result.wounds_after.major == 1


def test_wound_spill_over_in_a_roll_major_full_fills_a_critical_box():
    result = roll([8, 2], pool=2, body=2, resolve=1, wounds="2,4", damage_tier="major")
    assert (result.wounds_after.major, result.wounds_after.critical) == (4, 1)


def test_minor_track_max_ten_in_a_roll():
    result = roll([1], pool=1, body=5, resolve=4)
    assert result.wounds_after.minor_boxes == 10
    with pytest.raises(ParameterError, match="--wounds: 11 minor boxes marked"):
        roll([1], pool=1, body=5, resolve=4, wounds="11")


# -- dice order and --faces -----------------------------------------------------------------


def test_faces_round_trip_through_the_library():
    out = engine.roll("horizons", faces="9,10,10,2,6,7,1,8", trait=2, skill=1, opponent_pool=2)
    assert out["dice"] == [9, 10, 10, 2, 6, 7, 1, 8]
    # Actor: 9, 10 10 2 (one die exploding twice), 6, 7; then the opponent: 1, 8.
    assert out["successes"] == 4 and out["total"] == 4
    assert out["opponent_dice"] == [1, 8] and out["opponent_successes"] == 1
    assert out["net"] == 3 and out["outcome"] == "success" and out["success"] is True
    assert out["params"]["trait"] == 2 and out["params"]["pool"] is None
    assert json.loads(json.dumps(out)) == out


def test_an_exploding_die_draws_its_reroll_before_the_next_die():
    seen = []

    class Recorder:
        def __init__(self, faces):
            self.faces = list(faces)

        def randbelow(self, n):
            seen.append(n)
            return self.faces.pop(0) - 1

    result = SPEC.roll(Recorder([10, 3, 8]), SPEC.resolve({"pool": 2}))
    assert result.dice == (10, 3, 8)
    assert chains(result.dice) == ((10, 3), (8,))
    assert seen == [10, 10, 10]


def test_json_leaves_out_what_does_not_apply():
    plain = engine.roll("horizons", faces=[7, 1, 1, 1], need=1)
    assert plain["pool"] == 4
    for key in ("opponent_dice", "net", "winner", "damage", "wounds_after", "stability_after"):
        assert key not in plain
    assert {"system", "params", "dice", "total", "outcome", "success", "successes"} <= set(plain)


def test_ties_go_to_nobody_and_fail_the_actor():
    result = roll([7, 1, 8, 2], pool=2, opponent_pool=2)
    assert result.net == 0 and result.winner == "tie"
    assert result.outcome == "failure"
    lines = SPEC.describe(result)
    assert any("Tie" in line for line in lines)


def test_need_counts_net_successes_in_an_opposed_roll():
    result = roll([7, 8, 9, 1, 7], pool=4, opponent_pool=1, need=3)
    assert result.net == 2 and result.winner == "actor" and not result.success


def test_mitigation_turns_net_successes_into_less_damage():
    hit = roll([7, 8, 9, 10, 7, 1, 7], pool=5, opponent_pool=1, mitigation=2)
    assert (hit.successes, hit.net) == (5, 4)
    assert hit.damage == 2 and hit.success
    absorbed = roll([7, 1, 1, 1], pool=3, opponent_pool=1, mitigation=2)
    assert absorbed.net == 1 and absorbed.damage == 0 and absorbed.success


def test_mitigation_mode_successes_can_turn_the_hit_aside():
    absorbed = roll([7, 1, 1, 1], pool=3, opponent_pool=1, mitigation=2, mitigation_mode="successes")
    assert absorbed.net == 1 and not absorbed.success and absorbed.damage == 0
    lands = roll([7, 8, 9, 1], pool=3, opponent_pool=1, mitigation=2, mitigation_mode="successes")
    assert lands.success and lands.damage == 1


def test_unopposed_attack_against_mitigation():
    # "Instead of making an extra roll to defend, ... a static Damage Mitigation value."
    result = roll([7, 8, 9], pool=3, mitigation=1, body=1, resolve=1)
    assert result.net is None and result.damage == 2
    assert result.wounds_after.minor == 2


def test_a_failed_attack_does_no_damage():
    result = roll([7, 1, 8, 9], pool=2, opponent_pool=2, body=1, resolve=1)
    assert not result.success and result.damage == 0
    assert result.wounds_after.status == "unhurt"


def test_damage_reaching_a_full_critical_tier_incapacitates():
    result = roll([7, 8], pool=2, body=0, resolve=0, wounds="4,4,3", damage_tier="critical")
    after = result.to_dict()["wounds_after"]
    assert after["critical"] == 4 and after["overflow"] == 1
    assert after["status"] == "incapacitated" and after["incapacitated"] is True


def test_spill_hit_rule_in_a_roll():
    result = roll([7, 8, 9], pool=3, body=0, resolve=0, wounds="3", spill="hit")
    assert (result.wounds_after.minor, result.wounds_after.major) == (4, 1)


def test_failed_roll_costs_stability_and_a_success_does_not():
    failed = roll([1, 2], pool=2, stability=8, stability_loss=3)
    assert failed.stability_after.marked == 10
    assert failed.stability_after.breakdown and failed.stability_after.overflow == 1
    held = roll([9, 2], pool=2, stability=8, stability_loss=3)
    assert held.stability_after.marked == 8 and not held.stability_after.breakdown
    short = roll([1], pool=1, stability_boxes=5, stability_loss=2)
    assert short.to_dict()["stability_after"] == {
        "marked": 2,
        "boxes": 5,
        "overflow": 0,
        "breakdown": False,
    }


def test_describe_gives_two_to_four_lines():
    simple = SPEC.describe(roll([7, 3, 10, 8, 2, 1, 9], trait=3, skill=2, need=3))
    assert 2 <= len(simple) <= 4
    assert "10+8" in simple[0] and "4 successes" in simple[0]
    assert "SUCCESS" in simple[-1]
    busy = SPEC.describe(
        roll([7, 8, 9, 1, 7], pool=4, opponent_pool=1, body=1, resolve=1, stability_loss=1)
    )
    assert 2 <= len(busy) <= 4
    assert any("Opponent" in line for line in busy)
    assert any("wounds 2/6" in line for line in busy)


def test_seeded_rolls_are_reproducible():
    one = engine.roll("horizons", rng=seeded_dice(b"horizons-repeat"), pool=8, opponent_pool=5)
    two = engine.roll("horizons", rng=seeded_dice(b"horizons-repeat"), pool=8, opponent_pool=5)
    assert one == two


def test_a_stuck_source_is_refused_not_looped_on():
    class AlwaysTen:
        def randbelow(self, n):
            return n - 1

    with pytest.raises(EntropyError, match="stuck"):
        SPEC.roll(AlwaysTen(), SPEC.resolve({"pool": 1}))


# -- invariants -----------------------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(
    seed=st.binary(min_size=1, max_size=8),
    pool=st.integers(1, 12),
    opponent=st.integers(0, 8),
    need=st.integers(1, 6),
    mitigation=st.integers(0, 4),
    mode=st.sampled_from(["damage", "successes"]),
)
def test_roll_invariants(seed, pool, opponent, need, mitigation, mode):
    result = engine.roll_result(
        "horizons",
        rng=seeded_dice(seed),
        pool=pool,
        opponent_pool=opponent,
        need=need,
        mitigation=mitigation,
        mitigation_mode=mode,
        body=2,
        resolve=2,
    )
    own = result.dice[: len(result.dice) - len(result.opponent_dice or ())]
    assert all(1 <= f <= 10 for f in result.dice)
    assert len(chains(own)) == pool and all(c[-1] != 10 for c in chains(own))
    assert result.successes == result.total == sum(f >= 7 for f in own)
    assert result.explosions == own.count(10)
    net = result.successes - (result.opponent_successes or 0)
    if opponent:
        assert result.net == net and len(chains(result.opponent_dice)) == opponent
    assert result.success == (net - (mitigation if mode == "successes" else 0) >= need)
    assert result.outcome == ("success" if result.success else "failure")
    assert result.damage == (max(0, net - mitigation) if result.success else 0)
    marked = result.wounds_after
    assert marked.minor + marked.major + marked.critical + marked.overflow == result.damage
    # The same faces typed in give the same roll.
    again = engine.roll_result(
        "horizons",
        faces=result.dice,
        pool=pool,
        opponent_pool=opponent,
        need=need,
        mitigation=mitigation,
        mitigation_mode=mode,
        body=2,
        resolve=2,
    )
    assert again == result


def test_rolls_agree_with_exact_odds_chi_square():
    params = SPEC.resolve({"pool": 4, "opponent_pool": 3, "need": 1})
    odds = SPEC.odds(params)
    dice = seeded_dice(b"horizons-chi2")
    n = 100_000
    successes: Counter[str] = Counter()
    nets: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    for _ in range(n):
        result = SPEC.roll(dice, params)
        successes[str(result.successes)] += 1
        nets[str(result.net)] += 1
        outcomes[result.outcome] += 1
    assert chi_square_p(successes, odds.extra["successes"], n) > 1e-4
    assert chi_square_p(nets, odds.extra["net"], n) > 1e-4
    assert chi_square_p(outcomes, odds.outcomes, n) > 1e-4


# -- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "flag"),
    [
        ({"trait": 11}, "trait"),
        ({"trait": -1}, "trait"),
        ({"skill": "lots"}, "skill"),
        ({"pool": 0}, "pool"),
        ({"pool": 31}, "pool"),
        ({"need": 0}, "need"),
        ({"need": 31}, "need"),
        ({"opponent_pool": -1}, "opponent-pool"),
        ({"opponent_pool": 31}, "opponent-pool"),
        ({"mitigation": 31}, "mitigation"),
        ({"mitigation_mode": "armour"}, "mitigation-mode"),
        ({"body": 11, "resolve": 1}, "body"),
        ({"damage_tier": "fatal", "body": 1, "resolve": 1}, "damage-tier"),
        ({"spill": "splash"}, "spill"),
        ({"stability_boxes": 0}, "stability-boxes"),
        ({"stability_loss": 21}, "stability-loss"),
        ({"wounds": "1,2,3,4", "body": 1, "resolve": 1}, "wounds"),
        ({"wounds": "-1", "body": 1, "resolve": 1}, "wounds"),
        ({"wounds": "x", "body": 1, "resolve": 1}, "wounds"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_out_of_range_or_unknown_parameters_name_the_parameter(params, flag):
    with pytest.raises(ParameterError) as err:
        engine.roll("horizons", faces=[1], **params)
    assert err.value.param == flag
    assert str(err.value).startswith(f"--{flag}:")


@pytest.mark.parametrize(
    ("params", "flag", "fragment"),
    [
        ({"pool": 5, "trait": 3}, "pool", "not both"),
        ({"pool": 5, "skill": 0}, "pool", "--skill 0"),
        ({"pool": 5, "trait": 3, "skill": 2}, "pool", "--trait 3 and --skill 2"),
        ({"wounds": "2"}, "body", "required"),
        ({"body": 2}, "resolve", "required"),
        ({"damage_tier": "major"}, "damage-tier", "wound track"),
        ({"body": 1, "resolve": 1, "wounds": "7"}, "wounds", "7 minor boxes marked"),
        ({"body": 1, "resolve": 1, "wounds": "0,5"}, "wounds", "major tier has 4"),
        ({"body": 1, "resolve": 1, "wounds": "0,0,6"}, "wounds", "critical tier has 4"),
        ({"stability": 9, "stability_boxes": 8}, "stability", "has 8"),
    ],
)
def test_cross_parameter_errors_name_the_parameter(params, flag, fragment):
    with pytest.raises(ParameterError, match=fragment) as err:
        engine.odds("horizons", **params)
    assert err.value.param == flag


def test_pool_replaces_trait_and_skill():
    out = engine.odds("horizons", pool=6, need=3)
    assert out["params"]["pool"] == 6
    assert out["params"]["trait"] is None and out["params"]["skill"] is None
    assert out["success"] == engine.odds("horizons", trait=3, skill=2, need=3)["success"]
    # Kebab-case keys, as the command line spells them, mean the same.
    assert engine.odds("horizons", **{"opponent-pool": 2}) == engine.odds("horizons", opponent_pool=2)


@pytest.mark.parametrize(
    ("faces", "fragment"),
    [
        ([7, 3, 11], "not on a d10"),
        ([0, 3, 5], "not on a d10"),
        ([7, 3], "too few"),
        ([7, 3, 5, 9], "too many"),
        ([7, 3, 10], "too few"),  # the 10 explodes and needs its re-roll
        ("7,x,3", "not a die face"),
    ],
)
def test_bad_faces_raise_faces_error(faces, fragment):
    with pytest.raises(FacesError, match=fragment) as err:
        engine.roll("horizons", faces=faces, pool=3)
    assert err.value.param == "faces"


def test_opponent_faces_must_be_supplied_too():
    with pytest.raises(FacesError, match="too few"):
        engine.roll("horizons", faces=[7, 8], pool=2, opponent_pool=1)


def test_describe_counts_mitigation_in_the_need_under_successes_mode():
    # Regression: "3 successes, need 1: FAILURE" contradicted itself; under
    # --mitigation-mode successes the mitigation counts against the need, so the line says so.
    unopposed = SPEC.describe(roll([7, 8, 9], pool=3, mitigation=3, mitigation_mode="successes"))
    assert unopposed[1] == "3 successes, need 1 + mitigation 3: FAILURE"
    opposed = SPEC.describe(
        roll([7, 8, 9, 1], pool=3, opponent_pool=1, mitigation=2, mitigation_mode="successes")
    )
    assert opposed[2] == "You win by 3 net (need 1 + mitigation 2): SUCCESS"
    # In the default damage mode mitigation only absorbs damage and the need stands alone.
    plain = SPEC.describe(roll([7, 8, 9], pool=3, mitigation=3))
    assert plain[1] == "3 successes, need 1: SUCCESS"
    assert plain[2] == "Damage 0 (mitigation 3)"


# -- the opponent's successes entered -----------------------------------------------------------


def test_entered_successes_are_judged_like_a_rolled_opponent():
    # The text's 4 vs 2 with the opponent's 2 counted at the table: only the actor's dice roll.
    entered = roll([7, 8, 9, 7, 1], pool=5, opponent_successes=2)
    rolled = roll([7, 8, 9, 7, 1, 7, 7, 2], pool=5, opponent_pool=3)
    for name in ("successes", "opponent_successes", "net", "winner", "success", "outcome"):
        assert getattr(entered, name) == getattr(rolled, name)
    assert entered.dice == (7, 8, 9, 7, 1) and entered.opponent_dice is None
    out = entered.to_dict()
    assert out["opponent_successes"] == 2 and out["net"] == 2 and "opponent_dice" not in out


def test_entered_successes_the_texts_second_example_and_a_tie():
    # "3 successes. Your opponent ... gets 5 successes. Your opponent has 2 net successes"
    lost = roll([7, 8, 9, 1], pool=4, opponent_successes=5)
    assert lost.net == -2 and lost.winner == "opponent" and not lost.success
    tie = roll([7, 8, 1], pool=3, opponent_successes=2)
    assert tie.net == 0 and tie.winner == "tie" and tie.outcome == "failure"
    zero = roll([1, 2], pool=2, opponent_successes=0)
    assert zero.net == 0 and zero.winner == "tie"  # 0 entered is an opposed roll, not "none"


def test_entered_successes_with_mitigation_and_a_wound_track():
    hit = roll([7, 8, 9, 10, 7, 1], pool=5, opponent_successes=1, mitigation=2, body=1, resolve=1)
    assert hit.net == 4 and hit.damage == 2
    assert hit.wounds_after is not None and hit.wounds_after.minor == 2


def test_entered_successes_describe_names_the_table():
    lines = engine.get("horizons").describe(roll([7, 8, 1], pool=3, opponent_successes=1))
    assert lines[1] == "Opponent rolled at the table: 1 success"
    assert lines[2] == "You win by 1 net (need 1): SUCCESS"


@pytest.mark.parametrize("pool_given", [{"opponent_pool": 2}, {"opponent_pool": 0}])
def test_entered_successes_and_an_opponent_pool_are_one_or_the_other(pool_given):
    with pytest.raises(ParameterError) as err:
        engine.roll("horizons", faces=[7, 8, 9], pool=3, opponent_successes=1, **pool_given)
    assert err.value.param == "opponent-successes"
    assert f"--opponent-pool {pool_given['opponent_pool']}" in str(err.value)


@pytest.mark.parametrize("bad", [-1, 61, "x"])
def test_entered_successes_out_of_range(bad):
    with pytest.raises(ParameterError) as err:
        engine.roll("horizons", faces=[7], pool=1, opponent_successes=bad)
    assert err.value.param == "opponent-successes"
