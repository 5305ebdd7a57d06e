"""Random event sequences against the real five systems: the machine never crashes, never
leaves a field or setting out of range, never draws a die without a ROLL, asks for a reveal
only on the second ROLL of "reveal seed" (never during a finger guess), and emits a screen
exactly when the picture changes."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EntropyError
from engine.panel import menu, sessions, setting, slots
from engine.panel import pages as rows
from engine.panel import tableseed as seeding
from engine.panel.machine import PanelConfig, initial, step
from engine.panel.model import Button, Event, EventKind
from engine.panel.options import offered_starts
from engine.panel.state import Mode, PanelState
from engine.panel.view import render
from engine.systems import SystemSpec, get, ids
from tests.engine.panel.driver import CountingDice
from tests.support import seeded_dice

P, H, R = EventKind.PRESS, EventKind.HOLD, EventKind.RELEASE

# ROLL weighted up and MODE holds down, so sequences reach results, guesses and messages
# rather than sitting in the settings menu.
_button_events = st.builds(
    Event,
    st.sampled_from([P, P, P, P, P, H, R, R]),
    st.sampled_from([*Button, Button.ROLL, Button.ROLL, Button.PLUS, Button.MINUS]),
)
_commitments = st.binary(min_size=32, max_size=32).map(bytes.hex)
_session_events = st.one_of(
    _commitments.map(sessions.committed),
    _commitments.map(lambda c: sessions.committed(c, table_seed="31425512", started=True)),
    _commitments.map(sessions.revealed),
    st.tuples(_commitments, _commitments, st.integers(0, 1000)).map(
        lambda t: sessions.revealed(t[0], rolls=t[2], head=t[1], table_seed="x" * 64)),
    st.text(max_size=80),  # no session open, and why (or anything at all)
).map(lambda t: Event(EventKind.SESSION, text=t))
_logged_events = st.one_of(
    st.integers(0, 1000).map(lambda n: sessions.roll_logged(n, "ab" * 32)),
    st.text(max_size=80),  # a table seed not set, and why (or anything at all)
).map(lambda t: Event(EventKind.LOGGED, text=t))
# Settings items are many FIELD presses apart: a script that holds MODE and then steps to
# "session" or "reveal seed" and presses ROLL (twice) reaches the full view and the reveal.
_to_session_item = [Event(H, Button.MODE), Event(R, Button.MODE), *[Event(P, Button.FIELD)] * 4]
_menu_walks = st.sampled_from([
    (*_to_session_item, Event(P, Button.ROLL)),
    (*_to_session_item, Event(P, Button.FIELD), Event(P, Button.ROLL), Event(P, Button.ROLL)),
])
_events = st.one_of(
    _button_events,
    _button_events,
    _button_events,
    st.just(Event(EventKind.TICK)),
    st.just(Event(EventKind.TICK)),
    st.integers(-7, 7).map(lambda n: Event(EventKind.TURN, steps=n)),
    st.text(max_size=60).map(lambda t: Event(EventKind.STATUS, text=t)),
    _session_events,
    _logged_events,
)
_gaps = st.one_of(
    st.floats(0.0, 0.6),
    st.sampled_from([0.0, 0.4, 2.0, 45.0, 400.0]),
    st.sampled_from([-1.0, math.nan]),  # a clock that goes back or breaks is tolerated
)
_configs = st.builds(
    PanelConfig,
    systems=st.sampled_from([ids(), ("fingers",), ("immortal", "fingers", "d6cv")]),
    animation_seconds=st.sampled_from([0.0, 0.3]),
    result_hold_seconds=st.sampled_from([0.0, 3.0]),
    idle_seconds=st.sampled_from([40.0, 300.0]),
    players=st.integers(1, 3),
    starts=st.integers(0, 3).map(lambda k: (("karma", k),)),
)


def _may_draw(before: PanelState, event: Event) -> bool:
    """A die may be drawn only by ROLL (on the setup, result or message screen, or asked for
    a table seed: "roll without") or by the finger pressed after ROLL hid the hand; never by a
    press that wakes the panel."""
    if event.kind is not P or before.asleep:
        return False
    if before.mode is Mode.GUESS:
        return True
    if before.mode is Mode.TABLE_SEED:
        return event.button is Button.ROLL and before.seed_step == "ask"
    return event.button is Button.ROLL and before.mode in (Mode.SETUP, Mode.RESULT, Mode.MESSAGE)


def _check_state(s: PanelState) -> None:
    cfg = s.config
    assert 0 <= s.system_index < len(cfg.systems)
    assert 0 <= s.item_index < len(s.menu_items)
    assert menu.valid(s.settings, cfg.players, offered_starts(cfg))
    assert len(s.players) == cfg.players
    assert s.page in rows.pages(s.spec)
    assert 0 <= s.field_index < len(s.rows())
    # Systems are loaded on first visit; the one on show always has its values.
    assert s.system_id in s.values
    assert set(s.values) <= set(cfg.systems)
    for sid in s.values:
        check_values(get(sid), s.values[sid], cfg.players)
    spec = s.spec
    for name in slots.player_params(spec):  # what the slots carry is always usable
        p = spec.param(name)
        for slot in s.players:
            stored = slots.stored(slot, spec, name)
            assert stored is None or p.coerce(stored) == stored
    if s.mode is Mode.GUESS:
        assert s.fingers and set(s.fingers) <= {1, 2, 3, 4, 5}
    assert s.commitment == "" or sessions.is_commitment(s.commitment)
    assert s.revealed == "" or sessions.is_commitment(s.revealed)
    assert s.sessions or not (s.commitment or s.revealed)


def check_values(spec: SystemSpec, values: Mapping[str, Any], players: int) -> None:
    """Every row's value within its range, every list within its shape."""
    assert set(values) == set(setting.start_values(spec))
    by_name = rows.params_by_name(spec)
    for name, value in values.items():
        shape = spec.panel.lists.get(name)
        if shape is not None:
            assert rows.list_items(shape, value) == value, (spec.id, name, value)
            assert len(value) <= rows.most(spec, name)
        else:
            p = rows.bounded(spec, by_name[name], players)
            assert rows.in_range(p, value), (spec.id, name, value)


def _may_request(before: PanelState, event: Event) -> bool:
    """A reveal is asked for only by the second ROLL on "reveal seed" with a session open:
    in the settings menu, so never during a roll or a finger guess."""
    return (event.kind is P and event.button is Button.ROLL and not before.asleep
            and before.mode is Mode.SETTINGS and before.item is menu.Item.REVEAL
            and before.armed is menu.Item.REVEAL and bool(before.commitment))


def _check_request(before: PanelState, event: Event, after: PanelState, request: str | None) -> None:
    if request is None:
        return
    if request == sessions.OPEN:  # a ROLL with no session open: nothing is rolled, one is asked for
        assert event.kind is P and event.button is Button.ROLL and before.sessions and not before.commitment
        assert after.mode is Mode.MESSAGE and after.result is before.result
        return
    if request == sessions.RENEW:  # a ROLL in a session that is not the table's: nothing is rolled
        assert event.kind is P and event.button is Button.ROLL and before.commitment
        assert not seeding.tables(before) and not seeding.offered(before)
        assert after.mode is Mode.MESSAGE and after.opening and after.result is before.result
        return
    assert request == sessions.REVEAL
    assert _may_request(before, event), (str(event), before.mode, before.item, before.armed)
    assert Mode.GUESS not in (before.mode, after.mode)


def _check_table_seed(before: PanelState, event: Event, asked: tuple[str, str] | None) -> None:
    """A table seed is asked for only by ROLL on the table seed page with its code complete,
    for the session the page was opened for, before the session's first roll."""
    if asked is None:
        return
    commitment, text = asked
    assert event.kind is P and event.button is Button.ROLL and before.mode is Mode.TABLE_SEED
    assert commitment == before.seed_for == before.commitment and before.table_seed is None and not before.started
    assert len(text) == 8 and set(text) <= set("12345") and len(set(text)) >= 3


def _check_view(s: PanelState) -> None:
    assert s.view is not None
    assert s.view == render(s)
    screen = s.view.screen
    assert len(screen.title) <= 21
    # a result longer than the screen pages (the renderer shows page ``screen.page``)
    # the reveal's four facts are a QR code on the OLED; their text is for text displays
    assert len(screen.lines) <= 7 or screen.kind in ("result", "reveal", "card")
    assert len(screen.foot) <= 21
    assert all(len(line) <= 10 for line in screen.beside), screen.beside
    assert all(len(line) <= 21 for line in screen.lines), screen.lines
    assert screen.big is None or len(screen.big) <= 10
    assert 0 < screen.contrast <= 1
    assert all(0 <= v <= 1 for v in s.view.leds)
    assert all(0 <= v <= 1 for v in s.view.rgb)
    if screen.odds is not None:
        assert 0 <= screen.odds <= 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=_configs, script=st.lists(st.tuples(_events, _gaps), min_size=10, max_size=70),
       walks=st.lists(st.tuples(st.integers(0, 70), _menu_walks), max_size=3),
       seed=st.binary(min_size=1, max_size=4))
def test_random_sequences(config: PanelConfig, script: list[tuple[Event, float]],
                          walks: list[tuple[int, tuple[Event, ...]]], seed: bytes) -> None:
    for at, walk in sorted(walks, key=lambda w: -w[0]):
        script[at:at] = [(e, 0.05) for e in walk]
    dice = CountingDice(seeded_dice(seed))
    now = 1000.0
    state, _ = initial(config, now)
    _check_state(state)
    for event, gap in script:
        now += gap
        before, calls = state, dice.calls
        state, effects = step(state, event, now, dice=dice)
        drew = dice.calls > calls
        if drew or effects.rolled is not None:
            assert _may_draw(before, event), (str(event), before.mode)
        if state.mode is Mode.GUESS and before.mode is not Mode.GUESS:
            assert event.kind is P and event.button is Button.ROLL
        _check_request(before, event, state, effects.request)
        _check_table_seed(before, event, effects.table_seed)
        assert before.view is not None and state.view is not None
        assert (effects.screen is not None) == (state.view.screen != before.view.screen)
        if effects.screen is not None:
            assert effects.screen == state.view.screen
        assert state.now >= before.now
        _check_state(state)
        _check_view(state)


class _Broken:
    """A dice source whose entropy has failed its health test."""

    def randbelow(self, n: int) -> int:
        raise EntropyError("hwrng", "repetition count test failed")


@settings(max_examples=25, deadline=None)
@given(script=st.lists(st.tuples(_button_events, st.floats(0.0, 1.0)), max_size=40))
def test_failed_entropy_never_rolls_and_never_crashes(script: list[tuple[Event, float]]) -> None:
    state, _ = initial(PanelConfig(animation_seconds=0), 0.0)
    now = 0.0
    for event, gap in script:
        now += gap
        state, effects = step(state, event, now, dice=_Broken())
        assert effects.rolled is None
        assert state.result is None
        _check_view(state)


def test_failed_entropy_is_shown() -> None:
    state, _ = initial(PanelConfig(animation_seconds=0), 0.0)
    state, effects = step(state, Event(P, Button.ROLL), 1.0, dice=_Broken())
    assert effects.screen is not None and effects.screen.kind == "message"
    assert "repetition count" in " ".join(effects.screen.lines)


def test_long_walk_reaches_every_screen_and_keeps_every_invariant() -> None:
    """A long deterministic walk (events chosen by a seeded source, not :mod:`random`)."""
    chooser = seeded_dice(b"panel-walk")
    menu_events = [Event(k, b) for k in (P, P, P, P, H, R) for b in Button]
    menu_events += [Event(P, Button.ROLL)] * 6 + [Event(EventKind.TICK)] * 8
    menu_events += [Event(EventKind.TURN, steps=n) for n in (-3, -1, 1, 3)]
    menu_events += [Event(EventKind.STATUS, text="kernel ok")]
    menu_events += [Event(EventKind.SESSION, text=t) for t in (
        sessions.committed("ab" * 32), sessions.revealed("ab" * 32), sessions.committed("cd" * 32),
        sessions.unavailable("not enough entropy"), sessions.revealed("cd" * 32, rolls=4, head="ef" * 32),
        sessions.committed("12" * 32, table_seed="31425512"), sessions.committed("34" * 32, started=True))]
    menu_events += [Event(EventKind.LOGGED, text=t) for t in (
        sessions.roll_logged(3, "ef" * 32), sessions.roll_logged(0, "ef" * 32), sessions.seed_not_logged("disk full"))]
    gaps = (0.0, 0.05, 0.1, 0.4, 1.0, 50.0, 150.0)
    config = PanelConfig(animation_seconds=0.3, idle_seconds=120.0, result_hold_seconds=5.0)
    dice = CountingDice(seeded_dice(b"panel-walk-dice"))
    now = 0.0
    state, _ = initial(config, now)
    seen: set[str] = set()
    for _ in range(4000):
        event = menu_events[chooser.randbelow(len(menu_events))]
        now += gaps[chooser.randbelow(len(gaps))]
        before, calls = state, dice.calls
        state, effects = step(state, event, now, dice=dice)
        if dice.calls > calls or effects.rolled is not None:
            assert _may_draw(before, event)
        _check_request(before, event, state, effects.request)
        _check_table_seed(before, event, effects.table_seed)
        assert (effects.screen is not None) == (state.view.screen != before.view.screen)
        _check_state(state)
        _check_view(state)
        seen.add(state.view.screen.kind)
    assert seen >= {"setup", "rolling", "result", "guess", "reveal", "settings", "message", "attract", "seed"}


def test_systems_are_set_up_on_first_visit_only() -> None:
    # Start-up on a Pi Zero pays for the first system; MODE brings in the next.
    s, _ = initial(PanelConfig(), 0.0)
    assert set(s.values) == {ids()[0]}
    s, _ = step(s, Event(EventKind.PRESS, Button.MODE), 1.0, dice=CountingDice(seeded_dice(b"lazy")))
    assert set(s.values) == set(ids()[:2])


def test_attract_lines_fit_beside_the_wander() -> None:
    # The picture wanders up to ATTRACT_X pixels right; every line must still fit 128 pixels.
    from engine.panel import screens
    from engine.panel.view import ATTRACT_X

    screen = screens.attract(ids(), 0, (ATTRACT_X, 0), "kernel ok, hwrng ok, buttons 12/128", 1.0)
    assert all(len(line) * 6 + ATTRACT_X <= 128 for line in screen.lines)


_PAGES = [(sid, page) for sid in ids() for page in rows.pages(get(sid))]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(_PAGES),
       script=st.lists(st.tuples(st.one_of(_button_events, _button_events, st.just(Event(EventKind.TICK)),
                                           st.integers(-30, 30).map(lambda n: Event(EventKind.TURN, steps=n))),
                                 st.sampled_from([0.0, 0.05, 0.5, 2.0])), min_size=5, max_size=60),
       players=st.integers(1, 4))
def test_random_presses_on_every_page_keep_every_value_in_range(
        where: tuple[str, str], script: list[tuple[Event, float]], players: int) -> None:
    """Start on a flow's page (lists given items first), then anything: no value, list item
    or carried track ever leaves its range, and the machine never raises."""
    from tests.engine.panel.driver import Panel

    system, page = where
    panel = Panel(PanelConfig(animation_seconds=0, players=players), seed=b"pages")
    panel.to_system(system)
    panel.to_page(page)
    for name in get(system).panel.lists:
        if rows.page_of(get(system), name) == page and get(system).panel.lists[name].fixed is None:
            panel.to_row(rows.Row(rows.COUNT, name))
            for _ in range(12):  # past the most items: the count stops there
                panel.press(Button.PLUS)
    _check_state(panel.state)
    for event, gap in script:
        panel.send(event, gap)
        _check_state(panel.state)
        _check_view(panel.state)
