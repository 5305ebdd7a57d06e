"""Exact odds of an Infinity roll, alone or as a Coordination or Volley Attack.

Each character's (hot, cold) pair is one of 100 equally likely outcomes, so a group of k
characters has 100**k; instead of enumerating them the odds come from generating functions.

The group's total is ``M + D + N - [M >= 1] + R``: M the highest total among the characters
who can give the base (the roller and helpers; in a Volley, the combat totals), D the weapon
Damage of that total (Volley only; ties go to the bigger weapon), N how many of those totals
beat CR 0 (the base's own is taken off again), R how many related totals beat CR 0.

Order the keys (total, Damage). For a key K, ``G_K(y) = prod_i (A_i(K) + B_i(K) y)`` where
A_i / B_i count character i's dice outcomes with key <= K and a total below 1 / of 1 or more;
``G_K - G_{K-1}`` counts "the highest key is K" by N (the power of y). Summing those terms
shifted by ``y**(M + D - [M >= 1])`` and multiplying by ``prod_j (miss_j + beat_j y)`` for
related skills gives the distribution of the group total. Polynomials are packed into one
Python integer (y = 2**w with w = 7 bits per character, enough as 100 < 2**7), so every
product is one big-integer multiplication; the outcome counts are sums of ranges of digits,
read off with a shift, a mask and ``% (y - 1)`` (a base-y digit sum, exact because every
count is below 100**k < y - 1). Fractions are built once at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from engine.results import Distribution
from engine.systems.infinity.rules import FACES_PER_ROLL

# A Result r is in bucket i when r >= _THRESHOLDS[i - 1] (failure, complication, success, solid,
# spectacular): the "Determining Success" table, as in rules.outcome_of.
_THRESHOLDS = (0, 1, 5, 10)


def ways_at_least(x: int) -> int:
    """How many of the 100 (hot, cold) pairs give a bonus of ``x`` or more (closed form of
    the triangular distribution: 10 - |b| ways for each bonus b in -9..9)."""
    if x >= 10:
        return 0
    if x >= 1:
        return (10 - x) * (11 - x) // 2
    if x >= -8:
        return FACES_PER_ROLL - (9 + x) * (10 + x) // 2
    return FACES_PER_ROLL


#: Ways for a bonus <= b, for b = -10 .. 9 (index b + 10).
_AT_MOST: tuple[int, ...] = tuple(FACES_PER_ROLL - ways_at_least(b + 1) for b in range(-10, 10))


def _ways_at_most(rating: int, total: int) -> int:
    """Ways for ``rating + bonus <= total``."""
    return _AT_MOST[min(max(total - rating + 10, 0), 19)]


def _factors(rating: int, top: int, y: int) -> list[int]:
    """``A + B y`` for each key total t in ``top - 10 .. top + 9`` (``top`` >= ``rating``):
    ways for a total up to t that is below 1 (A) or at least 1 (B)."""
    offset = top - rating  # index of t = top - 10 in _AT_MOST
    at_most = (_AT_MOST[offset:] + (FACES_PER_ROLL,) * offset)[:20]
    below = _ways_at_most(rating, 0)
    return [
        ways if t <= 0 else below + (ways - below) * y
        for t, ways in zip(range(top - 10, top + 10), at_most, strict=True)
    ]


def _packed(primaries: Sequence[tuple[int, int]], related: Sequence[int], add_damage: bool) -> tuple[int, int, int]:
    """The group total's distribution packed as ``(poly, y, lowest)``: the digit of ``y**j``
    counts the ways for a group total (before modifiers and difficulty) of ``lowest + j``."""
    width = 7 * (len(primaries) + len(related))
    y = 1 << width
    damages = sorted({damage for _, damage in primaries})
    top = max(rating for rating, _ in primaries)
    # Key totals run over top - 10 .. top + 9: below top - 9 the best-rated roller has no
    # outcome, so G is 0; from top + 9 on every roller has all 100, so G no longer changes.
    groups = []  # per Damage (ascending): the product of its rollers' factors, per key total
    for d in damages:
        members = [_factors(rating, top, y) for rating, damage in primaries if damage == d]
        product = members[0]
        for factors in members[1:]:
            product = [p * f for p, f in zip(product, factors, strict=True)]
        groups.append(product)
    # The exponent t + D - [t >= 1] never falls as the key rises, so the first key is lowest.
    first = top - 9
    lowest = first - (first >= 1) + (damages[0] if add_damage else 0)
    poly = 0
    if len(groups) == 1:
        (g,) = groups
        for i, t in enumerate(range(first, top + 10), start=1):
            # The base's own total is not one of the "other" totals that add +1.
            poly += (g[i] - g[i - 1]) << (width * (t - (t >= 1) - first + (first >= 1)))
    else:
        previous = 0
        for i, t in enumerate(range(first, top + 10), start=1):
            # G at key (t, d_j): rollers with Damage <= d_j count up to t, the others up to t - 1.
            suffix = [1] * (len(groups) + 1)
            for j in range(len(groups) - 1, -1, -1):
                suffix[j] = suffix[j + 1] * groups[j][i - 1]
            prefix = 1
            for j, d in enumerate(damages):
                prefix *= groups[j][i]
                key_ways = prefix * suffix[j + 1]
                if key_ways != previous:
                    e = t + (d if add_damage else 0) - (t >= 1)
                    poly += (key_ways - previous) << (width * (e - lowest))
                previous = key_ways
    for rating in related:
        beat = ways_at_least(1 - rating)
        poly *= FACES_PER_ROLL - beat + beat * y
    return poly, y, lowest


def result_counts(
    primaries: Sequence[tuple[int, int]],
    related: Sequence[int],
    shift: int,
    add_damage: bool,
) -> tuple[dict[int, int], int]:
    """Ways for each Result, and the number of equally likely dice outcomes.

    ``primaries``: (rating, damage) of the roller and of every character whose total can be
    the base; ``related``: ratings that only add +1; ``shift``: declaration + modifier -
    retry penalty - difficulty; ``add_damage``: a Volley, where the base's Damage is added.
    """
    poly, y, lowest = _packed(primaries, related, add_damage)
    width = y.bit_length() - 1
    counts: dict[int, int] = {}
    j = 0
    while poly:
        digit = poly & (y - 1)
        if digit:
            counts[lowest + shift + j] = digit
        poly >>= width
        j += 1
    return counts, FACES_PER_ROLL ** (len(primaries) + len(related))


def single_outcome_counts(fixed: int) -> tuple[int, int, int, int, int]:
    """Outcome ways of one roll whose Result is ``fixed`` + bonus."""
    ups = [ways_at_least(threshold - fixed) for threshold in _THRESHOLDS]
    return FACES_PER_ROLL - ups[0], ups[0] - ups[1], ups[1] - ups[2], ups[2] - ups[3], ups[3]


def group_outcome_counts(
    primaries: Sequence[tuple[int, int]], related: Sequence[int], shift: int, add_damage: bool
) -> tuple[int, int, int, int, int]:
    """Outcome ways of a group roll, read as digit sums of the packed distribution."""
    poly, y, lowest = _packed(primaries, related, add_damage)
    width = y.bit_length() - 1
    total = FACES_PER_ROLL ** (len(primaries) + len(related))
    below = []  # ways for a Result below each threshold
    for threshold in _THRESHOLDS:
        digits = threshold - shift - lowest  # digits j with lowest + shift + j < threshold
        below.append(0 if digits <= 0 else (poly & ((1 << (width * digits)) - 1)) % (y - 1))
    return below[0], below[1] - below[0], below[2] - below[1], below[3] - below[2], total - below[3]


def outcome_counts(by_result: dict[int, int]) -> tuple[int, int, int, int, int]:
    """Ways for failure, complication, success, solid, spectacular from a Result table."""
    buckets = [0] * 5
    for r, ways in by_result.items():
        buckets[sum(r >= threshold for threshold in _THRESHOLDS)] += ways
    fail, comp, succ, solid, spec = buckets
    return fail, comp, succ, solid, spec


def outcome_odds(
    primaries: Sequence[tuple[int, int]],
    related: Sequence[int],
    shift: int,
    add_damage: bool,
) -> tuple[Distribution, Fraction]:
    """Exact probability of each outcome, and of success (a Result of 1 or more)."""
    if len(primaries) == 1 and not related:
        rating, damage = primaries[0]
        counts = single_outcome_counts(rating + shift + (damage if add_damage else 0))
        total = FACES_PER_ROLL
    else:
        counts = group_outcome_counts(primaries, related, shift, add_damage)
        total = FACES_PER_ROLL ** (len(primaries) + len(related))
    _, _, succ, solid, spec = counts
    probs = Distribution(("failure", "complication", "success", "solid", "spectacular"), counts, total)
    return probs, Fraction(succ + solid + spec, total)
