"""What a panel state looks like: the screen, the LED row and the RGB LED.

A pure function of the state (and its clock), so effects are just the difference between the
view before and after a step, and the picture after waking is exactly the one before sleep.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from engine import systems
from engine.panel import looks, menu, pages, screens, sessions, slots
from engine.panel import setting as setup
from engine.panel import tableseed as seeding
from engine.panel.model import Screen
from engine.panel.state import Mode, PanelState, View

#: Seconds each page of a result too long for the screen stays up.
PAGE_SECONDS = 2.0
#: Seconds per character a large word too wide for the screen scrolls by.
SCROLL_SECONDS = 0.4

#: Attract picture's travel in pixels: small enough to stay on a 128x64 screen.
ATTRACT_X, ATTRACT_Y = 16, 12
_ATTRACT_DIM = 0.25  # of the set brightness


#: Fields no still picture shows (the clock, and what a held or swallowed button is doing).
_UNSHOWN = frozenset({"now", "last_activity", "held", "repeat_at", "swallow", "mode_tap_from", "field_tap_from",
                      "view"})
_SHOWN = tuple(f.name for f in fields(PanelState) if f.name not in _UNSHOWN)


def looks_the_same(before: PanelState, s: PanelState) -> bool:
    """Whether ``render(s)`` would be ``before``'s view: a still picture (``View.moving``)
    and no field it shows changed. Most releases and many presses change nothing on screen,
    and drawing the view is most of what such a step would cost."""
    if before.view is None or before.view.moving or s.asleep or before.asleep:
        return False
    return all(getattr(before, name) == getattr(s, name) for name in _SHOWN)


def render(s: PanelState) -> View:
    contrast = s.settings.contrast
    if s.asleep:
        return _attract(s)
    if s.mode is Mode.SETUP:
        screen, moving = _setup(s, contrast)
        return View(screen, _ready_leds(s), looks.OFF, moving)
    if s.mode is Mode.ROLLING and s.result is not None:
        frame = rolling_frame(s)
        panel = systems.get(s.result.system).panel
        sides = panel.sides
        shown = 0 if panel.hand is not None else len(s.result.dice)  # a hand: no dice
        tumble = tuple(((frame + 1) * (7 + 2 * i) + 3 * i) % sides + 1 for i in range(shown))
        return View(screens.rolling(s.result.system, tumble, contrast), looks.chase_leds(frame), looks.OFF,
                    moving=True)
    if s.mode is Mode.RESULT and s.result is not None:
        return View(_result(s, contrast), looks.outcome_leds(s.result), looks.outcome_rgb(s.result),
                    moving=True)
    if s.mode is Mode.TURNS and s.result is not None:
        turns = s.spec.panel.turns(s.result.to_dict())
        who, lines = turns[s.turn % len(turns)]
        screen = screens.turn(s.result.system, who, s.turn, len(turns), lines, contrast)
        return View(screen, looks.chase_leds(s.turn), looks.WAITING)
    if s.mode is Mode.GUESS:
        spec = s.spec
        given = setup.raw(s, spec)
        params = {p.name: given.get(p.name, p.default) for p in spec.params if p.name in given or not p.required}
        line = spec.panel.hidden(params, len(s.guesses))
        return View(screens.guess(s.system_id, s.fingers, line, s.note, contrast),
                    looks.fingers_leds(s.fingers), looks.WAITING)
    if s.mode is Mode.SETTINGS:
        rows = [(str(item), setting_value(s, item)) for item in s.menu_items]
        notes = screens.settings_footer(s.note, s.status)
        if s.voice and s.settings.speech:  # switched on, but nothing can be heard: say why
            notes = (*screens.wrap_all(f"speech: {s.voice}"), *notes)
        page = screens.page_of(notes, screens.FOOTER_ROWS, _page(s, s.last_activity))
        screen = screens.settings(rows, s.item_index, s.armed is not None, page, contrast)
        return View(screen, looks.LEDS_OFF, looks.OFF, screens.pages_in(notes, screens.FOOTER_ROWS) > 1)
    if s.mode is Mode.SESSION:
        screen = screens.session(s.commitment, s.revealed, s.session_why, s.note, contrast)
        return View(screen, looks.LEDS_OFF, looks.OFF)
    if s.mode is Mode.TABLE_SEED:
        return _table_seed(s, contrast)
    if s.mode is Mode.CARD and s.card is not None:
        return View(screens.card(s.card, contrast, s.config.page_url), looks.LEDS_OFF, looks.OFF)
    title, text = s.message
    screen = screens.message(title or "note", text, contrast, page=_page(s, s.shown_at))
    return View(screen, looks.LEDS_OFF, looks.ERROR, len(screen.lines) > screens.ROWS)


def player_line(s: PanelState) -> str:
    """``karma 3``: what this player carries into the current system's rolls."""
    spec = s.spec
    values: dict[str, Any] = dict(slots.carried(s.slot, spec, s.settings.start_values))
    for lock in spec.panel.locks:
        numbers = slots.locked(s.slot, spec, lock)
        if numbers:
            values[f"{spec.panel.labels.get(lock.key, lock.key)} locked"] = numbers
    by_name = pages.params_by_name(spec)
    return " ".join(f"{spec.panel.label(by_name[n]) if n in by_name else n} {_brief(v)}"
                    for n, v in values.items())


def setting_value(s: PanelState, item: menu.MenuItem) -> str:
    if item is menu.Item.SESSION:
        if s.commitment:
            return sessions.short(s.commitment)
        return "not open" if s.sessions else "none"
    if item is menu.Item.TABLE_SEED:
        if not s.commitment:
            return "-"
        if s.table_seed is None:
            return "none"
        # the seed itself where the row has room (a panel code always does); else that it is set
        room = screens.WIDTH - 2 - len(str(item))
        return s.table_seed if len(s.table_seed) <= room else "set"
    if item is menu.Item.REVEALED:
        return sessions.short(s.revealed) if s.revealed else "none"
    return menu.show(s.settings, item)


def table_seed_line(s: PanelState) -> str:
    """``table seed 31425512`` or ``no table seed``: what the setup screen says of the open
    session's table seed ("" with no session open)."""
    if not s.commitment:
        return ""
    return f"table seed {s.table_seed}" if s.table_seed is not None else "no table seed"


def _table_seed(s: PanelState, contrast: float) -> View:
    """The table seed page: asked (the commitment's QR code beside the choices), then the
    finger presses (all five LEDs lit: every button is a finger)."""
    mark = sessions.short(s.seed_for)
    if s.seed_step != seeding.ENTER:
        screen = screens.seed_ask(s.seed_for, mark, contrast, from_menu=s.seed_back is Mode.SETTINGS)
        return View(screen, looks.LEDS_OFF, looks.OFF)
    screen = screens.seed_code(mark, s.code, seeding.CODE_PRESSES, s.note, contrast)
    done = len(s.code) >= seeding.CODE_PRESSES
    leds: looks.Leds = (1.0, 0.0, 0.0, 0.0, 1.0) if done else (1.0, 1.0, 1.0, 1.0, 1.0)
    return View(screen, leds, looks.WAITING)


def _brief(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value) or "-"
    return str(value)


def _setup(s: PanelState, contrast: float) -> tuple[Screen, bool]:
    """The setup screen, and whether its footer turns pages (a problem, or notes and what the
    player carries longer than their lines: shown whole, a page at a time, never cut).

    The footer is the page's notes (the rules call for no roll, what each choice of a
    compared parameter gives) above the player's line and the session's table seed. The
    notes turn pages in the rows the other two leave, so the table seed never leaves the
    screen while a note is up."""
    offered = s.rows()
    rows = [row_text(s, r) for r in offered]
    footer: tuple[str, ...]
    notes = setup_notes(s)
    if s.problem:
        footer = notes
        shown = screens.page_of(footer, screens.FOOTER_ROWS, _page(s, s.last_activity))
        moving = screens.pages_in(footer, screens.FOOTER_ROWS) > 1
    else:
        kept = session_footer(s)
        if notes and len(kept) < SETUP_FOOTER_ROWS:
            room = SETUP_FOOTER_ROWS - len(kept)
            shown = (*screens.page_of(notes, room, _page(s, s.last_activity)), *kept)
            moving = screens.pages_in(notes, room) > 1
        else:
            footer = (*notes, *kept)
            shown = screens.page_of(footer, screens.FOOTER_ROWS, _page(s, s.last_activity))
            moving = screens.pages_in(footer, screens.FOOTER_ROWS) > 1
    selected = s.field_index % len(offered) if offered else 0
    return screens.setup(page_title(s), rows, selected, s.odds, shown, contrast), moving


#: Lines under a setup page's rows when a note is up: the note's (at least one) and the
#: player's line and table seed (so three rows of the page still show).
SETUP_FOOTER_ROWS = 4


def setup_notes(s: PanelState) -> tuple[str, ...]:
    """The setup page's notes, whole: why the setting cannot roll (``! ...``); else, on the
    first page, what each choice of the compared parameter gives and that the rules call
    for no roll (and why). Speech says them with the page (engine/speech)."""
    if s.problem:
        return screens.wrap_all("! " + s.problem)
    if s.page != pages.FIRST:
        return ()
    notes = _compared(s) if s.compared else ()
    if s.no_roll:
        # the rules assume the outcome here; ROLL still rolls (the player chose to, or the GM
        # calls it adverse)
        notes = ("no roll needed:", *screens.wrap_all(s.no_roll), *notes)
    return notes


def session_footer(s: PanelState) -> tuple[str, ...]:
    """The player's line (what they carry, ``P1 karma 2``) with the session's commitment at
    the right where it fits (else on a line of its own), and the session's table seed under
    it."""
    player = f"P{s.settings.player} {player_line(s)}".rstrip()
    mark = sessions.short(s.commitment) if s.commitment else ""
    seed = table_seed_line(s)
    if mark and len(player) + 1 + len(mark) <= screens.WIDTH:
        footer: tuple[str, ...] = (screens.spread(player, mark, screens.WIDTH),)
    else:
        footer = (*screens.wrap_all(player), *((mark,) if mark else ()))
    return (*footer, *screens.wrap_all(seed)) if seed else footer


def _page(s: PanelState, since: float) -> int:
    """Which page of a text too long for its place is up: they turn every PAGE_SECONDS."""
    return int(max(0.0, s.now - since) / PAGE_SECONDS)


def _compared(s: PanelState) -> tuple[str, ...]:
    """``auto success: yes 100% no 80.0%``: what each choice of the compared parameter gives."""
    spec = s.spec
    name = spec.panel.compare or ""
    label = spec.panel.label(spec.param(name))
    text = f"{label}: " + " ".join(f"{value} {screens.percent(chance)}" for value, chance in s.compared)
    return screens.wrap_all(text)


def page_title(s: PanelState) -> str:
    if s.page == pages.FIRST:
        return s.system_id
    if s.page == pages.ADVANCED:
        return f"{s.system_id} more"
    return s.page[len(pages.FLOW):]


def row_text(s: PanelState, row: pages.Row) -> tuple[str, str]:
    """A row as (name, value): ``cr 10 difficult``, ``hostile count 2``, ``hostile1 tn 12``."""
    spec = s.spec
    if row.kind == pages.OPEN:
        return row.name, "..."
    if row.kind == pages.GO:
        return ("more", "...") if row.name == pages.ADVANCED and s.page == pages.FIRST else ("back", "")
    name = pages.label(spec, row)
    if row.kind == pages.PARAM:
        p = pages.bounded(spec, pages.params_by_name(spec)[row.name], s.config.players)
        shown = pages.show(p, setup.value(s, row.name))
        return name, f"{shown} off" if setup.left_out(s, spec, row.name) else shown
    listed = setup.items(s, row.name)
    if row.kind == pages.COUNT:
        return name, str(len(listed))
    part = spec.panel.lists[row.name].parts[row.part]
    return name, part.show(listed[row.item][row.part])


def _result(s: PanelState, contrast: float) -> Screen:
    line = player_line(s)
    result = s.result
    if result is None:
        return screens.message("note", "no roll yet", contrast)
    page = _page(s, s.shown_at)
    step = int(max(0.0, s.now - s.shown_at) / SCROLL_SECONDS)
    panel = systems.get(result.system).panel
    return screens.result(result, panel, s.settings.player, line, contrast, page=page, step=step,
                          foot=s.fingerprint)


def _ready_leds(s: PanelState) -> looks.Leds:
    # The ROLL LED says the setting can roll; the others stay dark to save the eye for results.
    return (0.0, 0.0, 0.0, 0.0, 1.0 if s.problem is None else 0.0)


def _attract(s: PanelState) -> View:
    since = s.asleep_at if s.asleep_at is not None else s.now
    frame = _frame(s.now - since, s.config.attract_step_seconds)
    contrast = max(0.05, s.settings.contrast * _ATTRACT_DIM)
    if s.day is None:
        screen = screens.attract(s.config.systems, frame // 4, bounce(frame), s.status, contrast, step=frame)
    else:  # a tower with a roll log: today's rolls against the odds, and the commitment
        from engine.panel.attract import screen as day_screen

        screen = day_screen(s.day, s.commitment, frame // 4, bounce(frame), s.status, contrast, step=frame)
    return View(screen, looks.LEDS_OFF, looks.OFF, moving=True)


def rolling_frame(s: PanelState) -> int:
    """The roll animation's frame at ``s.now``: the picture changes only when this does."""
    return _frame(s.now - s.rolled_at, s.config.animation_frame_seconds)


def _frame(elapsed: float, period: float) -> int:
    # a tick that lands on a frame boundary counts as reaching it, whatever the float rounding
    return int(max(0.0, elapsed) / period + 1e-6)


def bounce(frame: int) -> tuple[int, int]:
    """A position that wanders the whole travel, like a DVD logo: x and y bounce with
    different periods, so the picture covers every spot over time."""
    return _tri(frame * 2, ATTRACT_X), _tri(frame, ATTRACT_Y)


def _tri(n: int, span: int) -> int:
    n %= 2 * span
    return n if n <= span else 2 * span - n
