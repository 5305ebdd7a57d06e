"""No text is cut on the panel's screens (a word cut to ``COMPLIC.`` or ``ke~`` tells a
player nothing): every row's label fits beside every value it can show, and a text longer
than its place (a problem under the fields, a message, the settings notes) turns its pages,
which together hold the whole text."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.panel import pages, screens
from engine.panel.machine import PanelConfig, initial, step
from engine.panel.model import Button, Event, EventKind
from engine.panel.state import Mode, PanelState
from engine.panel.view import PAGE_SECONDS
from engine.params import Param
from engine.rng import DrbgDice
from engine.systems import SystemSpec, get, ids

PLAYERS = 6  # the most player slots: the widest "defender" row


def _values(p: Param) -> list[Any]:
    """Every value a row of ``p`` can show (the ends of a long numeric range stand for it)."""
    out: list[Any] = [None] if pages.optional(p) else []
    if p.choices:
        return [*out, *p.choices]
    if p.kind == "bool":
        return [*out, True, False]
    lo, hi = p.lo if p.lo is not None else -99, p.hi if p.hi is not None else 999
    return [*out, *range(lo, hi + 1)] if hi - lo <= 200 else [*out, lo, hi, -99, 999]


def _row_texts(spec: SystemSpec) -> list[str]:
    lists = {name: ((0,) * len(shape.parts),) for name, shape in spec.panel.lists.items()}
    texts = []
    for page in pages.pages(spec):
        for row in pages.rows(spec, page, lists):
            if row.moves:
                continue
            label = pages.label(spec, row)
            if row.kind == pages.PARAM:
                p = pages.bounded(spec, pages.params_by_name(spec)[row.name], PLAYERS)
                # a row set but not passed to the roll shows "off" after its value
                off = row.name in spec.panel.omit or row.name in spec.panel.needs
                for value in _values(p):
                    shown = pages.show(p, value)
                    texts.append(f">{label} {shown} off" if off else f">{label} {shown}")
            elif row.kind == pages.COUNT:
                texts.append(f">{label} {pages.most(spec, row.name)}")
            else:
                part = spec.panel.lists[row.name].parts[row.part]
                texts.extend(f">{label} {part.show(v)}" for v in range(part.lo, part.hi + 1))
    return texts


@pytest.mark.parametrize("system", ids())
def test_every_label_fits_beside_every_value(system: str) -> None:
    too_long = [t for t in _row_texts(get(system)) if len(t) > screens.WIDTH]
    assert not too_long, too_long


def _walk(seed: int, steps: int = 150) -> list[tuple[PanelState, Any]]:
    rng = random.Random(seed)
    config = PanelConfig(systems=ids(), animation_seconds=0.3, players=rng.randint(1, 3))
    state, _ = initial(config, 0.0)
    dice = DrbgDice.from_seed(b"no-cut %d" % seed)
    now, seen = 0.0, []
    buttons = [Button.FIELD] * 3 + [Button.PLUS] * 3 + [Button.MINUS] * 2 + [Button.MODE, Button.ROLL, Button.ROLL]
    for _ in range(steps):
        kind = rng.choice([EventKind.PRESS] * 4 + [EventKind.HOLD, EventKind.RELEASE])
        now += rng.choice([0.05, 0.3, 1.0, 2.5])
        state, _ = step(state, Event(kind, rng.choice(buttons)), now, dice=dice)
        state, _ = step(state, Event(EventKind.TICK), now + 0.01, dice=dice)
        seen.append((state, state.view.screen))
    return seen


@pytest.mark.parametrize("seed", range(40))
def test_no_screen_line_is_cut(seed: int) -> None:
    for state, screen in _walk(seed):
        for line in (screen.title, *screen.lines):
            assert "~" not in line, (state.mode, line)
            assert len(line) <= screens.WIDTH, (state.mode, line)


def _lines_over_time(state: PanelState) -> set[str]:
    """Every line the screen shows while the clock runs on through a dozen pages."""
    dice = DrbgDice.from_seed(b"pages")
    seen: set[str] = set()
    for k in range(12):
        later, _ = step(state, Event(EventKind.TICK), state.now + k * PAGE_SECONDS, dice=dice)
        seen.update(later.view.screen.lines)
    return seen


@pytest.mark.parametrize("seed", range(40))
def test_a_long_problem_or_message_is_shown_whole_a_page_at_a_time(seed: int) -> None:
    for state, _ in _walk(seed):
        if state.asleep or state.held is not None:  # a held button keeps stepping the value
            continue
        if state.mode is Mode.SETUP and state.problem:
            text = screens.wrap_all("! " + state.problem)
        elif state.mode is Mode.MESSAGE:
            text = screens.wrap_all(state.message[1])
        else:
            continue
        assert set(text) <= _lines_over_time(state), (state.mode, text)
        if state.mode is Mode.SETUP and len(text) > screens.FOOTER_ROWS:
            assert state.view.moving  # the ticks turn its pages


def test_a_long_entropy_status_is_read_whole_in_the_settings_menu_and_scrolls_when_idle() -> None:
    dice = DrbgDice.from_seed(b"status")
    status = "hwrng ok, kernel ok, buttons 37/256 bits, bridge reconnecting (serial timeout)"
    state, _ = initial(PanelConfig(idle_seconds=40.0), 0.0)
    state, _ = step(state, Event(EventKind.STATUS, text=status), 0.0, dice=dice)
    state, _ = step(state, Event(EventKind.HOLD, Button.MODE), 0.1, dice=dice)  # the settings menu
    state, _ = step(state, Event(EventKind.RELEASE, Button.MODE), 0.2, dice=dice)
    assert state.mode is Mode.SETTINGS
    assert set(screens.wrap_all(f"entropy {status}")) <= _lines_over_time(state)
    windows = []
    for k in range(400):  # asleep: the attract screen scrolls the status by
        state, _ = step(state, Event(EventKind.TICK), 41.0 + k * 0.5, dice=dice)
        windows.append(state.view.screen.lines[-1])
    assert state.asleep
    assert all("~" not in w for w in windows)
    assert all(any(word in w for w in windows) for word in status.split())
