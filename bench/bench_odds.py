"""Exact odds: time per call of ``engine.odds`` against icepool computing the same probability.

Each system's grid and icepool formulation live in ``bench/odds_<system>.py``. Both are timed
in this one run, on this machine; the figures printed are the mean time per call and the
geometric mean of icepool_time / engine_time over the grid (goal: every call <= 1 ms, ratio
>= 20). Both results must agree to 1e-9, or the run fails.

``engine.odds`` keeps the odds of each system's last 64 settings (``SystemSpec.known_odds``),
so the engine is timed twice: **cold**, the kept odds dropped before every call (validation,
the exact sums and the JSON: a setting the tower has not seen), and **warm**, the same setting
asked again (validation and the JSON: the panel stepping back to a setting). icepool keeps
its own caches between calls; it is timed as it comes.

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
import engine.systems  # noqa: E402


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
    # every installed system with its icepool twin here (a plug-in's own bench is its own)
    ap.add_argument("--systems", default=",".join(s for s in engine.systems.ids() if (HERE / f"odds_{s}.py").is_file()))
    ap.add_argument("--verbose", action="store_true", help="one line per setting")
    opts = ap.parse_args(argv)
    import icepool

    print(f"icepool {icepool.__version__}, Python {sys.version.split()[0]}")
    print(f"{'system':<10}{'cases':>6}{'cold mean':>12}{'cold max':>11}{'warm mean':>12}{'warm max':>11}"
          f"{'icepool mean':>15}{'cold ratio':>12}{'warm ratio':>12}")
    all_cold: list[float] = []
    all_warm: list[float] = []
    worst_cold = worst_warm = 0.0
    failures = 0
    for system in opts.systems.split(","):
        module = load(system)
        spec = engine.systems.get(system)
        cold_times, warm_times, i_times, cold_ratios, warm_ratios = [], [], [], [], []
        for params in module.GRID:
            ours = engine.odds(system, **params)["success"]
            theirs = module.icepool_success(params)
            if abs(ours - theirs) > 1e-9:
                print(f"  MISMATCH {system} {params}: engine {ours!r} icepool {theirs!r}")
                failures += 1

            # The public library call (validation + exact odds + JSON-ready dict), kept odds
            # dropped first (cold) or not (warm).
            def cold(params=params, system=system, spec=spec):
                spec.forget_odds()
                return engine.odds(system, **params)

            c = best_time(cold, opts.repeat)
            w = best_time(lambda params=params, system=system: engine.odds(system, **params), opts.repeat)
            i = best_time(lambda params=params, module=module: module.icepool_success(params), max(1, opts.repeat - 1))
            if opts.verbose:
                print(f"  cold {c * 1e6:8.1f} us warm {w * 1e6:7.1f} us icepool {i * 1e6:10.1f} us "
                      f"{i / c:7.1f}x {i / w:8.1f}x  {params}")
            cold_times.append(c)
            warm_times.append(w)
            i_times.append(i)
            cold_ratios.append(i / c)
            warm_ratios.append(i / w)
        all_cold += cold_ratios
        all_warm += warm_ratios
        worst_cold = max(worst_cold, max(cold_times))
        worst_warm = max(worst_warm, max(warm_times))
        print(
            f"{system:<10}{len(cold_times):>6}{statistics.fmean(cold_times) * 1e3:>9.3f} ms"
            f"{max(cold_times) * 1e3:>8.3f} ms{statistics.fmean(warm_times) * 1e3:>9.3f} ms"
            f"{max(warm_times) * 1e3:>8.3f} ms{statistics.fmean(i_times) * 1e3:>12.3f} ms"
            f"{geomean(cold_ratios):>11.1f}x{geomean(warm_ratios):>11.1f}x"
        )
    print(f"overall cold: slowest engine call {worst_cold * 1e3:.3f} ms; "
          f"geometric-mean speed-up over icepool {geomean(all_cold):.1f}x")
    print(f"overall warm: slowest engine call {worst_warm * 1e3:.3f} ms; "
          f"geometric-mean speed-up over icepool {geomean(all_warm):.1f}x")
    return 1 if failures else 0


def geomean(ratios: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(r) for r in ratios))


if __name__ == "__main__":
    sys.exit(main())
