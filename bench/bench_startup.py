"""Start-up of the simulator to its first frames, against a bare import of the hardware libraries.

Three whole processes, each timed from launch to exit (wall clock), best of ``--runs``
(interleaved), with bytecode caches warm (as after ``pip install``):

- ``bare``: ``python -c "import gpiozero, serial, luma.oled.device, PIL.ImageDraw"``, the
  baseline: what any program driving this hardware in Python pays.
- ``roll``: ``dicetower sim --press roll --seed 1``. Since the table seed landed, a session's
  first ROLL asks whether the table sets a seed, so this is start-up to that question.
- ``roll,roll``: ``dicetower sim --press roll,roll --seed 1``: the second ROLL rolls without a
  table seed, so this is start-up to the first rolled frame (logged, drawn, shut down).

Goal (issue 21): ``roll,roll`` at most 1.5x ``bare`` in wall-clock time. Prints each figure
and its ratio, and the same for CPU time (user + system), which other work on a shared
machine disturbs less: where the two disagree, the machine was busy.

    .venv/bin/python bench/bench_startup.py [--runs 5] [--importtime] [--against DIR]

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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BARE = "import gpiozero, serial, luma.oled.device, PIL.ImageDraw"


def commands(against: Path | None = None) -> dict[str, tuple[Path, list[str]]]:
    """The processes, by name, each with the directory it runs in. ``dicetower`` is run as
    ``python -m hardware`` from the checkout's top, which is what the installed script calls
    (one interpreter start, the same imports) and picks that checkout's code."""
    sim = [sys.executable, "-m", "hardware", "sim", "--seed", "1", "--press"]
    cmds = {
        "bare": (ROOT, [sys.executable, "-c", BARE]),
        "roll": (ROOT, [*sim, "roll"]),
        "roll,roll": (ROOT, [*sim, "roll,roll"]),
    }
    if against is not None:
        cmds["roll (against)"] = (against, [*sim, "roll"])
        cmds["roll,roll (against)"] = (against, [*sim, "roll,roll"])
    return cmds


def child_env(state_dir: str) -> dict[str, str]:
    """The bench's environment: bytecode written and reused; the roll log in a scratch
    directory (a state directory of its own, so the figures do not grow with a user's log)."""
    unset = {"PYTHONDONTWRITEBYTECODE", "DICETOWER_STATE_DIR", "STATE_DIRECTORY"}
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "dicetower-bench-pycache")
    env["XDG_STATE_HOME"] = state_dir
    return env


def timed(where: Path, command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from launch to exit of one process (which must succeed): wall clock, and the
    CPU time (user + system) it used, which a busy shared machine disturbs less."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=where, capture_output=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best_times(runs: int, env: dict[str, str], against: Path | None = None) -> dict[str, tuple[float, float]]:
    """The best of ``runs`` (wall, CPU) times of each process, the runs interleaved (so a
    busy moment on the machine hits all of them alike), after one warming run each."""
    cmds = commands(against)
    for where, command in cmds.values():
        timed(where, command, env)  # warm the bytecode cache
    best = {name: (float("inf"), float("inf")) for name in cmds}
    for _ in range(runs):
        for name, (where, command) in cmds.items():
            wall, cpu = timed(where, command, env)
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best


def slowest_imports(env: dict[str, str], most: int = 20) -> list[tuple[int, int, str]]:
    """(self µs, cumulative µs, module) of the slowest imports of one ``roll,roll`` process."""
    where, command = commands()["roll,roll"]
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
    parser.add_argument("--runs", type=int, default=5, help="runs of each process (best taken; default 5)")
    parser.add_argument("--importtime", action="store_true", help="also list the slowest imports")
    parser.add_argument("--against", metavar="DIR", type=Path, help="another checkout to time in the same run")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    if args.against is not None and not (args.against / "hardware" / "__main__.py").is_file():
        parser.error(f"--against: {args.against} is not a dicetower checkout (no hardware/__main__.py)")
    with tempfile.TemporaryDirectory(prefix="dicetower-bench-") as scratch:
        env = child_env(scratch)
        best = best_times(args.runs, env, args.against)
        print(f"start-up, best of {args.runs}, whole process:         wall clock         CPU")
        for name, (wall, cpu) in best.items():
            label = "bare import" if name == "bare" else f"sim --press {name}"
            print(f"  {label:<30} {wall * 1e3:7.1f} ms {wall / best['bare'][0]:5.2f}x"
                  f"  {cpu * 1e3:7.1f} ms {cpu / best['bare'][1]:5.2f}x")
        goal = best["roll,roll"][0] / best["bare"][0]
        print(f"first rolled frame: {goal:.2f}x the bare import, wall clock (goal: at most 1.5x); "
              f"{best['roll,roll'][1] / best['bare'][1]:.2f}x in CPU time")
        if args.importtime:
            print("slowest imports of sim --press roll,roll (self µs, cumulative µs):")
            for own, total, name in slowest_imports(env):
                print(f"  {own:8d} {total:8d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
