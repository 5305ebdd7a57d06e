"""The dice tower at run time, in parts: each small module holds one job.

- :mod:`~hardware.tower.assembly`: :func:`assemble`, which makes, opens and wires every part
  in named steps, in the order start-up needs them;
- :mod:`~hardware.tower.loop`: :class:`Tower`, the loop (button events in, the pure state
  machine, effects out) over the parts it is handed;
- :mod:`~hardware.tower.recorder`: every roll into the roll log before it is shown;
- :mod:`~hardware.tower.sync`: the dice session as the panel knows it (commitment, table
  seed, reveals, what other writers logged);
- :mod:`~hardware.tower.outputs`: LEDs, buzzer and display;
- :mod:`hardware.panel.memory` (beside the state store): the panel's settings and slots;
- :mod:`~hardware.tower.lock`: the state directory's lock as the tower takes it;
- :mod:`~hardware.tower.logline`: where the parts say things (the tower's log as it is now);
- :mod:`~hardware.tower.dice`: the typed seams of what the tower asks of its dice;
- :mod:`~hardware.tower.appliance`: running as a service until a signal.

:func:`assemble` is the one way to build a tower: ``dicetower run``, the simulator
(:class:`hardware.cli.sim.Simulator`) and the tests all use it.
"""

from __future__ import annotations

from hardware.tower.appliance import run_forever, stop_on_signals
from hardware.tower.assembly import assemble
from hardware.tower.loop import Tower
from hardware.tower.sync import SESSION_RETRY_NS

__all__ = ["SESSION_RETRY_NS", "Tower", "assemble", "run_forever", "stop_on_signals"]
