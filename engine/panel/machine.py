"""The panel state machine: ``(state, event, now) -> (state, effects)``, pure.

The hardware feeds button presses, releases, holds, encoder turns, clock ticks, status lines,
the dice session's commitment (and table seed) and what the roll log took; it draws the
screens and lights the LEDs the effects ask for, and carries out requests (a reveal, a table
seed). Time and dice are passed in: the machine never reads a clock, and it draws dice only
when a roll happens (ROLL, or a finger pressed after ROLL hid the hand). Button map and
screens: docs/panel.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine import systems
from engine.dice import DiceSource
from engine.errors import EngineError, ParameterError
from engine.panel import looks, menu, pages, sessions, slots
from engine.panel import setting as setup
from engine.panel import tableseed as seeding
from engine.panel.model import Button, Effects, Event, EventKind, Sound
from engine.panel.options import PanelConfig
from engine.panel.state import Mode, PanelState, evolve
from engine.panel.view import looks_the_same, render, rolling_frame
from engine.results import RollResult
from engine.systems import SystemSpec

__all__ = ["Mode", "PanelConfig", "PanelState", "initial", "snapshot", "step"]

#: Most hold-repeat steps one late tick may catch up on (a stalled loop must not race a value).
_MAX_CATCH_UP = 5
#: Modes in which MINUS/PLUS change a value (a result or message sits over the setup screen).
_REPEATING = frozenset({Mode.SETUP, Mode.SETTINGS, Mode.RESULT, Mode.MESSAGE})
#: Most characters of a status line kept (against a runaway source; the screens page or
#: scroll a long one, so a real status is never cut).
STATUS_MOST = 200
#: Most encoder steps taken from one TURN event.
_MAX_TURN = 50


@dataclass
class _Out:
    """What a step collects besides the new state (local to one step, never stored)."""

    sounds: list[Sound] = field(default_factory=list)
    rolled: RollResult | None = None
    request: str | None = None
    table_seed: tuple[str, str] | None = None


def initial(config: PanelConfig, now: float, *, saved: Mapping[str, Any] | None = None
            ) -> tuple[PanelState, Effects]:
    """The panel at power-on: first system's setup screen, or what ``saved`` (from
    :func:`snapshot`) remembers. Systems are loaded on first use (start-up on a Pi Zero pays
    for the first one only); their ids were checked by :class:`PanelConfig`."""
    now = float(now) if _finite(now) else 0.0
    settings = menu.from_config(config.players, config.brightness, config.animation_seconds,
                                dict(config.starts), config.speak)
    state = PanelState(
        config=config, now=now, settings=settings,
        players=tuple(slots.PlayerSlot() for _ in range(config.players)),
        values={}, last_activity=now,
    )
    if saved is not None:
        state = _restore(state, saved)
    state = _refresh(state, None)
    view = render(state)
    return evolve(state, view=view), Effects(screen=view.screen, leds=view.leds, rgb=view.rgb)


def step(state: PanelState, event: Event, now: float, *, dice: DiceSource
         ) -> tuple[PanelState, Effects]:
    """One event. Never raises for any event in any state; a roll that cannot be made
    (bad parameters, no entropy) shows a message instead."""
    now = max(float(now), state.now) if _finite(now) else state.now
    s = evolve(state, now=now)
    out = _Out()
    kind = event.kind
    if kind is EventKind.STATUS:
        s = evolve(s, status=event.text.strip()[:STATUS_MOST])
    elif kind is EventKind.SESSION:
        s = _session(s, sessions.parse(event.text))
    elif kind is EventKind.LOGGED:
        s = _logged(s, sessions.parse_logged(event.text), out)
    elif kind is EventKind.SPEECH:
        s = evolve(s, voice=event.text.strip()[:STATUS_MOST])
    elif kind is EventKind.STATS:
        from engine.panel.attract import decode as decode_day  # kiosks only: start-up time

        s = evolve(s, day=decode_day(event.text))
    elif kind is EventKind.TICK:
        ticked = _tick(s, out)
        if ticked is s and not s.asleep and state.view is not None and (
                not state.view.moving or (s.mode is Mode.ROLLING and rolling_frame(state) == rolling_frame(s))):
            # nothing happened and the picture does not move with time, or the animation is
            # between two of its frames: no new view to draw
            return evolve(s, view=state.view), Effects()
        s = ticked
    elif kind is EventKind.RELEASE:
        s = _release(s, event.button)
    else:
        s = _input(s, event, out, dice)
    return _finish(state, s, out)


def not_recorded(before: PanelState, text: str, now: float) -> tuple[PanelState, Effects]:
    """The panel as it was ``before`` a roll whose log entry could not be written, showing
    "cannot record" and ``text`` (the first 160 characters): the roll itself is never shown
    (the roll log is the truth). Its whole picture and the error sound are the effects."""
    s = evolve(before, now=now, mode=Mode.MESSAGE, message=("cannot record", text[:160]), shown_at=now,
               fingers=(), result=None, fingerprint="", view=None)
    view = render(s)
    return evolve(s, view=view), Effects(screen=view.screen, leds=view.leds, rgb=view.rgb, sounds=(looks.ERROR_SOUND,))


def snapshot(state: PanelState) -> dict[str, Any]:
    """The settings, field values and player slots as JSON-able data, for the state file;
    :func:`initial` takes it back as ``saved``."""
    return {
        "system": state.system_id,
        "settings": {
            "player": state.settings.player,
            "brightness": state.settings.brightness,
            "animation": state.settings.animation,
            "starts": dict(state.settings.starts),
            "speech": state.settings.speech,
        },
        "values": {sid: dict(v) for sid, v in state.values.items()},
        "players": [slots.to_json(p) for p in state.players],
    }


# --- events -------------------------------------------------------------------------------


def _input(s: PanelState, event: Event, out: _Out, dice: DiceSource) -> PanelState:
    """PRESS, HOLD and TURN: anything a person does."""
    s = evolve(s, last_activity=s.now)
    button = event.button
    if s.asleep:
        # The press that wakes the panel does nothing else, nor does its hold or release.
        out.sounds.append(looks.WAKE_SOUND)
        swallow = button if event.kind in (EventKind.PRESS, EventKind.HOLD) else None
        return evolve(s, asleep_at=None, swallow=swallow, held=None, mode_tap_from=None, field_tap_from=None)
    if event.kind is EventKind.TURN:
        return _turn(s, max(-_MAX_TURN, min(_MAX_TURN, event.steps)), out)
    if button is None:
        return s
    if event.kind is EventKind.HOLD:
        return s if button is s.swallow else _hold(s, button, out)
    # a new press ends any hold-repeat and anything left from the last used-up press
    s = evolve(s, swallow=None, held=None, mode_tap_from=None, field_tap_from=None)
    if s.mode is Mode.GUESS:
        return _finger(s, button, out, dice)
    if s.mode is Mode.ROLLING:
        # a press skips the animation and does nothing else, nor does its hold
        return _show_result(evolve(s, swallow=button), out)
    if s.mode is Mode.SETTINGS:
        return _settings_press(s, button, out)
    if s.mode is Mode.SESSION:
        # any button goes back to the menu and does nothing else, nor does its hold
        return evolve(s, mode=Mode.SETTINGS, swallow=button, note="")
    if s.mode is Mode.CARD:
        # any button goes on (to the new session's commitment after a reveal, else the menu)
        nxt = s.card_next if s.card_next is not Mode.SESSION or s.commitment or s.session_why else Mode.SETTINGS
        return evolve(s, mode=nxt, card_next=Mode.SETTINGS, swallow=button,
                      note=s.note if nxt is Mode.SESSION else "")
    if s.mode is Mode.TABLE_SEED:
        return _seed_press(s, button, out, dice)
    if s.mode is Mode.TURNS:
        return _next_turn(s, button, out)
    # A result or a message sits over the setup screen: every button does its usual job.
    return _setup_press(evolve(s, note=""), button, out, dice)


def _setup_press(s: PanelState, button: Button, out: _Out, dice: DiceSource) -> PanelState:
    if button is Button.MODE:
        if s.page != pages.FIRST:
            # MODE leaves a page: a flow goes back to the advanced page, that to the first
            back = pages.ADVANCED if s.page.startswith(pages.FLOW) else pages.FIRST
            return _to_page(s, back)
        count = len(s.config.systems)
        nxt = (s.system_index + 1) % count
        return evolve(s, mode=Mode.SETUP, system_index=nxt, field_index=0, page=pages.FIRST,
                       mode_tap_from=s.system_index)
    if button is Button.FIELD:
        return evolve(s, mode=Mode.SETUP, field_index=(s.field_index + 1) % len(s.rows()),
                      field_tap_from=(s.mode, s.field_index))
    if button is Button.MINUS:
        return _nudge(s, -1, out, press=True)
    if button is Button.PLUS:
        return _nudge(s, +1, out, press=True)
    if s.sessions and not s.commitment:
        # no session open yet (being opened, or it cannot be): never roll in one unseen
        out.request = sessions.OPEN
        return _opening(evolve(s, opening=True))
    if s.sessions and not seeding.tables(s):
        if seeding.offered(s):
            # the session's first ROLL: its commitment is shown, and the table may set a seed of
            # its own before anything is rolled
            return _open_seed(s, seeding.ASK, back=Mode.SETUP)
        # seeded or rolled in elsewhere before the table answered here: never the table's
        out.request = sessions.RENEW
        return evolve(s, opening=True, mode=Mode.MESSAGE, shown_at=s.now,
                      message=("new session", "this one's code was not set on these keys: a new one, its "
                                              "commitment next"))
    return _roll(s, out, dice, guess=None)


def _opening(s: PanelState) -> PanelState:
    """A ROLL found no session open: why, while the hardware opens one (its question comes as
    soon as its commitment does: :func:`_session`)."""
    if s.session_why:  # it could not be opened (yet): why; the next ROLL asks again
        title, _, why = s.session_why.partition(": ")
        if title != sessions.CANNOT_RECORD:
            title, why = "cannot roll", s.session_why
        return evolve(s, mode=Mode.MESSAGE, message=(title, why[:240]), shown_at=s.now)
    return evolve(s, mode=Mode.MESSAGE, message=("new session", "opening it: its commitment comes next"),
                  shown_at=s.now)


def _to_page(s: PanelState, page: str) -> PanelState:
    """Another setup page: going in, its first row selected; going back, the row that leads
    to the page just left."""
    offered = pages.rows(s.spec, page, s.field_values())
    index = 0
    if pages.depth(page) < pages.depth(s.page):
        back = [i for i, r in enumerate(offered) if _opens(r) == s.page]
        index = back[0] if back else 0
    return evolve(s, mode=Mode.SETUP, page=page, field_index=index)


def _opens(row: pages.Row) -> str:
    """The page a row leads to."""
    return pages.FLOW + row.name if row.kind == pages.OPEN else row.name


def _hold(s: PanelState, button: Button, out: _Out) -> PanelState:
    if s.mode in (Mode.GUESS, Mode.TABLE_SEED):
        return s  # every press there is a finger (or an answer); a hold is nothing more
    if button is Button.MODE:
        back = s.system_index if s.mode_tap_from is None else s.mode_tap_from
        moved = back != s.system_index
        return evolve(s, mode=Mode.SETTINGS, system_index=back, field_index=0 if moved else s.field_index,
                       page=pages.FIRST if moved else s.page, item_index=0, armed=None, note="",
                       held=None, mode_tap_from=None)
    if button is Button.FIELD:
        return _field_hold(s)
    if button in (Button.MINUS, Button.PLUS) and s.held is not button:
        if s.mode is Mode.ROLLING:
            return s  # the press that started this hold only skipped the animation
        sign = 1 if button is Button.PLUS else -1
        s = _change(s, sign, out)
        return evolve(s, held=button, repeat_at=s.now + s.config.hold_repeat_delay)
    return s


def _field_hold(s: PanelState) -> PanelState:
    """A held FIELD puts back what its press moved (the row, the menu item, the result it
    left), so the screen the player asked to hear again is the one on show: the hardware's
    speech reads it in full (docs/speech.md). Like MODE's hold, it changes nothing."""
    if s.field_tap_from is None:
        return s
    mode, index = s.field_tap_from
    if mode is Mode.SETTINGS:
        return evolve(s, item_index=index, field_tap_from=None)
    return evolve(s, mode=mode, field_index=index, field_tap_from=None)


def _release(s: PanelState, button: Button | None) -> PanelState:
    return evolve(
        s,
        held=None if s.held is button else s.held,
        swallow=None if s.swallow is button else s.swallow,
        mode_tap_from=None if button is Button.MODE else s.mode_tap_from,
        field_tap_from=None if button is Button.FIELD else s.field_tap_from,
    )


def _turn(s: PanelState, steps: int, out: _Out) -> PanelState:
    if s.mode in (Mode.SETUP, Mode.SETTINGS, Mode.RESULT, Mode.MESSAGE) and steps:
        return _change(s, steps, out)
    return s


def _tick(s: PanelState, out: _Out) -> PanelState:
    cfg = s.config
    if s.mode is Mode.ROLLING and s.now >= s.animate_until:
        s = _show_result(s, out)
    if s.held is not None and s.mode in _REPEATING and s.now >= s.repeat_at:
        behind = 1 + int((s.now - s.repeat_at) / cfg.hold_repeat_delay)
        steps = min(_MAX_CATCH_UP, behind)
        sign = 1 if s.held is Button.PLUS else -1
        s = _change(s, sign * steps, _Out())  # one limit beep at the press is enough
        # after a stall, repeat from now rather than racing to catch up
        nxt = s.repeat_at + behind * cfg.hold_repeat_delay if behind <= _MAX_CATCH_UP \
            else s.now + cfg.hold_repeat_delay
        s = evolve(s, repeat_at=nxt, last_activity=s.now)
    if (s.mode is Mode.RESULT and cfg.result_hold_seconds > 0
            and s.now - s.shown_at >= cfg.result_hold_seconds and not s.asleep):
        s = evolve(s, mode=Mode.SETUP)
    if (not s.asleep and s.held is None and s.mode is not Mode.ROLLING
            and s.now - s.last_activity >= cfg.idle_seconds):
        s = evolve(s, asleep_at=s.now, armed=None, note="")
    return s


# --- changing values ----------------------------------------------------------------------


def _change(s: PanelState, steps: int, out: _Out) -> PanelState:
    if s.mode is Mode.SETTINGS:
        return _adjust_setting(s, steps, out)
    return _nudge(s, steps, out)


def _nudge(s: PanelState, steps: int, out: _Out, *, press: bool = False) -> PanelState:
    """MINUS/PLUS (or a turn, or a hold's repeat) on the selected row. A row that opens a page
    acts on a press only, so a held button does not flip pages."""
    row = s.row()
    s = evolve(s, mode=Mode.SETUP)
    if row.moves:
        if not press:
            return s
        return _to_page(s, _opens(row))
    if row.kind == pages.PARAM:
        p = s.field()
        if p is None:
            return s
        old = setup.value(s, row.name)
        new = pages.nudge(p, old, steps)
        if new == old:
            out.sounds.append(looks.LIMIT_SOUND)
            return s
        return setup.with_value(s, row.name, new)
    spec = s.spec
    shape = spec.panel.lists[row.name]
    old_items = setup.items(s, row.name)
    if row.kind == pages.COUNT:
        count = min(pages.most(spec, row.name), max(0, len(old_items) + steps))
        new_items = pages.resize(shape, old_items, count)
    else:
        new_items = pages.set_part(shape, old_items, row.item, row.part, steps)
    if new_items == old_items:
        out.sounds.append(looks.LIMIT_SOUND)
        return s
    return setup.with_items(s, row.name, new_items)


def _adjust_setting(s: PanelState, steps: int, out: _Out) -> PanelState:
    new = menu.adjust(s.settings, s.item, steps, s.config.players)
    if new == s.settings:
        out.sounds.append(looks.LIMIT_SOUND)
        return evolve(s, armed=None)
    return evolve(s, settings=new, armed=None, note="")


def _settings_press(s: PanelState, button: Button, out: _Out) -> PanelState:
    if button is Button.MODE:
        return evolve(s, mode=Mode.SETUP, armed=None, note="", mode_tap_from=None)
    if button is Button.FIELD:
        return evolve(s, item_index=(s.item_index + 1) % len(s.menu_items), armed=None, note="",
                      field_tap_from=(Mode.SETTINGS, s.item_index))
    if button in (Button.MINUS, Button.PLUS):
        return _adjust_setting(s, -1 if button is Button.MINUS else 1, out)
    item = s.item
    if item is menu.Item.EXIT:
        return evolve(s, mode=Mode.SETUP, armed=None, note="")
    if item not in menu.ACTIONS:
        out.sounds.append(looks.LIMIT_SOUND)
        return s
    if item in _SESSION_ITEMS and not s.sessions:
        out.sounds.append(looks.LIMIT_SOUND)
        return evolve(s, armed=None, note="dice have no sessions")
    if item is menu.Item.SESSION:  # the commitment in full, or why no session is open
        return evolve(s, mode=Mode.SESSION, armed=None, note="")
    if item is menu.Item.TABLE_SEED:
        why = seeding.why_not(s)
        if why:
            out.sounds.append(looks.LIMIT_SOUND)
            return evolve(s, armed=None, note=why)
        # the question page first, from the menu too: its QR code is noted before any code is set
        return _open_seed(evolve(s, armed=None, note=""), seeding.ASK, back=Mode.SETTINGS)
    if item is menu.Item.REVEALED:
        if s.card is None:
            out.sounds.append(looks.LIMIT_SOUND)
            return evolve(s, armed=None, note="no session revealed yet" if not s.revealed
                          else "its reveal is not in the log yet")
        return evolve(s, mode=Mode.CARD, card_next=Mode.SETTINGS, armed=None, note="")
    if item is menu.Item.REVEAL and not s.commitment:
        out.sounds.append(looks.LIMIT_SOUND)
        return evolve(s, armed=None, note="no session open")
    if item in menu.CONFIRMED and s.armed is not item:
        return evolve(s, armed=item, note="")
    if item is menu.Item.REVEAL:
        # The menu cannot be open during a roll (a hidden hand takes every button), so this
        # is always between rolls; the hardware reveals and answers with SESSION events.
        out.request = sessions.REVEAL
        return evolve(s, armed=None, note="revealing...", revealing=True)
    if item is menu.Item.RESET:
        index = (s.settings.player - 1) % len(s.players)
        players = (*s.players[:index], slots.PlayerSlot(), *s.players[index + 1 :])
        note = f"P{s.settings.player} reset"
    else:
        players = tuple(slots.PlayerSlot() for _ in s.players)
        note = "all players reset"
    return evolve(s, players=players, armed=None, note=note)


def _session(s: PanelState, news: sessions.News) -> PanelState:
    """A SESSION event: a new commitment (its table seed, whether it has a roll), a reveal,
    or no session open. Like a status line it does not wake the panel; after a reveal the
    player asked for, the reveal's four facts are shown, then the new session's commitment in
    full (if the menu is still open). A table seed page whose session changed under it
    (another writer rolled, set a seed or revealed) is left, saying why."""
    s = evolve(s, sessions=True)
    if news.damaged:
        # ended, its kept file damaged: told in one line, over whatever is shown between rolls
        s = _seed_page_still(evolve(s, commitment="", table_seed=None, started=False, revealing=False))
        line = sessions.damaged_line(news)
        if s.mode in (Mode.SETUP, Mode.RESULT, Mode.MESSAGE):
            return evolve(s, mode=Mode.MESSAGE, message=("session damaged", line[:240]), shown_at=s.now,
                          fingers=(), session_why="")
        return evolve(s, note=line[:80], session_why="")
    if news.commitment:
        s = evolve(s, commitment=news.commitment, session_why="", table_seed=news.table_seed,
                   started=news.started)
        s = _seed_page_still(s)
        if s.opening:  # the session a ROLL asked for: its question, the QR code to photograph
            s = evolve(s, opening=False)
            if s.mode is Mode.MESSAGE and seeding.offered(s):
                return _open_seed(s, seeding.ASK, back=Mode.SETUP)
            if s.mode is Mode.MESSAGE:  # seeded or rolled in elsewhere already: not the table's either
                return evolve(s, message=("new session", "its code was not set on these keys: ROLL for a new one"),
                              shown_at=s.now)
        if s.revealing:
            s = evolve(s, revealing=False)
            if s.mode is Mode.SETTINGS:
                s = evolve(s, mode=Mode.SESSION, armed=None)
            elif s.mode is Mode.CARD:
                s = evolve(s, card_next=Mode.SESSION)
        return s
    card = sessions.card(news)
    s = evolve(s, commitment="", table_seed=None, started=False)
    s = _seed_page_still(s)
    if news.revealed:
        note = "seed revealed: in log" if s.revealing else s.note
        s = evolve(s, revealed=news.revealed, session_why="", note=note,
                   card=card if card is not None else s.card if s.card and s.card.commitment == news.revealed else None)
        if s.revealing and s.mode is Mode.SETTINGS and s.card is not None:
            s = evolve(s, mode=Mode.CARD, card_next=Mode.SETTINGS, armed=None)
        return s
    # no session open (it could not be opened, or a reveal failed): say why on the menu
    note = news.why[:80] if s.revealing else s.note
    s = evolve(s, session_why=news.why[:200], note=note, revealing=False)
    if s.opening and s.mode is Mode.MESSAGE and news.why:  # the session a ROLL asked for cannot open: why
        s = _opening(evolve(s, opening=False))
    return s


def _logged(s: PanelState, logged: sessions.Logged, out: _Out) -> PanelState:
    """A LOGGED event: the roll on show is in the log (its fingerprint), or the table seed
    asked for is not set (why)."""
    if logged.entry:
        if s.result is None:
            return s
        return evolve(s, fingerprint=logged.line, started=s.started or logged.number > 0)
    out.sounds.append(looks.ERROR_SOUND)
    s = evolve(s, answered="", answered_code=None)  # the table's code is not set: not its session yet
    title = "cannot record" if logged.unlogged else "no table seed"
    text = f"table seed not set: {logged.problem}" if logged.unlogged else logged.problem
    if s.mode is Mode.TABLE_SEED:
        s = _leave_seed(s)
    return evolve(s, mode=Mode.MESSAGE, message=(title, text[:240]), shown_at=s.now, fingers=())


# --- the table seed -----------------------------------------------------------------------


def _open_seed(s: PanelState, step: str, *, back: Mode) -> PanelState:
    shown = s.commitment if step == seeding.ASK else s.shown_for  # the question shows its QR code
    return evolve(s, mode=Mode.TABLE_SEED, seed_step=step, code=(), seed_for=s.commitment, seed_back=back,
                  note="", fingers=(), shown_for=shown)


def _leave_seed(s: PanelState) -> PanelState:
    return evolve(s, mode=s.seed_back, seed_step="", code=(), seed_for="")


def _seed_page_still(s: PanelState) -> PanelState:
    """Leave the table seed page when its session is no longer one a seed can be set for."""
    if s.mode is not Mode.TABLE_SEED:
        return s
    if s.commitment == s.seed_for and not s.started and s.table_seed is None:
        return s
    if s.commitment != s.seed_for:
        why = "a new session opened: note its commitment, then ROLL" if s.commitment else "the session was revealed"
    elif s.table_seed is not None:
        why = f"set meanwhile: {s.table_seed}"
    else:
        why = "too late: the session has a roll now"
    return evolve(_leave_seed(s), mode=Mode.MESSAGE, message=("table seed", why), shown_at=s.now)


def _seed_press(s: PanelState, button: Button, out: _Out, dice: DiceSource) -> PanelState:
    """The table seed page. Asked first (from a ROLL): PLUS, MINUS or FIELD set one, ROLL
    rolls without, MODE goes back. Then every button is a finger (thumb 1 .. pinky 5) until
    CODE_PRESSES are in; then ROLL sets it, MODE cancels, any other button starts again."""
    s = evolve(s, swallow=button)  # its hold and release belong to the page
    if s.seed_step == seeding.ASK:
        if not seeding.offered(s) or s.commitment != s.seed_for:
            return _leave_seed(s)  # no longer a session the table may answer for (said by _seed_page_still)
        if button is Button.ROLL and s.seed_back is not Mode.SETTINGS:
            # no table seed: the table's answer, on these keys; roll as the press meant to (from
            # the menu, where ROLL chose the item, it goes on to the code like PLUS)
            s = evolve(_leave_seed(s), swallow=None, answered=s.seed_for, answered_code=None)
            return _roll(s, out, dice, guess=None)
        if button is Button.MODE:
            return _leave_seed(s)
        return evolve(s, seed_step=seeding.ENTER, code=(), note="")
    if len(s.code) < seeding.CODE_PRESSES:
        code = (*s.code, button.finger)
        if len(code) == seeding.CODE_PRESSES and len(set(code)) < seeding.CODE_FINGERS:
            out.sounds.append(looks.ERROR_SOUND)
            return evolve(s, code=(), note=f"use {seeding.CODE_FINGERS} fingers or more")
        return evolve(s, code=code, note="")
    if button is Button.ROLL:
        typed = seeding.code_text(s.code)
        out.table_seed = (s.seed_for, typed)
        # the table's session once the log holds this code for it (the SESSION news that follows)
        return evolve(_leave_seed(s), answered=s.seed_for, answered_code=typed)
    if button is Button.MODE:
        return _leave_seed(s)
    return evolve(s, code=(), note="")


# --- rolling ------------------------------------------------------------------------------


def _roll(s: PanelState, out: _Out, dice: DiceSource, guess: tuple[int, ...] | None) -> PanelState:
    """Roll the current setting; for fingers the first ROLL only hides the hand."""
    spec = s.spec
    raw = setup.raw(s, spec)
    name = spec.panel.guess
    if name is not None and guess is None:
        fingers = _valid_fingers(spec, raw, ())
        if not fingers:
            return _cannot_roll(s, out, _problem(spec, {**raw, name: (1,)}) or "no finger can be picked")
        return evolve(s, mode=Mode.GUESS, fingers=fingers, note=_test_note(spec, raw, 0), result=None, guess=None,
                      guesses=())
    if name is not None:
        raw[name] = guess
    try:
        params = spec.resolve(raw)
        result = spec.roll(dice, params)
    except (EngineError, ValueError) as exc:
        return _cannot_roll(s, out, _why(exc, spec))
    s = setup.record(s, spec, result)
    out.rolled = result
    out.sounds.append(looks.ROLL_SOUND)
    first = guess[0] if guess else None
    s = evolve(s, result=result, guess=first, guesses=(), rolled_at=s.now, fingers=(), note="", fingerprint="")
    seconds = s.settings.animation_seconds
    if seconds > 0:
        return evolve(s, mode=Mode.ROLLING, animate_until=s.now + seconds)
    return _show_result(s, out)


def _finger(s: PanelState, button: Button, out: _Out, dice: DiceSource) -> PanelState:
    finger = button.finger
    if finger not in s.fingers:
        out.sounds.append(looks.ERROR_SOUND)
        return evolve(s, note=f"finger {finger} not in play")
    s = evolve(s, swallow=button)  # its hold and release belong to the guess
    guesses = (*s.guesses, finger)
    spec = s.spec
    if len(guesses) < _tests(spec, setup.raw(s, spec)):
        # a chain: one finger per test, the hand of each drawn only when all are picked
        fingers = _valid_fingers(spec, setup.raw(s, spec), guesses)
        return evolve(s, guesses=guesses, fingers=fingers or s.fingers,
                      note=_test_note(spec, setup.raw(s, spec), len(guesses)))
    return _roll(s, out, dice, guess=guesses)


def _test_note(spec: SystemSpec, raw: Mapping[str, Any], done: int) -> str:
    """``test 2 of 3`` under the fingers while a chain's guesses are made (nothing for one test)."""
    tests = _tests(spec, raw)
    return f"test {done + 1} of {tests}" if tests > 1 else ""


def _tests(spec: SystemSpec, raw: Mapping[str, Any]) -> int:
    """Fingers a guess takes: one per test of a chain (a list the guess is matched with)."""
    chain = raw.get("chain")
    return len(chain) if isinstance(chain, tuple) and chain else 1


def _show_result(s: PanelState, out: _Out) -> PanelState:
    if s.result is None:
        return evolve(s, mode=Mode.SETUP)
    if len(s.spec.panel.turns(s.result.to_dict())) > 1:
        # a group roll: the dice are drawn and logged; each ROLL now shows one participant's
        return evolve(s, mode=Mode.TURNS, turn=0, shown_at=s.now)
    out.sounds.append(looks.outcome_sound(s.result))
    return evolve(s, mode=Mode.RESULT, shown_at=s.now)


def _next_turn(s: PanelState, button: Button, out: _Out) -> PanelState:
    """ROLL shows the next participant of a group roll, after the last the combined result;
    any other button goes straight to the result and does nothing else."""
    turns = s.spec.panel.turns(s.result.to_dict()) if s.result is not None else []
    if button is Button.ROLL and s.turn + 1 < len(turns):
        out.sounds.append(looks.ROLL_SOUND)
        return evolve(s, turn=s.turn + 1, swallow=button)
    out.sounds.append(looks.outcome_sound(s.result) if s.result is not None else looks.ERROR_SOUND)
    return evolve(s, mode=Mode.RESULT, shown_at=s.now, swallow=button)


def _cannot_roll(s: PanelState, out: _Out, why: str) -> PanelState:
    out.sounds.append(looks.ERROR_SOUND)
    return evolve(s, mode=Mode.MESSAGE, message=("cannot roll", why), shown_at=s.now, fingers=())


def _valid_fingers(spec: SystemSpec, raw: Mapping[str, Any], before: tuple[int, ...]) -> tuple[int, ...]:
    """Fingers the system accepts as the next guess for this setting (its own checks decide,
    so an ailment's extra finger counts)."""
    name = spec.panel.guess or ""
    # The tests still to come are given finger 1, which every test has: otherwise the system
    # would repeat this finger for them (a guess list's last finger stands for the rest) and
    # refuse a 5 for the 1 of 5 of a chain 1/5, 1/3.
    later = (1,) * max(0, _tests(spec, raw) - len(before) - 1)
    return tuple(f for f in range(1, 6) if _problem(spec, {**raw, name: (*before, f, *later)}) is None)


def _problem(spec: SystemSpec, raw: Mapping[str, Any]) -> str | None:
    try:
        spec.resolve(raw)
    except (EngineError, ValueError) as exc:
        return _why(exc, spec)
    return None


# --- bookkeeping --------------------------------------------------------------------------


def _finish(before: PanelState, s: PanelState, out: _Out) -> tuple[PanelState, Effects]:
    s = _refresh(s, before)
    old = before.view
    view = old if old is not None and looks_the_same(before, s) else render(s)
    effects = Effects(
        screen=view.screen if old is None or view.screen != old.screen else None,
        leds=view.leds if old is None or view.leds != old.leds else None,
        rgb=view.rgb if old is None or view.rgb != old.rgb else None,
        sounds=tuple(out.sounds),
        rolled=out.rolled.to_dict() if out.rolled is not None else None,
        request=out.request,
        table_seed=out.table_seed,
    )
    return evolve(s, view=view), effects


def _refresh(s: PanelState, before: PanelState | None) -> PanelState:
    """Recompute the chance of success when the setting (system, fields, player values)
    changed; odds are exact and can take a moment, so not on every tick."""
    spec = s.spec
    if s.system_id not in s.values:  # first visit to this system
        s = evolve(s, values={**s.values, s.system_id: setup.start_values(spec)})
    if before is not None and before.system_id == s.system_id and before.values == s.values \
            and before.players == s.players and before.settings == s.settings \
            and (before.odds is not None or before.problem is not None):
        return s
    raw = setup.raw(s, spec)
    if spec.panel.guess is not None:
        raw.setdefault(spec.panel.guess, (1,))  # the chance is the same whichever finger
    try:
        params = spec.resolve(raw)
        exact = spec.known_odds(params)
    except (EngineError, ValueError) as exc:
        return evolve(s, odds=None, problem=_why(exc, spec), compared=(), no_roll="")
    advice = exact.advice
    no_roll = advice.short if advice is not None and not advice.needed else ""
    return evolve(s, odds=float(exact.success), problem=None, compared=_compared(spec, raw), no_roll=no_roll)


def _compared(spec: SystemSpec, raw: Mapping[str, Any]) -> tuple[tuple[str, float], ...]:
    """The chance with each value of the spec's ``compare`` parameter, when they differ (so
    the player sees what the choice costs); empty when they are all the same."""
    name = spec.panel.compare
    if name is None:
        return ()
    p = spec.param(name)
    values: tuple[Any, ...] = spec.panel.compare_values or ((True, False) if p.kind == "bool" else p.choices)
    out = []
    for value in values:
        try:
            chance = float(spec.known_odds(spec.resolve({**raw, name: value})).success)
        except (EngineError, ValueError):
            continue
        out.append((pages.show(p, value), chance))
    if len({round(c, 12) for _, c in out}) < 2:
        return ()
    return tuple(out)


def _restore(s: PanelState, saved: Mapping[str, Any]) -> PanelState:
    """Take back what a snapshot remembers; anything unknown or out of range is ignored."""
    if not isinstance(saved, Mapping):
        return s
    system = saved.get("system")
    index = s.config.systems.index(system) if system in s.config.systems else 0
    settings = s.settings
    raw_settings = saved.get("settings")
    if isinstance(raw_settings, Mapping):
        for name in ("player", "brightness", "animation", "speech"):
            value: Any = raw_settings.get(name)
            # each of its own type: a number is no switch, and a switch no number
            if type(value) is type(getattr(settings, name)):
                candidate = replace(settings, **{name: value})
                if menu.valid(candidate, s.config.players):
                    settings = candidate
        settings = _restored_starts(s, settings, raw_settings)
    values = {sid: dict(v) for sid, v in s.values.items()}
    raw_values = saved.get("values")
    if isinstance(raw_values, Mapping):
        for sid, entries in raw_values.items():
            if sid not in s.config.systems or not isinstance(entries, Mapping):
                continue
            values[sid] = setup.restored(systems.get(sid), entries, s.config.players)
    players = s.players
    raw_players = saved.get("players")
    if isinstance(raw_players, list):
        loaded = [slots.from_json(p) for p in raw_players[: len(players)]]
        players = (*loaded, *players[len(loaded) :])
    return evolve(s, system_index=index, settings=settings, values=values, players=players)


def _restored_starts(s: PanelState, settings: menu.Settings, raw: Mapping[str, Any]) -> menu.Settings:
    """The start values a snapshot remembers (``starts``; an older one's ``start_PARAM`` keys,
    as the config spells them), each a whole number; the menu clamps it to its system's range."""
    remembered = raw.get("starts")
    given = dict(remembered) if isinstance(remembered, Mapping) else {}
    for key, value in raw.items():
        if isinstance(key, str) and key.startswith("start_"):
            given.setdefault(key.removeprefix("start_"), value)
    starts = dict(settings.starts)
    for name, value in given.items():
        if isinstance(name, str) and type(value) is int and value >= 0:
            starts[name] = value
    candidate = replace(settings, starts=tuple(sorted(starts.items())))
    return candidate if menu.valid(candidate, s.config.players) else settings


#: Settings items that need dice with sessions.
_SESSION_ITEMS = frozenset({menu.Item.SESSION, menu.Item.TABLE_SEED, menu.Item.REVEAL, menu.Item.REVEALED})


def _why(exc: Exception, spec: SystemSpec) -> str:
    """The error in the panel's words: ``spend: cannot spend 1 karma ...``, each parameter the
    engine names as a command-line flag (``at most --choices (3)``) named by its row's label
    (``at most choices (3)``): the panel has fields, not flags."""
    if isinstance(exc, ParameterError):
        return pages.panel_words(spec, f"{pages.cli_label(spec, exc.param)}: {exc.detail}")
    return pages.panel_words(spec, str(exc))


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
