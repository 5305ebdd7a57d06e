"""The early-endings statistic (engine/verify/endings.py): its exact tail against a brute-force
sum over every outcome, its bound never below the exact tail, and the incremental state
agreeing with both."""

from __future__ import annotations

import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.verify.endings import AMBER_P, EXACT_UP_TO, RED_P, Endings, _chernoff_tail, _exact_tail, tail_p

chances = st.lists(st.sampled_from([0.0, 1 / 6, 0.25, 0.5, 0.72, 5 / 6, 0.9, 1.0]), min_size=1, max_size=9)


def brute_tail(qs: list[float], failures: int) -> float:
    """P(at least ``failures`` of the endings fail), summed over every outcome."""
    total = 0.0
    for outcome in itertools.product((False, True), repeat=len(qs)):
        if sum(outcome) >= failures:
            total += math.prod(q if failed else 1 - q for q, failed in zip(qs, outcome, strict=True))
    return total


@given(chances, st.integers(0, 10))
def test_the_exact_tail_is_the_sum_over_every_outcome(qs, failures) -> None:
    assert math.isclose(tail_p(qs, failures), brute_tail(qs, failures), rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=60)
@given(st.lists(st.sampled_from([1 / 6, 0.5, 5 / 6, 0.9]), min_size=1, max_size=40), st.integers(1, 40))
def test_the_bound_is_never_below_the_exact_tail(qs, failures) -> None:
    counted: dict[float, int] = {}
    for q in qs:
        counted[q] = counted.get(q, 0) + 1
    if failures <= len(qs):
        assert _chernoff_tail(counted, failures) >= _exact_tail(counted, failures) * (1 - 1e-9)


@given(st.lists(st.tuples(st.sampled_from([1 / 6, 0.5, 5 / 6]), st.booleans()), max_size=30))
def test_the_state_carried_between_endings_gives_the_exact_tail(endings) -> None:
    e = Endings()
    for q, failed in endings:
        e = Endings.from_json(e.to_json())  # through the verifier's JSON state every time
        e.add(q, failed)
    qs = [round(q, 9) for q, _ in endings]  # chances are kept to 9 decimals
    failed = sum(1 for _, f in endings if f)
    assert math.isclose(e.p_value, tail_p(qs, failed) if qs else 1.0, rel_tol=1e-9, abs_tol=1e-15)
    assert e.count == len(endings) and e.failed == failed


def test_an_owner_who_always_ends_before_a_failure_is_flagged_then_red() -> None:
    """At 1-in-6 odds an honest ending's next roll fails 5 times in 6: every one failing is
    amber after 51 endings (p < 1e-4) and red after 76 (p < 1e-6)."""
    e, levels = Endings(), []
    for _ in range(80):
        e.add(5 / 6, True)
        levels.append(e.news())
    assert levels.index(1) + 1 == math.ceil(math.log(AMBER_P) / math.log(5 / 6))
    assert levels.index(2) + 1 == math.ceil(math.log(RED_P) / math.log(5 / 6))
    assert levels.count(1) == 1 and levels.count(2) == 1  # each level said once


def test_past_the_exact_range_the_bound_takes_over_and_stays_cautious() -> None:
    e = Endings()
    for i in range(EXACT_UP_TO + 50):
        e.add(0.5, i % 2 == 0)
    assert e.pmf == [] and e.p_value == 1.0  # half failed at even odds: nothing to say
    e.add(0.5, True)
    assert 0 < e.p_value <= 1


def test_a_chance_outside_0_to_1_is_refused() -> None:
    import pytest

    with pytest.raises(ValueError, match=r"within 0\.\.1"):
        Endings().add(1.5, True)
