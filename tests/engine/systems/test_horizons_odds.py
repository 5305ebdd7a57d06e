"""Exact odds of Infinite Horizons: the per-die series, brute force over faces, icepool,
truncation, opposed rolls, mitigation and damage."""

from __future__ import annotations

import itertools
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.dice import FacesDice
from engine.systems.horizons.odds import (
    TRUNCATION,
    net_counts,
    opposed_success,
    pool_counts,
)

SPEC = engine.get("horizons")


def odds(**params):
    return SPEC.odds(SPEC.resolve(params))


def per_die(s: int) -> Fraction:
    """The brief's series: P(0) = 6/10, P(s) = (1/10)**s (6/10) + (1/10)**(s-1) (3/10)."""
    if s == 0:
        return Fraction(6, 10)
    return Fraction(1, 10) ** s * Fraction(6, 10) + Fraction(1, 10) ** (s - 1) * Fraction(3, 10)


def convolved(dice: int, top: int) -> list[Fraction]:
    """P(S = s) for s <= top by plain convolution of the per-die series (exact up to top)."""
    dist = [Fraction(1)] + [Fraction(0)] * top
    for _ in range(dice):
        dist = [sum(dist[i] * per_die(s - i) for i in range(s + 1)) for s in range(top + 1)]
    return dist


def chains_up_to(explosions: int):
    """Every way one die can land with at most ``explosions`` re-rolls: (faces, probability)."""
    for k in range(explosions + 1):
        for last in range(1, 10):
            yield (10,) * k + (last,), Fraction(1, 10 ** (k + 1))


# -- the per-die series and the pool closed form -----------------------------------------------


def test_one_die_matches_the_series():
    dist = odds(pool=1).extra["successes"]
    assert dist["0"] == Fraction(6, 10)
    assert dist["1"] == Fraction(36, 100)
    for s in range(2, 12):
        assert dist[str(s)] == per_die(s)


@pytest.mark.parametrize("dice", [2, 3, 6, 9])
def test_pool_matches_convolution_of_the_series(dice):
    dist = odds(pool=dice).extra["successes"]
    expected = convolved(dice, 12)
    for s in range(13):
        assert dist[str(s)] == expected[s]


@pytest.mark.parametrize("dice", [1, 2, 3])
def test_pool_matches_brute_force_over_faces(dice):
    """Every face sequence with up to 4 explosions a die, through the roll itself."""
    params = SPEC.resolve({"pool": dice, "need": 2})
    by_successes: dict[int, Fraction] = {}
    success = Fraction(0)
    for combo in itertools.product(list(chains_up_to(4)), repeat=dice):
        faces = tuple(f for chain, _ in combo for f in chain)
        weight = Fraction(1)
        for _, p in combo:
            weight *= p
        source = FacesDice(faces)
        result = SPEC.roll(source, params)
        source.finish()
        by_successes[result.successes] = by_successes.get(result.successes, 0) + weight
        success += weight if result.success else 0
    exact = odds(pool=dice, need=2)
    # Totals up to 4 successes need no die to explode more than 4 times: exact.
    for s in range(5):
        assert by_successes[s] == exact.extra["successes"][str(s)]
    missing = 1 - sum(by_successes.values())
    assert success <= exact.success <= success + missing


def test_pool_matches_icepool_exactly():
    die = icepool.Die([0] * 6 + [1] * 3 + [1 + icepool.Again], again_depth=25)
    for dice in (1, 4, 7):
        ours = odds(pool=dice).extra["successes"]
        theirs = dice @ die
        assert len(ours) >= 16
        for s, p in ours.items():
            assert p == theirs.probability(int(s))


@pytest.mark.parametrize(
    "params",
    [
        {"pool": 4, "need": 2},
        {"pool": 6, "need": 3},
        {"pool": 5, "opponent_pool": 3, "need": 1},
        {"pool": 3, "opponent_pool": 6, "need": 2},
        {"pool": 7, "opponent_pool": 4, "need": 1, "mitigation": 2, "mitigation_mode": "successes"},
    ],
)
def test_success_matches_icepool(params):
    die = icepool.Die([0] * 6 + [1] * 3 + [1 + icepool.Again], again_depth=25)
    total = params["pool"] @ die
    if params.get("opponent_pool"):
        total = total - params["opponent_pool"] @ die
    need = params["need"] + (params.get("mitigation", 0) if params.get("mitigation_mode") else 0)
    assert abs(odds(**params).success - total.probability(">=", need)) < 1e-15


# -- the worked examples' odds ----------------------------------------------------------------


def test_lock_pick_odds_six_dice_need_three():
    result = odds(trait=3, skill=2, need=3)
    expected = 1 - sum(convolved(6, 2))
    assert result.success == expected
    assert result.outcomes == {"success": expected, "failure": 1 - expected}
    assert result.to_dict()["exact"]["success"] == "201814/390625"


def test_river_odds_six_dice_need_two():
    result = odds(trait=4, skill=1, need=2)
    assert result.success == 1 - sum(convolved(6, 1))
    assert result.success > odds(trait=3, skill=2, need=3).success


# -- truncation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("params", [{"pool": 1}, {"pool": 20}, {"pool": 30, "opponent_pool": 30}])
def test_truncated_mass_is_reported_and_below_1e_15(params):
    result = odds(**params)
    assert 0 < result.truncated < TRUNCATION
    for name, dist in result.extra.items():
        missing = 1 - sum(dist.values())
        assert 0 <= missing <= result.truncated, name


def test_the_cut_is_the_first_count_whose_tail_is_small_enough():
    counts = pool_counts(6)
    last = len(counts.counts) - 1
    assert Fraction(counts.tail, counts.denominator) < TRUNCATION
    before = counts.tail + counts.counts[last]
    assert Fraction(before, counts.denominator) >= TRUNCATION


def test_success_is_exact_even_when_need_passes_the_cut():
    result = odds(pool=1, need=20)
    assert result.success == Fraction(4, 10) * Fraction(1, 10) ** 19
    assert len(result.extra["successes"]) >= 20


def test_pool_counts_reject_bad_arguments():
    with pytest.raises(ValueError, match="at least 1 die"):
        pool_counts(0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        pool_counts(3, Fraction(0))
    short = pool_counts(1)
    with pytest.raises(ValueError, match="must reach"):
        opposed_success(short, pool_counts(3), 5)


# -- opposed rolls, mitigation, damage ---------------------------------------------------------


def test_net_distribution_matches_a_double_sum():
    actor, opponent = pool_counts(3), pool_counts(2)
    net = net_counts(actor, opponent)
    for d in range(-len(opponent.counts) + 1, len(actor.counts)):
        expected = sum(
            actor.counts[o + d] * c
            for o, c in enumerate(opponent.counts)
            if 0 <= o + d < len(actor.counts)
        )
        assert net.at(d) == expected
    assert net.at(10**6) == 0


def test_opposed_odds_against_brute_force_over_faces():
    params = SPEC.resolve({"pool": 2, "opponent_pool": 1, "need": 1})
    nets: dict[int, Fraction] = {}
    success = Fraction(0)
    chains = list(chains_up_to(3))
    for combo in itertools.product(chains, repeat=3):
        faces = tuple(f for chain, _ in combo for f in chain)
        weight = combo[0][1] * combo[1][1] * combo[2][1]
        result = SPEC.roll(FacesDice(faces), params)
        nets[result.net] = nets.get(result.net, 0) + weight
        success += weight if result.success else 0
    exact = odds(pool=2, opponent_pool=1, need=1)
    missing = 1 - sum(nets.values())
    assert success <= exact.success <= success + missing
    for d in (-3, -2, -1, 0, 1, 2):
        assert nets[d] <= exact.extra["net"][str(d)] <= nets[d] + missing


def test_ties_fail_in_the_odds_too():
    result = odds(pool=3, opponent_pool=3, need=1)
    net = result.extra["net"]
    positive = sum(p for d, p in net.items() if int(d) >= 1)
    assert positive <= result.success <= positive + result.truncated
    assert result.success < Fraction(1, 2)  # equal pools: ties count against the actor


def test_damage_distribution_with_mitigation():
    result = odds(pool=5, opponent_pool=2, mitigation=2, need=1)
    damage, net = result.extra["damage"], result.extra["net"]
    assert damage["1"] == net["3"] and damage["4"] == net["6"]
    assert damage["0"] == 1 - result.success + net["1"] + net["2"]
    assert 0 <= 1 - sum(damage.values()) <= result.truncated
    assert "damage" not in odds(pool=5, opponent_pool=2).extra  # a plain opposed roll


def test_mitigation_mode_successes_raises_the_bar():
    plain = odds(pool=6, need=1)
    damage_mode = odds(pool=6, need=1, mitigation=2)
    successes_mode = odds(pool=6, need=1, mitigation=2, mitigation_mode="successes")
    assert damage_mode.success == plain.success
    assert successes_mode.success == odds(pool=6, need=3).success
    assert damage_mode.extra["damage"]["1"] == plain.extra["successes"]["3"]
    # With need 1 the modes differ in the verdict only, never in the damage done.
    assert successes_mode.extra["damage"] == damage_mode.extra["damage"]


def test_odds_json_shape():
    out = engine.odds("horizons", trait=3, skill=2, need=3, opponent_pool=2, body=1, resolve=1)
    assert set(out) >= {"system", "params", "success", "outcomes", "successes", "net", "damage"}
    assert set(out["outcomes"]) == {"success", "failure"}
    assert abs(sum(out["successes"].values()) - 1) < 1e-12
    assert out["exact"]["successes"]["0"] == "729/15625"  # (6/10)**6, written exactly
    assert out["truncated"] < 1e-15


# -- invariants ---------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    pool=st.integers(1, 20),
    opponent=st.integers(0, 12),
    need=st.integers(1, 12),
    mitigation=st.integers(0, 5),
    mode=st.sampled_from(["damage", "successes"]),
)
def test_odds_sum_to_one_and_stay_in_range(pool, opponent, need, mitigation, mode):
    result = odds(pool=pool, opponent_pool=opponent, need=need, mitigation=mitigation,
                  mitigation_mode=mode)
    assert sum(result.outcomes.values()) == 1
    assert 0 <= result.success <= 1
    assert 0 <= result.truncated < TRUNCATION
    for dist in result.extra.values():
        assert all(p >= 0 for p in dist.values())
        assert 0 <= 1 - sum(dist.values()) <= result.truncated


@settings(max_examples=40, deadline=None)
@given(pool=st.integers(1, 19), opponent=st.integers(0, 10), need=st.integers(1, 10))
def test_odds_are_monotonic(pool, opponent, need):
    base = odds(pool=pool, opponent_pool=opponent, need=need).success
    assert odds(pool=pool + 1, opponent_pool=opponent, need=need).success > base
    assert odds(pool=pool, opponent_pool=opponent, need=need + 1).success < base
    assert odds(pool=pool, opponent_pool=opponent + 1, need=need).success < base


def test_more_skill_or_trait_never_hurts():
    values = [odds(trait=t, skill=1, need=3).success for t in range(11)]
    assert values == sorted(values) and len(set(values)) == len(values)
    values = [odds(trait=2, skill=s, need=3).success for s in range(11)]
    assert values == sorted(values)


# -- the opponent's successes entered -----------------------------------------------------------


def test_entered_successes_against_brute_force_over_faces():
    """Every face sequence of a 2-die pool (up to 3 explosions each) against 1 success
    entered: success, net and damage as the rolls give them, weighted by their chance."""
    params = SPEC.resolve({"pool": 2, "opponent_successes": 1, "need": 1, "mitigation": 1})
    nets: dict[int, Fraction] = {}
    damage: dict[int, Fraction] = {}
    success = Fraction(0)
    for combo in itertools.product(list(chains_up_to(3)), repeat=2):
        faces = tuple(f for chain, _ in combo for f in chain)
        weight = combo[0][1] * combo[1][1]
        result = SPEC.roll(FacesDice(faces), params)
        nets[result.net] = nets.get(result.net, 0) + weight
        damage[result.damage] = damage.get(result.damage, 0) + weight
        success += weight if result.success else 0
    exact = SPEC.odds(params)
    missing = 1 - sum(nets.values())
    assert success <= exact.success <= success + missing
    for d in (-1, 0, 1, 2, 3):
        assert nets[d] <= exact.extra["net"][str(d)] <= nets[d] + missing
    for d in (0, 1, 2):
        assert damage[d] <= exact.extra["damage"][str(d)] <= damage[d] + missing


@settings(max_examples=60, deadline=None)
@given(
    pool=st.integers(1, 30),
    entered=st.integers(0, 60),
    need=st.integers(1, 30),
    mitigation=st.integers(0, 5),
    mode=st.sampled_from(["damage", "successes"]),
)
def test_entered_successes_shift_the_need(pool, entered, need, mitigation, mode):
    """Against K successes counted at the table the chance is the unopposed chance of
    reaching K + need; the net distribution is the success distribution shifted by K."""
    against = odds(pool=pool, opponent_successes=entered, need=need, mitigation=mitigation,
                   mitigation_mode=mode)
    bar = need + (mitigation if mode == "successes" else 0)
    alone = pool_counts(pool, TRUNCATION, at_least=entered + bar - 1)
    assert against.success == Fraction(alone.at_least(entered + bar), alone.denominator)
    assert sum(against.outcomes.values()) == 1
    successes = against.extra["successes"]
    assert against.extra["net"] == {str(int(s) - entered): p for s, p in successes.items()}
    for dist in against.extra.values():
        assert 0 <= 1 - sum(dist.values()) <= against.truncated
