"""Exact fingers odds.

A test is ``k`` winners of ``n`` uniformly chosen, so any fixed guess wins with k/n. A chain
stops at its first failure: P(success) is the product, and the karma left depends only on
where it stopped. A long-term challenge retries a failed test until passed (or until
``max_tests``); it is a Markov chain over "tests passed so far" and the karma held (karma put
on a challenge is spent on each of its tests while it lasts), stepped with whole-number
weights over a common denominator.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from engine.results import Distribution, Odds
from engine.systems.fingers.rules import MAX_KARMA, Link, karma_after_test, links

#: Unlimited long-term challenges are followed until the unfinished mass is below this.
_TAIL = 10**15


def _chain(params: Mapping[str, Any], chain: Sequence[Link]) -> Odds:
    karma = params["karma"]
    den = math.prod(link.choices for link in chain)
    karma_counts: dict[int, int] = {}
    reach = 1  # ways to have passed every test so far, over the product of their choices
    rest = den
    spent = 0
    for link in chain:
        rest //= link.choices
        spent += link.spend
        failed = reach * (link.choices - link.winning) * rest
        if failed:
            after = karma_after_test(karma - spent + link.spend, link.spend, False)
            karma_counts[after] = karma_counts.get(after, 0) + failed
        reach *= link.winning
    if reach:
        karma_counts[karma - spent] = karma_counts.get(karma - spent, 0) + reach
    return Odds(
        system="fingers",
        params=params,
        success=Fraction(reach, den),
        outcomes=Distribution(("success", "failure"), (reach, den - reach), den),
        extra={"karma_after": _dist(karma_counts, den)},
    )


def _dist(counts: Mapping[int, int], den: int) -> Distribution:
    """Karma held after, by amount: counts of the same ``den`` equally likely cases."""
    held = sorted(counts)
    return Distribution([str(k) for k in held], [counts[k] for k in held], den)


def _long_term(params: Mapping[str, Any], chain: Sequence[Link]) -> Odds:
    """Markov chain over (tests passed, karma held); weights are numerators over ``base ** t``.

    Karma put on a challenge is spent on each of its tests while it lasts
    (:meth:`Link.spending`), so the chance of a test depends on the karma held as well.
    """
    karma, limit = params["karma"], params["max_tests"]
    size = len(chain)
    base = math.lcm(*(link.choices for link in chain))
    if not limit and any(link.winning == 0 for link in chain):
        raise ValueError("an unlimited long-term challenge with a 0-winner test never ends")
    # For each (link, karma held): (weight of a pass, karma after a pass, after a failure).
    moves = [[_move(link.spending(c), c, base) for c in range(MAX_KARMA + 1)] for link in chain]
    state: dict[tuple[int, int], int] = {(0, karma): 1}
    den = 1
    finished: list[tuple[int, dict[int, int], int]] = []  # (tests, karma -> numerator, den)
    t = 0
    unfinished = 1
    while (limit and t < limit) or (not limit and unfinished * _TAIL >= den):
        t += 1
        den *= base
        step: dict[tuple[int, int], int] = {}
        done: dict[int, int] = {}
        for (i, c), weight in state.items():
            win, won_karma, lost_karma = moves[i][c]
            if win:
                if i == size - 1:
                    done[won_karma] = done.get(won_karma, 0) + weight * win
                else:
                    key = (i + 1, won_karma)
                    step[key] = step.get(key, 0) + weight * win
            if win < base:
                key = (i, lost_karma)
                step[key] = step.get(key, 0) + weight * (base - win)
        state = step
        if done:
            finished.append((t, done, den))
        unfinished = unfinished * base - sum(done.values())
    # Whole numbers over the final ``den`` until the end: one Fraction per reported value.
    tests: dict[str, Fraction] = {}
    karma_num: dict[int, int] = {}
    passed = 0
    for n, done, d in finished:
        tests[str(n)] = Fraction(sum(done.values()), d)
        for after, num in done.items():
            scaled = num * (den // d)
            passed += scaled
            karma_num[after] = karma_num.get(after, 0) + scaled
    if limit:
        # Time ran out: the karma held then is the karma after.
        for (_, c), weight in state.items():
            karma_num[c] = karma_num.get(c, 0) + weight
        success = Fraction(passed, den)
        truncated = Fraction(0)
        if unfinished:  # out of time: all ``limit`` tests were made
            tests[str(limit)] = tests.get(str(limit), Fraction(0)) + Fraction(unfinished, den)
    else:
        success = Fraction(1)  # "Success is guaranteed given enough time"
        truncated = Fraction(unfinished, den)
    karma_after = _dist(karma_num, den)
    return Odds(
        system="fingers",
        params=params,
        success=success,
        outcomes={"success": success, "failure": 1 - success},
        extra={
            "karma_after": karma_after,
            "tests": tests,
        },
        truncated=truncated,
    )


def _move(link: Link, karma: int, base: int) -> tuple[int, int, int]:
    """One test of ``link`` (already at the karma spent) by a player holding ``karma``: the
    weight of a pass over ``base``, and the karma after a pass and after a failure."""
    return (link.winning * (base // link.choices),
            karma_after_test(karma, link.spend, True),
            karma_after_test(karma, link.spend, False))


def odds(params: Mapping[str, Any]) -> Odds:
    chain = links(params)
    if params["long_term"]:
        return _long_term(params, chain)
    return _chain(params, chain)
