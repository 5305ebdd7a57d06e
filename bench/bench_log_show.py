"""Peak memory of ``dicetower log show --last N`` on a large generated log (a valid hash
chain of realistic roll entries, rotated into several files): the command as shipped (a ring
of N line offsets) against keeping the last N entries (a ``deque`` of parsed entries, what it
did before), and against the interpreter importing the CLI and listing the systems (the
baseline), all measured in the same run: peak RSS of a fresh process from getrusage.

    .venv/bin/python bench/bench_log_show.py [--entries 1200000] [--last 1000000] [--dir /var/tmp]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hardware.logfiles import peak_rss_mib, write_log

#: One generated roll entry's line (tests/hardware/logfiles.py), for sizing the log.
LINE_BYTES = 633

SHOW = "import sys\nfrom hardware.cli import main\nmain(['log', 'show', sys.argv[1], '--last', sys.argv[2]])"
#: What ``log show --last N`` did before: the last N entries held, parsed, then printed.
ENTRIES = (
    "import sys\nfrom collections import deque\nfrom hardware.cli.log import describe\n"
    "from hardware.files.rolllog import read_entries\n"
    "for stored in deque(read_entries(sys.argv[1]), maxlen=int(sys.argv[2])):\n"
    "    sys.stdout.write(describe(stored) + '\\n')\n"
)
BASELINE = "from hardware.cli import main\nmain(['systems', '--json'])"


def _rotate(path: Path, parts: int) -> None:
    """Split the generated log into ``parts`` files as rotation would name them, a line at a
    time (this process must stay small: a child's peak RSS counts its parent's at the fork)."""
    import shutil

    step = path.stat().st_size // parts
    whole = path.with_name("whole.jsonl")
    path.rename(whole)
    with open(whole, "rb") as f:
        for n in range(1, parts):
            with open(path.with_name(f"rolls.{n}.jsonl"), "wb") as o:
                remaining = step
                while remaining > 0 and (line := f.readline()):
                    o.write(line)
                    remaining -= len(line)
        with open(path, "wb") as o:
            shutil.copyfileobj(f, o, 1 << 20)
    whole.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_200_000, help="entries in the log (default 1,200,000)")
    parser.add_argument("--last", type=int, default=1_000_000, help="N of --last N (default 1,000,000)")
    parser.add_argument("--files", type=int, default=4, help="files the log is rotated into (default 4)")
    parser.add_argument("--dir", default=None, help="where to write the log (default: the temp directory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "rolls.jsonl"
        start = time.perf_counter()
        entries = write_log(path, args.entries * LINE_BYTES)
        size = path.stat().st_size
        _rotate(path, args.files)
        print(f"generated {size / 2**20:.0f} MiB, {entries:,} entries in {args.files} files in "
              f"{time.perf_counter() - start:.1f} s")
        baseline = peak_rss_mib(BASELINE)
        print(f"baseline (import, list systems): peak RSS {baseline:.1f} MiB")
        rows = []
        for name, code in ((f"log show --last {args.last:,} (ring of offsets)", SHOW),
                           (f"the last {args.last:,} entries kept (before)", ENTRIES)):
            start = time.perf_counter()
            rss = _quiet(code, str(path), str(args.last))
            took = time.perf_counter() - start
            rows.append((name, rss, took))
            print(f"{name}: peak RSS {rss:.1f} MiB (+{rss - baseline:.1f} over baseline), {took:.1f} s")
        (_, ring, _), (_, kept, _) = rows
        print(f"ring / entries kept: {(ring - baseline) / max(kept - baseline, 0.1):.3f} of the memory over baseline "
              f"({kept - baseline:.0f} MiB -> {ring - baseline:.0f} MiB)")


def _quiet(code: str, *args: str) -> float:
    """peak_rss_mib with the child's standard output thrown away (it prints a million lines)."""
    return peak_rss_mib("import os, sys\nsys.stdout = open(os.devnull, 'w')\n" + code, *args)


if __name__ == "__main__":
    main()
