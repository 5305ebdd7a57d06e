"""What finding the systems through their entry points costs, against importing one directly.

Each figure is one fresh process (bytecode caches warm), timed inside it with
``time.perf_counter`` around the statements named, ``--runs`` times interleaved; the median
and the spread (lowest to highest) are printed, and each ratio is against ``direct`` in the
same run:

- ``direct``: ``import engine.systems.infinity`` (a package imported by its name, what the
  code did before the registry): the baseline.
- ``discover``: ``importlib.metadata.entry_points(group="dicetower_systems")`` with its import
  (the scan of every installed distribution's metadata: engine/systems/registry.py).
- ``one``: ``engine.get("infinity")``: discovery, then the one system's import (``dicetower
  roll infinity``, a replay of infinity rolls, the panel's first frame).
- ``order``: ``engine.ids()``: discovery and every system's ``ORDER`` line read from its
  source, no system imported (MODE's order at a tower's start).
- ``every``: ``engine.all_systems()``: every installed system imported (``dicetower systems``).
- ``gpiozero``, ``gpiozero+discover``: the same scan in a process that imported gpiozero first,
  as a tower does (gpiozero imports ``importlib.metadata`` to find its pin factories): what
  discovery adds on a tower.

    .venv/bin/python bench/bench_registry.py [--runs 9] [--python PY]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIGURES = {
    "direct": "import engine.systems.infinity",
    "discover": "from importlib import metadata; metadata.entry_points(group='dicetower_systems')",
    "one": "import engine; engine.get('infinity')",
    "order": "import engine; engine.ids()",
    "every": "import engine; engine.all_systems()",
    "gpiozero": "import gpiozero",
    "gpiozero+discover": "import gpiozero; from importlib import metadata; "
                         "metadata.entry_points(group='dicetower_systems')",
}

_PROBE = """
import time, json, sys
t = time.perf_counter()
exec(sys.argv[1])
print(json.dumps((time.perf_counter() - t) * 1e3))
"""


def once(python: str, statement: str) -> float:
    done = subprocess.run([python, "-c", _PROBE, statement], cwd=ROOT, capture_output=True, text=True, check=True)
    ms: float = json.loads(done.stdout)
    return ms


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--python", default=sys.executable)
    opts = ap.parse_args(argv)
    times: dict[str, list[float]] = {name: [] for name in FIGURES}
    for statement in FIGURES.values():
        once(opts.python, statement)  # bytecode caches warm
    for _ in range(opts.runs):
        for name, statement in FIGURES.items():
            times[name].append(once(opts.python, statement))
    base = statistics.median(times["direct"])
    print(f"{'figure':<18}{'median ms':>11}{'low':>8}{'high':>8}{'ratio':>8}   ({opts.runs} runs, Python "
          f"{sys.version.split()[0]})")
    for name, got in times.items():
        mid = statistics.median(got)
        print(f"{name:<18}{mid:>11.1f}{min(got):>8.1f}{max(got):>8.1f}{mid / base:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
