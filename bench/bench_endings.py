"""Sessions ended early: how often an honest tower is flagged, and how soon a cheating owner is.

The verifier counts, over a tower's whole log, the sessions ended before their roll limit and
whether each one's next, never-rolled roll would have failed (engine/verify/endings.py): amber
below p = AMBER_P, red below p = RED_P. Here, with the same ``Endings`` the verifier keeps:

- **honest towers** (the false-alarm rate): each ending's next roll fails with its setting's
  chance, independently of the ending; the setting of each ending is drawn from a spread of
  odds a table meets (1 in 6 to 5 in 6). The board re-tests after every ending, so what counts
  is whether a tower *ever* turns amber or red over its history, printed next to the nominal
  rate of one test (the baseline of this run);
- **an owner who ends a session whenever its next roll would fail**: how many endings until
  amber and red, at each odds (every ending's next roll fails).

Run: .venv/bin/python bench/bench_endings.py [--towers N] [--endings N]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.verify.endings import AMBER_P, RED_P, Endings

#: Chances of failing a table meets: 1 in 6 ... 5 in 6 to succeed, and infinity's 72 % failure.
FAIL_CHANCES = (5 / 6, 2 / 3, 0.72, 0.5, 1 / 3, 1 / 6)


def honest_tower(rng: random.Random, endings: int) -> tuple[int, int]:
    """The first ending at which an honest tower was flagged amber and red (0: never)."""
    e = Endings()
    amber = red = 0
    for n in range(1, endings + 1):
        q = rng.choice(FAIL_CHANCES)
        e.add(q, rng.random() < q)
        level = e.news()
        if level >= 1 and not amber:
            amber = n
        if level == 2 and not red:
            red = n
    return amber, red


def cheating_owner(q: float) -> tuple[int, int]:
    e = Endings()
    amber = 0
    for n in range(1, 2000):
        e.add(q, True)
        level = e.news()
        if level >= 1 and not amber:
            amber = n
        if level == 2:
            return amber, n
    return amber, 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--towers", type=int, default=2000)
    parser.add_argument("--endings", type=int, default=200)
    parser.add_argument("--seed", type=int, default=37)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    began = time.perf_counter()
    flagged = [honest_tower(rng, args.endings) for _ in range(args.towers)]
    took = time.perf_counter() - began
    ambers = sum(1 for a, _ in flagged if a)
    reds = sum(1 for _, r in flagged if r)
    print(f"honest towers: {args.towers} towers x {args.endings} early endings each, re-tested after every ending "
          f"({took:.1f} s, {took / (args.towers * args.endings) * 1e6:.0f} us an ending)")
    print(f"  ever amber (p < {AMBER_P:g}): {ambers} = {ambers / args.towers:.4f} of towers "
          f"(one test's nominal rate, the baseline: {AMBER_P:g}; ratio {ambers / args.towers / AMBER_P:.1f}x)")
    print(f"  ever red   (p < {RED_P:g}): {reds} = {reds / args.towers:.5f} of towers "
          f"(baseline {RED_P:g}; at most {1 / args.towers:.5f} can be told from 0 with this many towers)")
    print("an owner who ends every session just before a failing roll (every ending's next roll fails):")
    for q in (5 / 6, 0.72, 0.5, 1 / 3, 1 / 6):
        amber, red = cheating_owner(q)
        print(f"  success {1 - q:.0%}: amber after {amber} endings, red after {red}")


if __name__ == "__main__":
    main()
