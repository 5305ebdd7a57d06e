"""The fairness battery: statistical tests on the live dice pipeline.

Chi-square goodness of fit for every die the systems use (d4 d6 d8 d10 d12 d20 d100) and for
every k-of-n finger challenge (each k-subset equally likely), serial correlation and a runs
test on d6 and d100 sequences, and the NIST SP 800-22 subset of :mod:`engine.fairness` on raw
DRBG output bits. Every test yields a p-value; at ``alpha = 0.01`` a fair source fails each
test with probability 0.01, so over ``T`` tests about ``T / 100`` failures are expected.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations
from typing import Protocol

from engine import fairness
from engine.dice import sample_subset

__all__ = ["ALPHA", "DICE", "SUBSETS", "Battery", "BatteryDice", "CheckResult", "plan", "run_battery",
           "unlikely_failures"]

ALPHA = 0.01
DICE = (4, 6, 8, 10, 12, 20, 100)
#: Every k-of-n challenge with a real choice: n = 2..5, k = 1..n-1.
SUBSETS = tuple((n, k) for n in range(5, 1, -1) for k in range(n - 1, 0, -1))
SEQUENCE_DICE = (6, 100)
_STEP = 4096  # draws between progress reports


@dataclass(frozen=True)
class CheckResult:
    """One test: name, statistic shown as text, p-value, sample size."""

    name: str
    statistic: str
    p: float
    size: int

    @property
    def passed(self) -> bool:
        return self.p >= ALPHA

    def to_dict(self) -> dict[str, object]:
        return {"test": self.name, "statistic": self.statistic, "p": self.p, "n": self.size, "pass": self.passed}


@dataclass(frozen=True)
class Battery:
    """The results of one run."""

    draws: int
    bits: int
    results: tuple[CheckResult, ...]

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results if not r.passed)

    @property
    def expected_failures(self) -> float:
        return len(self.results) * ALPHA

    @property
    def chance_of_at_least_one(self) -> float:
        return 1.0 - (1.0 - ALPHA) ** len(self.results)

    @property
    def tail_probability(self) -> float:
        """P(at least this many failures) for a fair source (binomial with p = alpha)."""
        t, f = len(self.results), self.failed
        return math.fsum(math.comb(t, i) * ALPHA**i * (1 - ALPHA) ** (t - i) for i in range(f, t + 1))


def unlikely_failures(battery: Battery, threshold: float = 0.001) -> bool:
    """True when a fair source would fail this many tests less than ``threshold`` of the time."""
    return battery.failed > 0 and battery.tail_probability < threshold


def plan(draws: int) -> tuple[int, int]:
    """``(work units, bits)`` of a run with ``draws`` draws per test: bits for SP 800-22 equal
    the draws (10^6 for 10^6 draws, the length SP 800-22 recommends), at least 128."""
    bits = max(128, draws // 8 * 8)
    units = draws * (len(DICE) + len(SUBSETS)) + bits // 8
    return units, bits


class BatteryDice(Protocol):
    """What the battery draws from: dice (for the chi-square and sequence tests) that also
    give raw bytes (for SP 800-22), as :class:`~hardware.entropy.SessionDice` does."""

    def randbelow(self, n: int) -> int: ...

    def random_bytes(self, n: int) -> bytes: ...


def run_battery(
    dice: BatteryDice,
    draws: int,
    *,
    progress: Callable[[int, int, str], None] | None = None,
) -> Battery:
    """Run every test with ``draws`` draws each from ``dice`` (which must offer
    ``random_bytes(n)`` for the bit tests, as :class:`~hardware.entropy.SessionDice` does)."""
    if draws < 100:
        raise ValueError(f"the battery needs at least 100 draws per test, got {draws}")
    total, bits = plan(draws)
    done = 0

    def report(step: int, what: str) -> None:
        nonlocal done
        done += step
        if progress is not None:
            progress(done, total, what)

    results: list[CheckResult] = []
    sequences: dict[int, list[int]] = {}
    for sides in DICE:
        name = f"chi-square d{sides}"
        counts = [0] * sides
        keep = sides in SEQUENCE_DICE
        seq: list[int] = []
        for chunk in _chunks(draws):
            faces = [dice.randbelow(sides) for _ in range(chunk)]
            for f in faces:
                counts[f] += 1
            if keep:
                seq.extend(faces)
            report(chunk, name)
        if keep:
            sequences[sides] = seq
        stat = fairness.chi_square_uniform(counts)
        results.append(CheckResult(name, f"chi2={stat.stat:.2f} df={stat.df}", stat.p, draws))
    for n, k in SUBSETS:
        name = f"chi-square {k} of {n} fingers"
        index = {frozenset(c): i for i, c in enumerate(combinations(range(1, n + 1), k))}
        counts = [0] * len(index)
        for chunk in _chunks(draws):
            for _ in range(chunk):
                counts[index[sample_subset(dice, n, k)]] += 1
            report(chunk, name)
        stat = fairness.chi_square_uniform(counts)
        results.append(CheckResult(name, f"chi2={stat.stat:.2f} df={stat.df}", stat.p, draws))
    for sides, seq in sequences.items():
        sc = fairness.serial_correlation(seq)
        results.append(CheckResult(f"serial correlation d{sides}", f"r={sc.r:+.5f} z={sc.z:+.2f}", sc.p, draws))
        name = f"runs above/below d{sides}"
        try:
            rt = fairness.runs_test(seq, center=(sides - 1) / 2)  # faces 0..sides-1 here
        except ValueError:  # every face on one side of the centre: as unfair as it gets
            results.append(CheckResult(name, "one-sided", 0.0, draws))
        else:
            results.append(CheckResult(name, f"runs={rt.runs} z={rt.z:+.2f}", rt.p, draws))
    raw = dice.random_bytes(bits // 8)
    report(bits // 8, "SP 800-22")
    for test, p in fairness.sp800_22_subset(fairness.bits_from_bytes(raw)).items():
        results.append(CheckResult(f"SP 800-22 {test.replace('_', ' ')}", f"{bits} bits", p, bits))
    return Battery(draws, bits, tuple(results))


def _chunks(total: int) -> Iterator[int]:
    while total > 0:
        step = min(_STEP, total)
        yield step
        total -= step
