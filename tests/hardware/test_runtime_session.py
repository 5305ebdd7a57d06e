"""The dice session on the tower's display, through the real loop (gpiozero MockFactory,
luma's dummy device, a simulated clock) with real session dice and a real roll log: the
commitment is shown before the first roll, the reveal from the settings menu lands in the log
and matches what was shown, the log replays, and a reveal never splits a finger guess."""

from __future__ import annotations

import hashlib
import json
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.panel import machine, sessions
from engine.panel.menu import ITEMS, Item
from engine.panel.model import Button, Effects, Event, EventKind
from engine.panel.state import Mode
from engine.verify import Notes
from hardware.entropy import open_dice
from hardware.entropy.buttons import ButtonTiming
from hardware.entropy.replay import replay_log
from hardware.files.rolllog import RollLog
from hardware.tower import SESSION_RETRY_NS
from tests.hardware.test_runtime import CONFIG, MS, Rig
from tests.support import seeded_dice

FINGERS = CONFIG + 'systems = ["fingers"]\n'


def entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def kinds(path: Path) -> list[str]:
    return [e["kind"] for e in entries(path)]


@pytest.fixture
def seen(monkeypatch) -> list[Event]:
    """The SESSION events the machine is stepped with."""
    events: list[Event] = []
    real = machine.step

    def step(state, event, now, *, dice):
        if event.kind is EventKind.SESSION:
            events.append(event)
        return real(state, event, now, dice=dice)

    monkeypatch.setattr(machine, "step", step)
    return events


def open_menu(rig: Rig, item: Item) -> None:
    if rig.tower.state.mode is not Mode.SETTINGS:
        rig.pin(Button.MODE).drive_low()
        rig.tower.pump()
        rig.run(1.0)  # past the 0.8 s hold time
        rig.pin(Button.MODE).drive_high()
        rig.run(0.1)
    assert rig.tower.state.mode is Mode.SETTINGS
    for _ in ITEMS:
        if rig.tower.state.item is item:
            return
        rig.tap(Button.FIELD)
    raise AssertionError(f"no {item} in the menu")


def shown_commitment(rig: Rig) -> str:
    """The full commitment as the session view shows it (opened from the menu)."""
    open_menu(rig, Item.SESSION)
    rig.tap(Button.ROLL)
    screen = rig.tower.screen
    assert screen.kind == "session"
    text = "".join(screen.lines[:4])
    assert sessions.is_commitment(text)
    rig.tap(Button.MODE)  # back to the menu
    return text


def reveal_from_menu(rig: Rig) -> None:
    open_menu(rig, Item.REVEAL)
    rig.tap(Button.ROLL)
    assert rig.tower.screen.lines[0] == ">reveal seed? ROLL"
    rig.tap(Button.ROLL)


def test_the_commitment_is_on_the_screen_before_the_first_roll(tmp_path) -> None:
    log = tmp_path / "rolls.jsonl"
    dice = open_dice("kernel", log=RollLog(log))
    rig = Rig(dice=dice)
    try:
        assert kinds(log) == ["session"]  # opened at start-up, nothing rolled
        committed = entries(log)[0]["commitment"]
        assert rig.tower.screen.kind == "setup"
        assert rig.tower.screen.lines[-2].endswith("#" + committed[:8])
        assert rig.tower.screen.lines[-1] == "no table seed"
        assert shown_commitment(rig) == committed
        assert rig.tower.rolls == 0 and kinds(log) == ["session"]
        rig.tap(Button.MODE)  # leave the menu, then roll: in the session that was shown
        rig.roll()
        rig.run(1.0)
        assert kinds(log) == ["session", "roll"]
        assert entries(log)[1]["session"] == committed[:16]
    finally:
        rig.tower.close()


def test_a_reveal_from_the_menu_matches_the_shown_commitment_and_replays(tmp_path, seen) -> None:
    log = tmp_path / "rolls.jsonl"
    dice = open_dice("kernel", log=RollLog(log))
    rig = Rig(dice=dice)
    try:
        rig.roll()
        rig.run(1.0)
        rig.tap(Button.PLUS)
        rig.roll()
        rig.run(1.0)
        old = shown_commitment(rig)
        reveal_from_menu(rig)
        # the seed is in the log, and its SHA-256 is the commitment the screen showed
        reveals = [e for e in entries(log) if e["kind"] == "reveal"]
        assert len(reveals) == 1 and reveals[0]["reason"] == "reveal" and reveals[0]["rolls"] == 2
        assert hashlib.sha256(bytes.fromhex(reveals[0]["seed"])).hexdigest() == old
        # the reveal's four facts first, as `session close` prints them (and its QR code) ...
        head = reveals[0]["hash"]
        screen = rig.tower.screen
        assert screen.kind == "card" and screen.beside[:5] == ("#" + old[:8], "rolls 2", "head", head[:8], head[8:16])
        rig.tap(Button.FIELD)
        # ... then the new session, open and shown in full, before any of its rolls
        new = dice.commitment
        assert new != old
        screen = rig.tower.screen
        assert screen.kind == "session"
        assert "".join(screen.lines[:4]) == new
        assert "seed revealed: in log" in screen.lines and "revealed #" + old[:8] in screen.lines
        assert kinds(log) == ["session", "roll", "roll", "reveal", "session"]
        assert entries(log)[-1]["commitment"] == new
        assert [e.text for e in seen] == [old, sessions.committed(old, started=True),
                                          sessions.revealed(old, rolls=2, head=head), new]
        rig.tap(Button.MODE)
        rig.tap(Button.MODE)
        assert rig.tower.screen.lines[-2].endswith("#" + new[:8])
        rig.roll()
        rig.run(1.0)
    finally:
        rig.tower.close()  # reveals the second session
    report = replay_log(log)
    assert report.ok, [str(p) for p in report.problems]
    assert (report.sessions, report.revealed, report.rolls_checked) == (2, 2, 3)


def test_the_rotation_after_session_rolls_shows_the_next_commitment(tmp_path, seen) -> None:
    log = tmp_path / "rolls.jsonl"
    dice = open_dice("kernel", log=RollLog(log), session_rolls=2)
    rig = Rig(dice=dice)
    try:
        first = dice.commitment
        for _ in range(2):
            rig.roll()
            rig.run(1.0)
        second = dice.commitment
        assert second != first
        reveal = next(e for e in entries(log) if e["kind"] == "reveal")
        assert [e.text for e in seen] == [first, sessions.committed(first, started=True),
                                          sessions.revealed(first, rolls=2, head=reveal["hash"]), second]
        assert reveal["reason"] == "rolls"
        rig.run(61.0)  # the result times out: the setup screen carries the new commitment
        assert rig.tower.screen.lines[-2].endswith("#" + second[:8])
        rig.tap(Button.ROLL)  # the new session's first ROLL offers the table seed again
        assert rig.tower.state.mode is Mode.TABLE_SEED and rig.tower.screen.qr == second
    finally:
        rig.tower.close()
    assert replay_log(log).ok


def test_a_reveal_asked_during_a_finger_guess_waits_for_the_finger(tmp_path, monkeypatch) -> None:
    """The menu cannot ask during a guess; should a request come then anyway, the tower
    carries it out only after the finger press has made and logged the roll."""
    log = tmp_path / "rolls.jsonl"
    dice = open_dice("kernel", log=RollLog(log))
    rig = Rig(FINGERS, dice=dice)
    real = machine.step

    def step(state, event, now, *, dice):
        new, fx = real(state, event, now, dice=dice)
        if new.mode is Mode.GUESS and state.mode is not Mode.GUESS:
            fx = Effects(screen=fx.screen, leds=fx.leds, rgb=fx.rgb, sounds=fx.sounds, request=sessions.REVEAL)
        return new, fx

    monkeypatch.setattr(machine, "step", step)
    try:
        first = dice.session_id
        rig.roll()  # the hand is hidden, and (here) a reveal is asked for
        assert rig.tower.state.mode is Mode.GUESS
        rig.run(2.0)
        assert dice.session_id == first and "reveal" not in kinds(log)
        rig.tap(Button.MINUS)  # finger 3: the roll, then the reveal
        rig.run(1.0)
        assert kinds(log) == ["session", "roll", "reveal", "session"]
        roll = entries(log)[1]
        assert roll["session"] == first and roll["result"]["params"]["guess"] == [3]
        assert dice.session_id not in (None, first)
    finally:
        rig.tower.close()
    report = replay_log(log)
    assert report.ok and report.rolls_checked == 1


def test_dice_without_sessions_show_no_commitment(seen) -> None:
    rig = Rig(dice=seeded_dice(b"plain"))  # a plain DRBG: no sessions, nothing to reveal
    try:
        assert rig.tower.screen.lines[-1] == "P1"
        open_menu(rig, Item.SESSION)
        assert ">session none" in rig.tower.screen.lines
        reveal_attempt = rig.tower.step(Event(EventKind.PRESS, Button.ROLL), rig.clock.t)
        assert reveal_attempt.request is None
        assert "dice have no sessions" in rig.tower.screen.lines
        assert seen == []
    finally:
        rig.tower.close()


def test_deterministic_dice_show_their_commitment(tmp_path) -> None:
    """``--seed`` dice are sessions too: the same seed, the same commitment."""
    log = tmp_path / "rolls.jsonl"
    dice = open_dice(seed=b"table", log=RollLog(log))
    rig = Rig(dice=dice)
    try:
        committed = entries(log)[0]["commitment"]
        assert committed == open_dice(seed=b"table").commitment
        assert rig.tower.screen.lines[-2].endswith("#" + committed[:8])
        open_menu(rig, Item.SESSION)
        assert " ".join(rig.tower.screen.lines[-2:]).startswith("entropy seed")  # wrapped, not cut
    finally:
        rig.tower.close()


def test_a_session_that_cannot_open_yet_is_retried_and_a_roll_says_why(tmp_path) -> None:
    """Buttons alone credit 2 bits a press: at start-up there is not enough, and the tower
    keeps working, says why on the session view, and tries again now and then."""
    log = tmp_path / "rolls.jsonl"
    timing = ButtonTiming(hold_ns=800 * MS)
    dice = open_dice("buttons", buttons=timing, log=RollLog(log))
    attempts: list[int | None] = []  # when the dice tried to open a session (None: start-up)
    holder: dict[str, Rig] = {}
    real = dice._gather

    def gather():
        rig = holder.get("rig")
        attempts.append(rig.clock.t if rig is not None else None)
        return real()

    dice._gather = gather  # type: ignore[method-assign]
    rig = holder["rig"] = Rig(dice=dice, timing=timing)
    try:
        assert attempts == [None]
        assert not log.exists() or "session" not in kinds(log)
        assert rig.tower.screen.lines[-1] == "P1"
        open_menu(rig, Item.SESSION)
        assert ">session not open" in rig.tower.screen.lines
        rig.tap(Button.ROLL)  # the session view says why
        screen = rig.tower.screen
        assert screen.kind == "session" and " ".join(screen.lines).startswith("only 0 of the 256 bits")
        assert "a roll tries again" in screen.lines
        rig.run(12.0)
        later = attempts[1:]
        assert 2 <= len(later) <= 3  # tried again, but at most once per SESSION_RETRY_NS
        assert all(b - a >= SESSION_RETRY_NS for a, b in pairwise(later))
        rig.tap(Button.MODE)  # back to the menu
        open_menu(rig, Item.REVEAL)
        rig.tap(Button.ROLL)
        assert "no session open" in rig.tower.screen.lines  # nothing to reveal
        rig.tap(Button.MODE)  # out of the menu: a roll says why it cannot roll
        rig.tap(Button.ROLL)
        assert rig.tower.screen.kind == "message"
        assert "256 bits" in " ".join(rig.tower.screen.lines)
    finally:
        rig.tower.close()


class _RevealFails:
    """Session dice whose roll log cannot take the reveal (a full disk, say)."""

    def __init__(self, inner) -> None:
        self.inner = inner

    def randbelow(self, n: int) -> int:
        return self.inner.randbelow(n)

    @property
    def commitment(self) -> str:
        return self.inner.commitment

    @property
    def session_id(self) -> str | None:
        return self.inner.session_id

    def reveal(self) -> str | None:
        raise OSError(28, "No space left on device")


def test_a_failed_reveal_is_reported_and_the_session_stays_shown() -> None:
    inner = open_dice(seed=b"full")
    messages: list[str] = []
    rig = Rig(dice=_RevealFails(inner))
    rig.tower.log = messages.append
    try:
        committed = inner.commitment
        reveal_from_menu(rig)
        screen = rig.tower.screen
        assert screen.kind == "settings"
        assert "reveal failed" in " ".join(screen.lines)
        assert any(line.startswith(">reveal seed") for line in screen.lines)
        assert rig.tower.state.commitment == committed
        assert messages and messages[0].startswith("reveal: ")
    finally:
        rig.tower.close()


def _panel_night(state: Path, gaps_ms: list[int], start_ns: int, table_seed: str | None) -> list[list[int]]:
    """One honest night on the panel with a fixed seed (a kernel source that always gives the
    same bytes, a fixed wall clock for the nonce) and the given press rhythm: returns the dice
    of its rolls, after checking its log replays clean."""
    log = RollLog(state / "rolls.jsonl", fsync=False)
    timing = ButtonTiming()
    dice = open_dice("kernel", buttons=timing, log=log, getrandom=lambda n: hashlib.shake_256(b"fixed").digest(n),
                     clock_ns=lambda: 1_767_225_600_000_000_000)
    rig = Rig(dice=dice, timing=timing)
    rig.clock.t = start_ns
    try:
        if table_seed is not None:  # typed on the panel's keys at the session's question
            fingers = {1: Button.MODE, 2: Button.FIELD, 3: Button.MINUS, 4: Button.PLUS, 5: Button.ROLL}
            rig.set_table_seed(*(fingers[int(c)] for c in table_seed))
        for gap in gaps_ms:
            rig.run(gap / 1000)
            rig.tap(Button.PLUS, seconds=0.05 + gap % 7 / 1000)  # up and down again: the same settings
            rig.run(gap % 13 / 100)
            rig.tap(Button.MINUS, seconds=0.05 + gap % 5 / 1000)
            rig.roll(seconds=0.05 + gap % 11 / 997)
            rig.run(1.0)
    finally:
        rig.tower.close()
    noted = [entries(log.path)[0]["commitment"][:16]] if table_seed else []  # photographed at the question
    notes = Notes.of(noted, [table_seed] if table_seed else [], count=len(gaps_ms) if table_seed else None)
    report = replay_log(log.path, notes=notes)
    assert report.ok, [str(p) for p in report.problems]
    rolls = [e for e in entries(log.path) if e["kind"] == "roll"]
    assert rolls and all(e["mix"] == "" and e["source"] == "panel" for e in rolls)
    assert report.rolls_verified == len(rolls)
    return [e["result"]["dice"] for e in rolls]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=30, max_value=900), min_size=3, max_size=3),
       st.lists(st.integers(min_value=30, max_value=900), min_size=3, max_size=3),
       st.integers(min_value=0, max_value=10**12))
def test_the_same_session_gives_the_same_dice_whatever_the_press_times(first, second, start) -> None:
    """Nothing the device measures after the commitment enters a roll: two honest nights of
    the same session (same seed, same table seed, same settings) give the same dice, however
    the presses were timed and whatever the clock said."""
    import tempfile

    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        one = _panel_night(Path(a), first, 10**9, "41532152")
        two = _panel_night(Path(b), second, 10**9 + start, "41532152")
    assert one == two


def test_the_table_seed_changes_every_roll_of_the_session(tmp_path) -> None:
    gaps = [100, 200, 300, 400]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    with_seed = _panel_night(tmp_path / "a", gaps, 10**9, "41532152")
    other = _panel_night(tmp_path / "b", gaps, 10**9, "41532153")
    without = _panel_night(tmp_path / "c", gaps, 10**9, None)
    assert len({str(with_seed), str(other), str(without)}) == 3
