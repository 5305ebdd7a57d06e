"""d6cv exact odds: against brute-force enumeration of the roll itself, against icepool (the
bench's formulation), sums, monotonicity, hypothesis invariants and a chi-square test of
100 000 seeded rolls."""

from __future__ import annotations

import importlib.util
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.systems import get
from tests.support import chi_square_p, seeded_dice

SPEC = get("d6cv")
BENCH = Path(__file__).resolve().parents[3] / "bench" / "odds_d6cv.py"


class _Branch(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class _PathDice:
    """Replays a prefix of draws (0-based) and stops the roll at the first draw past it."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self._prefix = prefix
        self._used = 0

    def randbelow(self, n: int) -> int:
        if self._used == len(self._prefix):
            raise _Branch(n)
        self._used += 1
        return self._prefix[self._used - 1]


def enumerate_rolls(params: dict[str, Any], max_draws: int = 8):
    """Every way the roll can go, by running it: (outcome, critical) -> probability, and the
    mass of paths cut at ``max_draws`` (untargeted ties can re-roll without end)."""
    resolved = SPEC.resolve(params)
    found: Counter = Counter()
    cut = Fraction(0)
    stack = [((), Fraction(1))]
    while stack:
        prefix, weight = stack.pop()
        try:
            result = SPEC.roll(_PathDice(prefix), resolved)
        except _Branch as branch:
            if len(prefix) >= max_draws:
                cut += weight
                continue
            stack.extend(((*prefix, v), weight / branch.sides) for v in range(branch.sides))
            continue
        found[result.outcome, result.critical] += weight
    return found, cut


def exact(**params) -> dict[str, Any]:
    return engine.odds("d6cv", **params)["exact"]


BRUTE_CASES = [
    {"stat": 5, "cv": 5},
    {"stat": 5, "cv": 10},
    {"stat": 2, "skill": 3, "modifier": -1, "cv": 6, "criticals": False},
    {"stat": 0, "cv": 25},
    {"stat": 15, "skill": 4, "modifier": 10, "cv": 0},
    {"stat": 5, "contest": "targeted", "opponent_stat": 5},
    {"stat": 3, "skill": 2, "contest": "targeted", "opponent_stat": 6, "criticals": False},
    {"stat": 5, "contest": "untargeted", "opponent_stat": 5},
    {"stat": 7, "contest": "untargeted", "opponent_stat": 4, "opponent_modifier": 2,
     "criticals": False},
    {"stat": 5, "cv": 7, "repeat": 3},
    {"stat": 4, "cv": 5, "repeat": 4, "cv_step": 2},
    {"stat": 4, "cv": 10, "repeat": 4, "cv_step": -2, "goal": "any"},
    {"stat": 5, "contest": "targeted", "repeat": 2, "goal": "any"},
    {"stat": 5, "contest": "untargeted", "opponent_stat": 6, "repeat": 2},
    {"stat": 6, "skill": 2, "construction": "project", "complexity": 2},
    {"stat": 5, "skill": 1, "construction": "project", "complexity": 1, "repeat": 2,
     "goal": "any"},
]


@pytest.mark.parametrize("params", BRUTE_CASES)
def test_odds_match_brute_force_enumeration_of_the_roll(params):
    found, cut = enumerate_rolls(params)
    odds = exact(**params)
    success = Fraction(odds["success"])
    brute_success = sum(w for (outcome, _), w in found.items() if outcome == "success")
    # Untargeted paths cut at the draw limit are the only slack (re-rolled ties).
    assert cut < Fraction(1, 20)
    assert brute_success <= success <= brute_success + cut
    for critical, p in odds["critical"].items():
        brute = sum(w for (_, c), w in found.items() if c == critical)
        assert brute <= Fraction(p) <= brute + cut
    if "untargeted" not in params.values():
        assert cut == 0 and brute_success == success
    elif params.get("repeat", 1) == 1:
        # Every depth splits its decided mass in the same win:lose ratio, so the decided
        # paths alone give the exact conditional answer: P(win | no tie).
        decided = sum(found.values())
        assert decided + cut == 1
        assert brute_success / decided == success


def _icepool_success():
    spec = importlib.util.spec_from_file_location("bench_odds_d6cv", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return _icepool_success()


def test_bench_grid_is_within_the_asked_size(bench):
    assert 15 <= len(bench.GRID) <= 40
    for params in bench.GRID:
        SPEC.resolve(params)  # every setting is valid


def test_odds_match_icepool_on_the_bench_grid(bench):
    for params in bench.GRID:
        assert engine.odds("d6cv", **params)["success"] == pytest.approx(
            bench.icepool_success(params), abs=1e-12), params


@pytest.mark.parametrize("contest", ["targeted", "untargeted"])
@pytest.mark.parametrize("criticals", [True, False])
def test_contest_odds_match_icepool_across_stats(bench, contest, criticals):
    for stat in (0, 3, 5, 9, 15):
        for opp in (0, 5, 10):
            params = {"stat": stat, "contest": contest, "opponent_stat": opp,
                      "criticals": criticals}
            assert engine.odds("d6cv", **params)["success"] == pytest.approx(
                bench.icepool_success(params), abs=1e-12), params


def test_single_check_closed_form_for_every_cv():
    for add in range(0, 20):
        for cv in range(0, 26):
            params = {"stat": min(add, 15), "skill": max(0, add - 15), "cv": cv}
            total = add
            plain = sum(1 for f in range(2, 6) if f + total > cv)
            assert Fraction(exact(**params)["success"]) == Fraction(1 + plain, 6)
            off = sum(1 for f in range(1, 7) if f + total > cv)
            assert Fraction(exact(**params, criticals=False)["success"]) == Fraction(off, 6)


def test_outcome_and_critical_distributions_sum_to_one():
    for params in BRUTE_CASES:
        odds = exact(**params)
        assert sum(Fraction(v) for v in odds["outcomes"].values()) == 1
        assert sum(Fraction(v) for v in odds["critical"].values()) == 1
        assert set(odds["outcomes"]) == {"success", "failure"}
        assert set(odds["critical"]) == {"none", "success", "failure"}


def test_json_odds_shape():
    out = engine.odds("d6cv", stat=5, cv=8)
    assert out["system"] == "d6cv"
    assert out["success"] == pytest.approx(3 / 6)  # 4, 5 and the critical 6
    assert out["truncated"] == 0.0
    assert out["critical"] == pytest.approx({"none": 4 / 6, "success": 1 / 6, "failure": 1 / 6})
    assert out["exact"]["success"] == "1/2"


def test_success_rises_with_stat_skill_modifier_and_falls_with_cv():
    for contest in ("none", "targeted", "untargeted"):
        last = Fraction(-1)
        for stat in range(0, 16):
            p = Fraction(exact(stat=stat, cv=9, contest=contest, opponent_stat=6)["success"])
            assert p >= last
            last = p
    for key in ("skill", "modifier"):
        values = range(0, 5) if key == "skill" else range(-10, 11)
        ps = [Fraction(exact(stat=5, cv=8, **{key: v})["success"]) for v in values]
        assert ps == sorted(ps)
    ps = [Fraction(exact(stat=5, cv=cv)["success"]) for cv in range(0, 26)]
    assert ps == sorted(ps, reverse=True)
    ps = [Fraction(exact(stat=5, contest="targeted", opponent_stat=o)["success"])
          for o in range(0, 16)]
    assert ps == sorted(ps, reverse=True)


def test_more_repeats_never_help_all_and_never_hurt_any():
    alls = [Fraction(exact(stat=5, cv=8, repeat=n)["success"]) for n in range(1, 21)]
    anys = [Fraction(exact(stat=5, cv=8, repeat=n, goal="any")["success"]) for n in range(1, 21)]
    assert alls == sorted(alls, reverse=True)
    assert anys == sorted(anys)


checks = st.fixed_dictionaries(
    {
        "stat": st.integers(0, 15),
        "skill": st.integers(0, 4),
        "modifier": st.integers(-10, 10),
        "cv": st.integers(0, 25),
        "criticals": st.booleans(),
        "repeat": st.integers(1, 20),
        "cv_step": st.integers(-5, 5),
        "goal": st.sampled_from(["all", "any"]),
    }
)


def _single(bonus: int, cv: int, criticals: bool) -> Fraction:
    """P(one check succeeds), straight from the text: beat the CV; 6 always, 1 never."""
    wins = 0
    for face in range(1, 7):
        if criticals and face in (1, 6):
            wins += face == 6
        else:
            wins += face + bonus > cv
    return Fraction(wins, 6)


def _rank(face: int, criticals: bool) -> int:
    return {6: 1, 1: -1}.get(face, 0) if criticals else 0


@settings(max_examples=60, deadline=None)
@given(checks)
def test_repeat_and_changing_checks_are_products(params):
    bonus = params["stat"] + params["skill"] + params["modifier"]
    per = [_single(bonus, params["cv"] + i * params["cv_step"], params["criticals"])
           for i in range(params["repeat"])]
    want = Fraction(1)
    if params["goal"] == "all":
        for p in per:
            want *= p
    else:
        for p in per:
            want *= 1 - p
        want = 1 - want
    assert Fraction(exact(**params)["success"]) == want


@settings(max_examples=80, deadline=None)
@given(
    stat=st.integers(0, 15), opp=st.integers(0, 15), mod=st.integers(-10, 10),
    criticals=st.booleans(), faces=st.lists(st.integers(1, 6), min_size=2, max_size=2),
)
def test_targeted_contest_roll_follows_the_rules(stat, opp, mod, criticals, faces):
    r = engine.roll("d6cv", faces=faces, stat=stat, modifier=mod, contest="targeted",
                    opponent_stat=opp, criticals=criticals)
    a, o = faces
    ra, ro = _rank(a, criticals), _rank(o, criticals)
    if ra != ro:
        assert (r["success"], r["critical"]) == (ra > ro, "success" if ra > ro else "failure")
    else:  # equal ranks: totals, and a tie goes to the target
        assert (r["success"], r["critical"]) == (a + stat + mod > o + opp, "none")
    assert (r["total"], r["opponent_total"]) == (a + stat + mod, o + opp)


@settings(max_examples=80, deadline=None)
@given(stat=st.integers(0, 15), cv=st.integers(0, 25), face=st.integers(1, 6),
       criticals=st.booleans())
def test_single_check_roll_follows_the_rules(stat, cv, face, criticals):
    r = engine.roll("d6cv", faces=[face], stat=stat, cv=cv, criticals=criticals)
    if criticals and face == 6:
        assert (r["success"], r["critical"]) == (True, "success")
    elif criticals and face == 1:
        assert (r["success"], r["critical"]) == (False, "failure")
    else:
        assert (r["success"], r["critical"]) == (face + stat > cv, "none")
    assert r["total"] == face + stat and r["dice"] == [face]


def test_chi_square_100k_seeded_rolls_agree_with_exact_odds():
    params = SPEC.resolve({"stat": 5, "cv": 8})
    dice = seeded_dice(b"d6cv-chi2")
    n = 100_000
    seen = Counter()
    for _ in range(n):
        r = SPEC.roll(dice, params)
        seen[r.outcome, r.critical] += 1
    odds = engine.odds("d6cv", stat=5, cv=8)["exact"]
    expected = {
        ("success", "success"): Fraction(odds["critical"]["success"]),
        ("failure", "failure"): Fraction(odds["critical"]["failure"]),
        ("success", "none"): Fraction(odds["success"]) - Fraction(odds["critical"]["success"]),
        ("failure", "none"): Fraction(odds["outcomes"]["failure"])
        - Fraction(odds["critical"]["failure"]),
    }
    assert chi_square_p(seen, expected, n) > 1e-4


def test_chi_square_seeded_untargeted_contests_agree_with_exact_odds():
    params = SPEC.resolve({"stat": 6, "contest": "untargeted", "opponent_stat": 5})
    dice = seeded_dice(b"d6cv-chi2-contest")
    n = 40_000
    seen = Counter(SPEC.roll(dice, params).outcome for _ in range(n))
    p = Fraction(engine.odds("d6cv", **params)["exact"]["success"])
    assert chi_square_p(seen, {"success": p, "failure": 1 - p}, n) > 1e-4
