"""Infinite Horizons odds: the settings ``bench/bench_odds.py`` times, and icepool's answer.

``GRID`` covers single pools from 1 to 20 dice against needs from 1 to 10, opposed rolls up
to 20 dice a side, and mitigation in both modes. ``icepool_success`` builds the exploding
success die the way an icepool user would (``Again`` for the re-roll) and sums pools with ``@``.

    .venv/bin/python bench/odds_horizons.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GRID: list[dict] = [
    {"trait": 0, "skill": 0, "need": 1},
    {"trait": 0, "skill": 0, "need": 2},
    {"trait": 1, "skill": 1, "need": 1},
    {"trait": 2, "skill": 1, "need": 2},
    {"trait": 3, "skill": 2, "need": 3},  # the lock-pick example
    {"trait": 4, "skill": 1, "need": 2},  # the river example
    {"trait": 4, "skill": 3, "need": 4},
    {"trait": 5, "skill": 5, "need": 5},
    {"pool": 12, "need": 6},
    {"pool": 15, "need": 8},
    {"pool": 20, "need": 1},
    {"pool": 20, "need": 10},
    {"pool": 3, "need": 6},
    {"trait": 3, "skill": 2, "opponent_pool": 4, "need": 1},
    {"trait": 2, "skill": 2, "opponent_pool": 5, "need": 1},
    {"trait": 3, "skill": 1, "opponent_pool": 3, "need": 2},
    {"pool": 8, "opponent_pool": 8, "need": 1},
    {"pool": 10, "opponent_pool": 6, "need": 3},
    {"pool": 12, "opponent_pool": 12, "need": 2},
    {"pool": 20, "opponent_pool": 10, "need": 4},
    {"pool": 20, "opponent_pool": 20, "need": 1},
    {"pool": 6, "opponent_pool": 4, "need": 1, "mitigation": 2},
    {"pool": 6, "opponent_pool": 4, "need": 1, "mitigation": 2, "mitigation_mode": "successes"},
    {"pool": 8, "need": 1, "mitigation": 3, "mitigation_mode": "successes"},
    {"pool": 10, "opponent_pool": 5, "need": 2, "mitigation": 1, "body": 2, "resolve": 2},
]


def icepool_success(params: dict) -> float:
    """P(success) for one GRID setting, computed with icepool."""
    import icepool

    # 1-6: no success; 7-9: one; 10: one, and the die is rolled again.
    die = icepool.Die([0] * 6 + [1] * 3 + [1 + icepool.Again], again_depth=20)
    pool = params.get("pool") or 1 + params.get("trait", 2) + params.get("skill", 1)
    need = params.get("need", 1)
    if params.get("mitigation_mode") == "successes":
        need += params.get("mitigation", 0)
    total = pool @ die
    if params.get("opponent_pool"):
        total = total - params["opponent_pool"] @ die
    return float(total.probability(">=", need))


if __name__ == "__main__":
    # Timed by the shared harness, side by side with icepool: bench_odds.py --systems horizons
    from bench_odds import main

    sys.exit(main(["--systems", "horizons", "--verbose"]))
