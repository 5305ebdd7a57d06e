"""The dice session on the panel: the commitment the hardware reports (SESSION events) in
short on the setup and settings screens and in full on its own view, and the reveal asked
for from the settings menu (ROLL twice), never during a finger guess."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from engine.panel import sessions
from engine.panel.machine import PanelConfig
from engine.panel.menu import Item
from engine.panel.model import Event, EventKind
from engine.panel.slots import PlayerSlot
from engine.panel.state import Mode
from engine.panel.view import PAGE_SECONDS, render
from tests.engine.panel.driver import FIELD, MINUS, MODE, PLUS, ROLL, Panel

A = hashlib.sha256(b"session a").hexdigest()
B = hashlib.sha256(b"session b").hexdigest()


def _session(panel: Panel, text: str):
    return panel.send(Event(EventKind.SESSION, text=text), 0.0)


def _menu(panel: Panel, item: Item) -> None:
    if panel.state.mode is not Mode.SETTINGS:
        panel.hold(MODE)
        panel.release(MODE)
    for _ in panel.state.menu_items:
        if panel.state.item is item:
            return
        panel.tap(FIELD)
    raise AssertionError(f"no {item} in the menu")


def _requests(panel: Panel) -> list[str]:
    return [fx.request for fx in panel.effects if fx.request is not None]


# --- the text of a SESSION event ------------------------------------------------------------


def test_session_texts_round_trip() -> None:
    assert sessions.parse(sessions.committed(A)) == sessions.News(commitment=A)
    assert sessions.parse(sessions.revealed(A)) == sessions.News(revealed=A)
    assert sessions.parse(sessions.committed(A.upper())).commitment == A
    why = "only 12 of the 256 bits a session needs could be credited; no roll"
    assert sessions.parse(sessions.unavailable(why)) == sessions.News(why=why)
    # a reason that would read as a commitment is kept from doing so
    assert sessions.parse(sessions.unavailable(A)).why == f"no session: {A}"
    assert sessions.parse(sessions.unavailable("")).why == "no session open"
    assert sessions.short(A) == "#" + A[:8]
    assert "".join(sessions.lines(A)) == A and [len(x) for x in sessions.lines(A)] == [16] * 4


@pytest.mark.parametrize("bad", ["", "abc", A[:-1], A + "0", "g" * 64])
def test_a_commitment_must_be_64_hex_digits(bad: str) -> None:
    with pytest.raises(ValueError, match="64 hex digits"):
        sessions.committed(bad)
    assert sessions.parse(bad).commitment == ""


# --- showing the commitment -----------------------------------------------------------------


def test_without_sessions_nothing_is_shown() -> None:
    panel = Panel()
    assert panel.screen.lines[-1] == "P1"
    _menu(panel, Item.SESSION)
    assert ">session none" in panel.screen.lines
    panel.tap(ROLL)
    assert panel.screen.kind == "settings"
    assert "dice have no sessions" in panel.screen.lines
    assert _requests(panel) == []


def test_the_commitment_is_on_the_setup_screen_once_reported() -> None:
    panel = Panel(PanelConfig(systems=("fingers", "infinity")))
    effects = _session(panel, A)
    assert effects.screen is not None  # the picture changed at once
    footer = panel.screen.lines[-2]
    assert footer == "P1 karma 0" + " " * (21 - 10 - 9) + "#" + A[:8]
    assert len(footer) == 21
    assert panel.screen.lines[-1] == "no table seed"  # under the commitment's digits
    assert panel.dice.calls == 0  # a session event draws nothing
    panel.tap(MODE)
    assert panel.screen.lines[-2].endswith("#" + A[:8])


def test_a_long_player_line_keeps_its_words_and_puts_the_commitment_under_them() -> None:
    panel = Panel(PanelConfig(systems=("immortal",)))
    _session(panel, A)
    locked = PlayerSlot(values={"immortal": {"locked:skill_locked": (1, 2, 3, 4, 5)}})
    state = replace(panel.state, players=(locked, *panel.state.players[1:]))
    footer = render(state).screen.lines[-3:]
    # wrapped onto two lines, not cut; the commitment's digits and the table seed under them,
    # the fourth line on the footer's next page
    assert footer == ("P1 skill slot locked", "1,2,3,4,5", "#" + A[:8])
    assert render(replace(state, now=state.now + PAGE_SECONDS)).screen.lines[-1] == "no table seed"
    assert "~" not in "".join(footer)


def test_the_settings_menu_shows_it_short_and_roll_shows_it_whole() -> None:
    panel = Panel()
    _session(panel, A)
    _menu(panel, Item.SESSION)
    assert panel.screen.lines[0] == ">session #" + A[:8]
    panel.tap(ROLL)
    screen = panel.screen
    assert screen.kind == "session" and screen.title == "commitment"
    assert screen.lines[:4] == sessions.lines(A)
    assert "".join(screen.lines[:4]) == A
    assert screen.text()[:2] == ["commitment", A[:16]]  # what a 16x2 display shows
    assert all(len(line) <= 21 for line in screen.lines) and len(screen.lines) <= 7
    assert panel.leds == (0.0,) * 5
    assert panel.dice.calls == 0


@pytest.mark.parametrize("button", [MODE, FIELD, MINUS, PLUS, ROLL])
def test_any_button_leaves_the_full_view_and_does_nothing_else(button) -> None:
    panel = Panel()
    _session(panel, A)
    _menu(panel, Item.SESSION)
    panel.tap(ROLL)
    before = panel.state
    panel.press(button)
    panel.hold(button)  # its hold belongs to the press that left the view
    panel.release(button)
    after = panel.state
    assert after.mode is Mode.SETTINGS and after.item is Item.SESSION
    assert after.settings == before.settings and after.system_index == before.system_index
    assert panel.dice.calls == 0
    assert _requests(panel) == []


def test_a_new_commitment_replaces_the_old_one_wherever_it_shows() -> None:
    panel = Panel()
    _session(panel, A)
    _menu(panel, Item.SESSION)
    panel.tap(ROLL)
    _session(panel, sessions.revealed(A))  # e.g. the rotation after session_rolls
    assert panel.screen.kind == "session" and "no session open" in panel.screen.lines
    assert "revealed #" + A[:8] in panel.screen.lines
    _session(panel, B)
    assert "".join(panel.screen.lines[:4]) == B
    assert "revealed #" + A[:8] in panel.screen.lines


def test_no_session_open_says_why() -> None:
    panel = Panel()
    why = "only 24 of the 256 bits a session needs could be credited; no roll"
    _session(panel, sessions.unavailable(why))
    assert panel.screen.lines[-1] == "P1"
    _menu(panel, Item.SESSION)
    assert ">session not open" in panel.screen.lines
    panel.tap(ROLL)
    lines = panel.screen.lines
    assert panel.screen.kind == "session"
    assert " ".join(lines[:-2]) == why and lines[-2:] == ("a roll tries again", "any button: back")
    panel.tap(ROLL)
    assert panel.screen.kind == "settings"


def test_session_events_do_not_wake_the_attract_screen() -> None:
    panel = Panel(PanelConfig(animation_seconds=0, idle_seconds=10.0))
    panel.tick(11.0)
    assert panel.screen.kind == "attract"
    _session(panel, A)
    _session(panel, sessions.revealed(A))
    _session(panel, B)
    assert panel.screen.kind == "attract"
    panel.tap(ROLL)  # wakes only
    assert panel.screen.lines[-2].endswith("#" + B[:8])
    assert panel.dice.calls == 0


# --- the reveal -----------------------------------------------------------------------------


def test_reveal_asks_only_after_a_second_roll() -> None:
    panel = Panel()
    _session(panel, A)
    _menu(panel, Item.REVEAL)
    assert panel.screen.lines[0] == ">reveal seed"
    first = panel.tap(ROLL)
    assert first.request is None
    assert panel.screen.lines[0] == ">reveal seed? ROLL"
    panel.tap(FIELD)  # moving away disarms it
    for _ in range(len(panel.state.menu_items) - 1):
        panel.tap(FIELD)
    assert panel.state.item is Item.REVEAL
    assert panel.tap(ROLL).request is None
    second = panel.tap(ROLL)
    assert second.request == sessions.REVEAL
    assert _requests(panel) == [sessions.REVEAL]
    assert "revealing..." in panel.screen.lines
    assert panel.dice.calls == 0


def test_minus_plus_or_mode_disarm_the_reveal() -> None:
    for button in (MINUS, PLUS):
        panel = Panel()
        _session(panel, A)
        _menu(panel, Item.REVEAL)
        panel.tap(ROLL)
        panel.tap(button)
        assert panel.tap(ROLL).request is None
    panel = Panel()
    _session(panel, A)
    _menu(panel, Item.REVEAL)
    panel.tap(ROLL)
    panel.tap(MODE)  # leaves the menu
    _menu(panel, Item.REVEAL)
    assert panel.tap(ROLL).request is None
    assert _requests(panel) == []


def test_after_the_reveal_the_new_session_is_shown_in_full() -> None:
    """A reveal the hardware could not give the four facts of (its entry not in the log
    yet): the new session's commitment in full, as ever."""
    panel = Panel()
    _session(panel, A)
    _menu(panel, Item.REVEAL)
    panel.tap(ROLL)
    panel.tap(ROLL)
    _session(panel, sessions.revealed(A))  # what the hardware answers ...
    assert "seed revealed: in log" in panel.screen.lines
    _session(panel, B)  # ... and the next session's commitment
    screen = panel.screen
    assert screen.kind == "session"
    assert "".join(screen.lines[:4]) == B
    assert screen.lines[4:] == ("seed revealed: in log", "revealed #" + A[:8], "any button: back")
    panel.tap(MODE)
    assert panel.screen.kind == "settings" and panel.state.item is Item.REVEAL
    panel.tap(MODE)
    assert panel.screen.lines[-2].endswith("#" + B[:8])


def test_a_failed_reveal_is_shown_and_the_open_session_stays() -> None:
    panel = Panel()
    _session(panel, A)
    _menu(panel, Item.REVEAL)
    panel.tap(ROLL)
    panel.tap(ROLL)
    _session(panel, sessions.unavailable("reveal failed: disk full"))
    assert panel.screen.lines[-3:-1] == ("reveal failed: disk", "full")
    _session(panel, A)  # the hardware reports the session still open
    assert panel.screen.kind == "settings"
    assert ">reveal seed" in panel.screen.lines
    assert not panel.state.revealing and panel.state.commitment == A


def test_reveal_with_no_session_open_asks_nothing() -> None:
    panel = Panel()
    _session(panel, sessions.unavailable("not enough entropy yet"))
    _menu(panel, Item.REVEAL)
    panel.tap(ROLL)
    panel.tap(ROLL)
    assert _requests(panel) == []
    assert "no session open" in panel.screen.lines


def test_no_reveal_during_a_finger_guess() -> None:
    """Every button is a finger while the hand is hidden, and a hold opens no menu: the
    reveal cannot be asked for in the middle of a roll."""
    from tests.engine.panel.test_table_seed import tables_session

    panel = Panel(PanelConfig(systems=("fingers",), animation_seconds=0))
    tables_session(panel, A)  # the table's code set: nothing to offer
    panel.tap(ROLL)
    assert panel.state.mode is Mode.GUESS
    panel.press(MODE)  # MODE is the thumb: it is the guess
    panel.hold(MODE)
    panel.release(MODE)
    assert panel.state.mode is Mode.RESULT
    assert _requests(panel) == []
    panel = Panel(PanelConfig(systems=("fingers",), animation_seconds=0))
    _session(panel, A)
    panel.tap(ROLL)  # the session's first ROLL asks for a table seed ...
    panel.tap(ROLL)  # ... and ROLL rolls without one: the hand is hidden
    panel.hold(MODE)  # a hold alone (its press lost) opens nothing either
    assert panel.state.mode is Mode.GUESS
    assert _requests(panel) == []
