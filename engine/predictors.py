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
``ea_non_iid``) to 1e-5 on the files in tests/engine/data/sp800-90b/. Where the two differ the
tool is followed and said so: its 99 % quantile (2.5758293..., which the standard rounds to
2.576) and, in MultiMMC, a guess that the winner cannot make (a context never seen) neither
counts nor ends the run of right guesses (it only lengthens a run, so it can only lower the
estimate). One departure the other way round is not taken: the tool skips MultiMCW below 4,096
samples, the standard does not, so neither does this (it can only lower the minimum).

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
    "multi_mcw",
    "multi_mmc",
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


def prediction_estimate(record: Predictions, alphabet: int) -> float:
    """Bits per sample from a predictor's record: ``-log2 max(P_global', P_local, 1/k)``."""
    correct, n, longest = record
    if n < 2:
        raise ValueError(f"a prediction estimate needs at least 2 guesses, got {n}")
    if alphabet < 1:
        raise ValueError(f"the alphabet must hold at least one symbol, got {alphabet}")
    p_global = correct / n
    if correct:
        bound = min(1.0, p_global + Z_ALPHA * math.sqrt(p_global * (1.0 - p_global) / (n - 1)))
    else:
        bound = 1.0 - 0.01 ** (1.0 / n)
    p = max(1.0 / alphabet, bound)
    r = longest + 1
    if p < 1.0 and _log_no_run(p, r, n) > _LOG_ALPHA:
        p = max(p, _p_local(r, n, p))
    return max(0.0, -math.log2(p))


# --- following the leader: which member's guess counts


def _lead(hits: Iterable[int], guessed: Iterable[int] | None = None) -> tuple[int, int]:
    """Right guesses and the longest run of them when each step's guess is the current
    winner's. ``hits``: per step, a bit mask of the members that guessed right (bit ``j``:
    member ``j``). Each right member scores a point, in member order; one whose score reaches
    the winner's becomes the winner (the standard's ``>=``). ``guessed``: the members that made
    a guess at all, where a member can have none (MultiMMC): the winner's missing guess leaves
    the run alone."""
    scores: dict[int, int] = {}
    winner, high, correct, run, longest = 0, 0, 0, 0, 0
    made = iter(guessed) if guessed is not None else None
    for mask in hits:
        guesses = next(made) if made is not None else -1
        if mask >> winner & 1:
            correct += 1
            run += 1
            if run > longest:
                longest = run
        elif guesses >> winner & 1:
            run = 0
        while mask:
            low = mask & -mask
            j = low.bit_length() - 1
            mask ^= low
            s = scores.get(j, 0) + 1
            scores[j] = s
            if s >= high:
                winner, high = j, s
    return correct, longest


# --- 6.3.7 MultiMCW


def _mcw_literal_hits(samples: Sequence[int]) -> Iterator[int]:
    """Per guess from sample 63 on: which windows' most common value (ties: the most recently
    seen) is the sample."""
    windows = [w for w in _WINDOWS if w < len(samples)]
    counts: list[dict[int, int]] = [{} for _ in windows]
    frequent: list[int] = [0] * len(windows)
    best: list[int] = [0] * len(windows)
    last_seen: dict[int, int] = {}
    for i, s in enumerate(samples):
        mask = 0
        for j, w in enumerate(windows):
            if i >= w and frequent[j] == s:
                mask |= 1 << j
        if i >= _WINDOWS[0]:
            yield mask
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
            else:  # the most common value left the window: look again
                best[j] = max(c.values())
                frequent[j] = max((v for v, n in c.items() if n == best[j]), key=last_seen.__getitem__)


def _mcw_bit_hits(bits: Sequence[int]) -> list[int]:
    """As :func:`_mcw_literal_hits` for bits: the windows are odd, so a window's majority has
    no tie, and its count of ones is a difference of prefix sums."""
    n = len(bits)
    ones = [0, *accumulate(bits)]
    masks = [0] * (n - _WINDOWS[0])
    for j, w in enumerate(_WINDOWS):
        bit = 1 << j
        for i in range(w, n):
            if (2 * (ones[i] - ones[i - w]) > w) == bits[i]:
                masks[i - _WINDOWS[0]] |= bit
    return masks


def multi_mcw_predictions(samples: Sequence[int], binary: bool = False) -> Predictions:
    """6.3.7's record: the winning window's guesses of samples 64 to L."""
    n = len(samples) - _WINDOWS[0]
    hits = _mcw_bit_hits(samples) if binary else _mcw_literal_hits(samples)
    correct, longest = _lead(hits)
    return Predictions(correct, n, longest)


def multi_mcw(samples: Sequence[int], alphabet: int | None = None) -> float | None:
    """6.3.7 MultiMCW estimate in bits per sample; None with 64 samples or fewer."""
    if len(samples) - _WINDOWS[0] < 2:
        return None
    k = _alphabet(samples, alphabet)
    return prediction_estimate(multi_mcw_predictions(samples, binary=k == 2 and _is_bits(samples)), k)


# --- 6.3.8 Lag


def _lag_literal_hits(samples: Sequence[int]) -> Iterator[int]:
    """Per guess from sample 2 on: which lags ``d`` (bit ``d - 1``) had the sample ``d`` back."""
    previous: dict[int, int] = {}
    chain = [-1] * len(samples)  # the last earlier index holding the same value
    for i, s in enumerate(samples):
        j = previous.get(s, -1)
        chain[i] = j
        previous[s] = i
        if i == 0:
            continue
        mask = 0
        while j >= 0 and i - j <= _LAGS:
            mask |= 1 << (i - j - 1)
            j = chain[j]
        yield mask


def lag_predictions(samples: Sequence[int]) -> Predictions:
    """6.3.8's record: the winning lag's guesses of samples 2 to L."""
    correct, longest = _lead(_lag_literal_hits(samples))
    return Predictions(correct, len(samples) - 1, longest)


def lag(samples: Sequence[int], alphabet: int | None = None) -> float | None:
    """6.3.8 Lag estimate in bits per sample; None with 2 samples or fewer."""
    if len(samples) < 3:
        return None
    return prediction_estimate(lag_predictions(samples), _alphabet(samples, alphabet))


# --- 6.3.9 MultiMMC


def _mmc_literal_hits(samples: Sequence[int]) -> tuple[list[int], list[int]]:
    """Per guess from sample 3 on: which orders ``d`` (bit ``d - 1``) guessed right, and which
    guessed at all. Order ``d`` counts what followed each ``d``-sample context and guesses the
    most frequent (ties: the largest value); a context never seen gives no guess."""
    models: list[dict[tuple[int, ...], dict[int, int]]] = [{} for _ in range(_MMC_DEPTH)]
    best: list[dict[tuple[int, ...], tuple[int, int]]] = [{} for _ in range(_MMC_DEPTH)]
    entries = [0] * _MMC_DEPTH
    hits: list[int] = []
    guessed: list[int] = []
    for i in range(1, len(samples)):
        s = samples[i]
        hit = made = 0
        found = True  # a context unseen at order d is unseen at every higher order
        for d in range(min(_MMC_DEPTH, i)):
            context = tuple(samples[i - d - 1 : i])
            follow = models[d].get(context) if found else None
            found = follow is not None
            if follow is not None:
                if i >= 2:
                    made |= 1 << d
                    if best[d][context][1] == s:
                        hit |= 1 << d
                if s in follow:
                    follow[s] += 1
                elif entries[d] < _MMC_MAX_ENTRIES:
                    follow[s] = 1
                    entries[d] += 1
                else:
                    continue
            elif entries[d] < _MMC_MAX_ENTRIES:
                follow = models[d].setdefault(context, {})
                follow[s] = follow.get(s, 0) + 1
                entries[d] += 1
            else:
                continue
            count, guess = best[d].get(context, (0, -1))
            if follow[s] > count or (follow[s] == count and s > guess):
                best[d][context] = (follow[s], s)
        if i >= 2:
            hits.append(hit)
            guessed.append(made)
    return hits, guessed


def multi_mmc_predictions(samples: Sequence[int]) -> Predictions:
    """6.3.9's record: the winning order's guesses of samples 3 to L."""
    hits, guessed = _mmc_literal_hits(samples)
    correct, longest = _lead(hits, guessed)
    return Predictions(correct, len(samples) - 2, longest)


def multi_mmc(samples: Sequence[int], alphabet: int | None = None) -> float | None:
    """6.3.9 MultiMMC estimate in bits per sample; None with 3 samples or fewer."""
    if len(samples) < 4:
        return None
    return prediction_estimate(multi_mmc_predictions(samples), _alphabet(samples, alphabet))


# --- 6.3.10 LZ78Y


def lz78y_predictions(samples: Sequence[int]) -> Predictions:
    """6.3.10's record: guesses of samples B + 2 to L. The dictionary holds contexts of length
    1 to 16 (at most 65,536 of them) and what followed each; the guess is what followed most
    often the context (of the last 1 to 16 samples) with the highest such count (ties: the
    longer context; within one, the largest value)."""
    b = _LZ_DEPTH
    follows: dict[tuple[int, ...], dict[int, int]] = {}
    best: dict[tuple[int, ...], tuple[int, int]] = {}
    size = correct = run = longest = 0
    for i in range(b, len(samples)):
        s = samples[i]
        guess, top = -1, 0
        for j in range(b, 0, -1):
            context = tuple(samples[i - j : i])
            follow = follows.get(context)
            if follow is None:
                if size >= _LZ_MAX_DICTIONARY:
                    continue
                follow = follows[context] = {}
                size += 1
            elif i > b:
                count, y = best[context]
                if count > top:
                    guess, top = y, count
            follow[s] = follow.get(s, 0) + 1
            count, y = best.get(context, (0, -1))
            if follow[s] > count or (follow[s] == count and s > y):
                best[context] = (follow[s], s)
        if i > b:
            if top and guess == s:
                correct += 1
                run += 1
                longest = max(longest, run)
            else:
                run = 0
    return Predictions(correct, len(samples) - b - 1, longest)


def lz78y(samples: Sequence[int], alphabet: int | None = None) -> float | None:
    """6.3.10 LZ78Y estimate in bits per sample; None with 18 samples or fewer."""
    if len(samples) - _LZ_DEPTH - 1 < 2:
        return None
    return prediction_estimate(lz78y_predictions(samples), _alphabet(samples, alphabet))


# --- shared


def _alphabet(samples: Sequence[int], alphabet: int | None) -> int:
    """``k``: as NIST's tool, the number of distinct values seen, unless given."""
    if alphabet is None:
        return len(set(samples))
    if alphabet < 1:
        raise ValueError(f"the alphabet must hold at least one symbol, got {alphabet}")
    return alphabet


def _is_bits(samples: Sequence[int]) -> bool:
    return all(s in (0, 1) for s in samples)
