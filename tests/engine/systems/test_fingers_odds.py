"""fingers exact odds: against brute-force enumeration of every hand the roll can meet,
against icepool (the bench's formulation), sums, monotonicity, hypothesis invariants and a
chi-square test of 100 000 seeded hands."""

from __future__ import annotations

import importlib.util
import itertools
from collections import Counter
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import engine
from engine.systems import get
from tests.support import chi_square_p, seeded_dice

SPEC = get("fingers")
BENCH = Path(__file__).resolve().parents[3] / "bench" / "odds_fingers.py"


class _Branch(Exception):
    def __init__(self, n: int, k: int) -> None:
        self.n, self.k = n, k


class _HandPath:
    """Hides the hands of a prefix, in order, and stops the roll at the first hand past it."""

    def __init__(self, prefix: tuple[frozenset[int], ...]) -> None:
        self._prefix = prefix
        self._used = 0

    def sample(self, n: int, k: int) -> frozenset[int]:
        if self._used == len(self._prefix):
            raise _Branch(n, k)
        self._used += 1
        return self._prefix[self._used - 1]

    def randbelow(self, n: int) -> int:
        raise AssertionError("hands are drawn whole")


def enumerate_rolls(params: dict[str, Any]) -> Counter:
    """Every hand sequence the roll can meet, by running it: (outcome, karma_after, tests) ->
    probability. The guess is fixed; with uniform hands any guess gives the same odds."""
    resolved = SPEC.resolve({"guess": 1, **params})
    found: Counter = Counter()
    stack: list[tuple[tuple[frozenset[int], ...], Fraction]] = [((), Fraction(1))]
    while stack:
        prefix, weight = stack.pop()
        try:
            r = SPEC.roll(_HandPath(prefix), resolved)
        except _Branch as b:
            hands = [frozenset(c) for c in itertools.combinations(range(1, b.n + 1), b.k)]
            stack.extend(((*prefix, h), weight / len(hands)) for h in hands)
            continue
        found[r.outcome, r.karma_after, len(r.tests)] += weight
    return found


def exact(**params) -> dict[str, Any]:
    return engine.odds("fingers", **params)["exact"]


BRUTE_CASES = [
    {"winners": 2, "choices": 5},
    {"winners": 1, "choices": 2, "karma": 5},
    {"winners": 0, "choices": 3, "karma": 2},
    {"winners": 3, "choices": 3, "ailment": True, "karma": 1, "spend": 1},
    {"winners": 2, "choices": 4, "karma": 2, "spend": 1},
    {"winners": 1, "choices": 5, "karma": 4, "spend": 3, "multi_spend": True},
    {"winners": 1, "choices": 3, "ailment": True, "karma": 4},
    {"chain": "1/5,1/3"},
    {"chain": "2/5,2/4+1,1/2", "karma": 3, "ailment": True},
    {"chain": "1/4+2,0/3+1", "karma": 3, "multi_spend": True},
    {"chain": "2/5,1/4", "long_term": True, "max_tests": 4, "karma": 3},
    {"chain": "1/3,2/4", "long_term": True, "max_tests": 5, "karma": 2},
    {"winners": 0, "choices": 2, "long_term": True, "max_tests": 3, "karma": 4},
    # Long-term challenges spending karma on every test while it lasts.
    {"winners": 2, "choices": 5, "long_term": True, "max_tests": 4, "karma": 2, "spend": 1},
    {"chain": "1/4+1,2/5", "long_term": True, "max_tests": 5, "karma": 1},
    {"chain": "0/3+2,1/2+1", "long_term": True, "max_tests": 4, "karma": 3, "multi_spend": True},
    {"winners": 0, "choices": 2, "long_term": True, "max_tests": 5, "karma": 1, "spend": 1},
]


@pytest.mark.parametrize("params", BRUTE_CASES)
def test_odds_match_brute_force_enumeration_of_the_roll(params):
    found = enumerate_rolls(params)
    odds = exact(**params)
    assert sum(found.values()) == 1
    brute = sum(w for (outcome, _, _), w in found.items() if outcome == "success")
    assert Fraction(odds["success"]) == brute
    assert Fraction(odds["outcomes"]["failure"]) == 1 - brute
    karma = Counter()
    for (_, after, _), w in found.items():
        karma[str(after)] += w
    assert {k: Fraction(v) for k, v in odds["karma_after"].items()} == dict(karma)
    if params.get("long_term"):
        tests = Counter()
        for (_, _, made), w in found.items():
            tests[str(made)] += w
        assert {k: Fraction(v) for k, v in odds["tests"].items()} == dict(tests)


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_odds_fingers", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_grid_is_within_the_asked_size(bench):
    assert 15 <= len(bench.GRID) <= 40
    for params in bench.GRID:
        SPEC.resolve(params)


def test_odds_match_icepool_on_the_bench_grid(bench):
    for params in bench.GRID:
        assert engine.odds("fingers", **params)["success"] == pytest.approx(
            bench.icepool_success(params), abs=1e-12), params


def test_every_k_of_n_matches_icepool_dealing_from_a_deck(bench):
    for n in range(2, 6):
        for k in range(0, n + 1):
            for ailment in (False, True):
                params = {"winners": k, "choices": n, "ailment": ailment}
                assert engine.odds("fingers", **params)["success"] == pytest.approx(
                    bench.icepool_success(params), abs=1e-12), params


def test_distributions_sum_to_one():
    for params in [*BRUTE_CASES, {"chain": "1/5,1/5,1/5", "long_term": True}]:
        odds = exact(**params)
        truncated = Fraction(engine.odds("fingers", **params)["truncated"])
        assert sum(Fraction(v) for v in odds["outcomes"].values()) == 1
        total = sum(Fraction(v) for v in odds["karma_after"].values())
        if params.get("long_term") and not params.get("max_tests"):
            assert 0 < 1 - total <= Fraction(1, 10**15) and truncated > 0
        else:
            assert total == 1 and truncated == 0
        assert all(0 <= int(k) <= 5 for k in odds["karma_after"])


def test_success_rises_with_winners_and_spend_and_falls_with_choices():
    for n in range(2, 6):
        ps = [Fraction(exact(winners=k, choices=n)["success"]) for k in range(0, n + 1)]
        assert ps == sorted(ps) and ps[0] == 0 and ps[-1] == 1
    for k in range(0, 3):
        ps = [Fraction(exact(winners=k, choices=n)["success"]) for n in range(max(k, 2), 6)]
        assert ps == sorted(ps, reverse=True)
    ps = [Fraction(exact(winners=0, choices=5, karma=5, spend=s, multi_spend=True)["success"])
          for s in range(0, 6)]
    assert ps == sorted(ps)
    ps = [Fraction(exact(chain="1/5,1/3", long_term=True, max_tests=m)["success"])
          for m in range(1, 30)]
    assert ps == sorted(ps) and ps[0] == 0 and ps[1] == Fraction(1, 15)


def test_every_link_in_a_chain_lowers_the_odds():
    # "multiple challenges can quickly approach impossible odds"
    ps = [Fraction(exact(chain=",".join(["4/5"] * m))["success"]) for m in range(1, 11)]
    assert ps == [Fraction(4, 5) ** m for m in range(1, 11)]


challenges = st.tuples(st.integers(2, 5), st.integers(0, 5), st.integers(0, 1)).map(
    lambda t: (min(t[1], t[0]), t[0], t[2]))


@settings(max_examples=60, deadline=None)
@given(st.lists(challenges, min_size=1, max_size=10), st.integers(0, 5), st.booleans())
def test_chain_odds_are_the_product(links, karma, ailment):
    spend = sum(s for _, _, s in links)
    assume(spend <= 5)
    karma = max(karma, spend)  # the player must hold the karma the chain spends
    # karma past every finger is refused (it would buy nothing), so no link is over-spent
    assume(all(k + s <= (min(5, n + 1) if ailment else n) or not s for k, n, s in links))
    chain = ",".join(f"{k}/{n}" + (f"+{s}" if s else "") for k, n, s in links)
    want = Fraction(1)
    for k, n, s in links:
        n = min(5, n + 1) if ailment else n
        want *= Fraction(min(n, k + s), n)
    assert Fraction(exact(chain=chain, karma=karma, ailment=ailment)["success"]) == want


@settings(max_examples=80, deadline=None)
@given(n=st.integers(2, 5), k=st.integers(0, 5), karma=st.integers(0, 5), spend=st.integers(0, 5),
       guess=st.integers(1, 5), data=st.data())
def test_single_roll_follows_the_rules(n, k, karma, spend, guess, data):
    k, guess = min(k, n), min(guess, n)
    spend = min(spend, karma, n - k)  # karma past every finger is refused
    winning = min(n, k + spend)
    fixed = data.draw(st.lists(st.integers(1, n), min_size=winning, max_size=winning,
                               unique=True))
    r = engine.roll("fingers", winners=k, choices=n, karma=karma, spend=spend,
                    multi_spend=True, guess=guess, winners_set=fixed)
    assert r["success"] is (guess in fixed)
    assert r["winners"] == sorted(fixed) == r["dice"]
    earned = 0 if r["success"] or spend else 1
    assert r["karma_after"] == min(5, karma - spend + earned)
    assert r["automatic"] is (winning in (0, n))


def test_chi_square_100k_seeded_hands_are_uniform_k_subsets():
    params = SPEC.resolve({"winners": 2, "choices": 5, "guess": 1})
    dice = seeded_dice(b"fingers-chi2")
    n = 100_000
    seen = Counter()
    for _ in range(n):
        seen[tuple(SPEC.roll(dice, params).winners)] += 1
    subsets = list(itertools.combinations(range(1, 6), 2))
    assert len(subsets) == comb(5, 2)
    assert chi_square_p(seen, {s: Fraction(1, len(subsets)) for s in subsets}, n) > 1e-4
    won = sum(count for s, count in seen.items() if 1 in s)
    p = Fraction(exact(winners=2, choices=5)["success"])
    assert chi_square_p({"success": won, "failure": n - won},
                        {"success": p, "failure": 1 - p}, n) > 1e-4


def test_chi_square_seeded_long_term_tests_agree_with_exact_odds():
    params = {"chain": "1/3,1/2", "long_term": True, "max_tests": 6}
    resolved = SPEC.resolve({**params, "guess": 1})
    dice = seeded_dice(b"fingers-chi2-long")
    n = 30_000
    seen = Counter(str(len(SPEC.roll(dice, resolved).tests)) for _ in range(n))
    expected = {k: Fraction(v) for k, v in exact(**params)["tests"].items()}
    assert chi_square_p(seen, expected, n) > 1e-4
