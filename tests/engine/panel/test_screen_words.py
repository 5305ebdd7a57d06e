"""No screen says ``None``, ``nan``, ``{`` or a Python repr: random walks through every page
and flow of the five systems, and the result of random settings of every parameter the panel
offers (an immortal automatic success, an opponent total typed in, a Volley, a chain ...).
The flow scripts' transcripts are checked in tests/hardware/test_sim_flows.py."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.panel import pages, screens
from engine.panel.machine import PanelConfig, initial, step
from engine.panel.model import Button, Event, EventKind, Screen
from engine.params import Param
from engine.rng import DrbgDice
from engine.systems import SystemSpec, get, ids
from tests.engine.panel.words import check_lines, wrong_words

P = EventKind.PRESS


def _screen_lines(screen: Screen) -> list[str | None]:
    return [screen.title, screen.big, *screen.lines]


def test_the_check_finds_what_it_looks_for() -> None:
    for bad in ("immortal None vs 15", "opp. None+None dNone", "chance nan%", "{'a': 1}", "yes True",
                "(1, 2)", "[3, 4]", "Related(rating=8, cr=0)", "()", "Fraction(1, 3)"):
        assert wrong_words(bad), bad
    for good in ("immortal auto vs 15", "#1 1/3 [1] pick 1 ok", "hot 3 cold 7 +3", "winners 1 3",
                 "cannot roll: '6/5' is not a challenge", "41 = base 21 +2", "+18 weapon", "opp. total 13"):
        assert not wrong_words(good), good


def _walk(seed: int, steps: int = 220) -> list[Screen]:
    """Presses, holds and releases that wander into the advanced page and every flow page
    (PLUS on ``more ...`` and on a flow's row), roll, pick fingers and open the settings."""
    rng = random.Random(seed)
    config = PanelConfig(systems=ids(), animation_seconds=rng.choice([0.0, 0.3]), players=rng.randint(1, 3))
    state, _ = initial(config, 0.0)
    dice = DrbgDice.from_seed(b"screen words %d" % seed)
    now, seen = 0.0, []
    buttons = [Button.FIELD] * 4 + [Button.PLUS] * 4 + [Button.MINUS] * 2 + [Button.MODE, Button.ROLL, Button.ROLL]
    for _ in range(steps):
        kind = rng.choice([P] * 5 + [EventKind.HOLD, EventKind.RELEASE])
        now += rng.choice([0.05, 0.3, 1.0, 2.5])
        state, _ = step(state, Event(kind, rng.choice(buttons)), now, dice=dice)
        state, _ = step(state, Event(EventKind.TICK), now + 0.35, dice=dice)
        assert state.view is not None
        seen.append(state.view.screen)
    return seen


@pytest.mark.parametrize("seed", range(40))
def test_no_screen_of_a_random_walk_says_a_python_value(seed: int) -> None:
    for n, screen in enumerate(_walk(seed)):
        check_lines(_screen_lines(screen), f"walk {seed} step {n} ({screen.kind})")


# --- results of random settings -----------------------------------------------------------


def _value(draw: Any, p: Param) -> Any:
    if p.kind == "int":
        lo = p.lo if p.lo is not None else -99
        hi = p.hi if p.hi is not None else 99
        return draw(st.one_of(st.sampled_from([lo, hi, p.default if isinstance(p.default, int) else lo]),
                              st.integers(lo, hi)))
    if p.kind == "bool":
        return draw(st.booleans())
    return draw(st.sampled_from(p.choices))


@st.composite
def _settings(draw: Any, spec: SystemSpec) -> dict[str, Any]:
    """Values for every parameter the panel sets: fields, and lists item by item as their
    flow page builds them; each left at its default half the time."""
    raw: dict[str, Any] = {}
    for p in spec.params:
        if p.name == spec.panel.guess:
            continue
        shape = spec.panel.lists.get(p.name)
        if shape is not None:
            count = shape.fixed or draw(st.integers(0, min(3, pages.most(spec, p.name))))
            items = tuple(tuple(draw(st.integers(part.lo, part.hi)) for part in shape.parts) for _ in range(count))
            if items and draw(st.booleans()):
                raw[p.name] = pages.as_param(shape, items)
        elif p.kind != "list" and draw(st.booleans()):
            raw[p.name] = _value(draw, p)
    if spec.panel.guess is not None:
        raw[spec.panel.guess] = (draw(st.integers(1, 5)),)
    return raw


@pytest.mark.parametrize("system", ids())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_no_result_of_any_setting_says_a_python_value(system: str, data: Any, seed: int) -> None:
    spec = get(system)
    raw = data.draw(_settings(spec))
    try:
        params = spec.resolve(raw)
        result = spec.roll(DrbgDice.from_seed(b"%d" % seed), params)
    except EngineError:
        return  # a setting the panel would show as "cannot roll" (checked by the walks)
    screen = screens.result(result, spec.panel, 1, "karma 2", 1.0)
    check_lines(_screen_lines(screen), f"{system} {raw}")
    data_dict = result.to_dict()
    for who, lines in spec.panel.turns(data_dict):
        check_lines([who, *lines], f"{system} {raw} (turn)")
    check_lines([spec.panel.hidden(params, 0)], f"{system} {raw} (hidden hand)")
