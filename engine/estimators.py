"""Min-entropy estimates of a noise source's raw samples: SP 800-90B section 6.3 (non-IID).

All ten of the standard's estimators (NIST SP 800-90B, January 2018), written from its text and
held to NIST's reference tool (``ea_non_iid``) on the files in tests/engine/data/sp800-90b/:

- 6.3.1 most common value (MCV), 6.3.5 t-tuple and 6.3.6 longest repeated substring (LRS)
  work on samples of any alphabet;
- 6.3.2 collision, 6.3.3 Markov and 6.3.4 compression work on bits only;
- 6.3.7 MultiMCW, 6.3.8 Lag, 6.3.9 MultiMMC and 6.3.10 LZ78Y, the predictors, work on any
  alphabet (:mod:`engine.predictors`).

As in the standard (3.1.3) and NIST's reference tool, samples wider than one bit are assessed
twice: as they are (MCV, t-tuple, LRS and the four predictors) and as a bit string, most
significant bit first (all ten); a bit-string estimate counts ``width`` times per sample.
:func:`assess` returns each estimator's figure in bits per sample (the lower of its two
readings) and the minimum, which is the standard's figure for the samples.

Every estimate is an upper confidence bound at 99 % (``Z_ALPHA``, the quantile the standard
prints as 2.576) on the most likely outcome's probability, so short sample sets give lower
figures: 1024 perfect bytes score about 5.8 bits each, not 8. An estimator that needs more
data than it got (compression: more than 1000 six-bit blocks; t-tuple: a tuple seen 35 times;
the predictors: two guesses) is reported as not applicable (None).

t-tuple and LRS counts come from one suffix array (prefix doubling), its LCP array (Kasai et
al.) and one bottom-up pass over the LCP intervals, so even a long periodic pattern (whose
longest repeat is nearly the whole input) costs O(n log^2 n), not O(n^2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from itertools import pairwise

from engine.predictors import Z_ALPHA, lag, lz78y, mmc_and_lz78y, multi_mcw, multi_mmc

__all__ = [
    "ESTIMATORS",
    "PREDICTORS",
    "Assessment",
    "assess",
    "collision",
    "compression",
    "lag",
    "lz78y",
    "markov",
    "most_common_value",
    "multi_mcw",
    "multi_mmc",
    "t_tuple_and_lrs",
    "to_bits",
]

#: The estimators, in the standard's order (names as reported).
ESTIMATORS = ("mcv", "collision", "markov", "compression", "t-tuple", "lrs",
              "multi-mcw", "lag", "multi-mmc", "lz78y")
#: The four predictors (6.3.7-6.3.10), the last four of :data:`ESTIMATORS`.
PREDICTORS = ESTIMATORS[6:]

_Z = Z_ALPHA  # the 99 % one-sided normal quantile used throughout section 6.3
_TUPLE_MIN_COUNT = 35  # 6.3.5: a t-tuple must occur at least 35 times
_COMPRESSION_DICT = 1000  # 6.3.4: d, the dictionary-building blocks
_COMPRESSION_BLOCK = 6  # 6.3.4: b, bits per block
_MARKOV_LENGTH = 128  # 6.3.3: the length of the sequences whose probability is bounded


def _upper(p_hat: float, n: int) -> float:
    """The 99 % upper confidence bound on a proportion ``p_hat`` seen over ``n`` samples."""
    return min(1.0, p_hat + _Z * math.sqrt(p_hat * (1.0 - p_hat) / (n - 1)))


def _bits(p: float) -> float:
    """``-log2(p)``, never ``-0.0``."""
    return max(0.0, -math.log2(p))


def to_bits(samples: Sequence[int], width: int = 8) -> list[int]:
    """Each sample as ``width`` bits, most significant first."""
    return [(s >> (width - 1 - k)) & 1 for s in samples for k in range(width)]


def most_common_value(samples: Sequence[int]) -> float:
    """6.3.1: ``-log2`` of the upper bound on the most common value's probability."""
    n = len(samples)
    if n < 2:
        raise ValueError(f"the MCV estimate needs at least 2 samples, got {n}")
    counts: dict[int, int] = {}
    for s in samples:
        counts[s] = counts.get(s, 0) + 1
    return _bits(_upper(max(counts.values()) / n, n))


def collision(bits: Sequence[int]) -> float | None:
    """6.3.2, per bit: the mean time to the first repeated value, bounded below at 99 %,
    gives the most likely bit's probability (for bits, 7. of the standard reduces to
    ``X' = -2p^2 + 2p + 2``, so ``p = 1/2 + sqrt(5/4 - X'/2)``)."""
    n, i = len(bits), 0
    times: list[int] = []
    while i < n - 1:
        if bits[i] == bits[i + 1]:
            t = 2
        elif i < n - 2:
            t = 3  # of three bits two are always equal
        else:
            break
        times.append(t)
        i += t
    v = len(times)
    if v < 2:
        return None
    mean = sum(times) / v
    sd = math.sqrt(sum((t - mean) ** 2 for t in times) / (v - 1))
    bound = max(2.0, mean - _Z * sd / math.sqrt(v))
    if bound >= 2.5:
        return 1.0  # no solution: as much entropy as a bit can hold
    return _bits(0.5 + math.sqrt(1.25 - 0.5 * bound))


def markov(bits: Sequence[int]) -> float | None:
    """6.3.3, per bit: a first-order Markov model of the bits; the most likely 128-bit
    sequence among the six the standard lists bounds the entropy of 128 bits."""
    n = len(bits)
    if n < 2:
        return None
    zeros = sum(1 for b in bits[:-1] if b == 0)  # transitions start at bits[0..n-2]
    ones = n - 1 - zeros
    c00 = sum(1 for a, b in pairwise(bits) if a == 0 and b == 0)
    c10 = sum(1 for a, b in pairwise(bits) if a == 1 and b == 0)
    p00 = c00 / zeros if zeros else 0.0
    p01 = 1.0 - p00 if zeros else 0.0
    p10 = c10 / ones if ones else 0.0
    p11 = 1.0 - p10 if ones else 0.0
    p0 = (zeros + (1 if bits[-1] == 0 else 0)) / n
    p1 = 1.0 - p0
    k = _MARKOV_LENGTH
    candidates = [  # (first bit probability, [(transition probability, times)])
        (p0, [(p00, k - 1)]),
        (p0, [(p01, k // 2), (p10, k // 2 - 1)]),
        (p0, [(p01, 1), (p11, k - 2)]),
        (p1, [(p10, 1), (p00, k - 2)]),
        (p1, [(p10, k // 2), (p01, k // 2 - 1)]),
        (p1, [(p11, k - 1)]),
    ]
    h = float(k)
    for first, steps in candidates:
        if first > 0 and all(p > 0 for p, _ in steps):
            h = min(h, -math.log2(first) - sum(times * math.log2(p) for p, times in steps))
    return max(0.0, min(h / k, 1.0))


def _compression_expectation(p: float, blocks: int, d: int, alphabet: int,
                             logs: Sequence[float] | None = None) -> float:
    """6.3.4 step 7's right-hand side: ``G(p) + (alphabet - 1) G(q)`` for the one-parameter
    family where one block value has probability ``p`` and the rest share ``1 - p``."""
    q = (1.0 - p) / (alphabet - 1)
    return _g(p, blocks, d, logs) + (alphabet - 1) * _g(q, blocks, d, logs)


def _g(z: float, blocks: int, d: int, logs: Sequence[float] | None = None) -> float:
    """``G(z) = 1/v sum_{t=d+1}^{L} sum_{u=1}^{t} log2(u) F(z, t, u)`` with
    ``F = z^2 (1-z)^(u-1)`` for ``u < t`` and ``z (1-z)^(t-1)`` for ``u = t``, summed in O(L)
    with a running prefix of ``log2(u) (1-z)^(u-1)``. ``logs[t]`` is ``log2(t)`` (a table the
    bisection shares)."""
    if logs is None:
        logs = [0.0, *(math.log2(t) for t in range(1, blocks + 1))]
    one_minus = 1.0 - z
    prefix = 0.0  # sum_{u=1}^{t-1} log2(u) (1-z)^(u-1)
    power = 1.0  # (1-z)^(u-1) for the u being added
    for t in range(1, d + 1):
        prefix += logs[t] * power
        power *= one_minus
    total = 0.0
    zz = z * z
    for t in range(d + 1, blocks + 1):
        term = logs[t] * power
        total += zz * prefix + z * term
        prefix += term
        power *= one_minus
    return total / (blocks - d)


def compression(bits: Sequence[int]) -> float | None:
    """6.3.4, per bit: Maurer-style compression statistic of 6-bit blocks after a 1000-block
    dictionary; None with 1000 blocks or fewer."""
    b, d = _COMPRESSION_BLOCK, _COMPRESSION_DICT
    blocks = len(bits) // b
    if blocks <= d + 1:  # at least two blocks after the dictionary, for a standard deviation
        return None
    values = [int("".join(map(str, bits[i * b : (i + 1) * b])), 2) for i in range(blocks)]
    last = [0] * (1 << b)
    for i in range(d):
        last[values[i]] = i + 1
    logs = []
    for i in range(d, blocks):
        logs.append(math.log2(i + 1 - last[values[i]]))
        last[values[i]] = i + 1
    v = blocks - d
    mean = sum(logs) / v
    sigma = 0.5907 * math.sqrt(max(0.0, sum(x * x for x in logs) / (v - 1) - mean * mean))
    bound = mean - _Z * sigma / math.sqrt(v)
    alphabet = 1 << b
    table = [0.0, *(math.log2(t) for t in range(1, blocks + 1))]
    lo, hi = 1.0 / alphabet, 1.0
    if _compression_expectation(lo, blocks, d, alphabet, table) <= bound:
        return 1.0  # no solution: full entropy
    for _ in range(40):  # the expectation falls as p grows: bisect (to within 2^-40)
        mid = (lo + hi) / 2
        if _compression_expectation(mid, blocks, d, alphabet, table) > bound:
            lo = mid
        else:
            hi = mid
    return min(1.0, _bits((lo + hi) / 2) / b)


def _suffix_array(data: Sequence[int]) -> list[int]:
    """Suffix array by prefix doubling (ranks of 2^k-prefixes, sorted as pairs)."""
    n = len(data)
    rank = list(data)
    sa = list(range(n))
    k = 1
    while True:
        key = [(rank[i], rank[i + k] if i + k < n else -1) for i in range(n)]
        sa.sort(key=key.__getitem__)
        new = [0] * n
        for j in range(1, n):
            new[sa[j]] = new[sa[j - 1]] + (key[sa[j]] != key[sa[j - 1]])
        rank = new
        if rank[sa[-1]] == n - 1 or k >= n:
            return sa
        k *= 2


def _lcp(data: Sequence[int], sa: list[int]) -> list[int]:
    """``lcp[j]`` = longest common prefix of the suffixes ``sa[j-1]`` and ``sa[j]`` (Kasai)."""
    n = len(data)
    rank = [0] * n
    for j, i in enumerate(sa):
        rank[i] = j
    lcp = [0] * n
    h = 0
    for i in range(n):
        j = rank[i]
        if j > 0:
            other = sa[j - 1]
            while i + h < n and other + h < n and data[i + h] == data[other + h]:
                h += 1
            lcp[j] = h
            if h:
                h -= 1
        else:
            h = 0
    return lcp


def _tuple_counts(data: Sequence[int]) -> tuple[list[int], list[int], int]:
    """For every length ``w`` >= 1: ``most[w]``, the count of the most common ``w``-tuple, and
    ``pairs[w]``, the number of pairs of equal ``w``-tuples; and the longest repeat's length.

    Equal ``w``-tuples are runs of the suffix array with LCP >= w. Each LCP interval (lcp
    value ``l``, ``k`` suffixes, parent interval's lcp ``l'``) is such a run exactly for
    ``l' < w <= l``: its size goes into ``most`` for every ``w <= l`` and ``C(k, 2)`` into
    ``pairs`` over ``(l', l]`` (by a difference array).
    """
    n = len(data)
    sa = _suffix_array(data)
    lcp = _lcp(data, sa)
    longest = max(lcp) if n > 1 else 0
    best = [0] * (longest + 2)
    diff = [0] * (longest + 3)
    stack: list[tuple[int, int]] = [(0, 0)]  # (lcp value, left bound)
    for i in range(1, n + 1):
        current = lcp[i] if i < n else 0
        left = i - 1
        while current < stack[-1][0]:
            value, left = stack.pop()
            size = i - left
            parent = max(current, stack[-1][0])
            best[value] = max(best[value], size)
            diff[parent + 1] += size * (size - 1) // 2
            diff[value + 1] -= size * (size - 1) // 2
        if current > stack[-1][0]:
            stack.append((current, left))
    most = [n] + [0] * (longest + 1)  # most[0] unused
    running = 0
    for w in range(longest, 0, -1):
        running = max(running, best[w])
        most[w] = running
    pairs = [0] * (longest + 2)
    acc = 0
    for w in range(1, longest + 2):
        acc += diff[w]
        pairs[w] = acc
    if n:
        most[1] = max(most[1], 1)
    return most, pairs, longest


def t_tuple_and_lrs(samples: Sequence[int]) -> tuple[float | None, float | None]:
    """6.3.5 and 6.3.6: the t-tuple estimate (tuples seen at least 35 times) and the longest
    repeated substring estimate (longer tuples, by their collision probability)."""
    n = len(samples)
    if n < 2:
        return None, None
    most, pairs, longest = _tuple_counts(samples)
    t = 0
    while t + 1 <= longest and most[t + 1] >= _TUPLE_MIN_COUNT:
        t += 1
    tuple_est = None
    if t >= 1:
        p_max = max((most[i] / (n - i + 1)) ** (1.0 / i) for i in range(1, t + 1))
        tuple_est = _bits(_upper(p_max, n))
    u, v = t + 1, longest
    lrs_est = None
    if v >= u:
        p_max = max((pairs[w] / ((n - w + 1) * (n - w) // 2)) ** (1.0 / w) for w in range(u, v + 1))
        lrs_est = _bits(_upper(p_max, n))
    return tuple_est, lrs_est


@dataclass(frozen=True)
class Assessment:
    """Each estimator's figure in bits per sample (None: not applicable to this data)."""

    samples: int
    width: int
    figures: dict[str, float | None]

    @property
    def minimum(self) -> tuple[str, float]:
        """The lowest figure and its estimator."""
        present = {k: v for k, v in self.figures.items() if v is not None}
        name = min(present, key=present.__getitem__)
        return name, float(present[name])


_Estimate = Callable[[Sequence[int], int], float | None]
_PREDICTOR_FUNCTIONS: dict[str, _Estimate] = {
    "multi-mcw": multi_mcw, "lag": lag, "multi-mmc": multi_mmc, "lz78y": lz78y}


def _readings(data: Sequence[int], alphabet: int, wanted: Collection[str],
              literal: bool) -> dict[str, float | None]:
    """The wanted estimators' figures on ``data`` (bits, or for ``literal`` the samples as
    they are: then only the estimators the standard runs on any alphabet)."""
    out: dict[str, float | None] = {}
    if "t-tuple" in wanted or "lrs" in wanted:
        out["t-tuple"], out["lrs"] = t_tuple_and_lrs(data)
    if "mcv" in wanted:
        out["mcv"] = most_common_value(data)
    if not literal:
        for name, bits_only in (("collision", collision), ("markov", markov), ("compression", compression)):
            if name in wanted:
                out[name] = bits_only(data)
    if "multi-mmc" in wanted and "lz78y" in wanted:  # one pass over the contexts for both
        out["multi-mmc"], out["lz78y"] = mmc_and_lz78y(data, alphabet)
    for name, predictor in _PREDICTOR_FUNCTIONS.items():
        if name in wanted and name not in out:
            out[name] = predictor(data, alphabet)
    return {name: value for name, value in out.items() if name in wanted}


def assess(samples: Sequence[int], width: int = 8, estimators: Collection[str] = ESTIMATORS) -> Assessment:
    """The estimators (all ten unless fewer are named) on ``samples`` of ``width`` bits, as SP
    800-90B's non-IID track does: each figure is the lower of its literal reading and ``width``
    x its bit-string one."""
    if width < 1:
        raise ValueError(f"samples must be at least 1 bit wide, got {width}")
    if len(samples) < 2:
        raise ValueError(f"an entropy estimate needs at least 2 samples, got {len(samples)}")
    unknown = sorted(set(estimators) - set(ESTIMATORS))
    if unknown or not estimators:
        raise ValueError(f"unknown estimators {unknown} (known: {', '.join(ESTIMATORS)})" if unknown
                         else "at least one estimator must be named")
    wanted = [name for name in ESTIMATORS if name in estimators]
    bits = to_bits(samples, width) if width > 1 else list(samples)
    per_bit = _readings(bits, 2, wanted, literal=False)
    figures: dict[str, float | None] = {}
    for name in wanted:
        reading = per_bit[name]
        figures[name] = None if reading is None else width * reading
    if width > 1:
        for name, literal in _readings(samples, len(set(samples)), wanted, literal=True).items():
            if literal is not None:
                current = figures[name]
                figures[name] = literal if current is None else min(literal, current)
    return Assessment(len(samples), width, figures)
