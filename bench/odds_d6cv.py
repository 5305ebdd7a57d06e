"""d6cv exact odds: the engine against icepool on a grid of settings.

``GRID`` and :func:`icepool_success` are imported by ``bench/bench_odds.py``; run this file
to print the figures for d6cv alone::

    .venv/bin/python bench/odds_d6cv.py
"""

from __future__ import annotations

import functools
import operator
import sys
from pathlib import Path
from typing import Any

import icepool

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.systems.d6cv.rules import COMPLEXITIES

GRID: list[dict[str, Any]] = [
    {"stat": 5, "cv": 5},
    {"stat": 5, "cv": 10},
    {"stat": 0, "cv": 0},
    {"stat": 3, "skill": 2, "modifier": -2, "cv": 7},
    {"stat": 8, "skill": 4, "cv": 12, "criticals": False},
    {"stat": 10, "skill": 4, "modifier": 10, "cv": 25},
    {"stat": 2, "cv": 20, "criticals": False},
    {"stat": 5, "contest": "targeted", "opponent_stat": 5},
    {"stat": 7, "skill": 1, "contest": "targeted", "opponent_stat": 6, "opponent_skill": 3},
    {"stat": 5, "contest": "untargeted", "opponent_stat": 5},
    {"stat": 4, "contest": "untargeted", "opponent_stat": 9, "criticals": False},
    {"stat": 9, "skill": 2, "contest": "untargeted", "opponent_stat": 3, "opponent_modifier": 2},
    {"stat": 5, "cv": 6, "repeat": 3},
    {"stat": 6, "skill": 2, "cv": 8, "repeat": 10},
    {"stat": 5, "cv": 4, "repeat": 6, "cv_step": 1},
    {"stat": 5, "cv": 12, "repeat": 8, "cv_step": -1, "goal": "any"},
    {"stat": 4, "cv": 9, "repeat": 20, "goal": "any", "criticals": False},
    {"stat": 6, "cv": 3, "repeat": 20, "cv_step": 1},
    {"stat": 5, "contest": "targeted", "repeat": 3},
    {"stat": 6, "contest": "untargeted", "opponent_stat": 7, "repeat": 5, "goal": "any"},
    {"stat": 5, "construction": "blueprint", "complexity": 0},
    {"stat": 6, "skill": 2, "construction": "execution", "complexity": 2},
    {"stat": 7, "skill": 4, "construction": "project", "complexity": 4},
    {"stat": 5, "skill": 3, "construction": "project", "complexity": 3, "repeat": 3},
]

_DEFAULTS: dict[str, Any] = {
    "stat": 5, "skill": 0, "modifier": 0, "cv": 5, "criticals": True, "contest": "none",
    "opponent_stat": 5, "opponent_skill": 0, "opponent_modifier": 0, "repeat": 1,
    "cv_step": 0, "goal": "all", "construction": "none", "complexity": 0,
}


def _rank(face: int, criticals: bool) -> int:
    if criticals and face == 6:
        return 1
    if criticals and face == 1:
        return -1
    return 0


def _check_die(add: int, cv: int, criticals: bool) -> icepool.Die:
    def beats(face: int) -> bool:
        rank = _rank(face, criticals)
        return rank > 0 if rank else face + add > cv

    return icepool.d6.map(beats)


def _contest_die(add: int, opp_add: int, criticals: bool, targeted: bool) -> icepool.Die:
    def wins(face: int, opp: int) -> Any:
        rank, opp_rank = _rank(face, criticals), _rank(opp, criticals)
        if rank != opp_rank:
            return rank > opp_rank
        if face + add == opp + opp_add:
            return False if targeted else icepool.Reroll
        return face + add > opp + opp_add

    return icepool.map(wins, icepool.d6, icepool.d6)


def icepool_success(params: dict[str, Any]) -> float:
    """P(success) of a d6cv setting, computed with icepool."""
    p = {**_DEFAULTS, **params}
    add = p["stat"] + p["skill"] + p["modifier"]
    combine = operator.and_ if p["goal"] == "all" else operator.or_
    if p["construction"] != "none":
        cv = COMPLEXITIES[p["complexity"]].cv
        part = functools.reduce(combine, [_check_die(add, cv + i * p["cv_step"], p["criticals"])
                                          for i in range(p["repeat"])])
        parts = 2 if p["construction"] == "project" else 1
        whole = functools.reduce(operator.and_, [part] * parts)
    elif p["contest"] != "none":
        opp_add = p["opponent_stat"] + p["opponent_skill"] + p["opponent_modifier"]
        one = _contest_die(add, opp_add, p["criticals"], p["contest"] == "targeted")
        whole = functools.reduce(combine, [one] * p["repeat"])
    else:
        whole = functools.reduce(combine, [_check_die(add, p["cv"] + i * p["cv_step"],
                                                      p["criticals"])
                                           for i in range(p["repeat"])])
    return float(whole.probability(True))


if __name__ == "__main__":
    # Timed by the shared harness, side by side with icepool: bench_odds.py --systems d6cv
    from bench_odds import main

    sys.exit(main(["--systems", "d6cv", "--verbose"]))
