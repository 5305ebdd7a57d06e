"""The tower's loop: button events in, the pure state machine, effects out.

:class:`Tower` composes the parts: a :class:`~hardware.panel_io.PanelIO` (gpiozero devices on
the pin factory passed in), :class:`~hardware.tower.outputs.Outputs` (LEDs, buzzer, display),
a :class:`~hardware.tower.recorder.RollRecorder`, a :class:`~hardware.tower.sync.SessionSync`
and the :class:`~hardware.panel_memory.PanelMemory`. :meth:`Tower.pump` is one pass of the
loop and never sleeps, so tests and the simulator drive it on a simulated clock;
:meth:`Tower.run` is the appliance loop, which sleeps until an event arrives or the next
tick, bounce settle, note or display retry is due. It ticks at ``kiosk.tick_hz`` while a roll
animates or a value repeats, and four times a second otherwise.

The roll log is the truth: a step that rolls runs under the state directory's lock, and its
entry is appended (and fsynced) before anything of the result reaches the LEDs, the buzzer or
the display; in the same step the panel is told the entry's fingerprint (a LOGGED event), so
the result's first frame shows it. When the entry cannot be written the dice session that
drew the roll is closed, so the log stays replayable (docs/roll-log.md).

With a ``speaker`` (:class:`hardware.speech.Speaker`), results and the setup page are spoken
while the settings' speech switch is on: after the step's roll is logged and its frame drawn,
by a process the loop never waits for (:mod:`hardware.speech.narrator`, docs/speech.md).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import systems as engine_systems
from engine.dice import DiceSource
from engine.panel import machine
from engine.panel.model import Button, Effects, Event, EventKind, Screen
from engine.panel.state import Mode
from hardware.display import ResilientDisplay
from hardware.once import Once
from hardware.panel_io import Clock, PanelIO
from hardware.panel_memory import PanelMemory
from hardware.tower.dice import abilities
from hardware.tower.lock import DirectoryLock
from hardware.tower.outputs import Outputs
from hardware.tower.recorder import RollRecorder, WatchedDice
from hardware.tower.sync import SessionSync
from hardware.tower_config import TowerConfig

if TYPE_CHECKING:
    # only where a state directory, a speaker or the kiosk's lock is in play: start-up to the
    # first frame does without them (docs/architecture.md)
    from engine.panel.operator import OperatorLock
    from hardware.daystats import DayStats
    from hardware.entropy.buttons import ButtonTiming
    from hardware.rolllog import LenientLog, RollLog
    from hardware.speech import Speaker
    from hardware.speech.narrator import Narrator

__all__ = ["IDLE_TICK_NS", "ROLLING_EVENTS", "SAVE_EVERY_NS", "STATUS_EVERY_NS", "WARM_AFTER_NS", "Tower"]

#: How often the entropy status line is refreshed, and the panel memory saved at most.
STATUS_EVERY_NS = 1_000_000_000
SAVE_EVERY_NS = 1_000_000_000
#: Ticks while nothing animates: timeouts and the attract screen need no more (and a Pi Zero
#: idles instead of stepping the machine 25 times a second).
IDLE_TICK_NS = 250_000_000
#: The other systems are loaded once the buttons have been still this long: after the first
#: rolled frame, not before it, and before a player who stopped to think presses MODE.
WARM_AFTER_NS = 2_000_000_000
#: Events that may roll (and so run under the state directory's lock).
ROLLING_EVENTS = frozenset({EventKind.PRESS, EventKind.HOLD, EventKind.TURN})


class Tower:
    """One dice tower. Made by :func:`hardware.tower.assemble`; :meth:`pump` (or :meth:`run`),
    then :meth:`close`.

    ``timing`` hears every debounced button edge. ``state_dir`` is the state directory
    (``kiosk.state_dir``): the panel remembers its settings and player slots there, and rolls
    under its lock. ``roll_log`` is the log the dice write to (a
    :class:`~hardware.rolllog.LenientLog` for ``unrecorded = "show"``); ``kept=False`` says
    there is none (``state_dir = "none"``). ``show`` gets the UNRECORDED lines (standard
    output). ``log`` gets one line per notable event (it may be swapped later: the parts say
    things through :attr:`log` as it is then). ``speaker`` says results and pages aloud.
    """

    def __init__(
        self,
        config: TowerConfig,
        *,
        pin_factory: Any,
        display: ResilientDisplay,
        dice: DiceSource,
        clock: Clock = time.monotonic_ns,
        timing: ButtonTiming | None = None,
        state_dir: Path | None = None,
        roll_log: RollLog | LenientLog | None = None,
        kept: bool = True,
        show: Callable[[str], None] | None = None,
        speaker: Speaker | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.dice = dice
        self.timing = timing
        self.log: Callable[[str], None] = log or (lambda message: None)
        self.tick_ns = max(1, round(1e9 / config.kiosk.tick_hz))
        self.steps = 0  # state machine steps taken (ticks included)
        self._warm = False  # the other systems are loaded once the buttons are still (WARM_AFTER_NS)
        self._operator: OperatorLock | None = _operator_lock(config)
        able = abilities(dice)
        self.lock = DirectoryLock(state_dir, log=self._say)
        self.recorder = RollRecorder(able.recording, roll_log, show_anyway=config.kiosk.unrecorded == "show",
                                     show=show or (lambda line: None), log=self._say)
        self.sessions = SessionSync(able, roll_log=roll_log, state_dir=state_dir, kept=kept, lock=self.lock,
                                    tell=self.step, log=self._say,
                                    menu_by="staff" if self._operator is not None else "table")
        self.memory = PanelMemory(state_dir, roll_log=roll_log, log=self._say)
        self.outputs = Outputs(display)
        self._reporting = able.reporting
        self.sessions.reveal_left_open()  # a power cut's session is revealed before anything opens one
        now = clock()
        self.state, fx = machine.initial(config.panel, now / 1e9, saved=self.memory.recall_healed())
        self.voice: Narrator | None = None
        self._voice_problem = ""
        if speaker is not None:
            self.voice = _narrator(config, speaker, now, self._say, self.state.settings.speech)
        self.outputs.first(fx.screen, now)
        try:
            self.io = PanelIO(config, pin_factory=pin_factory, clock=clock)
        except BaseException:
            self.outputs.abandon()
            raise
        self.outputs.claim(self.io)
        try:
            self.outputs.apply(replace(fx, screen=None), now)
        except BaseException:
            self.io.close()
            raise
        self._next_tick = now + self.tick_ns
        self._still_since = now  # the last button event
        self._status_at = now
        self._status = ""
        self._dirty = False
        self._saved_at = now
        self._closed = False
        self._day: DayStats | None = None
        self._day_every = 0
        if state_dir is not None:
            from hardware.daystats import DAY_STATS_EVERY_NS, DayStats
            from hardware.state import LOG_NAME

            self._day, self._day_every = DayStats(state_dir / LOG_NAME), DAY_STATS_EVERY_NS
        self._day_at = now - self._day_every  # counted on the first pass
        self._day_said = Once(self._say)
        self._update_status(now)
        self._update_voice(now)
        self.sessions.sync(now)  # the first commitment goes up before the first roll

    def _say(self, line: str) -> None:
        """A line for the log as it is now (a test may swap :attr:`log` after start-up)."""
        self.log(line)

    # --- the loop -------------------------------------------------------------------------------

    def pump(self, now: int | None = None) -> int:
        """Handle everything that is due at ``now`` (default: the clock); returns steps taken."""
        now = self.clock() if now is None else now
        taken = 0
        self.io.inputs.poll(now)
        events, edges = self.io.inputs.take()
        if self.timing is not None:
            for e in edges:
                self.timing.edge(str(e.button), e.pressed, e.t_ns)
        if events:
            self._still_since = now
        for event in events:
            for passed in self._through_lock(event):
                self.step(passed, now)
                taken += 1
        if events and self._busy():
            self._next_tick = min(self._next_tick, now + self.tick_ns)  # an animation starts now
        if now >= self._next_tick:
            self.step(Event(EventKind.TICK), now)
            taken += 1
            # a late loop ticks once and carries on from now, rather than racing to catch up
            every = self.tick_ns if self._busy() else max(self.tick_ns, IDLE_TICK_NS)
            self._next_tick = max(self._next_tick + every, now + 1)
        if self.io.sound is not None:
            self.io.sound.poll(now)
        if self.voice is not None:
            self.voice.poll(self.state, now)
            self._update_voice(now)
        self.outputs.display.poll(now)
        if now - self._status_at >= STATUS_EVERY_NS:
            self._update_status(now)
        if self._day is not None and now - self._day_at >= self._day_every:
            self._update_day(self._day, now)
        if self._dirty and now - self._saved_at >= SAVE_EVERY_NS:
            self.save(now)
        if not self._warm and now - self._still_since >= WARM_AFTER_NS and not self._busy():
            self._warm_up()
        return taken

    def _through_lock(self, event: Event) -> tuple[Event, ...]:
        """The kiosk's operator lock (``kiosk.lock``): MODE held alone opens no settings."""
        if self._operator is None:
            return (event,)
        from engine.panel.operator import filter_event

        self._operator, passed = filter_event(self._operator, event)
        return passed

    def _warm_up(self) -> None:
        """Load the other enabled systems once the buttons have been still for WARM_AFTER_NS,
        so start-up to the first rolled frame pays for one system, and the first MODE press to
        each of the others does not pay for an import (which would take several times the
        2 ms a press may take)."""
        self._warm = True
        for sid in self.state.config.systems:
            engine_systems.get(sid)

    def _busy(self) -> bool:
        """Whether the clock drives something right now (roll animation, hold-repeat)."""
        state = self.state
        return state.mode is Mode.ROLLING or state.held is not None

    def step(self, event: Event, now: int | None = None) -> Effects:
        """One event through the state machine, its effects carried out. A roll is recorded
        (under the state lock) before any of its effects are."""
        now = self.clock() if now is None else now
        if event.kind is EventKind.PRESS and (event.button is Button.ROLL or self.state.mode is Mode.GUESS):
            # what other writers logged since the last tick (a code set from the command line, a
            # roll, a reveal) reaches the panel before a press that may roll (ROLL, a finger of
            # a hidden hand): it decides on the session as the log has it (docs/fairness.md,
            # "The panel's session is the table's"); the other presses never touch the log
            self.sessions.follow(now)
        before = self.state
        dice = WatchedDice(self.dice)
        with self._locked(event):
            if event.kind in ROLLING_EVENTS:
                self.sessions.log_late_reveals()
            state, fx = machine.step(before, event, now / 1e9, dice=dice)
            failed, logged = self._record(fx.rolled, state) if fx.rolled is not None else (dice.failed, None)
            if failed is None and logged is not None:
                # the entry is written: its fingerprint goes up with the result's first frame
                state, more = machine.step(state, Event(EventKind.LOGGED, text=logged), now / 1e9, dice=dice)
                fx = _merged(fx, more)
        if failed is not None:
            self.sessions.drop()
            state, fx, self.outputs.marking = self.recorder.not_recorded(before, state, fx, failed, now)
        self.state = state
        self.steps += 1
        self.outputs.apply(fx, now)
        if self.voice is not None:  # the roll is in the log and its frame drawn: now say it
            self.voice.stepped(event, before, state, now, unrecorded=self.outputs.marking)
        if self.memory.save_soon:
            self.save(now)
        if event.kind in ROLLING_EVENTS:
            self._dirty = True
        if fx.request is not None:
            self.sessions.request(fx.request)
        if fx.table_seed is not None:
            self.sessions.set_table_seed(fx.table_seed, now)
        if self.sessions.reveal_wanted and self.state.mode is not Mode.GUESS:
            # between rolls: this step's roll (if any) is recorded; a hidden hand defers it
            self.sessions.reveal(now)
        elif event.kind is not EventKind.SESSION:
            self.sessions.sync(now)
        return fx

    def _record(self, rolled: dict[str, Any], state: Any) -> tuple[str | None, str | None]:
        """The roll into the log (the recorder's work); the memory follows the entry. Returns
        why it is not in the log (None: it is, or the dice keep none) and its LOGGED text."""
        recorded = self.recorder.record(rolled, state)
        if recorded.failed is None and recorded.seq is not None:
            self.memory.logged(recorded.seq)
        return recorded.failed, recorded.logged

    def _locked(self, event: Event) -> contextlib.AbstractContextManager[None]:
        """The state directory's lock for a step that may roll; none for ticks and news."""
        if event.kind not in ROLLING_EVENTS:
            return contextlib.nullcontext()
        return self.lock()

    def deadline(self) -> int:
        """When the loop next has something to do without a new button edge: a pump before
        then finds nothing due (the simulator skips those passes)."""
        times: list[int | None] = [self._next_tick, self.io.inputs.deadline(), self.outputs.display.deadline(),
                                   self._status_at + STATUS_EVERY_NS]
        if self.io.sound is not None:
            times.append(self.io.sound.deadline())
        if self.voice is not None:
            times.append(self.voice.deadline())
        if self._day is not None:
            times.append(self._day_at + self._day_every)
        if self._dirty:
            times.append(self._saved_at + SAVE_EVERY_NS)
        return min(t for t in times if t is not None)

    def run(self, stop: threading.Event, *, each_pass: Callable[[Tower], None] | None = None) -> None:
        """The appliance loop: until ``stop`` is set, wait for input or the next deadline.

        ``each_pass`` is called after every pass (at least once a second): the service's
        watchdog is fed from here, so a loop stuck on a dead bus stops feeding it."""
        while not stop.is_set():
            timeout = (self.deadline() - self.clock()) / 1e9
            if timeout > 0:
                self.io.inputs.wait(min(timeout, 1.0))
            self.pump()
            if each_pass is not None:
                each_pass(self)

    def service_status(self) -> str:
        """One line for ``systemctl status``: the current system and the rolls since start."""
        rolls = f"{self.rolls} roll" + ("" if self.rolls == 1 else "s")
        return f"{self.state.system_id}, {rolls} since start"

    # --- news for the panel ---------------------------------------------------------------------

    def _update_day(self, day: DayStats, now: int) -> None:
        """Today's rolls from the roll log, for the attract screen (engine.panel.attract)."""
        self._day_at = now
        try:
            text = day.refresh()
        except Exception as exc:  # an unreadable log: the attract screen keeps its last figures
            self._day_said.say(f"today's rolls: {exc}")
            return
        self._day_said.over()
        if text is not None:
            self.step(Event(EventKind.STATS, text=text), now)

    def _update_voice(self, now: int) -> None:
        """Tell the settings menu (and the log, once) when speech cannot be heard."""
        if self.voice is None:
            return
        problem = self.voice.heard(self.state)
        if problem != self._voice_problem:
            self._voice_problem = problem
            self.step(Event(EventKind.SPEECH, text=problem), now)

    def _update_status(self, now: int) -> None:
        self.sessions.follow(now)
        self._status_at = now
        text = ""
        if self._reporting is not None:
            try:
                text = str(self._reporting.status())
            except Exception as exc:  # a status line must never stop the panel
                text = f"error {exc}"
        if text != self._status:
            self._status = text
            self.step(Event(EventKind.STATUS, text=text), now)

    # --- what the world sees ----------------------------------------------------------------------

    @property
    def display(self) -> ResilientDisplay:
        return self.outputs.display

    @property
    def screen(self) -> Screen | None:
        return self.outputs.screen

    @property
    def frame(self) -> Any:
        """The last picture sent to an OLED (a PIL image), or None for a text display."""
        return self.outputs.frame

    @property
    def frames(self) -> int:
        """Screens sent to the display."""
        return self.outputs.frames

    @property
    def rolls(self) -> int:
        """Rolls carried out since start."""
        return self.outputs.rolls

    @property
    def effects_seen(self) -> list[Effects]:
        """The last few effects (for the simulator)."""
        return self.outputs.effects_seen

    @property
    def unrecorded(self) -> int:
        """Rolls shown without their entry (``unrecorded = "show"``)."""
        return self.recorder.unrecorded

    @property
    def refused(self) -> int:
        """Rolls not shown because their entry could not be written."""
        return self.recorder.refused

    def leds(self) -> tuple[float, ...]:
        return self.io.led_levels()

    def rgb(self) -> tuple[float, float, float] | None:
        return self.io.rgb_level()

    # --- memory and shutdown --------------------------------------------------------------------

    def save(self, now: int | None = None) -> None:
        """Write the panel's settings and player slots (atomically) if they changed."""
        self._saved_at = self.clock() if now is None else now
        self._dirty = False
        self.memory.save(self.state)

    def close(self) -> None:
        """LEDs off, buzzer quiet, display cleared, memory saved, the dice's session revealed."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            self.save()
        if self.voice is not None:
            with contextlib.suppress(Exception):  # quiet regardless
                self.voice.close()
        self.outputs.close()
        self.sessions.close()


def _merged(first: Effects, then: Effects) -> Effects:
    """Two steps' effects carried out as one (the second's picture over the first's)."""
    return Effects(
        screen=then.screen if then.screen is not None else first.screen,
        leds=then.leds if then.leds is not None else first.leds,
        rgb=then.rgb if then.rgb is not None else first.rgb,
        sounds=first.sounds + then.sounds,
        rolled=first.rolled if first.rolled is not None else then.rolled,
        request=first.request or then.request,
        table_seed=first.table_seed or then.table_seed,
    )


def _narrator(config: TowerConfig, speaker: Speaker, now: int, log: Callable[[str], None],
              speaking: bool) -> Narrator:
    """Speech for a tower with a speaker (loaded only then: start-up without one skips it)."""
    from engine.speech import Tables
    from hardware.speech.narrator import Narrator

    sound = config.sound
    return Narrator(speaker, Tables(sound.language, config.panel.systems), still_ns=round(sound.still_seconds * 1e9),
                    now=now, speaking=speaking, log=log)


def _operator_lock(config: TowerConfig) -> OperatorLock | None:
    """The kiosk's operator lock (engine.panel.operator), or None when ``kiosk.lock`` is off."""
    if not config.kiosk.lock:
        return None
    from engine.panel.operator import OperatorLock, check_buttons

    return OperatorLock(check_buttons(config.kiosk.operator_buttons))
