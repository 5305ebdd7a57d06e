"""Start-up of the simulator to its first frames, against a bare import of the hardware libraries.

Three whole processes, each timed from launch to exit (wall clock and CPU), ``--runs`` times
(interleaved), with bytecode caches warm (as after ``pip install``), each process with a scratch
state directory of its own (so no run reads what another wrote), under each Python given
(``--python``; by default the checkout's ``.venv`` and, where there is one, ``.venv-3.13``:
Raspberry Pi OS bookworm's 3.11 and trixie's 3.13 side by side):

- ``bare``: ``python -c "import gpiozero, serial, luma.oled.device, PIL.ImageDraw"``, the
  baseline: what any program driving this hardware in Python pays.
- ``roll``: ``dicetower sim --press roll --seed 1``. Since the table seed landed, a session's
  first ROLL asks whether the table sets a seed, so this is start-up to that question.
- ``roll,roll``: ``dicetower sim --press roll,roll --seed 1``: the second ROLL rolls without a
  table seed, so this is start-up to the first rolled frame (logged, drawn, shut down).

Goal (issue 21): ``roll,roll`` at most 1.5x ``bare`` in wall-clock time. Prints each figure's
median and spread (lowest to highest) and the ratio of the medians, and the same for CPU time
(user + system), which other work on a shared machine disturbs less: where the two disagree,
the machine was busy. A ratio is always against ``bare`` under the same Python, in the same run.

    .venv/bin/python bench/bench_startup.py [--runs 7] [--python PY]... [--importtime] [--against DIR]

``--against DIR`` also times the two ``sim`` processes of another checkout (say ``git
worktree add /tmp/before main``), interleaved with these in the same run: a before and
after on a machine whose load changes from minute to minute.

``--importtime`` also prints the twenty slowest modules (cumulative) of one ``roll,roll``
process under ``python -X importtime``: where to look when the ratio creeps up.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BARE = "import gpiozero, serial, luma.oled.device, PIL.ImageDraw"


def default_pythons() -> list[str]:
    """The checkout's venvs (``./run-tests`` makes ``.venv-3.13`` where a Python 3.13 is found),
    else the interpreter running this."""
    found = [str(venv) for venv in (ROOT / ".venv/bin/python", ROOT / ".venv-3.13/bin/python") if venv.exists()]
    return found or [sys.executable]


def version_of(python: str) -> str:
    done = subprocess.run([python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commands(python: str, against: Path | None = None) -> dict[str, tuple[Path, list[str]]]:
    """The processes, by name, each with the directory it runs in. ``dicetower`` is run as
    ``python -m hardware`` from the checkout's top, which is what the installed script calls
    (one interpreter start, the same imports) and picks that checkout's code."""
    sim = [python, "-m", "hardware", "sim", "--seed", "1", "--press"]
    cmds = {
        "bare": (ROOT, [python, "-c", BARE]),
        "roll": (ROOT, [*sim, "roll"]),
        "roll,roll": (ROOT, [*sim, "roll,roll"]),
    }
    if against is not None:
        cmds["roll (against)"] = (against, [*sim, "roll"])
        cmds["roll,roll (against)"] = (against, [*sim, "roll,roll"])
    return cmds


def child_env(scratch: Path, python: str) -> dict[str, str]:
    """The bench's environment: bytecode written and reused (a cache per Python); the roll
    log in the scratch directory (so the figures do not grow with a user's log)."""
    unset = {"PYTHONDONTWRITEBYTECODE", "DICETOWER_STATE_DIR", "STATE_DIRECTORY"}
    env = {k: v for k, v in os.environ.items() if k not in unset}
    tag = "".join(c if c.isalnum() else "-" for c in python)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / f"dicetower-bench-pycache{tag}")
    env["XDG_STATE_HOME"] = str(scratch)
    return env


def timed(where: Path, command: list[str], env: dict[str, str], scratch: Path) -> tuple[float, float]:
    """Seconds from launch to exit of one process (which must succeed), in a state directory
    of its own: wall clock, and the CPU time (user + system) it used, which a busy shared
    machine disturbs less."""
    env = dict(env, XDG_STATE_HOME=tempfile.mkdtemp(prefix="state-", dir=scratch))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=where, capture_output=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@dataclass(frozen=True)
class Figure:
    """The runs of one process: wall-clock and CPU seconds."""

    walls: tuple[float, ...]
    cpus: tuple[float, ...]

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)


def all_times(runs: int, pythons: list[str], scratch: Path,
              against: Path | None = None) -> dict[str, dict[str, Figure]]:
    """Every run of each process under each Python, the runs interleaved (so a busy moment on
    the machine hits all of them alike), after one warming run each."""
    cmds = {py: commands(py, against) for py in pythons}
    envs = {py: child_env(scratch, py) for py in pythons}
    for py in pythons:
        for where, command in cmds[py].values():
            timed(where, command, envs[py], scratch)  # warm the bytecode cache
    walls: dict[tuple[str, str], list[float]] = {(py, n): [] for py in pythons for n in cmds[py]}
    cpus: dict[tuple[str, str], list[float]] = {key: [] for key in walls}
    for _ in range(runs):
        for py in pythons:
            for name, (where, command) in cmds[py].items():
                wall, cpu = timed(where, command, envs[py], scratch)
                walls[py, name].append(wall)
                cpus[py, name].append(cpu)
    return {py: {n: Figure(tuple(walls[py, n]), tuple(cpus[py, n])) for n in cmds[py]} for py in pythons}


def spread(values: tuple[float, ...]) -> str:
    return f"{min(values) * 1e3:.0f}-{max(values) * 1e3:.0f}"


def slowest_imports(python: str, env: dict[str, str], most: int = 20) -> list[tuple[int, int, str]]:
    """(self µs, cumulative µs, module) of the slowest imports of one ``roll,roll`` process."""
    where, command = commands(python)["roll,roll"]
    done = subprocess.run([command[0], "-X", "importtime", *command[1:]], env=env, cwd=where,
                          capture_output=True, text=True, check=True)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line or "self [us]" in line:
            continue
        own, total, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
        rows.append((int(own), int(total), name))
    return sorted(rows, key=lambda row: -row[1])[:most]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each process (median and spread; default 7)")
    parser.add_argument("--python", action="append", metavar="PY",
                        help="a Python with the project installed (repeatable; default: .venv and .venv-3.13)")
    parser.add_argument("--importtime", action="store_true", help="also list the slowest imports")
    parser.add_argument("--against", metavar="DIR", type=Path, help="another checkout to time in the same run")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    if args.against is not None and not (args.against / "hardware" / "__main__.py").is_file():
        parser.error(f"--against: {args.against} is not a dicetower checkout (no hardware/__main__.py)")
    pythons = args.python or default_pythons()
    versions = {}
    for py in pythons:
        try:
            versions[py] = version_of(py)
        except (OSError, subprocess.CalledProcessError) as exc:
            parser.error(f"--python: {py} does not run ({exc})")
    with tempfile.TemporaryDirectory(prefix="dicetower-bench-") as scratch:
        figures = all_times(args.runs, pythons, Path(scratch), args.against)
        print(f"start-up, {args.runs} runs each, whole process: median (lowest-highest) ms, "
              "ratio of medians to the bare import under the same Python")
        for py in pythons:
            fig = figures[py]
            bare = fig["bare"]
            print(f"Python {versions[py]} ({py}):{'wall clock':>26}{'CPU':>31}")
            for name, f in fig.items():
                label = "bare import" if name == "bare" else f"sim --press {name}"
                print(f"  {label:<26} {f.wall * 1e3:6.1f} ({spread(f.walls):>9}) {f.wall / bare.wall:5.2f}x"
                      f"   {f.cpu * 1e3:6.1f} ({spread(f.cpus):>9}) {f.cpu / bare.cpu:5.2f}x")
        print("first rolled frame (sim --press roll,roll) against the bare import (goal: at most 1.5x):")
        for py in pythons:
            fig = figures[py]
            print(f"  Python {versions[py]:<8} {fig['roll,roll'].wall / fig['bare'].wall:.2f}x wall clock, "
                  f"{fig['roll,roll'].cpu / fig['bare'].cpu:.2f}x CPU; "
                  f"bare import {fig['bare'].wall * 1e3:.0f} ms, "
                  f"first rolled frame {fig['roll,roll'].wall * 1e3:.0f} ms")
        if args.importtime:
            for py in pythons:
                print(f"slowest imports of sim --press roll,roll under Python {versions[py]} (self µs, cumulative µs):")
                for own, total, name in slowest_imports(py, child_env(Path(scratch), py)):
                    print(f"  {own:8d} {total:8d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
