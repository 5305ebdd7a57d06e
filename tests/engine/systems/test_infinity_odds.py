"""Infinity's exact odds: against brute force, icepool and the dice themselves."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.systems import get
from engine.systems.infinity.odds import (
    group_outcome_counts,
    outcome_counts,
    result_counts,
    single_outcome_counts,
    ways_at_least,
)
from engine.systems.infinity.rules import BONUS_COUNTS, OUTCOMES, combine, outcome_of
from tests.support import chi_square_p, seeded_dice

SPEC = get("infinity")


def exact_odds(**params: object) -> dict[str, Fraction]:
    odds = SPEC.odds(SPEC.resolve(params))
    return dict(odds.outcomes)


def brute_force_by_faces(**params: object) -> dict[str, Fraction]:
    """Every face combination through the roll itself (100**k rolls: keep k <= 2)."""
    resolved = SPEC.resolve(params)
    k = 1 + len(resolved["helper"]) + len(resolved["related"]) + len(resolved["attacker"])
    counts: Counter[str] = Counter()
    for faces in itertools.product(range(1, 11), repeat=2 * k):
        counts[engine.roll_result("infinity", faces=faces, **params).outcome] += 1
    return {o: Fraction(counts[o], 100**k) for o in OUTCOMES}


def brute_force_by_bonus(
    primaries: list[tuple[int, int]], related: list[int], shift: int, volley: bool
) -> dict[str, Fraction]:
    """Every combination of bonuses (with their multiplicities) settled by ``combine``."""
    members = [(r, d, True) for r, d in primaries] + [(r, None, False) for r in related]
    counts: Counter[str] = Counter()
    for combo in itertools.product(BONUS_COUNTS, repeat=len(members)):
        ways = 1
        totals = []
        for (rating, _, _), (bonus, count) in zip(members, combo, strict=True):
            ways *= count
            totals.append(rating + bonus)
        group = combine(totals, (m[2] for m in members), (m[1] for m in members))
        value = group.base + group.coordination + shift + ((group.damage or 0) if volley else 0)
        counts[outcome_of(value)] += ways
    total = 100 ** len(members)
    return {o: Fraction(counts[o], total) for o in OUTCOMES}


def bonus_die() -> icepool.Die:
    return icepool.map(lambda hot, cold: hot if hot < cold else (-cold if cold < hot else 0), icepool.d10, icepool.d10)


# --- closed forms against the table -----------------------------------------------------


@pytest.mark.parametrize("x", range(-15, 16))
def test_ways_at_least_matches_the_bonus_table(x: int) -> None:
    assert ways_at_least(x) == sum(w for b, w in BONUS_COUNTS if b >= x)


@pytest.mark.parametrize("fixed", range(-25, 26))
def test_single_outcome_counts_match_outcome_of(fixed: int) -> None:
    by_result = {fixed + b: w for b, w in BONUS_COUNTS}
    direct = Counter()
    for r, w in by_result.items():
        direct[outcome_of(r)] += w
    assert single_outcome_counts(fixed) == tuple(direct[o] for o in OUTCOMES)
    assert outcome_counts(by_result) == tuple(direct[o] for o in OUTCOMES)


# --- brute force ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"rating": 8, "cr": 10},
        {"rating": 0, "cr": 0},
        {"rating": 15, "cr": "formidable", "declaration": True},
        {"rating": 12, "cr": 5, "retry": True, "modifier": 2},
        {"rating": 150, "cr": 100},
        {"rating": 8, "volley": True, "damage": 7, "defense": 20},
    ],
)
def test_single_odds_match_all_100_faces(params: dict) -> None:
    assert exact_odds(**params) == brute_force_by_faces(**params)


@pytest.mark.parametrize(
    "params",
    [
        {"rating": 8, "cr": 10, "helper": [6]},
        {"rating": 3, "cr": 8, "related": [5]},
        {"rating": 10, "volley": True, "damage": 9, "defense": 25, "attacker": ["11:4"]},
    ],
)
def test_pair_odds_match_all_10000_faces(params: dict) -> None:
    assert exact_odds(**params) == brute_force_by_faces(**params)


@pytest.mark.parametrize(
    ("primaries", "related", "shift", "volley"),
    [
        ([(14, 0), (10, 0), (0, 0)], [], -15, False),
        ([(12, 0)], [16, 2], -13, False),
        ([(1, 0), (1, 0)], [0], -1, False),
        ([(13, 16), (12, 18)], [20], -31, True),
        ([(13, 16), (13, 18), (5, 30)], [], -40, True),
        ([(8, 0), (9, 0), (10, 0), (11, 0)], [], -14, False),
    ],
)
def test_group_odds_match_enumeration(primaries, related, shift, volley) -> None:
    by_result, total = result_counts(primaries, related, shift, volley)
    assert sum(by_result.values()) == total
    got = {o: Fraction(w, total) for o, w in zip(OUTCOMES, outcome_counts(by_result), strict=True)}
    assert got == brute_force_by_bonus(primaries, related, shift, volley)


@given(
    primaries=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 6)), min_size=1, max_size=2),
    related=st.lists(st.integers(0, 12), max_size=1),
    shift=st.integers(-40, 5),
    volley=st.booleans(),
)
@settings(max_examples=30, deadline=None)
def test_group_odds_match_enumeration_hypothesis(primaries, related, shift, volley) -> None:
    by_result, total = result_counts(primaries, related, shift, volley)
    got = {o: Fraction(w, total) for o, w in zip(OUTCOMES, outcome_counts(by_result), strict=True)}
    assert got == brute_force_by_bonus(primaries, related, shift, volley)


@given(
    primaries=st.lists(st.tuples(st.integers(0, 150), st.integers(0, 200)), min_size=1, max_size=10),
    related=st.lists(st.integers(0, 150), max_size=9),
    shift=st.integers(-500, 60),
    volley=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_digit_sums_match_the_full_result_table(primaries, related, shift, volley) -> None:
    by_result, total = result_counts(primaries, related, shift, volley)
    assert sum(by_result.values()) == total
    assert group_outcome_counts(primaries, related, shift, volley) == outcome_counts(by_result)


# --- icepool ----------------------------------------------------------------------------


@pytest.mark.parametrize(("rating", "cr", "adjust"), [(8, 10, 0), (3, 15, 1), (20, 5, -3), (12, 30, 4)])
def test_single_success_matches_icepool(rating: int, cr: int, adjust: int) -> None:
    expected = (rating + adjust + bonus_die() - cr).probability(">=", 1)
    got = engine.odds("infinity", rating=rating, cr=cr, modifier=adjust)["exact"]["success"]
    assert Fraction(got) == expected


def test_single_outcomes_match_icepool() -> None:
    result = 9 + bonus_die() - 10
    read = result.map(outcome_of)
    got = exact_odds(rating=9, cr=10)
    for name in OUTCOMES:
        assert got[name] == read.probability(name)


def test_coordination_matches_icepool() -> None:
    b = bonus_die()
    primaries = [9 + b, 6 + b, 4 + b]
    related = 2 + b

    def settle(*totals: int) -> int:
        top = max(totals[:3])
        return top + sum(t >= 1 for t in totals) - (top >= 1)

    final = icepool.map(settle, *primaries, related) + 1 - 12
    got = engine.odds("infinity", rating=9, helper=[6, 4], related=[2], cr=12, declaration=True)
    assert Fraction(got["exact"]["success"]) == final.probability(">=", 1)


def test_volley_matches_icepool() -> None:
    b = bonus_die()
    attackers = [(10, 16), (9, 18), (11, 5)]

    def attack(*totals: int) -> int:
        best = max(range(3), key=lambda i: (totals[i], attackers[i][1]))
        return totals[best] + attackers[best][1] + sum(t >= 1 for i, t in enumerate(totals) if i != best)

    total = icepool.map(attack, *(r + b for r, _ in attackers), 17 + b)
    got = engine.odds(
        "infinity", rating=10, volley=True, damage=16, defense=30, attacker=["9:18", "11:5"], related=[17]
    )
    assert Fraction(got["exact"]["success"]) == (total - 30).probability(">=", 1)


# --- properties -------------------------------------------------------------------------

group_params = st.fixed_dictionaries(
    {
        "rating": st.integers(0, 150),
        "cr": st.integers(0, 100),
        "modifier": st.integers(-50, 50),
        "declaration": st.booleans(),
        "retry": st.booleans(),
        "helper": st.lists(st.integers(0, 40), max_size=3),
        "related": st.lists(st.integers(0, 40), max_size=3),
    }
)


@given(group_params)
@settings(max_examples=60, deadline=None)
def test_odds_sum_to_one_and_success_is_the_winning_outcomes(params: dict) -> None:
    odds = SPEC.odds(SPEC.resolve(params))
    assert sum(odds.outcomes.values()) == 1
    assert all(0 <= p <= 1 for p in odds.outcomes.values())
    assert odds.success == odds.outcomes["success"] + odds.outcomes["solid"] + odds.outcomes["spectacular"]
    assert set(odds.outcomes) == set(OUTCOMES)


@given(group_params, st.integers(0, 40))
@settings(max_examples=40, deadline=None)
def test_another_helper_never_lowers_the_chance(params: dict, extra: int) -> None:
    before = SPEC.odds(SPEC.resolve(params)).success
    more = {**params, "helper": [*params["helper"], extra]}
    after_helper = SPEC.odds(SPEC.resolve(more)).success
    more_related = {**params, "related": [*params["related"], extra]}
    after_related = SPEC.odds(SPEC.resolve(more_related)).success
    assert after_helper >= before
    assert after_related >= before


@pytest.mark.parametrize("cr", [0, 8, 10, 20, 30])
def test_success_rises_with_rating_and_falls_with_cr(cr: int) -> None:
    by_rating = [exact_odds(rating=r, cr=cr) for r in range(0, 45)]
    succ = [o["success"] + o["solid"] + o["spectacular"] for o in by_rating]
    assert succ == sorted(succ)
    fails = [o["failure"] for o in by_rating]
    assert fails == sorted(fails, reverse=True)
    by_cr = [engine.odds("infinity", rating=12, cr=c)["success"] for c in range(0, 40)]
    assert by_cr == sorted(by_cr, reverse=True)


def test_declaration_helps_and_retry_hurts() -> None:
    base = engine.odds("infinity", rating=8, cr=10)["success"]
    assert engine.odds("infinity", rating=8, cr=10, declaration=True)["success"] > base
    assert engine.odds("infinity", rating=8, cr=10, retry=True)["success"] < base
    assert engine.odds("infinity", rating=8, cr=10, declaration=True)["exact"] == engine.odds(
        "infinity", rating=9, cr=10
    )["exact"]


def test_doubles_odds_are_one_in_twenty_each() -> None:
    for params in ({}, {"helper": [5, 9]}, {"volley": True, "damage": 4, "defense": 12}):
        odds = engine.odds("infinity", **params)
        assert odds["doubles"] == {"mishap": 0.05, "breakthrough": 0.05}
        assert odds["exact"]["doubles"] == {"mishap": "1/20", "breakthrough": "1/20"}


def test_odds_json_shape() -> None:
    odds = engine.odds("infinity", rating=8, cr="difficult")
    assert odds["system"] == "infinity"
    assert set(odds["outcomes"]) == set(OUTCOMES)
    assert odds["success"] == pytest.approx(0.28)
    assert odds["exact"]["success"] == "7/25"
    assert odds["truncated"] == 0.0


def test_largest_group_is_exact_and_sums_to_one() -> None:
    params = {
        "rating": 10, "volley": True, "damage": 16, "defense": 40,
        "attacker": [f"{8 + i}:{i}" for i in range(9)], "related": list(range(0, 90, 10)),
    }
    odds = SPEC.odds(SPEC.resolve(params))
    assert sum(odds.outcomes.values()) == 1
    assert odds.outcomes["spectacular"].denominator <= 100**19


# --- the dice agree with the odds ----------------------------------------------------------


def test_100000_seeded_rolls_agree_with_exact_odds() -> None:
    params = SPEC.resolve({"rating": 8, "cr": 8})
    dice = seeded_dice(b"infinity-chi2")
    outcomes: Counter[str] = Counter()
    doubles: Counter[str] = Counter()
    n = 100_000
    for _ in range(n):
        result = SPEC.roll(dice, params)
        outcomes[result.outcome] += 1
        doubles[result.doubles] += 1
    odds = SPEC.odds(params)
    assert chi_square_p(outcomes, odds.outcomes, n) > 1e-4
    d = odds.extra["doubles"]
    assert chi_square_p(doubles, {**d, "none": 1 - d["mishap"] - d["breakthrough"]}, n) > 1e-4


def test_seeded_group_rolls_agree_with_exact_odds() -> None:
    params = SPEC.resolve({"rating": 9, "cr": 14, "helper": [7], "related": [3]})
    dice = seeded_dice(b"infinity-chi2-group")
    outcomes: Counter[str] = Counter()
    n = 30_000
    for _ in range(n):
        outcomes[SPEC.roll(dice, params).outcome] += 1
    assert chi_square_p(outcomes, SPEC.odds(params).outcomes, n) > 1e-4


# --- Review: odds with a distant related skill's Coordination CR ---------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"rating": 12, "cr": 14, "related": ["16:8"]},
        {"rating": 3, "cr": 5, "related": ["9:difficult"]},
        {"rating": 10, "volley": True, "damage": 9, "defense": 25, "related": ["17:20"]},
    ],
)
def test_odds_with_a_coordination_cr_match_all_10000_faces(params: dict) -> None:
    assert exact_odds(**params) == brute_force_by_faces(**params)


def test_a_coordination_cr_never_raises_the_chance() -> None:
    easy = engine.odds("infinity", rating=9, cr=12, related=[13])["exact"]["success"]
    hard = engine.odds("infinity", rating=9, cr=12, related=["13:15"])["exact"]["success"]
    never = engine.odds("infinity", rating=9, cr=12, related=["13:100"])["exact"]["success"]
    alone = engine.odds("infinity", rating=9, cr=12)["exact"]["success"]
    assert Fraction(easy) > Fraction(hard) > Fraction(never) == Fraction(alone)
