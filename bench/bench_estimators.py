"""SP 800-90B 6.3 estimates per entropy source, what they cost, and NIST's own figures.

Default: the table in docs/fairness.md. Each source's 1024 start-up samples (button timing:
64 presses, the window it is judged on) through all ten estimators, in bits per sample, with
the minimum of the six that came first (6.3.1-6.3.6), the minimum of all ten, what that
credits (times the design factor) and whether the source passes its floor. Then the cost of
one start-up window (1,024 bytes; 8,192 one-bit samples, the bridge's) with all ten next to
the six alone, in the same run, and each predictor's share.

``--nist``: every known-answer file (tests/engine/data/sp800-90b/, NIST's ea_non_iid on each)
through every estimator, literal and bit string, with the worst relative difference from the
tool's figure per estimator (the unit tests leave out the two 100,000-sample files; this
takes a few minutes for them).

Run: .venv/bin/python bench/bench_estimators.py [--nist]
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from engine import estimators, predictors
from engine.estimators import ESTIMATORS, assess, to_bits
from hardware.backends import ENTROPY_SOURCES
from hardware.entropy.buttons import CREDIT_BITS_PER_PRESS

ROOT = Path(__file__).resolve().parents[1]
KNOWN = ROOT / "tests" / "engine" / "data" / "sp800-90b"
SIX = ESTIMATORS[:6]
HEADINGS = {"mcv": "MCV", "collision": "collision", "markov": "Markov", "compression": "compress",
            "t-tuple": "t-tuple", "lrs": "LRS", "multi-mcw": "MultiMCW", "lag": "Lag",
            "multi-mmc": "MultiMMC", "lz78y": "LZ78Y"}
#: The assumed CPython slowdown of a Pi Zero 2 W (Cortex-A53, 1 GHz) against this machine:
#: docs/fairness.md ("What an assessment costs") says where it comes from.
PI_ZERO_2_W_SLOWDOWN = 10

ENGLISH = (b"It was the best of times, it was the worst of times, it was the age of wisdom, it was the age "
           b"of foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season "
           b"of Light, it was the season of Darkness, it was the spring of hope, it was the winter of despair. ")


def human_presses(n: int, seed: int = 7) -> list[int]:
    """Low bytes of press-to-press intervals in microseconds of a modelled hand: intervals of
    180-580 ms with a 25 ms motor jitter (no recorded presses on this machine)."""
    rng = random.Random(seed)
    return [(int(rng.uniform(180e3, 580e3) + rng.gauss(0, 25e3))) & 0xFF for _ in range(n)]


def known(name: str, n: int = 1024) -> list[int]:
    """The first ``n`` samples of a known-answer file."""
    return list((KNOWN / f"{name}.bin").read_bytes()[:n])


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
        ("file: README.md", "file", list((ROOT / "README.md").read_bytes()[:1024])),
        ("file: sticky bytes, p = 0.3", "file", known("sticky30_8_1024")),
        ("file: sticky bytes, p = 0.6", "file", known("sticky60_8_4096")),
        ("file: each byte 3 back, noisy", "file", known("lag3_8_4096")),
        ("buttons (64 modelled presses)", "buttons", human_presses(64)),
    ]
    return out


def credit(kind: str, bits: float) -> float:
    """Bits credited per sample, as the code credits them: the minimum estimate times the
    design factor, and for button timing at most 2 bits a press (ButtonTiming._credit_for)."""
    credited = bits * ENTROPY_SOURCES.get(kind).design_factor
    return min(credited, float(CREDIT_BITS_PER_PRESS)) if kind == "buttons" else credited


def table() -> None:
    """Every source's figures, the six's minimum and the ten's, credit and verdict."""
    header = (f"{'source':<32}" + "".join(f"{HEADINGS[e]:>10}" for e in ESTIMATORS)
              + f"{'six':>8}{'ten':>8}{'credit':>8}  verdict")
    print(header)
    for name, kind, samples in sources():
        result = assess(samples)
        worst, bits = result.minimum
        six = min(v for k, v in result.figures.items() if k in SIX and v is not None)
        cells = "".join(f"{'n/a' if v is None else f'{v:.3f}':>10}" for v in result.figures.values())
        floor = ENTROPY_SOURCES.get(kind).floor
        verdict = f"pass (floor {floor:g})" if bits >= floor else f"FAIL: {worst}"
        shown = f"{credit(kind, bits):.3f}" if bits >= floor else ""
        print(f"{name:<32}{cells}{six:>8.3f}{bits:>8.3f}{shown:>8}  {verdict}")


def best_of(call: Callable[[], object], rounds: int) -> float:
    """The fastest of ``rounds`` calls, in seconds (the least disturbed by the machine)."""
    fastest = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        fastest = min(fastest, time.perf_counter() - start)
    return fastest


def cost(rounds: int = 9) -> None:
    """One start-up window with the six and with the ten, interleaved in the same run."""
    random_bits = [b & 1 for b in os.getrandom(8192)]
    windows: list[tuple[str, Sequence[int], int]] = [
        ("1,024 bytes (kernel)", list(os.getrandom(1024)), 8),
        ("8,192 one-bit samples (bridge)", random_bits, 1),
    ]
    print(f"\none start-up window, fastest of {rounds} (ms); "
          f"Pi Zero 2 W: x{PI_ZERO_2_W_SLOWDOWN}, the assumption in docs/fairness.md")
    print(f"{'window':<32}{'six':>9}{'ten':>9}{'ratio':>8}{'ten on a Zero 2 W':>20}")
    for label, samples, width in windows:
        six = ten = float("inf")
        for _ in range(rounds):  # interleaved, so both see the same machine
            six = min(six, best_of(lambda s=samples, w=width: assess(s, w, SIX), 1))
            ten = min(ten, best_of(lambda s=samples, w=width: assess(s, w), 1))
        print(f"{label:<32}{six * 1e3:>9.1f}{ten * 1e3:>9.1f}{ten / six:>8.2f}"
              f"{ten * PI_ZERO_2_W_SLOWDOWN:>18.2f} s")
    print("\neach predictor's share of the ten (ms; the bit string is 8,192 bits in both windows)")
    byte_window = list(os.getrandom(1024))
    bits = to_bits(byte_window)
    shares: list[tuple[str, Callable[[], object]]] = [
        ("MultiMCW, bit string", lambda: predictors.multi_mcw(bits, 2)),
        ("Lag, bit string", lambda: predictors.lag(bits, 2)),
        ("MultiMMC + LZ78Y, bit string", lambda: predictors.mmc_and_lz78y(bits, 2)),
        ("four predictors, 1,024 bytes", lambda: [f(byte_window) for f in (
            predictors.multi_mcw, predictors.lag, predictors.mmc_and_lz78y)]),
        ("t-tuple + LRS, bit string", lambda: estimators.t_tuple_and_lrs(bits)),
        ("compression, bit string", lambda: estimators.compression(bits)),
    ]
    for label, call in shares:
        print(f"  {label:<30}{best_of(call, rounds) * 1e3:>8.1f}")


# --- --nist: the known answers


def readings(samples: list[int], width: int) -> dict[str, float | None]:
    """Every estimator's reading under NIST's label (as tests/engine/test_predictors.py)."""
    names = {"mcv": "Most Common Value", "collision": "Collision", "markov": "Markov",
             "compression": "Compression", "t-tuple": "T-Tuple", "lrs": "LRS",
             "multi-mcw": "Multi Most Common in Window (MultiMCW) Prediction", "lag": "Lag Prediction",
             "multi-mmc": "Multi Markov Model with Counting (MultiMMC) Prediction", "lz78y": "LZ78Y Prediction"}
    bits = to_bits(samples, width) if width > 1 else samples
    suffix = " (bit string)" if width > 1 else ""
    tuple_bits, lrs_bits = estimators.t_tuple_and_lrs(bits)
    mmc_bits, lz_bits = predictors.mmc_and_lz78y(bits, 2)
    per_bit = {"mcv": estimators.most_common_value(bits), "collision": estimators.collision(bits),
               "markov": estimators.markov(bits), "compression": estimators.compression(bits),
               "t-tuple": tuple_bits, "lrs": lrs_bits, "multi-mcw": predictors.multi_mcw(bits, 2),
               "lag": predictors.lag(bits, 2), "multi-mmc": mmc_bits, "lz78y": lz_bits}
    out = {names[k] + suffix: (k, v) for k, v in per_bit.items()}
    if width > 1:
        tuple_lit, lrs_lit = estimators.t_tuple_and_lrs(samples)
        mmc_lit, lz_lit = predictors.mmc_and_lz78y(samples)
        literal = {"mcv": estimators.most_common_value(samples), "t-tuple": tuple_lit, "lrs": lrs_lit,
                   "multi-mcw": predictors.multi_mcw(samples), "lag": predictors.lag(samples),
                   "multi-mmc": mmc_lit, "lz78y": lz_lit}
        out |= {names[k]: (k, v) for k, v in literal.items()}
    return {label: value for label, (_, value) in out.items()}


def nist() -> int:
    """Every known-answer file against NIST's figures; 1 if any differs by more than 1e-5."""
    reference = json.loads((KNOWN / "nist_ea_non_iid.json").read_text(encoding="utf-8"))
    worst: dict[str, tuple[float, str]] = {}
    for name, entry in sorted(reference.items(), key=lambda item: item[1]["samples"]):
        start = time.perf_counter()
        samples = list((KNOWN / entry["file"]).read_bytes())
        mine = readings(samples, entry["bits_per_sample"])
        for label, figure in entry["estimates"].items():
            got = mine[label]
            diff = float("inf") if got is None else abs(got - figure) / figure if figure else abs(got)
            key = label.replace(" (bit string)", "")
            if diff >= worst.get(key, (-1.0, ""))[0]:
                worst[key] = (diff, f"{name}{' (bit string)' if '(bit string)' in label else ''}")
        print(f"{name:<18} {len(samples):>7} samples: {time.perf_counter() - start:6.1f} s", flush=True)
    print(f"\n{'estimator':<58}{'worst relative difference':>28}  where")
    for label, (diff, where) in worst.items():
        print(f"{label:<58}{diff:>28.2e}  {where}")
    return 0 if all(diff <= 1e-5 for diff, _ in worst.values()) else 1


def main(argv: list[str]) -> int:
    if "--nist" in argv:
        return nist()
    table()
    cost()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
