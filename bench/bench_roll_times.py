"""CPU time of ``dicetower roll ... --times N --summary``, against a baseline in the same run.

Each command runs in a process of its own; its CPU time (user + system, from the children's
resource usage) is the best of ``--repeat`` runs. Measured side by side:

- this tree's command (session dice from the kernel: one generate call per roll);
- the same command from another commit (``--baseline REF``, default ``main``; a ``git
  archive`` of it in a temporary directory), so a change is measured against what it changes;
- the floor: the same rolls in-process from ``DrbgDice.from_seed`` (no sessions, no command
  line), to show what the command adds;
- with ``--state-dir``: the same command recording every roll (``--logged N`` rolls; each an
  fsynced append under the state lock, taken and let go per roll).

    .venv/bin/python bench/bench_roll_times.py [--n 100000] [--repeat 3] [--baseline main] [--logged 2000]
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
sys.path.insert(0, str(ROOT))

COMMAND = ["roll", "d6cv", "--stat", "3", "--cv", "7"]


def cpu_of(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> float:
    """User + system CPU seconds of one child process running ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(argv: list[str], repeat: int, *, cwd: Path, env: dict[str, str] | None = None) -> float:
    return min(cpu_of(argv, cwd=cwd, env=env) for _ in range(repeat))


def floor(n: int, repeat: int) -> float:
    """CPU seconds of the same rolls in-process, from one seeded DRBG."""
    from engine.rng import DrbgDice
    from engine.systems import get

    spec = get("d6cv")
    params = spec.resolve({"stat": 3, "cv": 7})
    times = []
    for _ in range(repeat):
        dice = DrbgDice.from_seed(b"bench")
        start = time.process_time()
        for _ in range(n):
            spec.roll(dice, params)
        times.append(time.process_time() - start)
    return min(times)


def checkout(ref: str, into: Path) -> Path:
    """A copy of the repository at ``ref`` (``git archive``), to run the baseline from."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="rolls per command")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the best is kept")
    parser.add_argument("--baseline", default="main", help="commit to compare with (empty: none)")
    parser.add_argument("--logged", type=int, default=2000, help="rolls of the --state-dir run (0: none)")
    args = parser.parse_args(argv)
    python = sys.executable
    roll = [python, "-m", "hardware", *COMMAND, "--times", str(args.n), "--summary"]
    rows: list[tuple[str, float]] = []
    here = best(roll, args.repeat, cwd=ROOT)
    rows.append(("this tree", here))
    with tempfile.TemporaryDirectory() as tmp:
        if args.baseline:
            base = checkout(args.baseline, Path(tmp) / "base")
            env = {**os.environ, "PYTHONPATH": str(base)}
            rows.append((f"baseline {args.baseline}", best(roll, args.repeat, cwd=base, env=env)))
        if args.logged:
            state = Path(tmp) / "state"
            logged = [python, "-m", "hardware", *COMMAND, "--times", str(args.logged), "--summary", "--state-dir",
                      str(state)]
            per = cpu_of(logged, cwd=ROOT) / args.logged
            rows.append((f"--state-dir, per roll x {args.n}", per * args.n))
    rows.append(("floor: DrbgDice.from_seed in-process", floor(args.n, args.repeat)))
    print(f"roll {' '.join(COMMAND[1:])} --times {args.n} --summary: CPU seconds (best of {args.repeat})")
    print(f"{'':<40}{'CPU s':>9}{'vs this tree':>14}")
    for name, seconds in rows:
        print(f"{name:<40}{seconds:>9.2f}{seconds / here:>13.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
