"""Infinity odds: a grid of settings, P(success) by icepool for each, and a timing comparison.

``bench/bench_odds.py`` imports ``GRID`` and ``icepool_success``; run this file on its own to
print the mean time per call of ``engine.odds`` and of icepool, and their geometric-mean ratio.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

import icepool

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
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


def _time_per_call(fn, min_seconds: float = 0.2) -> float:
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return elapsed / calls


def main() -> None:
    engine_times, icepool_times = [], []
    for params in GRID:
        ours = engine.odds("infinity", **params)["success"]
        theirs = icepool_success(params)
        if abs(ours - theirs) > 1e-12:
            raise SystemExit(f"disagree on {params}: engine {ours!r}, icepool {theirs!r}")
        engine_times.append(_time_per_call(lambda p=params: engine.odds("infinity", **p)))
        icepool_times.append(_time_per_call(lambda p=params: icepool_success(p), min_seconds=0.05))
        print(
            f"{engine_times[-1] * 1e6:9.1f} us {icepool_times[-1] * 1e6:12.1f} us "
            f"x{icepool_times[-1] / engine_times[-1]:9.1f}  P={ours:.6f}  {params}"
        )
    ratios = [i / e for e, i in zip(engine_times, icepool_times, strict=True)]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"settings: {len(GRID)}")
    print(f"engine.odds mean per call: {sum(engine_times) / len(GRID) * 1e6:.1f} us, max {max(engine_times) * 1e6:.1f}")
    print(f"icepool mean per call:     {sum(icepool_times) / len(GRID) * 1e6:.1f} us")
    print(f"geometric-mean speed-up:   x{geo:.1f}, lowest x{min(ratios):.1f}")


if __name__ == "__main__":
    main()
