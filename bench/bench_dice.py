"""Dice per second: ``DrbgDice`` (HMAC_DRBG + rejection sampling) against ``secrets.randbelow``.

Both are timed in this one run, on this machine (best of ``--repeat`` runs of ``--n`` draws
each). The goal is d10s at least twice as fast as ``secrets.randbelow(10)``.

    .venv/bin/python bench/bench_dice.py [--n 200000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.dice import SecretsDice, sample_subset
from engine.rng import DrbgDice, HmacDrbg


def per_second(draw: Callable[[], object], n: int, repeat: int) -> float:
    """Best draws per second over ``repeat`` runs of ``n`` draws."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(n):
            draw()
        best = min(best, time.perf_counter() - start)
    return n / best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000, help="draws per run")
    parser.add_argument("--repeat", type=int, default=5, help="runs; the best is kept")
    args = parser.parse_args(argv)

    seeded = DrbgDice.from_seed(b"bench")
    # The production shape: kernel-seeded, with an additional-input callback at each refill.
    live = DrbgDice(HmacDrbg(secrets.token_bytes(32), secrets.token_bytes(16)),
                    additional=lambda: time.perf_counter_ns().to_bytes(8, "big"))
    system = SecretsDice()

    cases: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        ("d10", lambda: seeded.randbelow(10), lambda: secrets.randbelow(10)),
        ("d10 live", lambda: live.randbelow(10), lambda: secrets.randbelow(10)),
        ("d6", lambda: seeded.randbelow(6), lambda: secrets.randbelow(6)),
        ("d100", lambda: seeded.randbelow(100), lambda: secrets.randbelow(100)),
        ("d1000", lambda: seeded.randbelow(1000), lambda: secrets.randbelow(1000)),
        ("2 of 5", lambda: seeded.sample(5, 2), lambda: sample_subset(system, 5, 2)),
    ]
    print(f"{'draw':<10} {'DrbgDice /s':>14} {'secrets /s':>14} {'ratio':>7}")
    ratios = {}
    for name, ours, theirs in cases:
        a = per_second(ours, args.n, args.repeat)
        b = per_second(theirs, args.n, args.repeat)
        ratios[name] = a / b
        print(f"{name:<10} {a:>14,.0f} {b:>14,.0f} {a / b:>6.2f}x")
    goal = ratios["d10"] >= 2.0
    print(f"goal d10 >= 2x secrets.randbelow(10): {'met' if goal else 'NOT met'} "
          f"({ratios['d10']:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
