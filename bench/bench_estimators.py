"""SP 800-90B 6.3 estimates per entropy source: the table in docs/fairness.md.

Each source's 1024 start-up samples (button timing: 64 presses, the window it is judged on)
through the six estimators, in bits per sample, with the minimum, what that credits (times
the design factor) and whether the source passes its floor. Also the time one assessment
takes (the baseline: reading the samples). Run: .venv/bin/python bench/bench_estimators.py
"""

from __future__ import annotations

import hashlib
import os
import random
import time
from pathlib import Path

from engine.estimators import ESTIMATORS, assess
from hardware.backends import ENTROPY_SOURCES
from hardware.entropy.buttons import CREDIT_BITS_PER_PRESS

ENGLISH = (b"It was the best of times, it was the worst of times, it was the age of wisdom, it was the age "
           b"of foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season "
           b"of Light, it was the season of Darkness, it was the spring of hope, it was the winter of despair. ")


def human_presses(n: int, seed: int = 7) -> list[int]:
    """Low bytes of press-to-press intervals in microseconds of a modelled hand: intervals of
    180-580 ms with a 25 ms motor jitter (no recorded presses on this machine)."""
    rng = random.Random(seed)
    return [(int(rng.uniform(180e3, 580e3) + rng.gauss(0, 25e3))) & 0xFF for _ in range(n)]


def sources() -> list[tuple[str, str, list[int]]]:
    out = [("kernel", "kernel", list(os.getrandom(1024)))]
    if os.access("/dev/hwrng", os.R_OK):
        with open("/dev/hwrng", "rb") as f:
            out.append(("hwrng", "hwrng", list(f.read(1024))))
    out += [
        ("file: SHA-256 counter mode", "file", list(b"".join(hashlib.sha256(i.to_bytes(4, "big")).digest()
                                                            for i in range(32)))),
        ("file: counter 0..255", "file", [i % 256 for i in range(1024)]),
        ("file: 00 ff repeated", "file", list(b"\x00\xff" * 512)),
        ("file: 16-byte ASCII pattern", "file", list(b"dicetower rolls!" * 64)),
        ("file: English text", "file", list((ENGLISH * 4)[:1024])),
        ("file: README.md", "file", list(Path("README.md").read_bytes()[:1024])),
        ("buttons (64 modelled presses)", "buttons", human_presses(64)),
    ]
    return out


def credit(kind: str, bits: float) -> float:
    """Bits credited per sample, as the code credits them: the minimum estimate times the
    design factor, and for button timing at most 2 bits a press (ButtonTiming._credit_for)."""
    credited = bits * ENTROPY_SOURCES.get(kind).design_factor
    return min(credited, float(CREDIT_BITS_PER_PRESS)) if kind == "buttons" else credited


def main() -> None:
    header = f"{'source':<32}" + "".join(f"{e:>12}" for e in ESTIMATORS) + f"{'min':>8}{'credit':>8}  verdict"
    print(header)
    timings = []
    for name, kind, samples in sources():
        start = time.perf_counter()
        result = assess(samples)
        timings.append(time.perf_counter() - start)
        worst, bits = result.minimum
        cells = "".join(f"{'n/a' if v is None else f'{v:.3f}':>12}" for v in result.figures.values())
        floor = ENTROPY_SOURCES.get(kind).floor
        verdict = f"pass (floor {floor:g})" if bits >= floor else f"FAIL: {worst}"
        print(f"{name:<32}{cells}{bits:>8.3f}{credit(kind, bits):>8.3f}  {verdict}")
    start = time.perf_counter()
    os.getrandom(1024)
    read = time.perf_counter() - start
    print(f"\none assessment of 1024 samples: {min(timings) * 1e3:.0f} to {max(timings) * 1e3:.0f} ms "
          f"(reading 1024 kernel bytes: {read * 1e6:.0f} us)")


if __name__ == "__main__":
    main()
