"""Pure statistics for the fairness battery: chi-square goodness of fit, serial correlation,
a runs test on dice, and a subset of the NIST SP 800-22 rev 1a tests on bits.

Every test returns a p-value: the probability, for a truly fair source, of a result at least
this extreme. A fair source gives p-values spread uniformly on [0, 1]; a battery flags a
source when p-values are tiny (SP 800-22 uses 0.01 per test) or not uniform over many runs.
No scipy here (the device has none): :func:`igamc` is the regularized upper incomplete gamma
function by series and continued fraction (Numerical Recipes, 6.2), ``erfc`` is :mod:`math`'s.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from math import erfc
from typing import NamedTuple

__all__ = [
    "ChiSquare",
    "RunsTest",
    "SerialCorrelation",
    "approximate_entropy",
    "bits_from_bytes",
    "block_frequency",
    "chi_square",
    "chi_square_uniform",
    "cumulative_sums",
    "erfc",
    "igam",
    "igamc",
    "longest_run_of_ones",
    "monobit",
    "runs",
    "runs_test",
    "serial_correlation",
    "sp800_22_subset",
]

_EPS = 1e-15
_TINY = 1e-300


# --- special functions ------------------------------------------------------------------------


def _check_gamma_args(a: float, x: float) -> None:
    if not a > 0 or math.isinf(a):
        raise ValueError(f"incomplete gamma needs a > 0 (finite), got a={a}")
    if not x >= 0:
        raise ValueError(f"incomplete gamma needs x >= 0, got x={x}")


def _max_iterations(a: float) -> int:
    # Both expansions need O(sqrt(a)) terms near x ~ a; a generous bound, never hit in practice.
    return 1000 + int(60 * math.sqrt(a))


def _log_prefactor(a: float, x: float) -> float:
    return -x + a * math.log(x) - math.lgamma(a)


def _gamma_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its series; converges fast for x < a + 1."""
    term = total = 1.0 / a
    ap = a
    for _ in range(_max_iterations(a)):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            return total * math.exp(_log_prefactor(a, x))
    raise ArithmeticError(f"incomplete gamma series did not converge for a={a}, x={x}")


def _gamma_continued_fraction(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by its continued fraction (modified Lentz);
    converges fast for x > a + 1."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _max_iterations(a)):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < _TINY:
            d = _TINY
        c = b + an / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h * math.exp(_log_prefactor(a, x))
    raise ArithmeticError(f"incomplete gamma continued fraction did not converge for a={a}, x={x}")


def igamc(a: float, x: float) -> float:
    """Regularized upper incomplete gamma ``Q(a, x) = Γ(a, x) / Γ(a)`` (SP 800-22's igamc).

    The chi-square p-value with ``df`` degrees of freedom is ``igamc(df / 2, stat / 2)``.
    """
    _check_gamma_args(a, x)
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    if x < a + 1.0:
        return 1.0 - _gamma_series(a, x)
    return _gamma_continued_fraction(a, x)


def igam(a: float, x: float) -> float:
    """Regularized lower incomplete gamma ``P(a, x) = 1 - Q(a, x)``."""
    _check_gamma_args(a, x)
    if x == 0:
        return 0.0
    if math.isinf(x):
        return 1.0
    if x < a + 1.0:
        return _gamma_series(a, x)
    return 1.0 - _gamma_continued_fraction(a, x)


def _normal_cdf(z: float) -> float:
    return 0.5 * erfc(-z / math.sqrt(2.0))


def _two_sided(z: float) -> float:
    return erfc(abs(z) / math.sqrt(2.0))


# --- chi-square -------------------------------------------------------------------------------


class ChiSquare(NamedTuple):
    """Pearson's statistic, its degrees of freedom and the p-value."""

    stat: float
    df: int
    p: float


def _values(data: Sequence[float] | Mapping[object, float]) -> list[float]:
    return [float(v) for v in (data.values() if isinstance(data, Mapping) else data)]


def chi_square(
    observed: Sequence[int] | Mapping[object, int],
    expected_probs: Sequence[float] | Mapping[object, float],
) -> ChiSquare:
    """Goodness of fit of ``observed`` counts to ``expected_probs`` (same order, or mappings
    with the same keys; a key missing from ``observed`` counts 0).

    Cells with probability 0 are left out of the degrees of freedom; a count in such a cell
    makes the statistic infinite and the p-value 0. Pool rare cells before calling: the
    chi-square approximation wants every expected count to be at least about 5.
    """
    if isinstance(expected_probs, Mapping):
        if not isinstance(observed, Mapping):
            raise TypeError("give observed as a mapping when expected_probs is a mapping")
        unknown = set(observed) - set(expected_probs)
        if unknown:
            raise ValueError(f"observed outcomes with no expected probability: {sorted(map(str, unknown))}")
        probs = _values(expected_probs)
        counts = [float(observed.get(key, 0)) for key in expected_probs]
    else:
        probs, counts = _values(expected_probs), _values(observed)
    if len(probs) != len(counts):
        raise ValueError(f"{len(counts)} observed cells but {len(probs)} expected probabilities")
    if any(p < 0 for p in probs) or not math.isclose(sum(probs), 1.0, rel_tol=1e-9):
        raise ValueError(f"expected probabilities must be >= 0 and sum to 1, got sum {sum(probs)}")
    if any(c < 0 for c in counts):
        raise ValueError("observed counts must be >= 0")
    n = sum(counts)
    if n <= 0:
        raise ValueError("no observations")
    cells = [(c, p) for c, p in zip(counts, probs, strict=True) if p > 0]
    df = len(cells) - 1
    if df < 1:
        raise ValueError(f"a chi-square test needs at least 2 possible outcomes, got {len(cells)}")
    if any(c > 0 for c, p in zip(counts, probs, strict=True) if p == 0):
        return ChiSquare(math.inf, df, 0.0)
    stat = sum((c - n * p) ** 2 / (n * p) for c, p in cells)
    return ChiSquare(stat, df, igamc(df / 2, stat / 2))


def chi_square_uniform(counts: Sequence[int] | Mapping[object, int]) -> ChiSquare:
    """Goodness of fit of ``counts`` to equal probabilities (every cell, including zeros)."""
    values = list(counts.values()) if isinstance(counts, Mapping) else list(counts)
    k = len(values)
    if k < 2:
        raise ValueError(f"a chi-square test needs at least 2 cells, got {k}")
    return chi_square(values, [1.0 / k] * k)


# --- tests on sequences of numbers (dice) -----------------------------------------------------


class SerialCorrelation(NamedTuple):
    """Lag-1 circular serial correlation ``r``, its z-score and the two-sided p-value."""

    r: float
    z: float
    p: float


def serial_correlation(values: Sequence[float]) -> SerialCorrelation:
    """Knuth's serial correlation test (TAOCP vol. 2, 3.3.2 K), lag 1, circular.

    ``r = (n Σ u_j u_{j+1} - (Σ u_j)^2) / (n Σ u_j^2 - (Σ u_j)^2)`` with ``u_n = u_0``; for
    independent values ``r`` is about normal with mean ``-1/(n-1)`` and variance
    ``n^2 / ((n-1)^2 (n-2))``. A constant sequence (zero variance) is reported as ``r = 1``,
    ``p = 0``: stuck dice are as unfair as it gets.
    """
    u = [float(v) for v in values]
    n = len(u)
    if n < 3:
        raise ValueError(f"serial correlation needs at least 3 values, got {n}")
    total = math.fsum(u)
    squares = math.fsum(v * v for v in u)
    products = math.fsum(u[i] * u[i - n + 1] for i in range(n))  # u[i] * u[(i + 1) % n]
    denominator = n * squares - total * total
    if denominator <= 0:
        return SerialCorrelation(1.0, math.inf, 0.0)
    r = (n * products - total * total) / denominator
    mean = -1.0 / (n - 1)
    sd = n / ((n - 1) * math.sqrt(n - 2))
    z = (r - mean) / sd
    return SerialCorrelation(r, z, _two_sided(z))


class RunsTest(NamedTuple):
    """Wald–Wolfowitz runs above/below a centre: runs seen, runs expected, z, p (two-sided)."""

    runs: int
    expected: float
    z: float
    p: float


def runs_test(values: Sequence[float], center: float | None = None) -> RunsTest:
    """Wald–Wolfowitz runs test on values above/below ``center`` (default: the sample median).

    Above/below rather than up/down, because dice repeat faces often and up/down runs lose
    every tie. Values equal to the centre are dropped; for dice pass the true centre
    ``(sides + 1) / 2`` (no face equals it for an even number of sides). With ``n1`` values
    above and ``n2`` below, the number of runs ``R`` has mean ``2 n1 n2 / n + 1`` and variance
    ``2 n1 n2 (2 n1 n2 - n) / (n^2 (n - 1))``; ``z`` uses the normal approximation.
    Too many runs (alternation) and too few (clumping) both give small p.
    """
    u = [float(v) for v in values]
    if center is None:
        if not u:
            raise ValueError("runs test needs values")
        ordered = sorted(u)
        mid = len(ordered) // 2
        center = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    signs = [v > center for v in u if v != center]
    n1 = sum(signs)
    n2 = len(signs) - n1
    n = n1 + n2
    if n1 == 0 or n2 == 0:
        raise ValueError(
            f"runs test needs values on both sides of the centre {center}: {n1} above, {n2} below"
        )
    runs = 1 + sum(1 for a, b in itertools.pairwise(signs) if a != b)
    expected = 2.0 * n1 * n2 / n + 1.0
    variance = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0)) if n > 1 else 0.0
    if variance <= 0:
        raise ValueError(f"runs test needs more values: {n1} above and {n2} below the centre")
    z = (runs - expected) / math.sqrt(variance)
    return RunsTest(runs, expected, z, _two_sided(z))


# --- NIST SP 800-22 rev 1a on bits ------------------------------------------------------------


def bits_from_bytes(data: bytes | bytearray | memoryview | Iterable[int]) -> list[int]:
    """Bits of ``data``, most significant bit of each byte first."""
    out: list[int] = []
    for byte in bytes(data):
        out.extend((byte >> shift) & 1 for shift in range(7, -1, -1))
    return out


def _bits(bits: Sequence[int] | str, minimum: int = 1) -> list[int]:
    """Bits as a list of 0/1; a ``str`` of ``0``/``1`` (as SP 800-22 prints them) also works."""
    if isinstance(bits, str):
        text = "".join(bits.split())
        if set(text) - {"0", "1"}:
            raise ValueError("a bit string may hold only 0 and 1")
        out = [int(c) for c in text]
    else:
        out = [int(b) for b in bits]
        if any(b not in (0, 1) for b in out):
            raise ValueError("bits must be 0 or 1")
    if len(out) < minimum:
        raise ValueError(f"this test needs at least {minimum} bits, got {len(out)}")
    return out


def monobit(bits: Sequence[int] | str) -> float:
    """2.1 Frequency (monobit): ``erfc(|S_n| / sqrt(2n))``, ``S_n = Σ (2ε - 1)``."""
    e = _bits(bits)
    s = 2 * sum(e) - len(e)
    return erfc(abs(s) / math.sqrt(2.0 * len(e)))


def block_frequency(bits: Sequence[int] | str, block_size: int = 128) -> float:
    """2.2 Frequency within a block: ``igamc(N/2, χ²/2)``, ``χ² = 4M Σ (π_i - 1/2)^2`` over the
    ``N = n // M`` whole blocks (leftover bits are ignored)."""
    e = _bits(bits)
    if block_size < 1 or len(e) < block_size:
        raise ValueError(f"block size must be within 1..{len(e)}, got {block_size}")
    blocks = len(e) // block_size
    chi2 = 4.0 * block_size * math.fsum(
        (sum(e[i * block_size : (i + 1) * block_size]) / block_size - 0.5) ** 2
        for i in range(blocks)
    )
    return igamc(blocks / 2, chi2 / 2)


def runs(bits: Sequence[int] | str) -> float:
    """2.3 Runs: ``erfc(|V - 2nπ(1-π)| / (2 sqrt(2n) π(1-π)))``; 0.0 when the prerequisite
    frequency check ``|π - 1/2| < 2/sqrt(n)`` fails, as SP 800-22 prescribes."""
    e = _bits(bits)
    n = len(e)
    ones = sum(e)
    # |π - 1/2| >= 2/sqrt(n), in integers so that the boundary is exact: (2·ones - n)^2 >= 16n.
    if (2 * ones - n) ** 2 >= 16 * n:
        return 0.0
    pi = ones / n
    v = 1 + sum(1 for a, b in itertools.pairwise(e) if a != b)
    spread = pi * (1.0 - pi)
    return erfc(abs(v - 2.0 * n * spread) / (2.0 * math.sqrt(2.0 * n) * spread))


# SP 800-22 2.4.4 / 3.4: (minimum n, M, class bounds (first is "<=", last is ">="), π_i).
_LONGEST_RUN_TABLES: tuple[tuple[int, int, tuple[int, ...], tuple[float, ...]], ...] = (
    (750_000, 10_000, (10, 11, 12, 13, 14, 15, 16),
     (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727)),
    (6_272, 128, (4, 5, 6, 7, 8, 9), (0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124)),
    (128, 8, (1, 2, 3, 4), (0.2148, 0.3672, 0.2305, 0.1875)),
)


def _longest_run_counts(e: list[int]) -> tuple[list[int], tuple[float, ...], int]:
    """Blocks per longest-run class, the class probabilities and the number of blocks."""
    n = len(e)
    _, m, bounds, probs = next(t for t in _LONGEST_RUN_TABLES if n >= t[0])
    blocks = n // m
    counts = [0] * len(bounds)
    for i in range(blocks):
        longest = current = 0
        for bit in e[i * m : (i + 1) * m]:
            current = current + 1 if bit else 0
            longest = max(longest, current)
        counts[min(max(longest - bounds[0], 0), len(bounds) - 1)] += 1
    return counts, probs, blocks


def _longest_run_chi2(e: list[int]) -> tuple[float, int]:
    """χ² of the longest-run classes and its degrees of freedom K."""
    counts, probs, blocks = _longest_run_counts(e)
    chi2 = math.fsum((v - blocks * p) ** 2 / (blocks * p) for v, p in zip(counts, probs, strict=True))
    return chi2, len(probs) - 1


def longest_run_of_ones(bits: Sequence[int] | str) -> float:
    """2.4 Longest run of ones in a block (n >= 128; M = 8, 128 or 10^4 by n as in the
    standard, N = n // M blocks, the standard's 4-digit class probabilities):
    ``igamc(K/2, χ²/2)``."""
    chi2, k = _longest_run_chi2(_bits(bits, minimum=128))
    return igamc(k / 2, chi2 / 2)


def cumulative_sums(bits: Sequence[int] | str, *, reverse: bool = False) -> float:
    """2.13 Cumulative sums (forward, or backward with ``reverse``), ``z = max |S_k|``.

    The summation limits use integer division truncating toward zero, as NIST's reference
    implementation (sts ``cusum.c``) does; that is what reproduces the published examples
    (1011010111 -> 0.4116588), where the floor in the printed formula gives 0.41158.
    """
    e = _bits(bits)
    if reverse:
        e = e[::-1]
    n = len(e)
    s = z = 0
    for bit in e:
        s += 1 if bit else -1
        z = max(z, abs(s))

    def trunc_div(a: int, b: int) -> int:
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q

    root = math.sqrt(n)
    upper = trunc_div(trunc_div(n, z) - 1, 4)
    sum1 = math.fsum(
        _normal_cdf((4 * k + 1) * z / root) - _normal_cdf((4 * k - 1) * z / root)
        for k in range(trunc_div(trunc_div(-n, z) + 1, 4), upper + 1)
    )
    sum2 = math.fsum(
        _normal_cdf((4 * k + 3) * z / root) - _normal_cdf((4 * k + 1) * z / root)
        for k in range(trunc_div(trunc_div(-n, z) - 3, 4), upper + 1)
    )
    return min(1.0, max(0.0, 1.0 - sum1 + sum2))


def _phi(e: list[int], m: int) -> float:
    if m == 0:
        return 0.0
    n = len(e)
    wrapped = e + e[: m - 1]
    counts = [0] * (1 << m)
    mask = (1 << m) - 1
    window = 0
    for i, bit in enumerate(wrapped):
        window = ((window << 1) | bit) & mask
        if i >= m - 1:
            counts[window] += 1
    return math.fsum(c / n * math.log(c / n) for c in counts if c)


def approximate_entropy(bits: Sequence[int] | str, m: int = 10) -> float:
    """2.12 Approximate entropy: ``ApEn = φ(m) - φ(m+1)`` over overlapping, wrapped m-bit
    patterns; ``igamc(2^(m-1), χ²/2)``, ``χ² = 2n (ln 2 - ApEn)``. SP 800-22 advises
    ``m < floor(log2 n) - 5``."""
    e = _bits(bits)
    n = len(e)
    if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= min(20, n):
        raise ValueError(f"pattern length m must be within 1..{min(20, n)}, got {m!r}")
    apen = _phi(e, m) - _phi(e, m + 1)
    chi2 = 2.0 * n * (math.log(2.0) - apen)
    return igamc(2.0 ** (m - 1), max(chi2, 0.0) / 2)


def sp800_22_subset(bits: Sequence[int] | str) -> dict[str, float]:
    """Every test above on one bit sequence, with parameters chosen as SP 800-22 advises for
    its length: block size ``M = max(20, ceil(n / 99))`` (so ``N < 100``, ``M > 0.01 n``), and
    approximate entropy with ``m = clamp(floor(log2 n) - 6, 1, 10)``. The longest-run test
    needs 128 bits and is left out below that. Returns ``{test name: p-value}``."""
    e = _bits(bits, minimum=100)
    n = len(e)
    block = max(20, math.ceil(n / 99))
    m = min(10, max(1, int(math.log2(n)) - 6))
    out = {
        "monobit": monobit(e),
        "block_frequency": block_frequency(e, block),
        "runs": runs(e),
    }
    if n >= 128:
        out["longest_run_of_ones"] = longest_run_of_ones(e)
    out["cumulative_sums_forward"] = cumulative_sums(e)
    out["cumulative_sums_reverse"] = cumulative_sums(e, reverse=True)
    out["approximate_entropy"] = approximate_entropy(e, m)
    return out
