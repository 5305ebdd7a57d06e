"""The tower's main loop: button events in, the pure state machine, effects out.

:class:`Tower` owns one panel (gpiozero devices on a pin factory passed in), one display
(behind :class:`~hardware.display.ResilientDisplay`), the dice and the clock. :meth:`Tower.pump`
is one pass of the loop and never sleeps, so tests and the simulator drive it on a simulated
clock; :meth:`Tower.run` is the appliance loop, which sleeps until an event arrives or the
next tick, bounce settle, note or display retry is due. It ticks at ``kiosk.tick_hz`` while a
roll animates or a value repeats, and four times a second otherwise. LEDs are set before the display is
drawn, so a slow or failing display never delays them.

With session dice (:class:`hardware.entropy.SessionDice`) the tower opens a session at start-up
and again as soon as one closes (a reveal from the settings menu, or the rotation after
``session_rolls``), and tells the panel its commitment, so the commitment is on the display
before the session's first roll (docs/fairness.md). A reveal the panel asks for is carried
out between rolls, never while a finger guess waits. The session is the state directory's one
open session, which the command line may share (a ``roll --state-dir``, ``session seed``,
``session close``): every roll, and every opening, following and reveal of the session, runs
under the state directory's lock, and once a second the tower takes in what others logged.

The table seed the panel's players set (an effect of the state machine) is written to the log
by the dice (:class:`hardware.entropy.TableSeeding`) under the same lock, for the session
whose commitment the players saw, before the panel shows it; a seed another writer set
(``dicetower session seed``) reaches the panel within a second, as the log has it.

The roll log is the truth: a step that rolls runs under the state directory's lock, and its
entry is appended (and fsynced) before anything of the result reaches the LEDs, the buzzer or
the display; in the same step the panel is told the entry's fingerprint (a LOGGED event:
the roll's number in its session and the start of its hash), so the result's first frame
shows it. A typed-in roll (a fixed hand) is logged as ``entered``, outside any session, as
the command line logs it. When the entry cannot be written (a full or read-only card, a removed one) the
panel shows "cannot record" instead and the dice session that drew the roll is closed, so the
log stays replayable; with ``kiosk.unrecorded = "show"`` the result is shown anyway, titled
UNRECORDED on the display and printed as ``UNRECORDED <json>`` (docs/roll-log.md).

With a ``speaker`` (:class:`hardware.speech.Speaker`), results and the setup page are spoken
while the settings' speech switch is on: after the step's roll is logged and its frame drawn,
by a process the loop never waits for (:mod:`hardware.speech.narrator`, docs/speech.md).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import systems as engine_systems
from engine.dice import DiceSource
from engine.panel import looks, machine, sessions
from engine.panel import slots as players
from engine.panel.model import Effects, Event, EventKind, Screen
from engine.panel.state import Mode, PanelState
from engine.panel.view import render
from engine.params import typed_in
from hardware.config import TowerConfig
from hardware.display import ResilientDisplay
from hardware.panel_io import Clock, PanelIO

if TYPE_CHECKING:
    # only where a state directory, the service manager or a roll log is in play: start-up
    # to the first frame does without them (docs/architecture.md)
    from hardware.daystats import DayStats
    from hardware.sdnotify import Notifier
    from hardware.speech import Speaker
    from hardware.speech.narrator import Narrator

PANEL_STATE = "panel.json"
#: How often the entropy status line is refreshed, and the panel memory saved at most.
STATUS_EVERY_NS = 1_000_000_000
SAVE_EVERY_NS = 1_000_000_000
#: After a session could not be opened (e.g. buttons alone have not credited 256 bits yet),
#: how long before trying again; a roll tries at once anyway.
SESSION_RETRY_NS = 5_000_000_000
#: Ticks while nothing animates: timeouts and the attract screen need no more (and a Pi Zero
#: idles instead of stepping the machine 25 times a second).
IDLE_TICK_NS = 250_000_000
#: Events that may roll (and so run under the state directory's lock).
ROLLING_EVENTS = frozenset({EventKind.PRESS, EventKind.HOLD, EventKind.TURN})
#: Screens that show a roll (marked UNRECORDED when the roll could not be logged).
RESULT_SCREENS = frozenset({"rolling", "result"})
#: The SESSION text when a session closes and there is no roll log to hold its seed.
NOT_KEPT = "seed not kept: no roll log (state_dir none)"
#: Panel memory files are small; anything bigger or deeper is not one.
MAX_MEMORY_BYTES = 256 * 1024
MAX_MEMORY_DEPTH = 32


class Tower:
    """One dice tower. Build it, :meth:`pump` (or :meth:`run`), then :meth:`close`.

    ``timing`` (a :class:`hardware.entropy.ButtonTiming`) hears every debounced button edge.
    ``memory`` is the state directory (``kiosk.state_dir``): the panel remembers its settings
    and player slots there, and rolls under its lock. ``roll_log`` is the log the dice write
    to (a :class:`~hardware.rolllog.LenientLog` for ``unrecorded = "show"``); ``kept=False``
    says there is none (``state_dir = "none"``), so a reveal is not announced as "in log".
    ``show`` gets the UNRECORDED lines (standard output). ``log`` gets one line per notable
    event. ``speaker`` says results and pages aloud (``[sound]``; None: the tower is silent).
    """

    def __init__(
        self,
        config: TowerConfig,
        *,
        pin_factory: Any,
        display: ResilientDisplay,
        dice: DiceSource,
        clock: Clock = time.monotonic_ns,
        timing: Any = None,
        memory: str | Path | None = None,
        log: Callable[[str], None] | None = None,
        roll_log: Any = None,
        kept: bool = True,
        show: Callable[[str], None] | None = None,
        speaker: Speaker | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.display = display
        self.dice = dice
        self.timing = timing
        self._warm = False  # the other systems are loaded on the first idle pass
        self.log = log or (lambda message: None)
        self.memory = Path(memory) / PANEL_STATE if memory else None
        self.state_dir = Path(memory) if memory else None
        self.roll_log = roll_log
        self.kept = kept
        self.show = show or (lambda line: None)
        self.unrecorded = 0  # rolls shown without their entry (unrecorded = "show")
        self.refused = 0  # rolls not shown because their entry could not be written
        self._marking = False  # the screens of an unrecorded roll are titled UNRECORDED
        self._lock_problem = ""
        self._save_after_roll = False
        self._log_seq = 0  # the log entry the panel memory reflects (the memory is a cache of the log)
        self.tick_ns = max(1, round(1e9 / config.kiosk.tick_hz))
        self._lock = _operator_lock(config)
        self.steps = 0  # state machine steps taken (ticks included)
        self.frames = 0  # screens sent to the display
        self.rolls = 0
        self.effects_seen: list[Effects] = []  # the last few effects (for the simulator)
        # dice sessions: only dice that commit and reveal (SessionDice) have them; the class is
        # asked, because reading ``commitment`` on the dice would open a session
        self._has_sessions = all(hasattr(type(dice), name) for name in ("commitment", "session_id", "reveal"))
        self._session_id: str | None = None  # the session the panel was told about
        self._commitment = ""
        self._session_text = ""  # the last SESSION text sent
        self._table_seed: str | None = None  # the table seed of the session the panel was told about
        self._session_retry_at = 0
        self._syncing = False
        self._reveal_wanted = False
        self._session_problem = ""  # the last reason for no session that was logged
        self._memory_problem = ""  # the last panel memory failure that was logged
        self._follow_problem = ""  # the last trouble following the roll log that was logged
        self._reveal_left_open()  # a power cut's session is revealed before anything opens one
        now = clock()
        self.state, fx = machine.initial(config.panel, now / 1e9, saved=self._recall_healed())
        self.voice: Narrator | None = None
        self._voice_problem = ""
        if speaker is not None:
            self.voice = _narrator(config, speaker, now, self.log, self.state.settings.speech)
        # the first picture goes up before the pins are claimed: the display is what a player
        # sees of start-up, the buttons and LEDs are ready a few milliseconds later
        if fx.screen is not None:
            self.display.show(fx.screen, now)
            self.frames += 1
        try:
            self.io = PanelIO(config, pin_factory=pin_factory, clock=clock)
        except BaseException:
            # no panel (a pin busy, no permission): the screen must not look ready to play
            self.display.clear()
            self.display.close()
            raise
        try:
            self._apply(replace(fx, screen=None), now)
        except BaseException:
            self.io.close()
            raise
        self._next_tick = now + self.tick_ns
        self._status_at = now
        self._status = ""
        self._dirty = False
        self._saved_at = now
        self._closed = False
        self._day: DayStats | None = None
        self._day_every = 0
        if memory:
            from hardware.daystats import DAY_STATS_EVERY_NS, DayStats
            from hardware.state import LOG_NAME

            self._day, self._day_every = DayStats(Path(memory) / LOG_NAME), DAY_STATS_EVERY_NS
        self._day_at = now - self._day_every  # counted on the first pass
        self._day_problem = ""
        self._update_status(now)
        self._update_voice(now)
        self._sync_session(now)  # the first commitment goes up before the first roll

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
        self.display.poll(now)
        if now - self._status_at >= STATUS_EVERY_NS:
            self._update_status(now)
        if self._day is not None and now - self._day_at >= self._day_every:
            self._update_day(now)
        if self._dirty and now - self._saved_at >= SAVE_EVERY_NS:
            self.save(now)
        if not events and not self._warm:
            self._warm_up()
        return taken

    def _through_lock(self, event: Event) -> tuple[Event, ...]:
        """The kiosk's operator lock (``kiosk.lock``): MODE held alone opens no settings."""
        if self._lock is None:
            return (event,)
        from engine.panel.operator import filter_event

        self._lock, passed = filter_event(self._lock, event)
        return passed

    def _warm_up(self) -> None:
        """Load the other enabled systems on the first idle pass after the first frame, so
        start-up pays for one system and the first MODE press to each of the others does not
        pay for an import (which would take several times the 2 ms a press may take)."""
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
        before = self.state
        dice = _Watched(self.dice)
        with self._locked(event):
            if event.kind in ROLLING_EVENTS:
                self._log_late_reveals()
            state, fx = machine.step(before, event, now / 1e9, dice=dice)
            failed, logged = self._record(fx.rolled, state) if fx.rolled is not None else (dice.failed, None)
            if failed is None and logged is not None:
                # the entry is written: its fingerprint goes up with the result's first frame
                state, more = machine.step(state, Event(EventKind.LOGGED, text=logged), now / 1e9, dice=dice)
                fx = _merged(fx, more)
        if failed is not None:
            state, fx = self._not_recorded(before, state, fx, failed, now)
        self.state = state
        self.steps += 1
        self._apply(fx, now)
        if self.voice is not None:  # the roll is in the log and its frame drawn: now say it
            self.voice.stepped(event, before, state, now, unrecorded=self._marking)
        if self._save_after_roll:
            self._save_after_roll = False
            self.save(now)
        if event.kind in ROLLING_EVENTS:
            self._dirty = True
        if fx.request is not None:
            self._request(fx.request)
        if fx.table_seed is not None:
            self._set_table_seed(fx.table_seed, now)
        if self._reveal_wanted and self.state.mode is not Mode.GUESS:
            # between rolls: this step's roll (if any) is recorded; a hidden hand defers it
            self._reveal(now)
        elif event.kind is not EventKind.SESSION:
            self._sync_session(now)
        return fx

    def _locked(self, event: Event) -> contextlib.AbstractContextManager[None]:
        """The state directory's lock for a step that may roll; none for ticks and news."""
        if event.kind not in ROLLING_EVENTS:
            return contextlib.nullcontext()
        return self._state_locked()

    def _state_locked(self) -> contextlib.AbstractContextManager[None]:
        """The state directory's lock (none without a state directory): around every roll, and
        every opening, following and revealing of the directory's one open session, which the
        command line may share (docs/roll-log.md). Not re-entrant: never nested."""
        if self.state_dir is None:
            return contextlib.nullcontext()
        from hardware.locking import LockError, state_lock

        try:
            lock = state_lock(self.state_dir, clean=False)  # cleaned once at start (hardware.cli.tower.keep)
            lock.__enter__()
        except LockError as exc:  # no lock file (a read-only card): the log says more at the roll
            if str(exc) != self._lock_problem:
                self._lock_problem = str(exc)
                self.log(f"state lock: {exc}")
            return contextlib.nullcontext()
        self._lock_problem = ""
        return _Entered(lock)

    def deadline(self) -> int:
        """When the loop next has something to do without a new button edge: a pump before
        then finds nothing due (the simulator skips those passes)."""
        times = [self._next_tick, self.io.inputs.deadline(), self.display.deadline(),
                 self._status_at + STATUS_EVERY_NS]
        if self.io.sound is not None:
            times.append(self.io.sound.deadline())
        if self.voice is not None and self.voice.deadline() is not None:
            times.append(self.voice.deadline())  # type: ignore[arg-type]
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

    # --- effects --------------------------------------------------------------------------------

    def _apply(self, fx: Effects, now: int) -> None:
        if fx.leds is not None:
            self.io.set_leds(fx.leds)
        if fx.rgb is not None:
            self.io.set_rgb(fx.rgb)
        if fx.sounds and self.io.sound is not None:
            self.io.sound.play(fx.sounds, now)
        if fx.screen is not None:
            self.display.show(self._marked(fx.screen), now)
            self.frames += 1
        if fx.rolled is not None:
            self.rolls += 1
        if not fx.empty or fx.rolled is not None:
            self.effects_seen.append(fx)
            del self.effects_seen[:-16]

    def _marked(self, screen: Screen) -> Screen:
        """The screens of a roll that is not in the log say so in their title."""
        if not self._marking:
            return screen
        if screen.kind not in RESULT_SCREENS:
            self._marking = False
            return screen
        return replace(screen, title="UNRECORDED")

    def _record(self, rolled: dict, state: PanelState) -> tuple[str | None, str | None]:
        """Append the roll (with the slot's state after it). Returns why it could not be (None
        when it is in the log, or the dice keep no log) and, once it is in the log, the LOGGED
        text of its fingerprint for the panel."""
        record = getattr(self.dice, "record", None)
        if not callable(record):
            return None, None
        failures = getattr(self.roll_log, "failures", 0)
        slot = players.to_json(state.slot)
        entered = typed_in(rolled.get("params") or {})
        try:
            if entered:  # typed in (a fixed hand): outside any session, as the command line logs it
                entry = self._append_entered(rolled, state.settings.player, slot)
            else:
                entry = record(rolled, player=state.settings.player, source="panel", player_state=slot)
        except Exception as exc:  # a LogError, or anything else the log hit: not recorded
            self.log(f"roll log: {exc}")
            return getattr(exc, "reason", None) or getattr(exc, "detail", None) or str(exc), None
        if getattr(self.roll_log, "failures", 0) != failures:  # a LenientLog swallowed it
            self.log(f"roll log: {self.roll_log.last_error}")
            return str(getattr(self.roll_log, "last_reason", "") or self.roll_log.last_error), None
        if not isinstance(entry, dict):
            return None, None  # dice without a log: nothing recorded, nothing to show
        seq = entry.get("seq")
        if isinstance(seq, int) and self.memory is not None:
            self._log_seq = seq
            self._save_after_roll = True  # saved as soon as the step is done, not a second later
        return None, self._fingerprint(entry, entered)

    def _append_entered(self, rolled: dict, player: int, slot: dict) -> dict[str, Any] | None:
        """A typed-in roll's entry: ``entered``, ``session`` null (nothing in it can be checked,
        and it takes no part in the open session: docs/fairness.md, "Roll kinds")."""
        if self.roll_log is None:
            return None
        return self.roll_log.append("roll", session=None, roll_kind="entered", result=rolled, player=player,
                                    source="panel", player_state=slot)

    def _fingerprint(self, entry: dict[str, Any], entered: bool) -> str | None:
        """The LOGGED text for the entry just written: its number in its session (from the
        dice, which counted it) and its hash."""
        digest = entry.get("hash")
        if not isinstance(digest, str) or not digest:
            return None
        number = 0
        if not entered:
            fp = getattr(self.dice, "last_fingerprint", None)
            number = getattr(fp, "number", 0) if getattr(fp, "entry", None) == digest else 0
            if not number:
                return None  # not the dice's own count of it: show nothing rather than a wrong number
        try:
            return sessions.roll_logged(number, digest)
        except ValueError:
            return None

    def _not_recorded(self, before: PanelState, state: PanelState, fx: Effects, why: str,
                      now: int) -> tuple[PanelState, Effects]:
        """A roll whose entry could not be written: shown as UNRECORDED (``unrecorded =
        "show"``), or not shown at all, the panel back as it was before the roll with a
        "cannot record" message. Either way its dice session is closed (its bytes are spent
        and not in the log, so the session could not be replayed past them)."""
        import json

        self._drop_session()
        if self.config.kiosk.unrecorded == "show":
            self.unrecorded += 1
            self._marking = True
            self.show("UNRECORDED " + json.dumps(fx.rolled, sort_keys=True))
            return state, fx
        self.refused += 1
        self._marking = False
        text = f"roll log: {why}; roll not shown"
        refused = replace(before, now=now / 1e9, mode=Mode.MESSAGE, message=("cannot record", text[:160]),
                          shown_at=now / 1e9, fingers=(), result=None, fingerprint="", view=None)
        view = render(refused)
        refused = replace(refused, view=view)
        return refused, Effects(screen=view.screen, leds=view.leds, rgb=view.rgb, sounds=(looks.ERROR_SOUND,))

    def _drop_session(self) -> None:
        reveal = getattr(self.dice, "reveal", None)
        if not self._has_sessions or not callable(reveal):
            return
        with contextlib.suppress(Exception), self._state_locked():  # said by _revealing
            self._revealing(reveal)

    def _revealing(self, reveal: Callable[[], Any]) -> None:
        """Close the session with ``reveal``. If its reveal entry cannot be written (the card
        is full), the dice keep it and write it as a late ``reveal`` entry as soon as the log
        takes entries again, before any new session opens (one session at a time); the
        journal names its seed meanwhile, so its rolls stay replayable. The exception is raised
        on."""
        describe = getattr(self.dice, "describe", None)
        info = describe() if callable(describe) else {}
        try:
            reveal()
        except Exception as exc:
            seed = None
            with contextlib.suppress(Exception):
                seed = self.dice.reveal()  # type: ignore[attr-defined]  # with none open: the last seed
            sid = info.get("session") if isinstance(info, dict) else None
            if seed and sid:
                self.log(f"reveal: {exc}; session {sid}'s seed goes into the log as soon as it can be written: {seed}")
            else:
                self.log(f"reveal: {exc}")
            raise

    def _open_sessions(self) -> Any:
        """The state directory's record of open sessions (None when nothing is kept)."""
        if self.state_dir is None or self.roll_log is None:
            return None
        from hardware.entropy.open_sessions import OpenSessions

        return OpenSessions(self.state_dir, log=self.log)

    def _reveal_left_open(self) -> None:
        """Reveal the sessions a stopped tower left open (hardware.entropy.open_sessions), so
        the rolls they made stay checkable. Trouble is logged; the files stay for next time."""
        kept = self._open_sessions()
        if kept is None or not kept.left_open():
            return
        from hardware.locking import state_lock

        current = self.dice.session_id if self._has_sessions else None  # type: ignore[attr-defined]
        try:
            with state_lock(self.state_dir):
                revealed = kept.reveal_left_open(self.roll_log, self.roll_log.path, skip=current)
        except Exception as exc:  # a full card, a damaged log: play goes on, the reveal waits
            self.log(f"reveal: the session(s) left open by the last run stay unrevealed for now: {exc}")
            return
        for sid in revealed:
            self.log(f"reveal: session {sid}, left open when the tower last stopped, is revealed in the log")

    def _log_late_reveals(self) -> None:
        """Write the reveals the log could not take when their sessions closed (the dice keep
        them: :meth:`hardware.entropy.SessionDice.flush_reveals`)."""
        flush = getattr(self.dice, "flush_reveals", None)
        late = getattr(self.dice, "late_reveals", ())
        if not callable(flush) or not late:
            return
        before = set(late)
        try:
            flush()
        except Exception:  # the log still cannot take them: said when the session closed
            return
        for sid in sorted(before - set(getattr(self.dice, "late_reveals", ()))):
            self.log(f"reveal: session {sid}'s seed is in the log now")

    def _update_day(self, now: int) -> None:
        """Today's rolls from the roll log, for the attract screen (engine.panel.attract)."""
        self._day_at = now
        try:
            text = self._day.refresh()  # type: ignore[union-attr]
        except Exception as exc:  # an unreadable log: the attract screen keeps its last figures
            problem = f"today's rolls: {exc}"
            if problem != self._day_problem:
                self._day_problem = problem
                self.log(problem)
            return
        self._day_problem = ""
        if text is not None:
            self.step(Event(EventKind.STATS, text=text), now)

    def _follow_log(self, now: int) -> None:
        """Take in what other writers logged in the open session (a command line's rolls, a
        table seed, a reveal by ``dicetower session close``); a session they closed is
        followed by the next one at once."""
        follow = getattr(self.dice, "follow", None)
        if not self._has_sessions or not callable(follow) or self.state_dir is None:
            return
        try:
            with self._state_locked():
                follow()
        except Exception as exc:  # an unreadable log: the next roll says more
            problem = f"dice: cannot follow the roll log: {exc}"
            if problem != self._follow_problem:  # said once, not every second
                self._follow_problem = problem
                self.log(problem)
            return
        self._follow_problem = ""
        self._sync_session(now)

    def _update_voice(self, now: int) -> None:
        """Tell the settings menu (and the log, once) when speech cannot be heard."""
        if self.voice is None:
            return
        problem = self.voice.heard(self.state)
        if problem != self._voice_problem:
            self._voice_problem = problem
            self.step(Event(EventKind.SPEECH, text=problem), now)

    def _update_status(self, now: int) -> None:
        self._follow_log(now)
        self._status_at = now
        status = getattr(self.dice, "status", None)
        text = ""
        if callable(status):
            try:
                text = str(status())
            except Exception as exc:  # a status line must never stop the panel
                text = f"error {exc}"
        if text != self._status:
            self._status = text
            self.step(Event(EventKind.STATUS, text=text), now)

    # --- dice sessions --------------------------------------------------------------------------

    def _request(self, request: str) -> None:
        if request == sessions.REVEAL and self._has_sessions:
            self._reveal_wanted = True
        elif request != sessions.REVEAL:
            self.log(f"panel: unknown request {request!r}")

    def _set_table_seed(self, asked: tuple[str, str], now: int) -> None:
        """Set the table seed the players entered, record-first, on the session whose
        commitment they saw (the dice follow the log first: another writer may have rolled,
        seeded or revealed meanwhile), then tell the panel what the log holds: the seed (a
        SESSION event) or why it is not set (a LOGGED event: "cannot record" when the log
        could not take it)."""
        from hardware.entropy.session import TableSeeding
        from hardware.rolllog import LogError

        commitment, text = asked
        dice = self.dice
        problem: str | None = None
        if not isinstance(dice, TableSeeding):
            problem = sessions.seed_refused("these dice take no table seed")
        else:
            failures = getattr(self.roll_log, "failures", 0)
            try:
                with self._state_locked():
                    follow = getattr(dice, "follow", None)
                    if callable(follow):
                        follow()
                    sid = dice.session_id
                    if sid is None or not commitment.startswith(sid):
                        raise ValueError(f"the session changed (#{commitment[:8]} is no longer open); note the "
                                         "new commitment, then set its table seed")
                    entry = dice.set_table_seed(text)
            except LogError as exc:
                why = getattr(self.roll_log, "last_reason", "") if getattr(self.roll_log, "failures", 0) != failures \
                    else exc.reason
                self.log(f"table seed: roll log: {why or exc}; not set")
                problem = sessions.seed_not_logged(f"roll log: {why or exc}")
            except Exception as exc:  # refused (too late, set already, the session changed): said on screen
                self.log(f"table seed: {exc}")
                problem = sessions.seed_refused(str(exc).removeprefix("table seed: "))
            else:
                digest = str(entry.get("hash", ""))[:8]
                self.log(f"table seed {text!r} set for session #{commitment[:8]} (entry {digest})")
        self._sync_session(now)  # the seed as the log holds it (or the session as it now is)
        if problem is not None:
            self.step(Event(EventKind.LOGGED, text=problem), now)

    def _reveal(self, now: int) -> None:
        """Close the session (its seed goes to the roll log), open the next one, tell the panel."""
        self._reveal_wanted = False
        try:
            with self._state_locked():
                self._revealing(self.dice.reveal)  # type: ignore[attr-defined]
        except Exception as exc:  # the log could not be written: said, and the panel shows what is open
            self._send_session(sessions.unavailable(f"reveal failed: {exc}"), now)
            self._session_id, self._commitment = None, ""
            self._sync_session(now, announce=False)
            return
        self._sync_session(now)

    def _sync_session(self, now: int, *, announce: bool = True) -> None:
        """Tell the panel when the session changed: a closed one is announced as revealed, and
        a new one is opened (at most every SESSION_RETRY_NS while that fails) and shown."""
        if not self._has_sessions or self._syncing:
            return
        self._syncing = True
        try:
            sid = self.dice.session_id  # type: ignore[attr-defined]
            if sid is not None and sid == self._session_id:
                self._send_session(self._open_text(), now)  # its table seed, its first roll
                return
            if self._session_id is not None:  # the session the panel shows has closed
                old, old_sid, seed = self._commitment, self._session_id, self._table_seed
                self._session_id, self._commitment, self._table_seed = None, "", None
                if announce:
                    self._send_session(self._revealed_text(old, old_sid, seed) if self.kept
                                       else sessions.unavailable(NOT_KEPT), now)
            if sid is None and now < self._session_retry_at:
                return
            try:
                with self._state_locked():  # joins the directory's open session, or opens one
                    commitment = str(self.dice.commitment)  # type: ignore[attr-defined]
                if not sessions.is_commitment(commitment):
                    raise ValueError(f"the dice gave {commitment!r} as a commitment")
            except Exception as exc:  # not enough entropy yet, a source failed: a roll will say so
                self._session_retry_at = now + SESSION_RETRY_NS
                why = getattr(exc, "detail", None) or str(exc)
                self._log_session_problem(exc, why)
                self._send_session(sessions.unavailable(why), now)
                return
            self._session_id = self.dice.session_id  # type: ignore[attr-defined]
            self._commitment = commitment
            self._session_problem = ""  # the same trouble again later is news again
            self._session_retry_at = 0  # the next one (after a reveal) opens at once
            self._send_session(self._open_text(), now)
        finally:
            self._syncing = False

    def _open_text(self) -> str:
        """The SESSION text of the open session: its commitment, its table seed as the dice
        (following the log) hold it, and whether it has a roll."""
        describe = getattr(self.dice, "describe", None)
        info = describe() if callable(describe) else {}
        seed = info.get("table_seed") if isinstance(info, dict) else None
        seed = seed if isinstance(seed, str) and sessions.is_table_seed(seed) else None
        rolls = info.get("rolls") if isinstance(info, dict) else 0
        self._table_seed = seed
        return sessions.committed(self._commitment, table_seed=seed, started=isinstance(rolls, int) and rolls > 0)

    def _revealed_text(self, commitment: str, sid: str, table_seed: str | None) -> str:
        """The SESSION text of a session just closed, with the reveal's four facts when its
        reveal entry is in the log (the reveal screen and its QR code); without them when it
        is not yet (a full card: the dice write it late)."""
        entry = self._reveal_entry(sid)
        if entry is None:
            return sessions.revealed(commitment)
        rolls, head = entry.get("rolls"), entry.get("hash")
        if not isinstance(rolls, int) or not isinstance(head, str) or not sessions.is_commitment(head):
            return sessions.revealed(commitment)
        return sessions.revealed(commitment, rolls=rolls, head=head, table_seed=table_seed)

    def _reveal_entry(self, sid: str) -> dict[str, Any] | None:
        """Session ``sid``'s reveal entry: the dice's own, or (another writer revealed it)
        the log's."""
        own = getattr(self.dice, "last_reveal_entry", None)
        if isinstance(own, dict) and own.get("session") == sid:
            return own
        path = getattr(self.roll_log, "path", None)
        if path is None:
            return None
        from hardware.rolllog import last_entry

        try:
            return last_entry(path, "reveal", where=lambda e: e.get("session") == sid)
        except Exception as exc:  # an unreadable log: the reveal is shown without its facts
            self.log(f"reveal: cannot read session {sid}'s reveal from the roll log: {exc}")
            return None

    def _log_session_problem(self, exc: Exception, why: str) -> None:
        """Tell the log (the journal, on a kiosk) why no session opens: a roll log that cannot
        be written or a failed source would otherwise show only on the display. Warming up
        (not enough button presses yet) is the normal start of ``buttons`` and is not logged."""
        from hardware.entropy import NotEnoughEntropy

        if isinstance(exc, NotEnoughEntropy) or why == self._session_problem:
            return
        self._session_problem = why
        self.log(f"dice: no session, so no rolls: {why}")

    def _send_session(self, text: str, now: int) -> None:
        if text != self._session_text:
            self._session_text = text
            self.step(Event(EventKind.SESSION, text=text), now)

    # --- what the world sees ----------------------------------------------------------------------

    @property
    def screen(self) -> Screen | None:
        return self.display.screen

    @property
    def frame(self) -> Any:
        """The last picture sent to an OLED (a PIL image), or None for a text display."""
        return getattr(self.display.display, "image", None)

    def leds(self) -> tuple[float, ...]:
        return self.io.led_levels()

    def rgb(self) -> tuple[float, float, float] | None:
        return self.io.rgb_level()

    # --- memory and shutdown --------------------------------------------------------------------

    def _recall_healed(self) -> dict | None:
        """The panel memory, with the slot of the log's last panel roll taken from the log if
        the memory is older than it (a kill between the roll's append and the save)."""
        saved = self._recall()
        seq = saved.get("log_seq") if saved is not None else 0
        self._log_seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else 0
        path = getattr(self.roll_log, "path", None)
        if saved is None or path is None:
            return saved
        from hardware.rolllog import last_entry

        try:
            last = last_entry(path, "roll", where=lambda e: e.get("source") == "panel")
        except Exception as exc:  # the roll log says why at the first roll
            self.log(f"panel memory: cannot check it against the roll log: {exc}")
            return saved
        slots, player, slot = saved.get("players"), last and last.get("player"), last and last.get("player_state")
        if last is None or last["seq"] <= self._log_seq or not isinstance(slots, list) or not slots \
                or not isinstance(player, int) or not isinstance(slot, dict):
            return saved
        slots = list(slots)
        slots[(player - 1) % len(slots)] = slot
        self._log_seq = last["seq"]
        self.log(f"panel memory: player {player}'s slot is behind the roll log; taken from entry {last['seq']}")
        return {**saved, "players": slots, "log_seq": last["seq"]}

    def _recall(self, *, quiet: bool = False) -> dict | None:
        if self.memory is None:
            return None
        import errno

        from hardware.safefile import FileRefused, load_json

        try:
            data = load_json(self.memory, MAX_MEMORY_BYTES, MAX_MEMORY_DEPTH)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as exc:
            if not quiet:
                why = ("it is a symbolic link" if isinstance(exc, OSError) and exc.errno == errno.ELOOP
                       else str(exc.strerror).removeprefix(f"{self.memory} ") if isinstance(exc, FileRefused)
                       else exc.strerror if isinstance(exc, OSError) and exc.strerror else exc)
                self.log(f"panel memory {self.memory}: {why}; starting fresh")
            return None
        if not isinstance(data, dict):
            if not quiet:
                self.log(f"panel memory {self.memory}: not a JSON object; starting fresh")
            return None
        return data

    def save(self, now: int | None = None) -> None:
        """Write the panel's settings and player slots (atomically) if they changed.

        A failure (read-only or full card) is logged once, not at every save, and its end too."""
        self._saved_at = self.clock() if now is None else now
        self._dirty = False
        if self.memory is None:
            return
        import json

        from hardware.state import atomic_write_json

        snapshot = {**machine.snapshot(self.state), "log_seq": self._log_seq}
        try:
            if self._recall(quiet=True) == json.loads(json.dumps(snapshot)):
                return
            atomic_write_json(self.memory, snapshot)
        except (OSError, TypeError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            problem = f"panel memory {self.memory}: {why}"
            if problem != self._memory_problem:
                self._memory_problem = problem
                self.log(f"{problem}; the panel will not remember its settings")
            return
        if self._memory_problem:
            self._memory_problem = ""
            self.log(f"panel memory {self.memory}: saved again")

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
        self.io.close()
        self.display.clear()
        self.display.close()
        close = getattr(self.dice, "close", None)
        if callable(close):
            with contextlib.suppress(Exception), self._state_locked():  # shutting down regardless; said by _revealing
                self._log_late_reveals()
                self._revealing(close)


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


class _Watched:
    """The dice as the state machine sees them: a roll log that cannot take a new session's
    entry is noted (the machine itself would only say "cannot roll" with the whole message)."""

    def __init__(self, dice: Any) -> None:
        self._dice = dice
        self.failed: str | None = None

    def randbelow(self, n: int) -> int:
        return self._call(self._dice.randbelow, n)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._dice, name)
        if name == "sample" and callable(value):
            return lambda *args: self._call(value, *args)
        return value

    def _call(self, draw: Callable[..., Any], *args: Any) -> Any:
        try:
            return draw(*args)
        except Exception as exc:
            from hardware.rolllog import LogError  # not before it is needed: start-up time

            if isinstance(exc, LogError):
                self.failed = exc.reason
            raise


class _Entered(contextlib.AbstractContextManager):
    """A context manager already entered; leaving it leaves the wrapped one."""

    def __init__(self, inner: contextlib.AbstractContextManager[None]) -> None:
        self._inner = inner

    def __exit__(self, *exc: Any) -> None:
        self._inner.__exit__(*exc)


def _narrator(config: TowerConfig, speaker: Speaker, now: int, log: Callable[[str], None],
              speaking: bool) -> Narrator:
    """Speech for a tower with a speaker (loaded only then: start-up without one skips it)."""
    from engine.speech import table
    from hardware.speech.narrator import Narrator

    sound = config.sound
    return Narrator(speaker, table(sound.language), still_ns=round(sound.still_seconds * 1e9), now=now,
                    speaking=speaking, log=log)


def _operator_lock(config: TowerConfig) -> Any:
    """The kiosk's operator lock (engine.panel.operator), or None when ``kiosk.lock`` is off."""
    if not config.kiosk.lock:
        return None
    from engine.panel.operator import OperatorLock, check_buttons

    return OperatorLock(check_buttons(config.kiosk.operator_buttons))


@contextlib.contextmanager
def stop_on_signals(signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
                    ) -> Iterator[threading.Event]:
    """An event set by SIGTERM (systemd stop), SIGINT (Ctrl-C) or SIGHUP; the previous handlers
    come back afterwards."""
    stop = threading.Event()
    previous: dict[int, Any] = {}

    def handler(signum: int, frame: Any) -> None:
        stop.set()

    for sig in signals:
        previous[sig] = signal.signal(sig, handler)
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def run_forever(tower: Tower, stop: threading.Event | None = None, *, notifier: Notifier | None = None) -> None:
    """Run until ``stop`` is set (by default: until SIGTERM/SIGINT), then shut down cleanly
    (LEDs off, display cleared). Pass the event of a :func:`stop_on_signals` entered before
    the tower was built, so a signal during start-up also ends in a clean shutdown.

    ``notifier`` (systemd's, under ``Type=notify``) hears READY once the loop starts, the
    watchdog and the status line from every pass, and STOPPING when shutdown begins."""
    if stop is None:
        with stop_on_signals() as stop:
            run_forever(tower, stop, notifier=notifier)
        return
    waker = threading.Thread(target=_wake_on, args=(stop, tower), daemon=True)
    waker.start()
    each_pass = None
    if notifier is not None:
        notifier.ready(tower.service_status())
        each_pass = _feeder(notifier)
    try:
        tower.run(stop, each_pass=each_pass)
    finally:
        if notifier is not None:
            notifier.stopping(f"stopping after {tower.service_status()}")
        tower.close()


def _feeder(notifier: Notifier) -> Callable[[Tower], None]:
    def feed(tower: Tower) -> None:
        notifier.watchdog()
        notifier.status(tower.service_status())

    return feed


def _wake_on(stop: threading.Event, tower: Tower) -> None:
    stop.wait()
    tower.io.inputs.wake()
