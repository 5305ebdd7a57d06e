"""Building a tower: every part made, opened and wired here, in named steps, in the order
start-up needs them; :class:`~hardware.tower.loop.Tower` only holds what this hands it.

The order is the start-up's (docs/architecture.md): the parts that touch no hardware first,
then the sessions a stopped tower left open are revealed (before anything opens one), the
panel's first state is made from its memory, its first picture is drawn before the pins are
claimed (the display is what a player sees of start-up), then the pins, the LEDs as the first
state has them, and last the tower itself, its session sync wired to it and told the first
news (status line, speech, the session's commitment before the first roll).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.dice import DiceSource
from engine.panel import machine
from engine.panel.model import Effects
from hardware.config.schema import TowerConfig
from hardware.display import ResilientDisplay
from hardware.panel.io import Clock, PanelIO
from hardware.panel.memory import PanelMemory
from hardware.tower.dice import abilities
from hardware.tower.lock import DirectoryLock
from hardware.tower.logline import LogLine
from hardware.tower.loop import Tower
from hardware.tower.outputs import Outputs
from hardware.tower.recorder import RollRecorder
from hardware.tower.sync import SessionSync

if TYPE_CHECKING:
    # only where a state directory, a speaker or the kiosk's lock is in play: start-up to the
    # first frame does without them (docs/architecture.md)
    from engine.panel.operator import OperatorLock
    from firmware_bridge.link import Link
    from hardware.entropy.buttons import ButtonTiming
    from hardware.files.rolllog import LenientLog, RollLog
    from hardware.speech import Speaker
    from hardware.speech.narrator import Narrator
    from hardware.tower.daystats import DayStats

__all__ = ["assemble", "open_display", "start_panel"]


def assemble(
    config: TowerConfig,
    *,
    pin_factory: Any,
    dice: DiceSource,
    display: ResilientDisplay | None = None,
    device: Any = None,
    link: Link | None = None,
    clock: Clock = time.monotonic_ns,
    timing: ButtonTiming | None = None,
    state_dir: str | Path | None = None,
    roll_log: RollLog | LenientLog | None = None,
    kept: bool = True,
    show: Callable[[str], None] | None = None,
    speaker: Speaker | None = None,
    log: Callable[[str], None] | None = None,
) -> Tower:
    """A tower on the hardware passed in, as ``config`` describes the rest.

    ``pin_factory``: gpiozero's (a MockFactory in tests and the simulator; gpiozero ships no
    types). ``display``: a :class:`~hardware.display.ResilientDisplay`, or None for the one
    ``[display]`` names, opened on ``device`` (a luma device: the dummy in tests) or ``link``
    (the bridge's serial link) where given, retrying every ``display.retry_seconds`` and saying
    why to ``log``. ``dice`` roll (and, if they can, record and commit:
    :mod:`hardware.tower.dice`). ``state_dir`` and ``roll_log``: where the panel remembers and
    rolls are logged (:func:`hardware.cli.tower.keep`); ``kept=False`` when nothing is kept.
    ``timing`` hears every button edge (button entropy); ``speaker`` speaks; ``show`` prints
    UNRECORDED lines.
    """
    say = LogLine(log)
    where = Path(state_dir) if state_dir else None
    # 1. the display (opened at its first picture, and again after a failure)
    if display is None:
        display = open_display(config, device=device, link=link, log=log)
    # 2. the parts that touch no hardware, each saying things to the tower's log as it is then
    able = abilities(dice)  # sorted once by what they can do: no part probes the dice later
    operator = _operator_lock(config)
    lock = DirectoryLock(where, log=say)
    recorder = RollRecorder(able.recording, roll_log, show_anyway=config.kiosk.unrecorded == "show",
                            show=show or _shown_nowhere, log=say)
    sessions = SessionSync(able, roll_log=roll_log, state_dir=where, kept=kept, lock=lock, log=say,
                           menu_by="staff" if operator is not None else "table")
    memory = PanelMemory(where, roll_log=roll_log, log=say)
    outputs = Outputs(display)
    # 3. a power cut's session is revealed before anything opens one
    sessions.reveal_left_open()
    # 4. the panel's first state, from its memory; speech for it
    now = clock()
    state, fx = machine.initial(config.panel, now / 1e9, saved=memory.recall_healed())
    voice = _narrator(config, speaker, now, say, state.settings.speech) if speaker is not None else None
    # 5. the first picture drawn, then the pins claimed and set
    io = start_panel(config, outputs, fx, now, pin_factory=pin_factory, clock=clock)
    day, day_every = _day_stats(where)
    # 6. the tower, holding it all; its session sync wired to it, and the first news told
    tower = Tower(config, clock=clock, dice=dice, timing=timing, say=say, lock=lock, recorder=recorder,
                  sessions=sessions, memory=memory, outputs=outputs, io=io, voice=voice, day=day,
                  day_every=day_every, operator=operator, reporting=able.reporting, state=state, now=now)
    sessions.tell = tower.step  # the session's news steps the panel from now on
    tower.start(now)
    return tower


def open_display(config: TowerConfig, *, device: Any = None, link: Link | None = None,
                 log: Callable[[str], None] | None = None) -> ResilientDisplay:
    """The display ``[display]`` names (on ``device`` or ``link`` where given), behind the
    retries that keep a failing display from stopping the tower."""
    from hardware.display import opener

    return ResilientDisplay(opener(config.display, device=device, link=link),
                            retry_seconds=config.display.retry_seconds, log=log)


def start_panel(config: TowerConfig, outputs: Outputs, fx: Effects, now: int, *, pin_factory: Any,
                clock: Clock) -> PanelIO:
    """The first picture on the display, then the pins claimed (buttons, LEDs, buzzer) and set
    as the first state's effects say. A panel that cannot be had (a pin busy, no permission)
    leaves the display cleared, and pins that cannot be set are let go."""
    outputs.first(fx.screen, now)
    try:
        io = PanelIO(config, pin_factory=pin_factory, clock=clock)
    except BaseException:
        outputs.abandon()
        raise
    outputs.claim(io)
    try:
        outputs.apply(replace(fx, screen=None), now)
    except BaseException:
        io.close()
        raise
    return io


def _shown_nowhere(line: str) -> None:
    """No ``show``: UNRECORDED lines go nowhere."""


def _day_stats(state_dir: Path | None) -> tuple[DayStats | None, int]:
    """Today's rolls from the roll log, for the attract screen, and how often they are
    counted again (ns); none without a state directory."""
    if state_dir is None:
        return None, 0
    from hardware.files.state import LOG_NAME
    from hardware.tower.daystats import DAY_STATS_EVERY_NS, DayStats

    return DayStats(state_dir / LOG_NAME), DAY_STATS_EVERY_NS


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

