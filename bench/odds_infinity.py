"""Infinity odds: a grid of settings, P(success) by icepool for each, and a timing comparison.

``bench/bench_odds.py`` imports ``GRID`` and ``icepool_success``; run this file on its own to
print the mean time per call of ``engine.odds`` and of icepool, and their geometric-mean ratio.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import icepool

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.systems import get
from engine.systems.infinity import effective_rating

GRID: list[dict[str, Any]] = [
    # single rolls across the rating / CR range
    {"rating": 8, "cr": "difficult"},
    {"rating": 0, "cr": "routine"},
    {"rating": 5, "cr": "easy"},
    {"rating": 8, "cr": "moderate"},
    {"rating": 12, "cr": "formidable"},
    {"rating": 18, "cr": "grueling"},
    {"rating": 24, "cr": "monumental"},
    {"rating": 30, "cr": "nearly-impossible"},
    {"rating": 60, "cr": 50},
    {"rating": 150, "cr": 100},
    {"rating": 9, "cr": 10, "declaration": True},
    {"rating": 9, "cr": 10, "retry": True},
    {"rating": 14, "cr": 15, "modifier": -4, "declaration": True},
    {"attribute": 50, "skill_points": 6, "cr": 20},
    # Coordination
    {"rating": 11, "cr": 15, "helper": [7]},
    {"rating": 11, "cr": 15, "helper": [7, 0]},
    {"rating": 9, "cr": 10, "related": [13]},
    {"rating": 8, "cr": 20, "helper": [10, 6], "declaration": True},
    {"rating": 12, "cr": 18, "helper": [10], "related": [5]},
    {"rating": 8, "cr": 15, "helper": [9, 10], "related": [4]},
    {"rating": 3, "cr": 8, "helper": [3, 3, 3]},
    {"rating": 20, "cr": 25, "related": [2, 15], "retry": True},
    # Volley Attacks
    {"rating": 10, "volley": True, "damage": 16, "defense": 31},
    {"rating": 10, "volley": True, "damage": 16, "defense": 31, "attacker": ["9:18"], "related": [17]},
    {"rating": 10, "volley": True, "damage": 16, "defense": 33, "attacker": ["9:18", "12:6"]},
    {"rating": 13, "volley": True, "damage": 5, "defense": 25, "attacker": ["13:9", "13:7"], "related": [0]},
    {"rating": 40, "volley": True, "damage": 170, "defense": 136, "attacker": ["35:20"]},
]


def _bonus() -> icepool.Die:
    """Hot/cold: discard the larger die; hot adds, cold subtracts, doubles give 0."""
    return icepool.map(
        lambda hot, cold: hot if hot < cold else (-cold if cold < hot else 0), icepool.d10, icepool.d10
    )


def icepool_success(params: dict[str, Any]) -> float:
    """P(Result >= 1) for the same setting, the way an icepool user would write it."""
    p = get("infinity").resolve(params)  # fills defaults and reads CR names
    bonus = _bonus()
    adjust = p["modifier"] + (1 if p["declaration"] else 0) - (3 if p["retry"] else 0)
    rating = effective_rating(p)
    related = [r + bonus for r in p["related"]]
    if p["volley"]:
        fighters = [(rating, p["damage"])] + [(a.rating, a.damage) for a in p["attacker"]]
        damages = [d for _, d in fighters]

        def attack(*totals: int) -> int:
            combat = totals[: len(fighters)]
            best = max(range(len(combat)), key=lambda i: (combat[i], damages[i]))
            others = sum(t >= 1 for i, t in enumerate(totals) if i != best)
            return combat[best] + others + damages[best]

        total = icepool.map(attack, *(r + bonus for r, _ in fighters), *related) + adjust
        return float((total - p["defense"]).probability(">=", 1))
    primaries = [rating + bonus] + [r + bonus for r in p["helper"]]
    if len(primaries) == 1 and not related:
        return float((primaries[0] + adjust - p["cr"]).probability(">=", 1))
    n = len(primaries)

    def coordinate(*totals: int) -> int:
        best = max(range(n), key=lambda i: totals[i])
        return totals[best] + sum(t >= 1 for i, t in enumerate(totals) if i != best)

    total = icepool.map(coordinate, *primaries, *related) + adjust
    return float((total - p["cr"]).probability(">=", 1))


if __name__ == "__main__":
    # Timed by the shared harness, side by side with icepool: bench_odds.py --systems infinity
    from bench_odds import main

    sys.exit(main(["--systems", "infinity", "--verbose"]))
