"""The four predictor estimates of SP 800-90B section 6.3.7-6.3.10 (non-IID track).

Each predictor guesses every sample from the ones before it and keeps score; what it earns is
the fraction it guessed right, bounded above at 99 % (the *global* predictability), or, when
that is higher, the probability that makes its longest run of right guesses as likely as 1 in
100 (the *local* predictability, from the standard's equation solved by bisection). The
estimate is ``-log2`` of the higher of the two (and of ``1/k`` for ``k`` symbols).

- 6.3.7 MultiMCW: the most common value in the last 63, 255, 1023 or 4095 samples;
- 6.3.8 Lag: the sample 1 to 128 back;
- 6.3.9 MultiMMC: Markov models of order 1 to 16 (what followed the last ``d`` samples);
- 6.3.10 LZ78Y: an LZ78-like dictionary of the contexts of length 1 to 16.

Each family's members compete: the one with the best score so far (ties to the later one, the
standard's ``>=``) makes the guess that counts. Written from the standard's text (NIST SP
800-90B, January 2018) and held to NIST's reference tool (usnistgov/SP800-90B_EntropyAssessment,
``ea_non_iid``) to 1e-5 on the files in tests/engine/data/sp800-90b/. Where the text leaves
room, the tool is followed: its 99 % quantile (2.5758293..., which the standard prints as
2.576); a tie between values within one context goes to the largest; and in MultiMMC a guess
the winner cannot make (a context never seen) neither counts nor ends the run of right
guesses (a longer run can only lower the estimate). Where following the tool could only raise
the minimum, the standard's text is followed instead: the tool skips MultiMCW below 4,096
samples, and stops MultiMMC's look-up at the first unseen order, which differs from looking
each order up only once a model is full.

Bits (two symbols) take fast paths with the same results: window counts from prefix sums,
scoreboards packed into one integer (a field per predictor, updated for all at once), and
context counts in flat lists indexed by the context's bits. tests/engine/test_predictors.py
checks each against a literal reading of the standard's steps.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import NamedTuple

__all__ = [
    "Z_ALPHA",
    "Predictions",
    "lag",
    "lz78y",
    "mmc_and_lz78y",
    "multi_mcw",
    "multi_mmc",
    "predictabilities",
    "prediction_estimate",
]

#: The 99 % one-sided normal quantile of section 6.3 (the standard prints it rounded, 2.576).
Z_ALPHA = 2.5758293035489004

_WINDOWS = (63, 255, 1023, 4095)  # 6.3.7: w1..w4
_LAGS = 128  # 6.3.8: D
_MMC_DEPTH = 16  # 6.3.9: D
_MMC_MAX_ENTRIES = 100_000  # 6.3.9: entries per model
_LZ_DEPTH = 16  # 6.3.10: B
_LZ_MAX_DICTIONARY = 65_536  # 6.3.10: maxDictionarySize
_LOG_ALPHA = math.log(0.99)  # the local bound's 1 - alpha
_FIXED_POINT_ROUNDS = 66  # as NIST's tool: x = 1 + q p^r x^(r+1) iterated at most this often


class Predictions(NamedTuple):
    """A predictor's record: right guesses out of ``trials``, and its longest run of them."""

    correct: int
    trials: int
    longest: int


# --- the estimate from a predictor's record (6.3.7 steps 4-6, the same for all four)


def _log_no_run(p: float, r: int, n: int) -> float:
    """``ln`` of the standard's approximation to the probability that ``n`` guesses, each right
    with probability ``p``, hold no run of ``r`` right ones: ``(1 - p x) / ((r + 1 - r x) q)
    / x^(n+1)``, with ``x`` the fixed point of ``x = 1 + q p^r x^(r+1)`` reached from 1.
    Outside the formula's domain (a factor not positive) the probability counts as zero."""
    q = 1.0 - p
    x, last = 1.0, 0.0
    for _ in range(_FIXED_POINT_ROUNDS):
        if not x - last > math.ulp(x):
            break
        last = x
        x = 1.0 + q * (p * x) ** r * x  # q p^r x^(r+1), without overflow (p x <= 1)
    first, second = 1.0 - p * x, (r + 1.0 - r * x) * q
    if first <= 0.0 or second <= 0.0:
        return -math.inf
    return math.log(first) - math.log(second) - (n + 1.0) * math.log(x)


def _p_local(r: int, n: int, low: float) -> float:
    """The ``p`` in ``[low, 1]`` at which a run of ``r`` in ``n`` guesses has probability 0.99
    of not occurring (the function falls as ``p`` grows): bisection to adjacent floats."""
    lo, hi = low, 1.0
    while True:
        mid = (lo + hi) / 2.0
        if not lo < mid < hi:
            return hi
        value = _log_no_run(mid, r, n)
        if value == _LOG_ALPHA:
            return mid
        if value > _LOG_ALPHA:
            lo = mid
        else:
            hi = mid


def predictabilities(record: Predictions, alphabet: int) -> tuple[float, float | None]:
    """A record's global predictability ``P_global'`` (the 99 % upper bound on the share of
    right guesses, at least ``1/k``) and its local one ``P_local``, or None where that cannot
    raise the estimate (as NIST's tool, it is solved only when it can)."""
    correct, n, longest = record
    if n < 2:
        raise ValueError(f"a prediction estimate needs at least 2 guesses, got {n}")
    if alphabet < 1:
        raise ValueError(f"the alphabet must hold at least one symbol, got {alphabet}")
    share = correct / n
    if correct:
        bound = min(1.0, share + Z_ALPHA * math.sqrt(share * (1.0 - share) / (n - 1)))
    else:
        bound = 1.0 - 0.01 ** (1.0 / n)
    p = max(1.0 / alphabet, bound)
    r = longest + 1  # the standard's r: one more than the longest run
    if p < 1.0 and _log_no_run(p, r, n) > _LOG_ALPHA:
        return bound, _p_local(r, n, p)
    return bound, None


def prediction_estimate(record: Predictions, alphabet: int) -> float:
    """Bits per sample from a predictor's record: ``-log2 max(P_global', P_local, 1/k)``."""
    p_global, p_local = predictabilities(record, alphabet)
    p = max(1.0 / alphabet, p_global, p_local or 0.0)
    return max(0.0, -math.log2(p))


# --- following the leader: which member's guess counts


def _field(trials: int) -> int:
    """Bits per member in a packed scoreboard: a score gap (at most ``trials``) and one bit."""
    return max(2, trials.bit_length() + 1)


def _lead(hits: Iterable[int], members: int, trials: int,
          guessed: Iterable[int] | None = None) -> tuple[int, int]:
    """Right guesses and the longest run of them when each step's guess is the winner's.

    ``hits``: per step, the members that guessed right, member ``j`` as ``1 << (j * field)``
    (:func:`_field` of ``trials``). Each right member scores a point, in member order, and one
    whose score reaches the winner's becomes the winner (the standard's ``>=``): after a step
    the winner is the last right member at the top score, if any. ``guessed``: where a member
    can have no guess (MultiMMC), the members that guessed, as ``hits``; the winner's missing
    guess leaves the run alone, as in NIST's tool.

    The scoreboard is one integer with a field per member holding its gap to the top score,
    plus ``2^(field-1) - 1``, so a field's top bit is clear exactly at the top score: a step
    is a handful of integer operations however many members there are.
    """
    field = _field(trials)
    shift = field - 1
    ones = sum(1 << (j * field) for j in range(members))
    gaps = ones * ((1 << shift) - 1)
    made = iter(guessed) if guessed is not None else None
    winner = 1  # the winner's bit in ``hits``
    correct = run = longest = 0
    for mask in hits:
        guesses = next(made) if made is not None else ones
        if mask & winner:
            correct += 1
            run += 1
            if run > longest:
                longest = run
        elif guesses & winner:
            run = 0
        if not mask:
            continue
        raised = mask << shift
        top = raised & ~gaps
        if top:  # a right member was at the top: the top score goes up by one
            gaps += ones ^ mask
        else:
            gaps -= mask
            top = raised & ~gaps
            if not top:
                continue
        winner = 1 << (top.bit_length() - 1 - shift)
    return correct, longest


# --- 6.3.7 MultiMCW


def _mcw_literal_hits(samples: Sequence[int], field: int) -> Iterator[int]:
    """Per guess from sample 64 on: which windows' most common value (ties: the most recently
    seen) is the sample. Counts slide with the windows; only when the most common value leaves
    a window is the window searched again."""
    windows = [w for w in _WINDOWS if w < len(samples)]
    counts: list[dict[int, int]] = [{} for _ in windows]
    frequent = [-1] * len(windows)
    best = [0] * len(windows)
    last_seen: dict[int, int] = {}
    for i, s in enumerate(samples):
        if i >= _WINDOWS[0]:
            yield sum(1 << (j * field) for j, w in enumerate(windows) if i >= w and frequent[j] == s)
        last_seen[s] = i
        for j, w in enumerate(windows):
            c = counts[j]
            c[s] = c.get(s, 0) + 1
            old = samples[i - w] if i >= w else None
            if old is not None:
                c[old] -= 1
            if old != frequent[j] or old == s:
                if c[s] >= best[j]:
                    best[j], frequent[j] = c[s], s
            else:
                best[j] = max(c.values())
                frequent[j] = max((v for v, n in c.items() if n == best[j]), key=last_seen.__getitem__)


def _mcw_bit_hits(bits: Sequence[int], field: int) -> list[int]:
    """As :func:`_mcw_literal_hits` for bits: the windows are odd, so a window's majority has
    no tie, and its count of ones is a difference of prefix sums."""
    n, first = len(bits), _WINDOWS[0]
    ones = [0, *accumulate(bits)]
    hits = [0] * (n - first)
    for j, w in enumerate(_WINDOWS):
        bit, half = 1 << (j * field), w // 2
        for i in range(w, n):
            if (ones[i] - ones[i - w] > half) == bits[i]:
                hits[i - first] |= bit
    return hits


def multi_mcw_predictions(samples: Sequence[int], binary: bool = False) -> Predictions:
    """6.3.7's record: the winning window's guesses of samples 64 to L (``binary``: the
    samples are bits)."""
    n = len(samples) - _WINDOWS[0]
    field = _field(n)
    hits = _mcw_bit_hits(samples, field) if binary else _mcw_literal_hits(samples, field)
    correct, longest = _lead(hits, len(_WINDOWS), n)
    return Predictions(correct, n, longest)


def multi_mcw(samples: Sequence[int], alphabet: int | None = None) -> float | None:
    """6.3.7 MultiMCW estimate in bits per sample; None with 64 samples or fewer."""
    if len(samples) - _WINDOWS[0] < 2:
        return None
    k = _alphabet(samples, alphabet)
    return prediction_estimate(multi_mcw_predictions(samples, binary=_is_bits(samples)), k)


# --- 6.3.8 Lag


def _lag_literal_hits(samples: Sequence[int], field: int) -> Iterator[int]:
    """Per guess from sample 2 on: which lags ``d`` (member ``d - 1``) had the sample ``d``
    back, found by walking back through the earlier places of the same value."""
    previous: dict[int, int] = {}
    chain = [-1] * len(samples)  # the last earlier index holding the same value
    for i, s in enumerate(samples):
        j = chain[i] = previous.get(s, -1)
        previous[s] = i
        if i == 0:
            continue
        mask = 0
        while j >= 0 and i - j <= _LAGS:
            mask |= 1 << ((i - j - 1) * field)
            j = chain[j]
        yield mask


def _lag_bit_hits(bits: Sequence[int], field: int) -> Iterator[int]:
    """As :func:`_lag_literal_hits` for bits: the last 128 bits, one to a field (the latest
    lowest), are the lags that guessed 1; their complement among the lags in reach guessed 0."""
    window, reach = 0, 0
    full = (1 << (_LAGS * field)) - 1
    for i in range(1, len(bits)):
        window = ((window << field) | bits[i - 1]) & full
        if i <= _LAGS:
            reach = (reach << field) | 1
        yield window if bits[i] else reach ^ window


def lag_predictions(samples: Sequence[int], binary: bool = False) -> Predictions:
    """6.3.8's record: the winning lag's guesses of samples 2 to L."""
    n = len(samples) - 1
    field = _field(n)
    hits = _lag_bit_hits(samples, field) if binary else _lag_literal_hits(samples, field)
    correct, longest = _lead(hits, _LAGS, n)
    return Predictions(correct, n, longest)


def lag(samples: Sequence[int], alphabet: int | None = None) -> float | None:
    """6.3.8 Lag estimate in bits per sample; None with 2 samples or fewer."""
    if len(samples) < 3:
        return None
    k = _alphabet(samples, alphabet)
    return prediction_estimate(lag_predictions(samples, binary=_is_bits(samples)), k)


# --- 6.3.9 MultiMMC and 6.3.10 LZ78Y: what followed each context


class _Context:
    """What followed one context seen more than once: a count per value, and the value
    followed most often (ties: the largest value), kept as counts change. A context seen once
    is kept as the bare value that followed it (most contexts of a long input are seen once)."""

    __slots__ = ("best", "count", "follow")

    def __init__(self, first: int) -> None:
        self.follow = {first: 1}
        self.best, self.count = first, 1

    def add(self, value: int, new: bool = True) -> bool:
        """Count ``value`` once more (a value not yet here only if ``new``); whether it was
        new here."""
        count = self.follow.get(value, 0)
        if not count and not new:
            return False
        count = self.follow[value] = count + 1
        if count > self.count or (count == self.count and value > self.best):
            self.best, self.count = value, count
        return count == 1


_Seen = dict[int, "_Context | int"]  # context -> what followed it (a bare value: seen once)


def _count(model: _Seen, key: int, entry: _Context | int, value: int, new: bool = True) -> bool:
    """Count ``value`` after the context ``key`` (already in ``model`` as ``entry``); whether
    the (context, value) pair was new."""
    if isinstance(entry, _Context):
        return entry.add(value, new)
    if value != entry and not new:
        return False
    context = model[key] = _Context(entry)
    return context.add(value)


def _packer(samples: Sequence[int], depth: int) -> tuple[int, list[int]]:
    """Contexts of up to ``depth`` samples as one integer each (the latest sample lowest):
    the bits per sample and, per length ``d + 1``, the mask that keeps that many."""
    if min(samples) < 0:
        raise ValueError(f"samples must not be negative, got {min(samples)}")
    width = max(1, max(samples).bit_length())
    return width, [(1 << (width * (d + 1))) - 1 for d in range(depth)]


def _mmc_general(samples: Sequence[int], field: int) -> tuple[list[int], list[int]]:
    """MultiMMC's hits and guesses (member ``d``: the order ``d + 1`` model) for samples 3 to
    L, on any alphabet. Each model holds at most 100,000 (context, value) entries: a new pair
    beyond that is not counted."""
    width, masks = _packer(samples, _MMC_DEPTH)
    models: list[_Seen] = [{} for _ in range(_MMC_DEPTH)]
    entries = [0] * _MMC_DEPTH
    hits: list[int] = []
    guessed: list[int] = []
    history = 0
    for i in range(1, len(samples)):
        history = ((history << width) | samples[i - 1]) & masks[-1]
        s = samples[i]
        hit = made = 0
        for d in range(min(_MMC_DEPTH, i)):
            model, key = models[d], history & masks[d]
            entry = model.get(key)
            if entry is None:
                if entries[d] < _MMC_MAX_ENTRIES:
                    model[key] = s
                    entries[d] += 1
                continue
            member = 1 << (d * field)
            made |= member
            if (entry.best if isinstance(entry, _Context) else entry) == s:
                hit |= member
            if _count(model, key, entry, s, entries[d] < _MMC_MAX_ENTRIES):
                entries[d] += 1
        if i >= 2:
            hits.append(hit)
            guessed.append(made)
    return hits, guessed


def _lz78y_general(samples: Sequence[int]) -> Predictions:
    """LZ78Y's record on any alphabet: the dictionary holds contexts of 1 to 16 samples (at
    most 65,536) and what followed each; the guess is what followed most often the context
    (of the last 1 to 16 samples) with the highest such count (ties: the longer context)."""
    b = _LZ_DEPTH
    width, masks = _packer(samples, b)
    dictionary: list[_Seen] = [{} for _ in range(b)]
    size = correct = run = longest = 0
    history = 0
    for s in samples[:b]:
        history = (history << width) | s
    for i in range(b, len(samples)):
        s = samples[i]
        guess, top = -1, 0
        for j in range(b - 1, -1, -1):
            known, key = dictionary[j], history & masks[j]
            entry = known.get(key)
            if entry is None:
                if size < _LZ_MAX_DICTIONARY:
                    known[key] = s
                    size += 1
                continue
            best, count = (entry.best, entry.count) if isinstance(entry, _Context) else (entry, 1)
            if count > top:
                guess, top = best, count
            _count(known, key, entry, s)
        if i > b:
            if top and guess == s:
                correct += 1
                run += 1
                longest = max(longest, run)
            else:
                run = 0
        history = ((history << width) | s) & masks[-1]
    return Predictions(correct, len(samples) - b - 1, longest)


def _lz78y_fits(n: int) -> bool:
    """Whether ``n`` bits cannot fill LZ78Y's dictionary (fewer distinct contexts of 1 to 16
    bits than its 65,536 entries), which the bit path below relies on."""
    return sum(min(1 << d, n) for d in range(1, _LZ_DEPTH + 1)) <= _LZ_MAX_DICTIONARY


def _contexts_of_bits(bits: Sequence[int], field: int, lz: bool) -> tuple[list[int], list[int], Predictions | None]:
    """MultiMMC's hits and guesses (as :func:`_mmc_general`) and, with ``lz``, LZ78Y's
    record, for bits, in one pass (for at most 100,000 bits, where no model is full; with
    ``lz``, for few enough that LZ78Y's dictionary is never full, :func:`_lz78y_fits`).
    Then a context unseen at one order is unseen at every higher order, so the orders that
    guess are the first few.

    A context of ``d + 1`` bits is an index into a list per order, whose entry packs both
    counts: zeros low, ones above ``shift``. A context unseen at one order is unseen at every
    higher order, so those are written without being read. LZ78Y counts the same (context,
    bit) pairs but only from bit 16 on: ``early`` holds the pairs before it, subtracted. Its
    counts fall as the context grows, so the guess (the longest context with the highest
    count) is found by going up from one bit until the count drops.
    """
    n = len(bits)
    shift = n.bit_length() + 1
    low = (1 << shift) - 1
    step_for = (1, 1 << shift)  # adding a 0, adding a 1
    tables = [[0] * (2 << d) for d in range(_MMC_DEPTH)]
    masks = [(2 << d) - 1 for d in range(_MMC_DEPTH)]
    early: list[dict[int, int]] = [{} for _ in range(_MMC_DEPTH)]
    first = [sum(1 << (d * field) for d in range(k)) for k in range(_MMC_DEPTH + 1)]  # the first k orders
    hits: list[int] = []
    guessed: list[int] = []
    history = 0
    start = min(n, _LZ_DEPTH + 1)
    for i in range(1, start):  # the first steps: every model still filling up
        history = (history << 1) | bits[i - 1]
        y, hit, seen = bits[i], 0, 0
        for d in range(i):
            table, key = tables[d], history & masks[d]
            packed = table[key]
            if seen == d and packed:
                seen = d + 1
                if (packed >> shift >= packed & low) == y:
                    hit |= 1 << (d * field)
            table[key] = packed + step_for[y]
            if i < _LZ_DEPTH:
                early[d][key] = early[d].get(key, 0) + step_for[y]
        if i >= 2:
            hits.append(hit)
            guessed.append(first[seen])
    orders = [(tables[d], masks[d], 1 << (d * field), early[d]) for d in range(_MMC_DEPTH)]
    unseen = [[(tables[d], masks[d]) for d in range(first, _MMC_DEPTH)] for first in range(_MMC_DEPTH + 1)]
    full = (1 << _MMC_DEPTH) - 1
    correct = run = longest = 0
    for i in range(start, n):
        history = ((history << 1) | bits[i - 1]) & full
        y = bits[i]
        step = step_for[y]
        hit = 0
        best, guess, looking = 0, -1, lz
        seen = _MMC_DEPTH
        for d, (table, mask, member, before) in enumerate(orders):
            key = history & mask
            packed = table[key]
            if not packed:
                seen = d
                break
            if (packed >> shift >= packed & low) == y:
                hit |= member
            if looking:  # LZ78Y: this context's counts from bit 16 on
                counts = packed - before.get(key, 0) if before else packed
                zeros, ones = counts & low, counts >> shift
                if ones >= zeros:
                    if ones and ones >= best:
                        best, guess = ones, 1
                    else:
                        looking = False
                elif zeros >= best:
                    best, guess = zeros, 0
                else:
                    looking = False
            table[key] = packed + step
        for table, mask in unseen[seen]:
            table[history & mask] = step
        hits.append(hit)
        guessed.append(first[seen])
        if best and guess == y:
            correct += 1
            run += 1
            if run > longest:
                longest = run
        else:
            run = 0
    record = Predictions(correct, n - _LZ_DEPTH - 1, longest) if lz else None
    return hits, guessed, record


def _mmc_and_lz78y(samples: Sequence[int], want_lz: bool) -> tuple[Predictions, Predictions | None]:
    """MultiMMC's record and (``want_lz``) LZ78Y's, by the bit pass where it applies."""
    n = len(samples) - 2
    field = _field(n)
    lz_record: Predictions | None = None
    if _is_bits(samples) and len(samples) <= _MMC_MAX_ENTRIES:
        lz_inside = want_lz and len(samples) > _LZ_DEPTH + 2 and _lz78y_fits(len(samples))
        hits, guessed, lz_record = _contexts_of_bits(samples, field, lz_inside)
    else:
        hits, guessed = _mmc_general(samples, field)
    if want_lz and lz_record is None:
        lz_record = _lz78y_general(samples)
    correct, longest = _lead(hits, _MMC_DEPTH, n, guessed)
    return Predictions(correct, n, longest), lz_record


def multi_mmc_predictions(samples: Sequence[int]) -> Predictions:
    """6.3.9's record: the winning order's guesses of samples 3 to L."""
    return _mmc_and_lz78y(samples, want_lz=False)[0]


def lz78y_predictions(samples: Sequence[int]) -> Predictions:
    """6.3.10's record: guesses of samples B + 2 to L."""
    if _is_bits(samples) and len(samples) <= _MMC_MAX_ENTRIES and _lz78y_fits(len(samples)):
        record = _mmc_and_lz78y(samples, want_lz=True)[1]
        if record is not None:
            return record
    return _lz78y_general(samples)


def multi_mmc(samples: Sequence[int], alphabet: int | None = None) -> float | None:
    """6.3.9 MultiMMC estimate in bits per sample; None with 3 samples or fewer."""
    if len(samples) < 4:
        return None
    return prediction_estimate(multi_mmc_predictions(samples), _alphabet(samples, alphabet))


def lz78y(samples: Sequence[int], alphabet: int | None = None) -> float | None:
    """6.3.10 LZ78Y estimate in bits per sample; None with 18 samples or fewer."""
    if len(samples) - _LZ_DEPTH - 1 < 2:
        return None
    return prediction_estimate(lz78y_predictions(samples), _alphabet(samples, alphabet))


def mmc_and_lz78y(samples: Sequence[int], alphabet: int | None = None) -> tuple[float | None, float | None]:
    """Both 6.3.9 and 6.3.10 estimates; for bits in one pass over the contexts (they count
    the same pairs), which is how :func:`engine.estimators.assess` calls them."""
    if len(samples) < 4:
        return None, None
    k = _alphabet(samples, alphabet)
    with_lz = len(samples) - _LZ_DEPTH - 1 >= 2
    mmc_record, lz_record = _mmc_and_lz78y(samples, want_lz=with_lz)
    return (prediction_estimate(mmc_record, k),
            prediction_estimate(lz_record, k) if lz_record is not None else None)


# --- shared


def _alphabet(samples: Sequence[int], alphabet: int | None) -> int:
    """``k``: as NIST's tool, the number of distinct values seen, unless given."""
    if alphabet is None:
        return len(set(samples))
    if alphabet < 1:
        raise ValueError(f"the alphabet must hold at least one symbol, got {alphabet}")
    return alphabet


def _is_bits(samples: Sequence[int]) -> bool:
    """Whether every sample is 0 or 1 (the fast paths' alphabet)."""
    return all(s == 0 or s == 1 for s in samples)
