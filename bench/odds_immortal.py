"""Immortal exact odds against icepool: a grid of settings and the same probability written
as an icepool user would write it.

``bench/bench_odds.py`` imports ``GRID`` and ``icepool_success``; run this file on its own to
print the mean time per call of each and the geometric-mean speed ratio.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import icepool

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


#: Settings from a bare attribute roll to three hostiles with an opponent.
GRID: list[dict[str, Any]] = [
    {"attribute": 5, "tn": 12, "color": "orange"},
    {"attribute": 6, "tn": 9, "color": "yellow"},
    {"attribute": 6, "skill": 4, "tn": 15, "color": "red"},
    {"attribute": 0, "tn": 1},
    {"attribute": 20, "skill": 10, "tn": 60, "auto_success": "no"},
    {"attribute": 3, "skill": 5, "tn": 15},
    {"attribute": 3, "skill": 4, "tn": 15},
    {"attribute": 4, "tn": 8, "untrained": True},
    {"attribute": 8, "tn": 14, "untrained": True, "color": "blue"},
    {"attribute": 6, "skill": 4, "tn": 15, "hostile": ["12:6"]},
    {"attribute": 6, "skill": 4, "tn": 15, "hostile": ["12:6:4"]},
    {"attribute": 6, "skill": 4, "tn": 15, "hostile": ["12:6:4"], "auto_success": "no"},
    {"attribute": 6, "skill": 5, "tn": 15, "hostile": ["12:6"]},
    {"attribute": 6, "skill": 5, "tn": 15, "hostile": ["12:6"], "auto_success": "yes"},
    {"attribute": 5, "skill": 2, "tn": 11, "hostile": ["12:4", "10:5"]},
    {"attribute": 5, "skill": 2, "tn": 11, "hostile": ["12:4", "10:5"], "bonus_sharing": "each"},
    {"attribute": 5, "skill": 2, "tn": 11, "hostile": ["12:4", "10:5"], "bonus_sharing": "none"},
    {"attribute": 7, "skill": 3, "tn": 12, "hostile": ["14:5", "13:6:2", "15:4:1"]},
    {"attribute": 7, "skill": 3, "tn": 12, "hostile": ["14:5", "13:6:2", "15:4:1"],
     "bonus_sharing": "each"},
    {"attribute": 9, "skill": 6, "tn": 10, "hostile": ["18:3", "16:2", "20:5"]},
    {"attribute": 5, "skill": 2, "opponent": "5+2"},
    {"attribute": 5, "skill": 5, "opponent": "4"},
    {"attribute": 5, "skill": 5, "opponent_total": 15},
    {"attribute": 6, "opponent": "6+2", "untrained": True},
    {"attribute": 6, "skill": 3, "opponent": "5+3", "hostile": ["12:5"]},
    {"attribute": 6, "skill": 3, "opponent": "5+3", "hostile": ["12:5", "11:4:2"]},
    {"attribute": 8, "skill": 4, "opponent": "6+2", "hostile": ["12:5", "11:4:2", "14:6"]},
    {"attribute": 8, "skill": 4, "opponent": "6+2", "hostile": ["12:5", "11:4:2", "14:6"],
     "bonus_sharing": "each"},
    {"attribute": 4, "skill": 2, "tn": 30, "hostile": ["12:5"]},
]


def _hostile(text: str, attribute: int) -> tuple[int, int, int]:
    fields = [*str(text).split(":"), "", "", ""][:3]
    return int(fields[0]), int(fields[1] or attribute), int(fields[2] or 0)


def icepool_success(params: dict[str, Any]) -> float:
    """P(success) for one setting, computed with icepool's own dice algebra.

    ``--auto-success best`` is the better of declaring the primary automatic or rolling it
    (a legacy's automatic success is declared in both).
    """
    mode = params.get("auto_success", "best")
    if mode == "best":
        return max(_icepool_success(params, True, True), _icepool_success(params, False, True))
    return _icepool_success(params, mode == "yes", mode == "yes")


def _icepool_success(params: dict[str, Any], auto: bool, legacy_auto: bool) -> float:
    attribute = params.get("attribute", 5)
    skill = params.get("skill", 0)
    penalty = 5 if params.get("untrained", False) else 0
    rule = params.get("bonus_sharing", "pool")
    opponent = params.get("opponent")
    known = params.get("opponent_total", 0)

    if opponent:
        o_attr, _, o_skill = str(opponent).partition("+")
        target: Any = icepool.d10 + int(o_attr) + int(o_skill or 0) + penalty
    else:
        target = (known or params.get("tn", 10)) + penalty
    opposed = bool(opponent) or bool(known)
    if auto and not opposed and skill > 0 and skill * 3 >= target:
        margin: Any = icepool.Die([0])
    else:
        margin = icepool.d10 + attribute + skill - target

    deficits = []
    for text in params.get("hostile", []):
        tn, h_attr, legacy = _hostile(text, attribute)
        if legacy_auto and legacy > 0 and legacy * 3 >= tn:
            continue
        deficits.append((tn - (icepool.d10 + h_attr + legacy)).clip(0, None))

    def succeeds(bonus: int, *short: int) -> bool:
        if bonus < 0:
            return False
        if rule == "pool":
            return sum(short) <= bonus
        if rule == "each":
            return all(s <= bonus for s in short)
        return not any(short)

    return float(icepool.map(succeeds, margin, *deficits).probability(True))


if __name__ == "__main__":
    # Timed by the shared harness, side by side with icepool: bench_odds.py --systems immortal
    from bench_odds import main

    sys.exit(main(["--systems", "immortal", "--verbose"]))
