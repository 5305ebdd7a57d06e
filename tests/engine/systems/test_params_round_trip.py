"""A roll's ``params`` are accepted again as they are: a replay resolves the ``params`` a log
entry holds (a JSON round trip of the roll's result) and rolls them again, so every setting a
player can make, on the panel or the command line, must give ``params`` that the system takes
back unchanged and that roll the same dice to the same result. Two settings once failed this
(issue 16: honest panel logs that replay flagged): a rating built from attribute and skill
points left the default ``rating`` beside them, and entered opponent's successes the default
``opponent_pool``; each then read as "given both"."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.results import to_jsonable
from engine.rng import DrbgDice
from engine.systems import get, ids
from tests.engine.panel.test_screen_words import _settings


def _logged(value: Any) -> Any:
    """As the roll log keeps it (JSON)."""
    return json.loads(json.dumps(to_jsonable(value)))


@pytest.mark.parametrize("system", ids())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_a_rolls_params_resolve_to_themselves_and_roll_the_same(system: str, data: Any, seed: int) -> None:
    spec = get(system)
    raw = data.draw(_settings(spec))
    try:
        params = spec.resolve(raw)
        result = spec.roll(DrbgDice.from_seed(b"%d" % seed), params)
    except EngineError:
        return  # a setting that cannot roll is never logged
    logged = _logged(result.to_dict())
    again = spec.resolve(logged["params"])
    assert _logged(again) == logged["params"]
    assert _logged(spec.roll(DrbgDice.from_seed(b"%d" % seed), again).to_dict()) == logged


@pytest.mark.parametrize(("system", "raw", "left"), [
    ("infinity", {"attribute": 6, "skill_points": 3}, "rating"),
    ("horizons", {"trait": 2, "skill": 1, "opponent_successes": 2}, "opponent_pool"),
])
def test_a_value_the_rules_take_from_elsewhere_is_none_in_params(system: str, raw: dict, left: str) -> None:
    spec = get(system)
    params = spec.resolve(raw)
    assert params[left] is None
    assert _logged(spec.resolve(_logged(params))) == _logged(params)
