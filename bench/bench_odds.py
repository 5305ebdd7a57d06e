"""Exact odds: time per call of ``engine.odds`` against icepool computing the same probability.

Each system's grid and icepool formulation live in ``bench/odds_<system>.py``. Both are timed
in this one run, on this machine; the figures printed are the mean time per call and the
geometric mean of icepool_time / engine_time over the grid (goal: every call <= 1 ms, ratio
>= 20). Both results must agree to 1e-9, or the run fails.

    .venv/bin/python bench/bench_odds.py [--repeat N]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import engine  # noqa: E402
from engine.systems import SYSTEM_IDS  # noqa: E402


def load(system: str):
    spec = importlib.util.spec_from_file_location(f"odds_{system}", HERE / f"odds_{system}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def best_time(fn, repeat: int) -> float:
    """Best of ``repeat`` runs of enough calls to take ~20 ms, per call, in seconds."""
    fn()
    calls = 1
    while True:
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        elapsed = time.perf_counter() - t
        if elapsed > 0.02 or calls >= 1 << 16:
            break
        calls *= 2
    best = elapsed / calls
    for _ in range(repeat - 1):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t) / calls)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--systems", default=",".join(SYSTEM_IDS))
    ap.add_argument("--verbose", action="store_true", help="one line per setting")
    opts = ap.parse_args(argv)
    import icepool

    print(f"icepool {icepool.__version__}, Python {sys.version.split()[0]}")
    print(f"{'system':<10}{'cases':>6}{'engine mean':>14}{'engine max':>13}{'icepool mean':>15}{'ratio (geo)':>13}")
    all_ratios: list[float] = []
    worst = 0.0
    failures = 0
    for system in opts.systems.split(","):
        module = load(system)
        e_times, i_times, ratios = [], [], []
        for params in module.GRID:
            ours = engine.odds(system, **params)["success"]
            theirs = module.icepool_success(params)
            if abs(ours - theirs) > 1e-9:
                print(f"  MISMATCH {system} {params}: engine {ours!r} icepool {theirs!r}")
                failures += 1
            # Time the public library call (validation + exact odds + JSON-ready dict).
            e = best_time(lambda params=params, system=system: engine.odds(system, **params), opts.repeat)
            i = best_time(lambda params=params, module=module: module.icepool_success(params), max(1, opts.repeat - 1))
            if opts.verbose:
                print(f"  {e * 1e6:8.1f} us {i * 1e6:10.1f} us {i / e:7.1f}x  {params}")
            e_times.append(e)
            i_times.append(i)
            ratios.append(i / e)
        geo = math.exp(statistics.fmean(math.log(r) for r in ratios))
        all_ratios += ratios
        worst = max(worst, max(e_times))
        print(
            f"{system:<10}{len(e_times):>6}{statistics.fmean(e_times) * 1e3:>11.3f} ms"
            f"{max(e_times) * 1e3:>10.3f} ms{statistics.fmean(i_times) * 1e3:>12.3f} ms{geo:>12.1f}x"
        )
    overall = math.exp(statistics.fmean(math.log(r) for r in all_ratios))
    print(f"overall: slowest engine call {worst * 1e3:.3f} ms; geometric-mean speed-up over icepool {overall:.1f}x")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
