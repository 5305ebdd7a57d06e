"""The table's seed on the panel (issue 16): offered at a session's first ROLL, entered as
eight finger presses, confirmed with ROLL and carried out by the hardware (an effect), then
shown under the commitment's digits for the rest of the session; the fingerprint a recorded
result shows; the reveal's four facts. The machine is pure: what the roll log took comes back
as SESSION and LOGGED events."""

from __future__ import annotations

import hashlib

import pytest

from engine.fingerprints import reveal_card
from engine.panel import sessions
from engine.panel.machine import PanelConfig
from engine.panel.menu import Item
from engine.panel.model import Button, Event, EventKind
from engine.panel.operator import OperatorLock, filter_event
from engine.panel.state import Mode
from tests.engine.panel.driver import FIELD, MINUS, MODE, PLUS, ROLL, Panel
from tests.engine.panel.test_session import _menu

A = hashlib.sha256(b"session a").hexdigest()
B = hashlib.sha256(b"session b").hexdigest()
H = hashlib.sha256(b"a head").hexdigest()
CODE = (Button.ROLL, Button.MODE, Button.FIELD, Button.MINUS, Button.PLUS, Button.PLUS, Button.MODE, Button.FIELD)
CODE_TEXT = "51234412"


def _session(panel: Panel, text: str):
    return panel.send(Event(EventKind.SESSION, text=text), 0.0)


def _logged(panel: Panel, text: str):
    return panel.send(Event(EventKind.LOGGED, text=text), 0.0)


def _seeds(panel: Panel) -> list[tuple[str, str]]:
    return [fx.table_seed for fx in panel.effects if fx.table_seed is not None]


def tables_session(panel: Panel, commitment: str = A, code: tuple[Button, ...] = CODE) -> None:
    """The table's own session: the panel asks its question, the table types ``code`` on the
    keys, and the hardware's SESSION news brings it back as the log holds it."""
    _session(panel, commitment)
    panel.tap(ROLL)
    panel.tap(PLUS)
    for b in code:
        panel.tap(b)
    panel.tap(ROLL)
    text = "".join(str(b.finger) for b in code)
    _session(panel, sessions.committed(commitment, table_seed=text))
    assert panel.state.mode is Mode.SETUP and panel.state.answered == commitment


def _fresh(config: PanelConfig | None = None) -> Panel:
    panel = Panel(config)
    _session(panel, A)
    return panel


# --- the SESSION and LOGGED texts ---------------------------------------------------------


@pytest.mark.parametrize("seed", ["31425512", "a  b", "seed x", "x" * 64, "~!"])
def test_session_texts_carry_the_table_seed_exactly(seed: str) -> None:
    assert sessions.parse(sessions.committed(A, table_seed=seed, started=True)) == sessions.News(
        commitment=A, table_seed=seed, started=True)
    news = sessions.parse(sessions.revealed(A, rolls=12, head=H, table_seed=seed))
    assert news == sessions.News(revealed=A, table_seed=seed, rolls=12, head=H)
    assert sessions.card(news) == sessions.Card(A, seed, 12, H)
    assert sessions.parse(sessions.committed(A)) == sessions.News(commitment=A)
    # a reason that happens to say " seed " is a reason
    why = "reveal failed: the seed is not kept"
    assert sessions.parse(sessions.unavailable(why)).why == why


@pytest.mark.parametrize("bad", ["", " x", "x ", "x" * 65, "é", "a\nb"])
def test_a_session_text_takes_only_a_table_seed_the_log_would(bad: str) -> None:
    with pytest.raises(ValueError, match="table seed"):
        sessions.committed(A, table_seed=bad)


def test_logged_texts_round_trip() -> None:
    assert sessions.parse_logged(sessions.roll_logged(12, H)) == sessions.Logged(number=12, entry=H)
    assert sessions.parse_logged(sessions.roll_logged(12, H)).line == f"#12 {H[:16]}"
    assert sessions.parse_logged(sessions.roll_logged(1000, H)).line == f"1000 {H[:16]}"  # 21 characters
    assert sessions.parse_logged(sessions.roll_logged(0, H)).line == f"hand {H[:16]}"
    assert sessions.parse_logged(sessions.seed_not_logged("No space left")) == sessions.Logged(
        problem="No space left", unlogged=True)
    assert sessions.parse_logged(sessions.seed_refused("too late")).problem == "too late"
    assert sessions.parse_logged("anything else").problem == "anything else"
    with pytest.raises(ValueError, match="hex"):
        sessions.roll_logged(1, "xyz")


# --- offered at the first ROLL ------------------------------------------------------------


def test_a_new_sessions_first_roll_asks_for_a_table_seed_and_draws_nothing() -> None:
    panel = _fresh()
    fx = panel.tap(ROLL)
    screen = panel.screen
    assert panel.state.mode is Mode.TABLE_SEED and screen.kind == "seed"
    assert screen.qr == A  # the commitment's QR code beside the choices: photographed first
    assert screen.title == f"table seed? #{A[:8]}"
    assert "PLUS: set" in screen.lines and "ROLL: none" in screen.lines
    assert screen.beside[:2] == (A[:8], A[8:16])  # 16 digits beside the QR code: 64 bits to match
    # a text display reads what the OLED draws beside the QR code (issue 29: one wording)
    assert set(screen.beside) - {""} <= set(screen.lines)
    assert panel.dice.calls == 0 and fx.rolled is None


def test_roll_on_the_question_rolls_without_a_seed() -> None:
    panel = _fresh()
    panel.tap(ROLL)
    fx = panel.tap(ROLL)
    assert panel.state.mode is Mode.RESULT and panel.dice.calls > 0
    assert _seeds(panel) == []
    assert panel.effects[-2].rolled is not None or fx.rolled is not None


def test_mode_goes_back_and_the_next_roll_asks_again() -> None:
    panel = _fresh()
    panel.tap(ROLL)
    panel.tap(MODE)
    assert panel.state.mode is Mode.SETUP and panel.state.system_index == 0  # MODE did nothing else
    panel.tap(ROLL)
    assert panel.state.mode is Mode.TABLE_SEED


def test_eight_finger_presses_and_roll_set_it_eleven_presses_in_all() -> None:
    panel = _fresh()
    panel.tap(ROLL)  # asks
    panel.tap(PLUS)  # set one
    assert panel.screen.big == "________" and "press any 8 buttons" in panel.screen.lines
    assert panel.leds == (1.0,) * 5  # every button is a finger
    for n, button in enumerate(CODE, start=1):
        panel.tap(button)
        assert panel.screen.big == CODE_TEXT[:n] + "_" * (8 - n)
    assert panel.screen.lines[:2] == ("ROLL: set it", "MODE: cancel")
    assert _seeds(panel) == []
    panel.tap(ROLL)
    assert _seeds(panel) == [(A, CODE_TEXT)]
    assert panel.state.mode is Mode.SETUP and panel.dice.calls == 0
    # what the hardware answers once the entry is in the log: shown under the commitment
    _session(panel, sessions.committed(A, table_seed=CODE_TEXT))
    assert panel.screen.lines[-1] == f"table seed {CODE_TEXT}"
    assert panel.screen.lines[-2].endswith(f"#{A[:8]}")
    panel.tap(ROLL)  # no more asking: it rolls
    assert panel.state.mode is Mode.RESULT and panel.dice.calls > 0


def test_a_code_of_one_or_two_fingers_is_refused() -> None:
    panel = _fresh()
    panel.tap(ROLL, PLUS)
    panel.tap(*[ROLL] * 8)  # a player who only wanted to roll
    assert panel.state.code == () and "use 3 fingers or more" in panel.screen.lines
    panel.tap(*[MODE, FIELD] * 4)
    assert panel.state.code == ()
    assert _seeds(panel) == [] and panel.state.mode is Mode.TABLE_SEED


def test_a_complete_code_is_cancelled_by_mode_and_started_again_by_the_others() -> None:
    panel = _fresh()
    panel.tap(ROLL, PLUS, *CODE)
    panel.tap(FIELD)
    assert panel.state.code == () and panel.state.mode is Mode.TABLE_SEED
    panel.tap(*CODE)
    panel.tap(MODE)
    assert panel.state.mode is Mode.SETUP and _seeds(panel) == []


def test_holds_on_the_page_do_nothing() -> None:
    panel = _fresh()
    panel.tap(ROLL)
    panel.press(MODE)
    panel.hold(MODE)  # no settings menu: MODE went back, its hold is nothing
    panel.release(MODE)
    assert panel.state.mode is Mode.SETUP
    panel.tap(ROLL, PLUS)
    panel.press(MODE)
    panel.hold(MODE)
    panel.release(MODE)
    assert panel.state.mode is Mode.TABLE_SEED and panel.state.code == (1,)


def test_a_session_seeded_or_rolled_in_elsewhere_is_never_rolled_in() -> None:
    """A session the command line seeded or rolled in before the table answered the panel's
    question is not the table's: ROLL rolls nothing, asks the hardware for a new session, and
    the new one's question follows as soon as its commitment arrives (docs/fairness.md, "The
    panel's session is the table's")."""
    for text in (sessions.committed(A, started=True), sessions.committed(A, table_seed="dragon")):
        panel = Panel()
        _session(panel, text)
        panel.tap(ROLL)
        assert panel.state.mode is Mode.MESSAGE and panel.dice.calls == 0
        assert "not set on these keys" in panel.state.message[1]
        assert [fx.request for fx in panel.effects if fx.request] == [sessions.RENEW]
        _session(panel, sessions.revealed(A))
        _session(panel, B)
        assert panel.state.mode is Mode.TABLE_SEED and panel.screen.qr == B
    panel = Panel()  # dice without sessions: nothing to seed
    panel.tap(ROLL)
    assert panel.state.mode is Mode.RESULT


def test_a_code_set_elsewhere_after_the_table_chose_none_ends_the_table_s_claim() -> None:
    """The table answered "none" on the keys; before its first roll logged, the command line set
    a code: the session is no longer the one the table answered for."""
    panel = Panel()
    _session(panel, A)
    panel.tap(ROLL)
    panel.tap(ROLL)  # ROLL: none, and the roll
    assert panel.state.mode is Mode.RESULT and panel.state.answered == A and panel.state.answered_code is None
    _session(panel, sessions.committed(A, table_seed="dragon", started=True))
    calls = panel.dice.calls
    panel.tap(ROLL)
    assert panel.state.mode is Mode.MESSAGE and panel.dice.calls == calls


def test_a_refused_code_is_not_the_tables_answer() -> None:
    """The table typed a code, but the log refused it (set meanwhile by the command line): the
    session stays one the table did not answer for."""
    panel = Panel()
    _session(panel, A)
    panel.tap(ROLL)
    panel.tap(PLUS)
    for b in CODE:
        panel.tap(b)
    panel.tap(ROLL)
    _logged(panel, sessions.seed_refused("set already"))
    assert panel.state.answered == ""
    _session(panel, sessions.committed(A, table_seed=CODE_TEXT))  # the same digits, set elsewhere
    panel.tap(MODE)
    panel.tap(ROLL)
    assert panel.state.mode is Mode.MESSAGE and panel.dice.calls == 0


def test_the_setup_screen_says_when_the_session_has_no_table_seed() -> None:
    panel = _fresh()
    assert panel.screen.lines[-1] == "no table seed"
    # set with `dicetower session seed`: whole, never cut
    _session(panel, sessions.committed(A, table_seed="the dragon sleeps under the mill"))
    assert panel.screen.lines[-2:] == ("table seed the dragon", "sleeps under the mill")


def test_every_new_session_offers_it_again() -> None:
    panel = _fresh()
    panel.tap(ROLL, ROLL)  # without: the session has a roll now
    _logged(panel, sessions.roll_logged(1, H))
    panel.tap(ROLL)
    assert panel.state.mode is Mode.RESULT
    _session(panel, sessions.revealed(A, rolls=1000, head=H))  # the 1000-roll rotation
    _session(panel, B)
    panel.tap(ROLL)
    assert panel.state.mode is Mode.TABLE_SEED and panel.state.seed_for == B


# --- the session changes under the page ----------------------------------------------------


@pytest.mark.parametrize(("news", "why"), [
    (sessions.committed(A, table_seed="dragon"), "set meanwhile: dragon"),
    (sessions.committed(A, started=True), "too late: the session has a roll now"),
    (sessions.revealed(A), "the session was revealed"),
    (B, "a new session opened: note its commitment, then ROLL"),
])
def test_the_page_is_left_when_another_writer_changes_the_session(news: str, why: str) -> None:
    panel = _fresh()
    panel.tap(ROLL, PLUS, *CODE[:3])
    _session(panel, news)
    assert panel.state.mode is Mode.MESSAGE and panel.state.message == ("table seed", why)
    assert _seeds(panel) == []


def test_a_seed_the_log_cannot_take_says_cannot_record() -> None:
    panel = _fresh()
    panel.tap(ROLL, PLUS, *CODE, ROLL)
    _logged(panel, sessions.seed_not_logged("roll log: No space left on device"))
    assert panel.state.mode is Mode.MESSAGE
    assert panel.state.message == ("cannot record", "table seed not set: roll log: No space left on device")
    assert panel.state.table_seed is None
    panel.tap(MODE)  # the message is over the setup screen: MODE acts as ever
    _logged(panel, sessions.seed_refused("table seed: session #1 has 1 roll(s) already"))
    assert panel.state.message[0] == "no table seed"


# --- the settings menu ---------------------------------------------------------------------


def test_the_menu_shows_the_seed_and_enters_one_before_the_first_roll() -> None:
    panel = _fresh()
    _menu(panel, Item.TABLE_SEED)
    assert panel.screen.lines[0] == ">table seed none"
    panel.tap(ROLL)  # the question first, from the menu too: the QR code to photograph
    assert panel.state.mode is Mode.TABLE_SEED and panel.state.seed_step == "ask" and panel.screen.qr == A
    assert "ROLL: roll without" not in panel.screen.lines  # ROLL chose the item: it goes on like PLUS
    panel.tap(ROLL)
    assert panel.state.mode is Mode.TABLE_SEED and panel.state.seed_step == "enter"
    panel.tap(*CODE, MODE)  # cancelled: back to the menu
    assert panel.state.mode is Mode.SETTINGS
    panel.tap(ROLL, PLUS, *CODE, ROLL)
    assert _seeds(panel) == [(A, CODE_TEXT)] and panel.state.mode is Mode.SETTINGS
    _session(panel, sessions.committed(A, table_seed=CODE_TEXT))
    assert panel.screen.lines[0] == f">table seed {CODE_TEXT}"
    panel.tap(ROLL)
    assert panel.state.mode is Mode.SETTINGS
    assert "set already; reveal for a new session" in " ".join(panel.screen.lines)


def test_without_sessions_the_menu_says_so() -> None:
    panel = Panel()
    _menu(panel, Item.TABLE_SEED)
    assert panel.screen.lines[0] == ">table seed -"
    panel.tap(ROLL)
    assert "dice have no sessions" in panel.screen.lines


def test_in_a_locked_kiosk_anyone_sets_the_table_seed_at_the_first_roll() -> None:
    """The operator lock keeps the menu for staff; the table seed is the table's, offered at
    the first ROLL to whoever presses it (docs/panel.md)."""
    panel = _fresh()
    lock = OperatorLock()
    for button in (ROLL, PLUS, *CODE, ROLL):
        for kind in (EventKind.PRESS, EventKind.RELEASE):
            lock, passed = filter_event(lock, Event(kind, button))
            for event in passed:
                panel.send(event)
    assert _seeds(panel) == [(A, CODE_TEXT)]


# --- fingerprints --------------------------------------------------------------------------


def test_a_recorded_result_shows_its_fingerprint_on_every_page() -> None:
    panel = Panel(PanelConfig(systems=("horizons",), animation_seconds=0))
    tables_session(panel)
    for _ in range(3):
        panel.tap(FIELD)  # pool size: a long result that pages
    for _ in range(12):
        panel.tap(PLUS)
    panel.tap(ROLL)
    assert panel.screen.foot == ""  # not in the log yet
    _logged(panel, sessions.roll_logged(12, H))
    assert panel.screen.foot == f"#12 {H[:16]}" and panel.screen.text()[-1] == f"#12 {H[:16]}"
    panel.tick(2.0)
    assert panel.screen.foot == f"#12 {H[:16]}"
    panel.tap(ROLL)  # the next roll: its own fingerprint, none until it is logged
    assert panel.screen.foot == ""


def test_a_typed_in_roll_shows_its_entry() -> None:
    panel = Panel(PanelConfig(animation_seconds=0))
    panel.tap(ROLL)
    _logged(panel, sessions.roll_logged(0, H))
    assert panel.screen.foot == f"hand {H[:16]}"


def test_a_fingerprint_without_a_result_is_ignored() -> None:
    panel = _fresh()
    _logged(panel, sessions.roll_logged(3, H))
    assert panel.state.fingerprint == "" and panel.state.mode is Mode.SETUP


# --- the reveal's four facts ---------------------------------------------------------------


def test_after_a_reveal_its_four_facts_then_the_new_commitment() -> None:
    panel = _fresh()
    _menu(panel, Item.REVEAL)
    panel.tap(ROLL, ROLL)
    _session(panel, sessions.revealed(A, rolls=12, head=H, table_seed=CODE_TEXT))
    screen = panel.screen
    assert panel.state.mode is Mode.CARD and screen.kind == "card"
    assert screen.qr == reveal_card(A, CODE_TEXT, 12, H)  # the very text `session close` codes
    assert screen.beside == (f"#{A[:8]}", "rolls 12", "head", H[:8], H[8:16], "table seed", CODE_TEXT)
    assert screen.title == f"revealed #{A[:8]}"
    assert "".join(screen.lines[1:5]) == A and f"table seed {CODE_TEXT}" in screen.lines
    _session(panel, B)  # the next session: still the facts on screen ...
    assert panel.state.mode is Mode.CARD
    panel.tap(ROLL)  # ... then the new commitment in full ...
    assert panel.screen.kind == "session" and "".join(panel.screen.lines[:4]) == B
    panel.tap(ROLL)  # ... then the menu
    assert panel.state.mode is Mode.SETTINGS and panel.dice.calls == 0


def test_the_menu_shows_the_last_reveal_again() -> None:
    panel = _fresh()
    _menu(panel, Item.REVEALED)
    assert panel.screen.lines[0] == ">revealed none"
    panel.tap(ROLL)
    assert "no session revealed yet" in " ".join(panel.screen.lines)
    _session(panel, sessions.revealed(A, rolls=1000, head=H))  # a rotation, or `session close`
    _session(panel, B)
    assert panel.screen.lines[0] == f">revealed #{A[:8]}"
    panel.tap(ROLL)
    assert panel.screen.kind == "card" and panel.screen.qr == reveal_card(A, None, 1000, H)
    assert "table seed none" in panel.screen.lines and panel.screen.beside[-1] == "none"
    panel.tap(MINUS)
    assert panel.state.mode is Mode.SETTINGS


def test_a_long_table_seed_is_in_the_qr_code_whole() -> None:
    panel = _fresh()
    seed = "the dragon sleeps under the old mill, 1987"
    _session(panel, sessions.revealed(A, rolls=3, head=H, table_seed=seed))
    _menu(panel, Item.REVEALED)
    panel.tap(ROLL)
    assert panel.screen.beside[-1] == "in the QR" and seed in panel.screen.qr
    assert all(len(line) <= 21 for line in panel.screen.lines)
    assert seed == " ".join(line for line in panel.screen.lines if line).split("table seed ", 1)[1].split(
        " rolls")[0]
