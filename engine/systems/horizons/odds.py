"""Exact odds of Infinite Horizons rolls: success counts of exploding d10 pools, net successes of
opposed rolls, damage after mitigation.

One die's success count has the generating function G(x) = (6 + 3x) / (10 - x): faces 1-6 give
nothing (6/10), 7-9 one success (3/10), a 10 one success and the die again (x G(x) / 10). So
P(0) = 6/10 and P(s) = (1/10)**s (6/10) + (1/10)**(s-1) (3/10) for s >= 1, and a pool of n dice
has G(x)**n = (6 + 3x)**n / (10 - x)**n, whose coefficients are finite sums of integers:

    P(S = s) = r(s) / 10**(n + s),   r(s) = sum_j C(n, j) 6**(n-j) 30**j C(n-1+s-j, s-j).

Every P(s) is exact, however often the dice explode; only the support is infinite. It is cut
at the first count whose tail mass is below the allowed truncation, and that mass is reported.
All counts share one denominator 10**(n + L), so sums and products stay integer until the
Fractions are built at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from engine.results import Distribution

#: Largest probability mass a reported distribution may leave out (Odds.truncated).
TRUNCATION = Fraction(1, 10**15)


@dataclass(frozen=True)
class PoolCounts:
    """P(S = s) = ``counts[s] / denominator`` for ``s < len(counts)``; ``tail`` is the rest."""

    counts: tuple[int, ...]
    denominator: int

    @property
    def tail(self) -> int:
        return self.denominator - sum(self.counts)

    def at_least(self, k: int) -> int:
        """Numerator of P(S >= k), exact for ``k <= len(counts)``."""
        if k > len(self.counts):
            raise ValueError(f"P(S >= {k}) needs counts up to {k - 1}, have {len(self.counts) - 1}")
        return self.denominator - sum(self.counts[:k])

    def fractions(self, shift: int = 0) -> Distribution:
        """P(S = s) keyed by ``s - shift`` (a net count against ``shift`` known successes)."""
        return Distribution([str(s - shift) for s in range(len(self.counts))], self.counts, self.denominator)


def _tail_bound(dice: int, max_tail: Fraction) -> int:
    """A count L with P(S > L) < ``max_tail``, from Chernoff bounds.

    For 1 < z < 10, P(S > L) <= G(z)**n / z**(L + 1); z = 5 (G = 21/5) is tight for large
    pools, z = 8 (G = 15) for small ones. Integer comparisons only. The bound overshoots the
    exact cut by a few counts, which the exact scan in :func:`pool_counts` trims.
    """
    best = None
    for z, g_num, g_den in ((5, 21, 5), (8, 15, 1)):
        lhs = g_num**dice * max_tail.denominator
        rhs = max_tail.numerator * g_den**dice * z
        bound = 0
        while lhs >= rhs:
            bound += 1
            rhs *= z
        best = bound if best is None else min(best, bound)
    return int(best or 0)


def _pack(values: Sequence[int], width: int) -> int:
    return int.from_bytes(b"".join(v.to_bytes(width, "little") for v in values), "little")


def _unpack(packed: int, width: int, slots: int) -> list[int]:
    raw = packed.to_bytes(max(slots * width, (packed.bit_length() + 7) // 8), "little")
    return [int.from_bytes(raw[i * width : (i + 1) * width], "little") for i in range(slots)]


def pool_counts(dice: int, max_tail: Fraction = TRUNCATION, at_least: int = 0) -> PoolCounts:
    """The success-count distribution of ``dice`` exploding d10s.

    Counts run from 0 to the first ``L >= at_least`` with P(S > L) < ``max_tail``.
    """
    if dice < 1:
        raise ValueError(f"a pool needs at least 1 die, got {dice}")
    if not 0 < max_tail < 1:
        raise ValueError(f"the allowed tail must be between 0 and 1, got {max_tail}")
    span = max(at_least, _tail_bound(dice, max_tail))
    # (6 + 3x)**n scaled by 10**j: a[j] = C(n, j) 6**(n-j) 30**j.
    a = [comb(dice, j) * 6 ** (dice - j) * 30**j for j in range(dice + 1)]
    # b[k] = C(n-1+k, k): coefficients of (1 - y)**-n.
    b = [comb(dice - 1 + k, k) for k in range(span + 1)]
    # r(s) = sum_j a[j] b[s-j] <= 10**(n+s): one big-integer product does the convolution.
    width = (10 ** (dice + span)).bit_length() // 8 + 1
    raw = _unpack(_pack(a, width) * _pack(b, width), width, span + 1)
    # Cut at the first s >= at_least whose tail is small enough, exactly, in integers.
    cumulative = 0  # P(S <= s) * 10**(n+s)
    scale = 10**dice  # 10**(n+s)
    tail_num, tail_den = max_tail.numerator, max_tail.denominator
    for s, r in enumerate(raw):
        cumulative = cumulative * 10 + r
        if s >= at_least and (scale - cumulative) * tail_den < tail_num * scale:
            break
        scale *= 10
    else:  # pragma: no cover - the Chernoff bound guarantees the cut is found
        raise ArithmeticError(f"tail bound {span} too short for {dice} dice")
    counts = tuple(r * 10 ** (s - t) for t, r in enumerate(raw[: s + 1]))
    return PoolCounts(counts, scale)


@dataclass(frozen=True)
class NetCounts:
    """P(net = d) = ``counts[d - low] / denominator`` for net successes d = actor - opponent."""

    low: int
    counts: tuple[int, ...]
    denominator: int

    @property
    def tail(self) -> int:
        return self.denominator - sum(self.counts)

    def fractions(self) -> Distribution:
        return Distribution([str(self.low + i) for i in range(len(self.counts))], self.counts, self.denominator)

    def at(self, net: int) -> int:
        i = net - self.low
        return self.counts[i] if 0 <= i < len(self.counts) else 0


def net_counts(actor: PoolCounts, opponent: PoolCounts) -> NetCounts:
    """Distribution of actor successes minus opponent successes over both supports.

    A single big-integer product does the whole convolution (Kronecker substitution): the
    actor's counts and the opponent's, reversed, are packed into integers with slots wide
    enough that no sum can carry into the next slot.
    """
    a, o = actor.counts, opponent.counts
    denominator = actor.denominator * opponent.denominator
    width = denominator.bit_length() // 8 + 1  # bytes per slot; every sum is <= denominator
    slots = len(a) + len(o) - 1
    counts = tuple(_unpack(_pack(a, width) * _pack(o[::-1], width), width, slots))
    return NetCounts(-(len(o) - 1), counts, denominator)


def opposed_success(actor: PoolCounts, opponent: PoolCounts, need: int) -> Fraction:
    """P(actor - opponent >= need), exact up to the opponent's tail (counted as failure).

    ``actor`` must reach ``len(opponent.counts) - 1 + need - 1`` so every tail is exact.
    """
    last = len(opponent.counts) - 1 + need
    if last > len(actor.counts):
        raise ValueError(f"the actor's counts must reach {last - 1}, have {len(actor.counts) - 1}")
    below = [0]  # below[k] = numerator of P(actor < k)
    for c in actor.counts[:last]:
        below.append(below[-1] + c)
    full = actor.denominator
    total = sum(c * (full - below[o + need]) for o, c in enumerate(opponent.counts))
    return Fraction(total, full * opponent.denominator)
