"""engine.stats: the chi-square survival function against scipy, the goodness-of-fit pooling
against the test suite's own scipy-based check, and tallies of rolls against the exact odds."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.stats import (
    Tally,
    chi_square_sf,
    counted_result,
    excluded_kind,
    gamma_q,
    goodness_of_fit,
    setting_label,
)
from tests.support import chi_square_p, seeded_dice

scipy_stats = pytest.importorskip("scipy.stats")
scipy_special = pytest.importorskip("scipy.special")


@settings(max_examples=400, deadline=None)
@given(dof=st.integers(1, 2000), statistic=st.floats(0, 5000, allow_nan=False))
def test_chi_square_sf_matches_scipy(dof, statistic) -> None:
    ours, theirs = chi_square_sf(statistic, dof), float(scipy_stats.chi2.sf(statistic, dof))
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-300)


@settings(max_examples=300, deadline=None)
@given(a=st.floats(0.01, 500), x=st.floats(0, 2000, allow_nan=False))
def test_gamma_q_matches_scipy(a, x) -> None:
    assert gamma_q(a, x) == pytest.approx(float(scipy_special.gammaincc(a, x)), rel=1e-9, abs=1e-300)


def test_known_values() -> None:
    assert chi_square_sf(3.841458820694124, 1) == pytest.approx(0.05, rel=1e-12)
    assert chi_square_sf(0, 4) == 1.0
    assert chi_square_sf(math.inf, 4) == 0.0
    assert chi_square_sf(2.0, 2) == pytest.approx(math.exp(-1), rel=1e-14)  # sf of 2 dof is exp(-x/2)


@pytest.mark.parametrize("call, shown", [
    (lambda: chi_square_sf(1.0, 0), "0"), (lambda: chi_square_sf(-1.0, 3), "-1.0"),
    (lambda: chi_square_sf(1.0, 2.5), "2.5"), (lambda: gamma_q(-2, 1.0), "-2"), (lambda: gamma_q(1, math.nan), "not"),
])
def test_bad_arguments_are_value_errors_showing_the_value(call, shown) -> None:
    with pytest.raises(ValueError, match=shown):
        call()


@settings(max_examples=200, deadline=None)
@given(probs=st.lists(st.integers(1, 50), min_size=2, max_size=8),
       counts=st.lists(st.integers(0, 200), min_size=8, max_size=8))
def test_goodness_of_fit_agrees_with_the_scipy_check(probs, counts) -> None:
    total = sum(probs)
    expected = {f"o{i}": w / total for i, w in enumerate(probs)}
    observed = {f"o{i}": counts[i] for i in range(len(probs))}
    n = sum(observed.values())
    fit = goodness_of_fit(observed, expected)
    if fit.p_value is None:
        assert n == 0 or fit.dof == 0
        return
    assert fit.p_value == pytest.approx(chi_square_p(observed, expected, n), rel=1e-9, abs=1e-300)


def test_an_impossible_outcome_makes_p_zero_and_nothing_means_no_p() -> None:
    fit = goodness_of_fit({"a": 10, "b": 1}, {"a": 1.0, "b": 0.0})
    assert (fit.p_value, fit.impossible) == (0.0, 1)
    assert goodness_of_fit({}, {"a": 0.5, "b": 0.5}).p_value is None
    assert goodness_of_fit({"a": 2, "b": 1}, {"a": 0.5, "b": 0.5}).p_value is None  # pooled into one cell


def test_which_log_entries_count() -> None:
    result = engine.roll("d6cv", stat=5, cv=7, faces=[3])
    rolled = {"kind": "roll", "roll_kind": "rolled", "session": "ab", "result": result}
    assert counted_result(rolled) == result
    assert counted_result({**rolled, "roll_kind": "entered"}) is None
    assert excluded_kind({**rolled, "roll_kind": "entered"}) == "entered"
    assert excluded_kind({**rolled, "roll_kind": "test"}) == "test"
    older = {"kind": "roll", "session": "ab", "result": result}  # before roll_kind was written
    assert counted_result(older) == result
    assert excluded_kind({"kind": "roll", "session": None, "result": result}) == "entered"
    assert excluded_kind({**rolled, "result": {"system": 3}}) == "unreadable"
    assert counted_result({"kind": "session"}) is None and excluded_kind({"kind": "session"}) is None


def test_a_fair_tally_and_a_loaded_one() -> None:
    dice = seeded_dice(b"stats")
    fair = Tally().add_all(engine.roll("infinity", rng=dice, rating=8, cr="difficult") for _ in range(2000))
    fair.add_all(engine.roll("infinity", rng=dice, rating=12, cr="easy") for _ in range(500))
    (report,) = fair.reports()
    assert report.system == "infinity" and report.rolls == 2500 and len(fair) == 2500
    assert [s.label for s in report.settings] == ["rating 8, cr 10", "rating 12, cr 5"]
    first = report.settings[0]
    odds = engine.odds("infinity", rating=8, cr=10)
    assert first.probabilities == odds["outcomes"]
    assert first.expected["failure"] == pytest.approx(2000 * odds["outcomes"]["failure"])
    assert report.fit is not None and report.fit.dof == sum(s.fit.dof for s in report.settings)
    assert report.fit.p_value > 1e-4  # this seed's rolls are fair (deterministic: no flakes)
    assert report.expected_successes == pytest.approx(2000 * odds["success"] + 500 * engine.odds(
        "infinity", rating=12, cr=5)["success"])

    loaded = Tally()
    for _ in range(200):  # a tower that always rolls a success
        loaded.add(engine.roll("d6cv", stat=5, cv=7, faces=[6]))
    (d6,) = loaded.reports()
    assert d6.settings[0].fit.p_value < 1e-20


def test_a_setting_without_odds_is_reported_not_raised() -> None:
    tally = Tally()
    tally.add({"system": "d6cv", "params": {"stat": 99}, "outcome": "success", "success": True})
    (report,) = tally.reports()
    assert report.settings[0].problem.startswith("no odds: ") and report.fit is None
    assert report.to_dict()["settings"][0]["p_value"] is None


@pytest.mark.parametrize("system, params, label", [
    ("infinity", dict(rating=8, cr="difficult"), "rating 8, cr 10"),
    ("infinity", dict(rating=8, cr="difficult", declaration=True), "rating 8, cr 10, declaration yes"),
    ("horizons", dict(trait=3, skill=2, need=3), "trait 3, skill 2, need 3"),
    ("immortal", dict(attribute=3, tn=12), "attribute 3, tn 12"),
    ("fingers", dict(choices=5, winners=2, guess=3), "choices 5, winners 2, guess 3"),
])
def test_setting_labels(system, params, label) -> None:
    assert setting_label(system, engine.roll(system, **params)["params"]) == label
