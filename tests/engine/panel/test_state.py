"""``evolve``, the panel's fast ``dataclasses.replace``: the same state for any change, the
cached spec dropped exactly when the system can have changed, new values frozen."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.panel.machine import PanelConfig, initial
from engine.panel.model import Button
from engine.panel.state import Mode, PanelState, evolve
from engine.systems import ids

_BASE, _ = initial(PanelConfig(players=3), 10.0)

_changes = st.fixed_dictionaries({}, optional={
    "now": st.floats(0, 1e6),
    "mode": st.sampled_from(list(Mode)),
    "system_index": st.integers(0, len(ids()) - 1),
    "field_index": st.integers(0, 9),
    "note": st.text(max_size=12),
    "held": st.sampled_from([None, *Button]),
    "odds": st.one_of(st.none(), st.floats(0, 1)),
    "values": st.dictionaries(st.sampled_from(ids()), st.dictionaries(st.text(max_size=5), st.integers())),
    "config": st.sampled_from([_BASE.config, PanelConfig(systems=("fingers", "d6cv"), players=2)]),
})


@settings(max_examples=200, deadline=None)
@given(changes=_changes, warm=st.booleans())
def test_evolve_gives_what_replace_gives(changes: dict, warm: bool) -> None:
    state = _BASE
    if warm:
        assert state.spec  # the cached spec is in the old state's attributes
    fast, slow = evolve(state, **changes), dataclasses.replace(state, **changes)
    assert fast == slow
    assert fast.view == slow.view
    assert fast.spec is slow.spec  # a stale cache would show the old system
    assert isinstance(fast.values, MappingProxyType)
    assert all(isinstance(v, MappingProxyType) for v in fast.values.values())
    assert state == _BASE  # the old state is untouched


def test_evolve_refuses_a_field_the_state_does_not_have() -> None:
    with pytest.raises(TypeError, match="no field 'nope'"):
        evolve(_BASE, nope=1)


def test_evolve_keeps_the_spec_cache_when_the_system_stays() -> None:
    spec = _BASE.spec
    assert evolve(_BASE, note="x").__dict__["spec"] is spec
    assert "spec" not in evolve(_BASE, system_index=1).__dict__


def test_evolved_values_cannot_be_changed_in_place() -> None:
    state = evolve(_BASE, values={"d6cv": {"stat": 3}})
    assert isinstance(state, PanelState)
    with pytest.raises(TypeError):
        state.values["d6cv"]["stat"] = 4  # type: ignore[index]
