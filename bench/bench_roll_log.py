"""Memory and time of reading a large roll log: ``log verify`` and ``log show --last`` on a
generated log (a valid hash chain of realistic roll entries), peak RSS of a fresh process
from getrusage, against the same interpreter importing the CLI and listing the systems (the
baseline, measured in the same run). The goal: a 1 GiB log verifies in under 64 MiB RSS.

    .venv/bin/python bench/bench_roll_log.py [--mib 1024] [--dir /var/tmp]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hardware.logfiles import peak_rss_mib, write_log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=1024, help="log size in MiB (default 1024)")
    parser.add_argument("--dir", default=None, help="where to write the log (default: the temp directory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "rolls.jsonl"
        start = time.perf_counter()
        entries = write_log(path, args.mib << 20)
        print(f"generated {path.stat().st_size / 2**20:.0f} MiB, {entries} entries in "
              f"{time.perf_counter() - start:.1f} s")
        baseline = peak_rss_mib("from hardware.cli import main\nmain(['systems', '--json'])")
        print(f"baseline (import, list systems): peak RSS {baseline:.1f} MiB")
        for name, code in (
            ("log verify", "import sys\nfrom hardware.cli import main\nmain(['log', 'verify', sys.argv[1]])"),
            ("log show --last 100", "import sys, io\nfrom hardware.cli import main\nsys.stdout = io.StringIO()\n"
                                    "main(['log', 'show', sys.argv[1], '--last', '100'])"),
        ):
            start = time.perf_counter()
            rss = peak_rss_mib(code, str(path))
            print(f"{name}: peak RSS {rss:.1f} MiB (+{rss - baseline:.1f} over baseline), "
                  f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
