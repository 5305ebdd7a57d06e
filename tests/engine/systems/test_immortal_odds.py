"""Immortal exact odds: against brute-force enumeration of every face (through the roll
itself), against icepool (the benchmark's own formulation), sums, monotonicity, hypothesis
invariants and a chi-square check of 100 000 seeded rolls."""

from __future__ import annotations

import importlib.util
import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.dice import FacesDice
from engine.systems import get
from tests.support import chi_square_p, seeded_dice

SPEC = get("immortal")
BENCH = Path(__file__).resolve().parents[3] / "bench" / "odds_immortal.py"


def _bench():
    spec = importlib.util.spec_from_file_location("odds_immortal_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Counting:
    """Counts the dice a roll draws (every face 1)."""

    def __init__(self) -> None:
        self.n = 0

    def randbelow(self, n: int) -> int:
        self.n += 1
        return 0


def brute_force(**params) -> Fraction:
    """P(success) by rolling every combination of faces through the roll itself."""
    resolved = SPEC.resolve(params)
    counter = _Counting()
    SPEC.roll(counter, resolved)
    wins = 0
    for faces in itertools.product(range(1, 11), repeat=counter.n):
        source = FacesDice(faces)
        wins += SPEC.roll(source, resolved).success
        source.finish()
    return Fraction(wins, 10**counter.n)


def exact(**params) -> Fraction:
    return Fraction(engine.odds("immortal", **params)["exact"]["success"])


BRUTE_CASES = [
    {"attribute": 5, "tn": 12},
    {"attribute": 6, "tn": 9},
    {"attribute": 6, "skill": 4, "tn": 15},
    {"attribute": 0, "tn": 60},
    {"attribute": 20, "skill": 10, "tn": 1},
    {"attribute": 3, "skill": 5, "tn": 15},
    {"attribute": 3, "skill": 5, "tn": 15, "auto_success": "no"},
    {"attribute": 6, "tn": 10, "untrained": True},
    {"attribute": 6, "skill": 4, "tn": 15, "hostile": "12:6"},
    {"attribute": 6, "skill": 4, "tn": 15, "hostile": "12:6:4"},
    {"attribute": 6, "skill": 4, "tn": 15, "hostile": "12:6:4", "auto_success": "no"},
    {"attribute": 6, "skill": 5, "tn": 15, "hostile": "14:6"},
    {"attribute": 6, "skill": 5, "tn": 15, "hostile": "14:6", "auto_success": "yes"},
    {"attribute": 8, "tn": 12, "hostile": ["14:3", "12:5"]},
    {"attribute": 8, "tn": 12, "hostile": ["14:3", "12:5"], "bonus_sharing": "each"},
    {"attribute": 8, "tn": 12, "hostile": ["14:3", "12:5"], "bonus_sharing": "none"},
    {"attribute": 9, "skill": 2, "tn": 9, "hostile": ["17:3", "15:4", "16:2:1"]},
    {"attribute": 9, "skill": 2, "tn": 9, "hostile": ["17:3", "15:4", "16:2:1"],
     "bonus_sharing": "each"},
    {"attribute": 5, "skill": 2, "opponent": "5+2"},
    {"attribute": 5, "skill": 5, "opponent": "4"},
    {"attribute": 5, "skill": 5, "opponent_total": 15},
    {"attribute": 6, "opponent": "6+2", "untrained": True},
    {"attribute": 7, "skill": 3, "opponent": "5+3", "hostile": ["12:5", "11:4:2"]},
    {"attribute": 1, "tn": 5, "hostile": ["60", "1"]},
]


@pytest.mark.parametrize("params", BRUTE_CASES, ids=lambda p: str(sorted(p.items())))
def test_odds_match_brute_force_enumeration(params):
    assert exact(**params) == brute_force(**params)


def test_odds_match_icepool_on_the_benchmark_grid():
    bench = _bench()
    assert 15 <= len(bench.GRID) <= 40
    for params in bench.GRID:
        ours = engine.odds("immortal", **params)["success"]
        assert ours == pytest.approx(bench.icepool_success(params), abs=1e-12), params


def test_worked_example_odds():
    assert exact(attribute=5, tn=12) == Fraction(4, 10)  # needs 7+ on the d10
    assert exact(attribute=6, tn=9) == Fraction(8, 10)
    assert exact(attribute=6, skill=4, tn=15) == Fraction(6, 10)
    # Hostile 12 with will 6 and the pooled primary bonus: sum over the primary face p >= 5
    # of P(hostile face >= 6 - (p - 5)).
    assert exact(attribute=6, skill=4, tn=15, hostile="12:6") == Fraction(
        sum(min(10, 5 + (p - 5)) for p in range(5, 11)), 100)
    assert exact(attribute=6, skill=4, tn=15, hostile="12:6:4") == Fraction(6, 10)


def test_odds_json_shape():
    odds = engine.odds("immortal", attribute=6, skill=4, tn=15, hostile="12:6")
    assert set(odds["outcomes"]) == {"success", "failure"}
    assert odds["success"] == odds["outcomes"]["success"]
    assert odds["truncated"] == 0.0
    assert Fraction(odds["exact"]["success"]) + Fraction(odds["exact"]["outcomes"]["failure"]) == 1


params_strategy = st.fixed_dictionaries(
    {
        "attribute": st.integers(0, 20),
        "skill": st.integers(0, 10),
        "tn": st.integers(1, 60),
        "auto_success": st.sampled_from(["best", "yes", "no"]),
        "bonus_sharing": st.sampled_from(["pool", "each", "none"]),
        "hostile": st.lists(
            st.tuples(st.integers(1, 40), st.one_of(st.none(), st.integers(0, 20)),
                      st.integers(0, 10)).map(
                lambda t: f"{t[0]}:{'' if t[1] is None else t[1]}:{t[2]}"),
            max_size=2,
        ),
        "opponent": st.one_of(st.just(()), st.tuples(st.integers(0, 20), st.integers(0, 10)).map(
            lambda t: (f"{t[0]}+{t[1]}",))),
        "untrained": st.booleans(),
    }
).map(lambda p: {**p, "skill": 0} if p["untrained"] else p)


@settings(max_examples=40, deadline=None)
@given(params_strategy)
def test_odds_equal_brute_force_for_random_settings(params):
    if params["opponent"] and len(params["hostile"]) == 2:
        params = {**params, "hostile": params["hostile"][:1]}
    assert exact(**params) == brute_force(**params)


@settings(max_examples=60, deadline=None)
@given(params_strategy, st.binary(min_size=4, max_size=8))
def test_roll_invariants(params, seed):
    odds = exact(**params)
    assert 0 <= odds <= 1
    r = engine.roll_result("immortal", rng=seeded_dice(seed), **params)
    assert all(1 <= d <= 10 for d in r.dice)
    assert r.success == (r.primary_success and all(h.success for h in r.hostiles))
    assert r.outcome == ("success" if r.success else "failure")
    assert (odds > 0) if r.success else (odds < 1)
    assert r.skill_locked == (params["untrained"] and not r.primary_success)
    assert r.automatic == (r.total is None)
    if r.automatic:
        assert not params["opponent"] and r.primary_bonus == 0
    expected_dice = (not r.automatic) + sum(not h.automatic for h in r.hostiles) + bool(
        params["opponent"])
    assert len(r.dice) == expected_dice
    if r.total is not None:
        assert r.primary_success == (r.total >= r.tn)
        assert r.primary_bonus == (max(0, r.total - r.tn) if r.primary_success else 0)
    for h in r.hostiles:
        assert 0 <= h.bonus_used <= r.primary_bonus
        if not h.automatic:
            assert h.success == (h.total + h.bonus_used >= h.tn)
    if params["bonus_sharing"] == "pool":
        assert sum(h.bonus_used for h in r.hostiles) + r.bonus_left == r.primary_bonus
    if params["bonus_sharing"] == "none":
        assert all(h.bonus_used == 0 for h in r.hostiles)
    # --faces replays the same roll.
    assert engine.roll("immortal", faces=r.dice, **params) == r.to_dict()


@settings(max_examples=40, deadline=None)
@given(params_strategy)
def test_bonus_rules_are_ordered_none_pool_each(params):
    base = {**params}
    none = exact(**{**base, "bonus_sharing": "none"})
    pool = exact(**{**base, "bonus_sharing": "pool"})
    each = exact(**{**base, "bonus_sharing": "each"})
    assert none <= pool <= each
    if len(params["hostile"]) <= 1:
        assert pool == each


@settings(max_examples=40, deadline=None)
@given(params_strategy, st.sampled_from(["attribute", "skill", "tn", "opponent", "hostile_tn",
                                         "hostile_attribute", "legacy"]))
def test_odds_are_monotonic(params, knob):
    """More attribute, skill, legacy help; a higher TN or a stronger opponent hurts."""
    lo, hi = dict(params), dict(params)
    if knob in ("attribute", "tn"):
        if params[knob] >= (20 if knob == "attribute" else 60):
            return
        hi[knob] = params[knob] + 1
        better, worse = (hi, lo) if knob == "attribute" else (lo, hi)
    elif knob == "skill":
        # With hostiles an automatic primary scores no bonus, so under --auto-success yes one
        # more rank that makes the primary automatic can lower the chance
        # (docs/rules/immortal.md); best and no never do.
        if params["untrained"] or params["skill"] >= 10 or (
                params["auto_success"] == "yes" and params["hostile"]):
            return
        hi["skill"] = params["skill"] + 1
        better, worse = hi, lo
    elif knob == "opponent":
        if not params["opponent"]:
            return
        attr, skill = map(int, params["opponent"][0].split("+"))
        if attr >= 20:
            return
        hi["opponent"] = f"{attr + 1}+{skill}"
        better, worse = lo, hi
    else:
        if not params["hostile"]:
            return
        tn, attr, legacy = params["hostile"][0].split(":")
        index = {"hostile_tn": 0, "hostile_attribute": 1, "legacy": 2}[knob]
        fields = [int(tn), int(attr or params["attribute"]), int(legacy)]
        if fields[index] >= (40, 20, 10)[index]:
            return
        fields[index] += 1
        hi["hostile"] = [":".join(map(str, fields)), *params["hostile"][1:]]
        lo["hostile"] = [f"{tn}:{attr or params['attribute']}:{legacy}", *params["hostile"][1:]]
        better, worse = (lo, hi) if knob == "hostile_tn" else (hi, lo)
    assert exact(**better) >= exact(**worse)


def test_untrained_is_the_trained_roll_at_tn_plus_5():
    for attribute in (0, 4, 9):
        for tn in (1, 6, 12, 20):
            assert exact(attribute=attribute, tn=tn, untrained=True) == exact(
                attribute=attribute, tn=min(60, tn + 5), auto_success="no")


def test_chi_square_of_100000_seeded_rolls_agrees_with_the_exact_odds():
    params = {"attribute": 6, "skill": 3, "tn": 14, "color": "red", "opponent": "5+2",
              "hostile": ["12:5", "11:4:2"]}
    resolved = SPEC.resolve(params)
    dice = seeded_dice(b"immortal-chi2")
    n = 100_000
    observed = Counter(SPEC.roll(dice, resolved).outcome for _ in range(n))
    expected = {k: Fraction(v) for k, v in
                engine.odds("immortal", **params)["exact"]["outcomes"].items()}
    assert 0.2 < expected["success"] < 0.8
    assert chi_square_p(observed, expected, n) > 1e-4
