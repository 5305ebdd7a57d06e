"""The tower's loop through gpiozero's MockFactory and luma's dummy device, on a clock the
tests move: presses reach the state machine exactly once, bounces and bursts do not pile up,
two buttons at once, holds, button timing, the roll log, memory, and a clean SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import threading

import pytest

from engine.panel import machine
from engine.panel.model import Button, Event, EventKind
from engine.panel.state import Mode
from hardware.cli.sim import SimClock
from hardware.config import reader
from hardware.display import ResilientDisplay, opener
from hardware.panel.io import open_pin_factory
from hardware.tower import assemble, run_forever, stop_on_signals
from tests.support import seeded_dice

MS = 1_000_000
PINS = {Button.MODE: 5, Button.FIELD: 6, Button.MINUS: 13, Button.PLUS: 19, Button.ROLL: 4}
CONFIG = '[buttons]\nroll = 4\n[display]\nkind = "dummy"\n[panel]\nanimation_seconds = 0.4\n'


@pytest.fixture
def seen(monkeypatch) -> list[Event]:
    """Every event the state machine is stepped with (ticks left out)."""
    events: list[Event] = []
    real = machine.step

    def step(state, event, now, *, dice):
        if event.kind is not EventKind.TICK:
            events.append(event)
        return real(state, event, now, dice=dice)

    monkeypatch.setattr(machine, "step", step)
    return events


class Rig:
    def __init__(self, text: str = CONFIG, *, dice=None, timing=None, memory=None, log=None, roll_log=None) -> None:
        from luma.core.device import dummy

        self.config = reader.loads(text)
        self.clock = SimClock()
        self.factory = open_pin_factory("mock")
        self.device = dummy(width=128, height=64, mode="1")
        self.display = ResilientDisplay(opener(self.config.display, device=self.device))
        self.tower = assemble(self.config, pin_factory=self.factory, display=self.display,
                           dice=dice if dice is not None else seeded_dice(b"runtime"), clock=self.clock,
                           timing=timing, state_dir=memory, log=log, roll_log=roll_log)

    def pin(self, button: Button):
        return self.factory.pin(PINS[button])

    def run(self, seconds: float) -> None:
        end = self.clock.t + round(seconds * 1e9)
        while self.clock.t < end:
            self.clock.t = min(end, self.clock.t + self.tower.tick_ns)
            self.tower.pump()

    def tap(self, button: Button, seconds: float = 0.1) -> None:
        self.pin(button).drive_low()
        self.tower.pump()
        self.run(seconds)
        self.pin(button).drive_high()
        self.tower.pump()
        self.run(0.05)

    def roll(self, seconds: float = 0.1) -> None:
        """ROLL as a player who wants to roll: a new session's first ROLL asks for a table
        seed (docs/panel.md), and a second ROLL rolls without one."""
        self.tap(Button.ROLL, seconds)
        if self.tower.state.mode is Mode.TABLE_SEED and self.tower.state.seed_step == "ask":
            self.tap(Button.ROLL, seconds)

    def set_table_seed(self, *fingers: Button) -> None:
        """The first ROLL of a session, PLUS, eight finger presses, ROLL: the table's seed."""
        self.tap(Button.ROLL)
        assert self.tower.state.mode is Mode.TABLE_SEED, self.tower.state.mode
        self.tap(Button.PLUS)
        for button in fingers:
            self.tap(button)
        self.tap(Button.ROLL)


@pytest.fixture
def rig():
    r = Rig()
    try:
        yield r
    finally:
        r.tower.close()


def presses(events: list[Event]) -> list[tuple[str, str]]:
    return [(str(e.kind), str(e.button)) for e in events if e.kind in (EventKind.PRESS, EventKind.RELEASE)]


def test_one_press_on_a_configured_pin_reaches_the_machine_exactly_once(rig, seen) -> None:
    before = rig.tower.screen.title
    rig.tap(Button.MODE)
    rig.run(1.0)
    assert presses(seen) == [("press", "mode"), ("release", "mode")]
    assert rig.tower.screen.title != before  # MODE moved on to the next system
    assert rig.tower.state.system_index == 1
    assert rig.device.image is not None


def test_a_bouncing_contact_counts_once(rig, seen) -> None:
    pin = rig.pin(Button.MODE)
    for _ in range(7):  # a contact chattering for 7 ms, inside the 20 ms bounce window
        pin.drive_low()
        rig.clock.t += MS // 2
        pin.drive_high()
        rig.clock.t += MS // 2
    pin.drive_low()  # ... and coming to rest closed
    rig.tower.pump()
    rig.run(0.2)
    for _ in range(5):  # chattering again on the way out
        pin.drive_high()
        rig.clock.t += MS // 2
        pin.drive_low()
        rig.clock.t += MS // 2
    pin.drive_high()
    rig.run(0.5)
    assert presses(seen) == [("press", "mode"), ("release", "mode")]
    assert rig.tower.state.system_index == 1


@pytest.mark.parametrize("gap_ms", [0.001, 30])
def test_a_thousand_presses_in_a_burst_leave_no_backlog_and_one_roll(rig, seen, gap_ms: float) -> None:
    """Inside the bounce window they are one press; spaced wider but faster than the loop
    takes them, they fold into the press still waiting. Either way: one roll."""
    pin = rig.pin(Button.ROLL)
    for _ in range(1000):
        pin.drive_low()
        rig.clock.t += round(gap_ms * MS)
        pin.drive_high()
        rig.clock.t += round(gap_ms * MS)
    rig.tower.pump()
    assert len(rig.tower.io.inputs) == 0  # no backlog
    rig.run(2.0)
    assert rig.tower.rolls == 1
    assert [e for e in presses(seen) if e[0] == "press"] == [("press", "roll")]
    assert rig.tower.state.mode is Mode.RESULT


def test_two_buttons_at_once_are_two_presses_in_contact_order(rig, seen) -> None:
    """Documented (docs/wiring.md): pressed together, both count, in the order the contacts
    closed (same instant: left to right), each with its own release."""
    rig.pin(Button.FIELD).drive_low()
    rig.pin(Button.MODE).drive_low()
    rig.tower.pump()
    rig.run(0.1)
    rig.pin(Button.MODE).drive_high()
    rig.pin(Button.FIELD).drive_high()
    rig.run(0.5)
    assert presses(seen) == [("press", "field"), ("press", "mode"), ("release", "mode"), ("release", "field")]
    # the same as the pure machine given those events
    state, _ = machine.initial(rig.config.panel, 0.0)
    for event in list(seen):
        state, _ = machine.step(state, event, 0.1, dice=seeded_dice(b"x"))
    assert rig.tower.state.system_index == state.system_index == 1
    assert rig.tower.state.field_index == state.field_index


def test_holding_plus_repeats_and_a_second_button_stops_it(rig, seen) -> None:
    start = dict(rig.tower.state.field_values())
    rig.pin(Button.PLUS).drive_low()
    rig.tower.pump()
    rig.run(2.0)  # hold after 0.8 s, then a repeat every 0.4 s
    assert [e.kind for e in seen if e.button is Button.PLUS] == [EventKind.PRESS, EventKind.HOLD]
    raised = dict(rig.tower.state.field_values())
    assert raised != start
    rig.tap(Button.MINUS)  # a press while PLUS repeats stops the repeat
    after_minus = dict(rig.tower.state.field_values())
    rig.run(2.0)  # PLUS still down, but its one HOLD has been used
    assert dict(rig.tower.state.field_values()) == after_minus
    rig.pin(Button.PLUS).drive_high()
    rig.run(0.1)


def test_holding_mode_opens_the_settings_with_the_entropy_status() -> None:
    from hardware.entropy import open_dice

    rig = Rig(dice=open_dice(seed=b"status"))
    try:
        rig.pin(Button.MODE).drive_low()
        rig.tower.pump()
        rig.run(1.0)
        rig.pin(Button.MODE).drive_high()
        rig.run(0.1)
        assert rig.tower.state.mode is Mode.SETTINGS
        assert rig.tower.state.status == "seed (deterministic)"
        assert any("entropy seed" in line for line in rig.tower.screen.lines)
    finally:
        rig.tower.close()


def test_every_debounced_edge_goes_to_the_button_timing() -> None:
    from hardware.entropy.buttons import ButtonTiming

    timing = ButtonTiming(hold_ns=800 * MS)
    rig = Rig(timing=timing)
    try:
        for button in (Button.FIELD, Button.FIELD, Button.PLUS):
            pin = rig.pin(button)
            pin.drive_low()
            pin.drive_high()  # a bounce: not an edge of its own
            pin.drive_low()
            rig.run(0.1)
            pin.drive_high()
            rig.run(0.3)
        assert timing.presses == 3
    finally:
        rig.tower.close()


def test_rolls_go_to_the_roll_log(tmp_path) -> None:
    from hardware.entropy import open_dice
    from hardware.files.rolllog import RollLog, verify

    log = RollLog(tmp_path / "rolls.jsonl")
    rig = Rig(dice=open_dice(seed=b"log", log=log))
    try:
        rig.roll()
        rig.run(1.0)
        shown = rig.tower.screen.foot
    finally:
        rig.tower.close()
    entries = [json.loads(line) for line in (tmp_path / "rolls.jsonl").read_text().splitlines()]
    rolls = [e for e in entries if e["kind"] == "roll"]
    assert len(rolls) == 1 and rolls[0]["player"] == 1 and rolls[0]["source"] == "panel"
    assert shown == f"#1 {rolls[0]['hash'][:16]}"  # the fingerprint on the result
    assert rolls[0]["result"]["system"] == "infinity"
    assert verify(tmp_path / "rolls.jsonl").ok


def test_the_panel_remembers_its_settings_between_runs(tmp_path) -> None:
    rig = Rig(memory=tmp_path)
    rig.tap(Button.MODE)
    rig.tap(Button.MODE)
    rig.tower.close()
    saved = json.loads((tmp_path / "panel.json").read_text())
    assert saved["system"] == "d6cv"
    again = Rig(memory=tmp_path)
    try:
        assert again.tower.state.system_id == "d6cv"
    finally:
        again.tower.close()


def test_a_damaged_memory_file_is_ignored(tmp_path) -> None:
    (tmp_path / "panel.json").write_text("{not json")
    rig = Rig(memory=tmp_path)
    try:
        assert rig.tower.state.system_id == "infinity"
    finally:
        rig.tower.close()


def test_a_roll_log_that_cannot_be_written_refuses_rolls_says_why_once_and_never_crashes(tmp_path) -> None:
    """A state directory that cannot be made (a read-only card, a file in its place) made ROLL
    raise a bare OSError out of the dice, and the tower stopped; nor did the log hear of it."""
    from hardware.entropy import open_dice
    from hardware.files.rolllog import RollLog

    (tmp_path / "card").write_text("a file where the state directory should be")
    messages: list[str] = []
    log = RollLog(tmp_path / "card" / "state" / "rolls.jsonl")
    rig = Rig(dice=open_dice(seed=b"ro", log=log), memory=tmp_path / "card" / "state", log=messages.append)
    try:
        for _ in range(3):
            rig.tap(Button.ROLL)
            rig.run(6.0)  # past the session retry, which fails the same way
        assert rig.tower.state.mode is Mode.MESSAGE
        # no session can be opened (it would need the log): no roll, and why; the log's words are in the journal
        assert "cannot record" in " ".join(rig.tower.screen.text())
        assert "Not a directory" in " ".join(rig.tower.screen.text())
        assert rig.tower.rolls == 0
        rig.tap(Button.MODE)  # the panel still answers
        assert rig.tower.screen.kind == "setup"
        rig.run(2.0)  # the memory is saved (and fails) at most once a second
    finally:
        rig.tower.close()
    said = [m for m in messages if m.startswith("dice: no session")]
    assert len(said) == 1 and "cannot open the roll log" in said[0]
    memory = [m for m in messages if m.startswith("panel memory")]
    assert len(memory) == 2 and "starting fresh" in memory[0] and "will not remember" in memory[1]


def test_a_memory_file_that_cannot_be_saved_is_logged_once_and_its_return_too(tmp_path) -> None:
    (tmp_path / "panel.json").mkdir()  # in the way of the save
    messages: list[str] = []
    rig = Rig(memory=tmp_path, log=messages.append)
    try:
        for _ in range(4):
            rig.tap(Button.PLUS)
            rig.run(1.5)
        (tmp_path / "panel.json").rmdir()
        rig.tap(Button.PLUS)
        rig.run(1.5)
    finally:
        rig.tower.close()
    assert [m.split(": ")[0] for m in messages] == ["panel memory " + str(tmp_path / "panel.json")] * 3
    assert "starting fresh" in messages[0]  # read at start-up
    assert "will not remember" in messages[1]
    assert messages[2].endswith("saved again")
    assert json.loads((tmp_path / "panel.json").read_text())["system"] == "infinity"


def test_a_pin_that_is_busy_leaves_the_display_dark(tmp_path) -> None:
    from gpiozero import LED
    from luma.core.device import dummy

    from hardware.panel.io import PinSetupError

    config = reader.loads(CONFIG)
    factory = open_pin_factory("mock")
    other = LED(PINS[Button.ROLL], pin_factory=factory)
    device = dummy(width=128, height=64, mode="1")
    display = ResilientDisplay(opener(config.display, device=device))
    try:
        with pytest.raises(PinSetupError, match=r"buttons.roll \(BCM 4\)"):
            assemble(config, pin_factory=factory, display=display, dice=seeded_dice(b"busy"), clock=SimClock())
        assert device.image is not None and device.image.getbbox() is None  # not a setup screen nobody can use
    finally:
        other.close()


def test_the_loop_sleeps_until_the_next_deadline(rig) -> None:
    now = rig.clock.t
    assert now < rig.tower.deadline() <= now + rig.tower.tick_ns
    rig.pin(Button.FIELD).drive_low()
    rig.tower.pump()
    # a held button's hold time is the next deadline after the tick
    assert rig.tower.io.inputs.deadline() == now + 800 * MS
    rig.pin(Button.FIELD).drive_high()


def test_the_clock_ticks_fast_only_while_something_moves(rig, monkeypatch) -> None:
    ticks: list[int] = []
    real = machine.step

    def step(state, event, now, *, dice):
        if event.kind is EventKind.TICK:
            ticks.append(rig.clock.t)
        return real(state, event, now, dice=dice)

    monkeypatch.setattr(machine, "step", step)
    rig.run(2.0)
    assert 7 <= len(ticks) <= 9  # idle: four a second
    ticks.clear()
    rig.pin(Button.ROLL).drive_low()
    rig.tower.pump()
    first = rig.clock.t
    rig.run(0.4)  # the 0.4 s animation: 25 ticks a second, the first one right away
    assert ticks and ticks[0] - first <= rig.tower.tick_ns
    assert len(ticks) >= 9
    rig.pin(Button.ROLL).drive_high()
    rig.run(0.5)
    assert rig.tower.state.mode is Mode.RESULT


def test_sigterm_turns_the_leds_off_and_clears_the_display() -> None:
    """run_forever in the main thread; SIGTERM comes once the loop is running."""
    rig = Rig(text=CONFIG, dice=seeded_dice(b"term"))
    tower = rig.tower
    tower.clock = _RealTimeFrom(rig.clock.t)
    tower.io.inputs._clock = tower.clock
    rig.tap(Button.ROLL)  # LEDs and RGB lit by a result
    running = threading.Event()
    original = tower.pump

    def pump(now=None):
        running.set()
        return original(now)

    tower.pump = pump  # type: ignore[method-assign]
    killer = threading.Thread(target=lambda: running.wait(10) and os.kill(os.getpid(), signal.SIGTERM))
    rig.factory.pin(12).state  # noqa: B018 - touch: the pin exists before the run
    killer.start()
    run_forever(tower)
    killer.join()
    leds = [rig.factory.pin(p).state for p in (12, 16, 20, 21, 25, 17, 27, 22)]
    assert leds == [0] * 8
    assert rig.device.image is not None and rig.device.image.getbbox() is None  # cleared
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handler put back


def test_stop_on_signals_restores_previous_handlers() -> None:
    previous = signal.getsignal(signal.SIGINT)
    with stop_on_signals() as stop:
        os.kill(os.getpid(), signal.SIGINT)
        assert stop.wait(5)
    assert signal.getsignal(signal.SIGINT) is previous


class _RealTimeFrom:
    """The monotonic clock, shifted to continue from a simulated time (for the SIGTERM run)."""

    def __init__(self, start: int) -> None:
        import time

        self._time = time.monotonic_ns
        self._offset = start - self._time()

    def __call__(self) -> int:
        return self._time() + self._offset
