"""What a SystemSpec keeps: ``known_odds`` gives exactly ``odds`` and stays bounded, and
``derived`` values are made once per spec and never shared with a changed copy."""

from __future__ import annotations

import dataclasses

import pytest

from engine.systems import ODDS_KEPT, get, ids


@pytest.mark.parametrize("system", ids())
def test_known_odds_are_the_odds(system: str) -> None:
    spec = get(system)
    params = spec.resolve({})
    assert spec.known_odds(params) == spec.odds(params)
    assert spec.known_odds(params) is spec.known_odds(params)  # kept, not computed again


def test_known_odds_follow_every_parameter() -> None:
    spec = get("d6cv")
    for cv in range(1, 20):
        params = spec.resolve({"stat": 5, "cv": cv})
        assert spec.known_odds(params) == spec.odds(params), cv


def test_known_odds_keep_at_most_odds_kept_settings() -> None:
    spec = dataclasses.replace(get("d6cv"))  # a copy of its own: the shared spec stays as it was
    for n in range(ODDS_KEPT + 10):
        spec.known_odds(spec.resolve({"stat": n % 16, "cv": 1 + n // 16}))
    assert 0 < len(spec._odds) <= ODDS_KEPT


def test_a_value_that_cannot_be_a_key_is_computed_each_time() -> None:
    spec = get("d6cv")
    params = {**spec.resolve({}), "unhashable": []}
    assert spec.known_odds(params) == spec.odds(params)


def test_derived_values_are_made_once_and_not_copied_with_the_spec() -> None:
    spec = dataclasses.replace(get("infinity"))
    made = []
    first = spec.derived("test", lambda s: made.append(s) or len(made))
    assert spec.derived("test", lambda s: made.append(s) or len(made)) == first == 1
    copy = dataclasses.replace(spec, title="other")
    assert copy.derived("test", lambda s: 42) == 42
