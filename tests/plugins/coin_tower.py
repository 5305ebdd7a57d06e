"""A simulated tower that rolls the coin (bench/sim_towers.py's SimTower, with the coin as its
one setting): ``python -m tests.plugins.coin_tower STATE URL STORE TOWER ROLLS``, run with the
plug-in on its path. It rolls, publishes every entry and reveals its session at the end."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

from bench.sim_towers import SimTower

#: The coin's setting the tower rolls: four coins, two heads needed.
SETTING = ("coin", {"coins": 4, "heads": 2})


def main(argv: list[str]) -> int:
    state, url, store, name, rolls = argv[1:6]
    tower = SimTower(Path(state), url, store, name, session_rolls=int(rolls))
    tower._settings = itertools.cycle([SETTING])
    for _ in range(int(rolls)):
        tower.roll()
    left = tower.close(timeout=20.0)
    return 0 if left == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
