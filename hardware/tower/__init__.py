"""The dice tower at run time, in parts: each small module holds one job.

- :mod:`~hardware.tower.loop`: :class:`Tower`, the loop (button events in, the pure state
  machine, effects out) composing the parts below;
- :mod:`~hardware.tower.recorder`: every roll into the roll log before it is shown;
- :mod:`~hardware.tower.sync`: the dice session as the panel knows it (commitment, table
  seed, reveals, what other writers logged);
- :mod:`~hardware.tower.outputs`: LEDs, buzzer and display;
- :mod:`hardware.panel_memory` (beside the state store): the panel's settings and slots;
- :mod:`~hardware.tower.lock`: the state directory's lock as the tower takes it;
- :mod:`~hardware.tower.dice`: the typed seams of what the tower asks of its dice;
- :mod:`~hardware.tower.appliance`: running as a service until a signal.

:func:`assemble` is the one way to build a tower: ``dicetower run``, the simulator
(:class:`hardware.sim.Simulator`) and the tests all use it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.dice import DiceSource
from hardware.config.schema import TowerConfig
from hardware.display import ResilientDisplay
from hardware.panel_io import Clock
from hardware.tower.appliance import run_forever, stop_on_signals
from hardware.tower.loop import Tower
from hardware.tower.sync import SESSION_RETRY_NS

if TYPE_CHECKING:
    from hardware.entropy.buttons import ButtonTiming
    from hardware.rolllog import LenientLog, RollLog
    from hardware.speech import Speaker

__all__ = ["SESSION_RETRY_NS", "Tower", "assemble", "run_forever", "stop_on_signals"]


def assemble(
    config: TowerConfig,
    *,
    pin_factory: Any,
    dice: DiceSource,
    display: ResilientDisplay | None = None,
    device: Any = None,
    link: Any = None,
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

    ``pin_factory``: gpiozero's (a MockFactory in tests and the simulator). ``display``: a
    :class:`~hardware.display.ResilientDisplay`, or None for the one ``[display]`` names,
    opened on ``device`` (a luma device: the dummy in tests) or ``link`` (the bridge's serial
    link) where given, retrying every ``display.retry_seconds`` and saying why to ``log``.
    ``dice`` roll (and, if they can, record and commit: :mod:`hardware.tower.dice`).
    ``state_dir`` and ``roll_log``: where the panel remembers and rolls are logged
    (:func:`hardware.cli.tower.keep`); ``kept=False`` when nothing is kept. ``timing`` hears
    every button edge (button entropy); ``speaker`` speaks; ``show`` prints UNRECORDED lines.
    """
    if display is None:
        from hardware.display import opener

        display = ResilientDisplay(opener(config.display, device=device, link=link),
                                   retry_seconds=config.display.retry_seconds, log=log)
    return Tower(config, pin_factory=pin_factory, display=display, dice=dice, clock=clock, timing=timing,
                 state_dir=Path(state_dir) if state_dir else None, roll_log=roll_log, kept=kept,
                 show=show, speaker=speaker, log=log)
