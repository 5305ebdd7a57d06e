"""Simulated towers for the board's tests and load bench: real session dice (kernel entropy),
a real roll log, the real publisher. Each :meth:`SimTower.roll` is what a ROLL press does to
the log: a roll entry (and, every ``session_rolls`` rolls, a reveal and a new session). Like
a real tower, it keeps its open session's seed in the state directory and, started again
after a kill, first reveals the session the killed run left open."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from engine.systems import get
from hardware.entropy import open_dice
from hardware.files.rolllog import RollLog
from hardware.network.broker import Credentials, parse_url
from hardware.network.cursor import CURSOR_NAME
from hardware.network.publisher import Publisher
from hardware.session.open_sessions import OpenSessions

#: The settings the simulated players cycle through: every system, one setting each.
SETTINGS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("d6cv", {"stat": 3, "cv": 7}),
    ("infinity", {"rating": 8}),
    ("horizons", {"trait": 3, "skill": 2, "need": 3}),
    ("immortal", {}),
    ("fingers", {"guess": 2}),
)


class SimTower:
    def __init__(self, state_dir: Path, url: str, store: str, tower: str, *, session_rolls: int = 50,
                 credentials: Credentials | None = None, start: bool = True, log: Any = None) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        self.state_dir = state_dir
        self.store, self.tower = store, tower
        self.log_path = state_dir / "rolls.jsonl"
        self.log = RollLog(self.log_path, fsync=False)
        keeper = OpenSessions(state_dir, log=log)
        if self.log_path.exists():
            keeper.reveal_left_open(self.log, self.log_path)  # what `dicetower run` does at start-up
        self.dice = open_dice("kernel", log=self.log, session_rolls=session_rolls, keeper=keeper)
        self.publisher = Publisher(parse_url(url), store=store, tower=tower, log_path=self.log_path,
                                   cursor_path=state_dir / CURSOR_NAME, credentials=credentials, log=log)
        self._settings = itertools.cycle(SETTINGS)
        self.rolls = 0
        if start:
            self.publisher.start()

    def roll(self) -> dict[str, Any]:
        """One roll, logged (the publisher is woken at once rather than at its next poll)."""
        system, raw = next(self._settings)
        spec = get(system)
        result = spec.roll(self.dice, spec.resolve(raw))
        entry = self.dice.record(result)
        self.rolls += 1
        self.publisher.wake()
        return entry

    def reveal(self) -> None:
        self.dice.reveal()
        self.publisher.wake()

    def close(self, timeout: float = 3.0) -> int:
        """Reveal the open session (as a tower's shutdown does) and close the publisher."""
        self.dice.close()
        return self.publisher.close(timeout)
