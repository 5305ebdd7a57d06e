"""fingers exact odds: the engine against icepool on a grid of settings.

``GRID`` and :func:`icepool_success` are imported by ``bench/bench_odds.py``; run this file
to print the figures for fingers alone::

    .venv/bin/python bench/odds_fingers.py

icepool deals the hidden hand from a deck of the n fingers (``Deck.deal(k)``) and asks
whether it holds the guessed finger; a chain joins the tests with ``&``; a long-term
challenge with a time limit is a Markov chain over "tests passed" stepped with
``icepool.map(..., repeat=max_tests)``.
"""

from __future__ import annotations

import functools
import operator
import sys
from pathlib import Path
from typing import Any

import icepool

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GRID: list[dict[str, Any]] = [
    {"winners": 4, "choices": 5},
    {"winners": 2, "choices": 5},
    {"winners": 1, "choices": 5},
    {"winners": 3, "choices": 4},
    {"winners": 2, "choices": 3},
    {"winners": 1, "choices": 2},
    {"winners": 0, "choices": 4},
    {"winners": 5, "choices": 5},
    {"winners": 2, "choices": 5, "karma": 1, "spend": 1},
    {"winners": 1, "choices": 2, "karma": 3, "spend": 1},
    {"winners": 0, "choices": 5, "karma": 5, "spend": 3, "multi_spend": True},
    {"winners": 1, "choices": 3, "ailment": True},
    {"winners": 2, "choices": 4, "ailment": True, "karma": 1, "spend": 1},
    {"chain": "1/5,1/3"},
    {"chain": "2/5,2/4,1/2", "karma": 2},
    {"chain": "1/5+1,1/3,3/4+1", "karma": 2},
    {"chain": "1/2,2/3,3/4,4/5,1/2,2/3,3/4,4/5,1/2,2/3", "ailment": True},
    {"chain": "2/5,2/5,2/5,2/5", "long_term": True, "max_tests": 6},
    {"chain": "2/5,2/5,2/5,2/5", "long_term": True, "max_tests": 12},
    {"chain": "1/5,1/3", "long_term": True, "max_tests": 10, "karma": 3},
    {"winners": 1, "choices": 4, "long_term": True, "max_tests": 4},
    {"chain": "1/5,2/4,1/3", "long_term": True, "max_tests": 20, "ailment": True},
]

_DEFAULTS: dict[str, Any] = {
    "choices": 5, "winners": 2, "karma": 0, "spend": 0, "ailment": False, "chain": "",
    "long_term": False, "max_tests": 0,
}


def _tests(p: dict[str, Any]) -> list[tuple[int, int]]:
    """(winners, choices) of each test as played, after the ailment and the karma spent."""
    if p["chain"]:
        items = []
        for text in p["chain"].split(","):
            challenge, _, spend = text.partition("+")
            k, n = (int(x) for x in challenge.split("/"))
            items.append((k + int(spend or 0), n))
    else:
        items = [(p["winners"] + p["spend"], p["choices"])]
    out = []
    for k, n in items:
        n = min(5, n + 1) if p["ailment"] else n
        out.append((min(k, n), n))
    return out


def _test_die(k: int, n: int) -> icepool.Die:
    """Does the hidden hand of k fingers out of n hold the guessed finger (thumb)?"""
    return icepool.Deck(range(1, n + 1)).deal(k).issuperset([1])


def icepool_success(params: dict[str, Any]) -> float:
    """P(success) of a fingers setting, computed with icepool."""
    p = {**_DEFAULTS, **params}
    tests = [_test_die(k, n) for k, n in _tests(p)]
    if not p["long_term"]:
        return float(functools.reduce(operator.and_, tests).probability(True))
    if not p["max_tests"]:
        return 1.0

    def step(passed: int) -> Any:
        if passed == len(tests):
            return passed
        return tests[passed].map({True: passed + 1, False: passed})

    final = icepool.map(step, 0, repeat=p["max_tests"])
    return float(final.probability(len(tests)))


if __name__ == "__main__":
    # Timed by the shared harness, side by side with icepool: bench_odds.py --systems fingers
    from bench_odds import main

    sys.exit(main(["--systems", "fingers", "--verbose"]))
