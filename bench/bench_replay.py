"""What checking a night costs: `dicetower replay`, tools/verify_rolls.py and the "one code,
one session" search on a large roll log, against reading the log (every line parsed as JSON)
in the same run.

    .venv/bin/python bench/bench_replay.py [--rolls 100000] [--log DIR]

The log is made once with real commands (a session opened and seeded, then `roll d6cv
--times N`: a new session every 1000 rolls) and kept in --log DIR for later runs. Figures are
CPU seconds of this process (or of the verify_rolls.py child), best of --repeat.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine.verify import Notes  # noqa: E402
from hardware.cli import main  # noqa: E402
from hardware.entropy.replay import replay_log  # noqa: E402
from hardware.files.rolllog import chain_files  # noqa: E402
from hardware.session.codes import code_holder  # noqa: E402


def quiet(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(argv))


def make_log(where: Path, rolls: int) -> Path:
    log = where / "rolls.jsonl"
    if log.exists():
        return log
    where.mkdir(parents=True, exist_ok=True)
    assert quiet("session", "open", str(where)) == 0
    assert quiet("session", "seed", str(where), "bench code") == 0
    assert quiet("roll", "d6cv", "--stat", "3", "--cv", "7", "--times", str(rolls), "--summary",
                 "--state-dir", str(where)) == 0
    return log


def cpu(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def child_cpu(argv: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, capture_output=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return best


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=100_000)
    parser.add_argument("--log", type=Path, default=Path("/tmp/dicetower-bench-replay"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    log = make_log(args.log / str(args.rolls), args.rolls)
    files = chain_files(log)  # a log of this size is rotated: rolls.1.jsonl, ..., rolls.jsonl

    def read_all() -> list[bytes]:
        return [line for f in files for line in f.read_bytes().splitlines()]

    lines = read_all()
    first = json.loads(lines[0])
    notes = Notes.of([first["commitment"][:16], json.loads(lines[-1])["hash"]], ["bench code"])

    parse = cpu(lambda: [json.loads(x) for x in read_all()], args.repeat)
    rows = [
        ("read the log (json.loads every line): baseline", parse),
        ("replay, no notes (the board's verdict)", cpu(lambda: replay_log(log), args.repeat)),
        ("replay, player mode (commitment, head, code)", cpu(lambda: replay_log(log, notes=notes), args.repeat)),
        ("tools/verify_rolls.py --all-revealed", child_cpu([sys.executable, str(REPO / "tools" / "verify_rolls.py"),
                                                             str(log), "--all-revealed"], args.repeat)),
        ("one code, one session: search for a new code", cpu(lambda: code_holder(log, "no such code"), args.repeat)),
    ]
    size = sum(f.stat().st_size for f in files)
    print(f"{len(lines)} entries in {len(files)} files ({size / 1e6:.1f} MB), {args.rolls} rolls; CPU seconds, best of "
          f"{args.repeat}")
    for name, seconds in rows:
        print(f"  {name:<52} {seconds:8.3f} s  {seconds / parse:6.2f}x")


if __name__ == "__main__":
    main_bench()
