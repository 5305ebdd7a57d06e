"""Large roll logs for memory tests and benchmarks: a valid hash chain of realistic roll
entries written straight to disk (no fsync, no per-append tail read), fast enough to make
a 64 MiB log in a test and a 1 GiB one in ``bench/bench_roll_log.py``."""

from __future__ import annotations

import os
from pathlib import Path

from engine.chain import GENESIS, canonical, entry_hash

ROLL = {
    "end": 0, "player": 1, "session": "0123456789abcdef", "start": 0, "source": "panel",
    "player_state": {"fingers": {"karma": 2}},
    "result": {"automatic": False, "dice": [3], "guess": 1, "karma_after": 2, "outcome": "failure",
               "params": {"ailment": False, "chain": [], "choices": 5, "guess": 1, "karma": 2, "long_term": False,
                          "max_tests": 1, "multi_spend": False, "spend": 0, "winners": 1, "winners_set": []},
               "success": False, "system": "fingers", "winners": [3]},
}


def write_log(path: Path, target_bytes: int) -> int:
    """Write a valid chain of roll entries until the file holds ``target_bytes``; returns
    the number of entries."""
    prev, seq, size = GENESIS, 0, 0
    with open(path, "wb", buffering=1 << 20) as f:
        while size < target_bytes:
            seq += 1
            entry = {**ROLL, "seq": seq, "prev": prev, "kind": "roll", "time": "2026-12-01T08:00:00.000Z",
                     "start": seq * 4, "end": seq * 4 + 4}
            entry["hash"] = prev = entry_hash(entry)
            line = canonical(entry) + b"\n"
            f.write(line)
            size += len(line)
    return seq


def peak_rss_mib(code: str, *args: str) -> float:
    """Run ``code`` in a fresh interpreter; its peak resident set size in MiB (getrusage)."""
    import subprocess
    import sys

    probe = code + ("\nimport resource, sys\n"
                    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, timeout=3600,
                          cwd=Path(__file__).resolve().parents[2], env=dict(os.environ))
    if done.returncode not in (0, 1):
        raise RuntimeError(done.stderr.decode())
    return int(done.stderr.decode().strip().splitlines()[-1]) / 1024
