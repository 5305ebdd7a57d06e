"""A result keeps a read-only copy of its parameters (engine/results.py): every system's roll
and odds, whatever the system passes in, so a caller's dict changed afterwards cannot change a
result that is shown or logged."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.results import Odds, RollResult
from engine.rng import DrbgDice
from engine.systems import get, ids
from tests.engine.panel.test_screen_words import _settings


def _assert_read_only(result: RollResult | Odds, given: dict[str, Any]) -> None:
    before = dict(result.params)
    with pytest.raises(TypeError):
        result.params["planted"] = 1  # type: ignore[index]  # the forgery: write into a result
    given["planted"] = 1  # the caller's own dict changes afterwards
    given.clear()
    assert dict(result.params) == before
    assert "planted" not in result.params


@pytest.mark.parametrize("system", ids())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_every_systems_roll_and_odds_keep_their_params_read_only(system: str, data: Any, seed: int) -> None:
    spec = get(system)
    try:
        params = spec.resolve(data.draw(_settings(spec)))
        asked = dict(params)
        odds = spec.odds(asked)
        rolled = spec.roll(DrbgDice.from_seed(b"%d" % seed), params)
    except EngineError:
        return  # a setting that cannot roll has no result
    _assert_read_only(odds, asked)
    _assert_read_only(rolled, params)


def test_a_result_built_from_a_plain_dict_freezes_it() -> None:
    given = {"cv": 5}
    result = RollResult(system="d6cv", params=given, dice=(3,), total=3, outcome="failure", success=False)
    _assert_read_only(result, given)
