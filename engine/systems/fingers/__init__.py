"""fingers: the hand micro-system. The GM hides k winning fingers of n (2..5); the player
guesses one. Karma 0..5 is earned by failing and spent to add winners; an ailment adds a
choice; challenges can be chained, or repeated until passed (long-term).

The tower plays the GM's hand: it picks the k winners uniformly among all k-subsets, or takes
them from ``--winners-set``. There are no dice: ``dice`` holds the winning fingers of every
test played, in order, which is exactly what ``--winners-set`` takes to replay the roll.
Rules decisions: docs/rules/fingers.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.dice import DiceSource, FacesDice, sample_subset
from engine.errors import FacesError, ParameterError
from engine.params import Param
from engine.results import RollResult
from engine.systems import SystemSpec
from engine.systems.fingers.odds import odds
from engine.systems.fingers.panel import PANEL
from engine.systems.fingers.rules import (
    FINGER_NAMES,
    MAX_CHAIN,
    MAX_CHOICES,
    MAX_KARMA,
    MIN_CHOICES,
    Link,
    challenge_text,
    karma_after_test,
    links,
    parse_finger,
)

#: Its place in MODE's order and every listing (SystemSpec.order), read without importing it.
ORDER = 50

MAX_TESTS = 100

PARAMS: tuple[Param, ...] = (
    Param("choices", "int", "fingers to choose from", default=5, lo=MIN_CHOICES, hi=MAX_CHOICES),
    Param("winners", "int", "winning fingers (0: no chance without karma)", default=2, lo=0,
          hi=MAX_CHOICES),
    Param("karma", "int", "the player's karma before the test", default=0, lo=0, hi=MAX_KARMA),
    Param("spend", "int", "karma spent on the test: one more winner each", default=0, lo=0,
          hi=MAX_KARMA),
    Param("multi_spend", "bool", "allow spending more than 1 karma on a test", default=False),
    Param("ailment", "bool", "status ailment: one more choice (at most 5)", default=False),
    Param("long_term", "bool", "retry a failed test until passed (each test takes time)",
          default=False),
    Param("max_tests", "int", "long-term: tests the time allows (0: no limit)", default=0,
          lo=0, hi=MAX_TESTS),
    Param("guess", "list", "the finger the player picks, 1 thumb .. 5 pinky (one per test of "
          "a chain; the last is repeated)", default=(), item=parse_finger,
          item_help="fingers 1..5", max_items=MAX_TESTS, panel=False),
    Param("winners_set", "list", "fix the hidden winning fingers instead of drawing them "
          "(each test's in turn)", default=(), item=parse_finger, item_help="fingers 1..5",
          max_items=MAX_CHOICES * MAX_TESTS, panel=False, entered=True),
    Param("chain", "list", "challenges that must all succeed, e.g. 1/5,1/3 (1/5+1 spends one "
          "karma on that test); replaces --winners/--choices", default=(),
          item=challenge_text, item_help="challenges like 1/5 or 1/5+1", max_items=MAX_CHAIN,
          panel=False),
)


def check(params: dict[str, Any], given: frozenset[str] = frozenset()) -> None:
    """Cross-parameter rules: winners within choices, karma that exists and may be spent
    here, guesses and a fixed hand that fit the tests (a chain's hands are checked as played)."""
    karma, chain = params["karma"], params["chain"]
    if not chain and params["winners"] > params["choices"]:
        raise ParameterError("winners", f"at most --choices ({params['choices']}) winners, "
                                        f"got {params['winners']}")
    if chain and params["spend"]:
        raise ParameterError("spend", f"with --chain put the karma on each test, e.g. 1/5+1,1/3;"
                                      f" allowed 0 here, got {params['spend']}")
    where = "chain" if chain else "spend"
    played = links(params)
    spends = [link.spend for link in played]
    if not params["multi_spend"] and max(spends) > 1:
        raise ParameterError(where, f"at most 1 karma per test (allow more with --multi-spend), "
                                    f"got {max(spends)}")
    # A chain makes each test once; a long-term challenge spends on every test while the
    # karma lasts, so only its first test must be covered by the karma held.
    needed = spends[0] if params["long_term"] else sum(spends)
    if needed > karma:
        raise ParameterError(where, f"cannot spend {needed} karma with --karma {karma}")
    for link in played:
        # "spend 1 of his or her karma points to add one additional success": past every
        # finger there is no success left to add, and a device should not burn karma for nothing.
        waste = link.challenge.winners + link.spend - link.choices
        if link.spend and waste > 0:
            useful = link.spend - waste
            raise ParameterError(where, f"{link.challenge.winners} of {link.choices} is certain with {useful} "
                                        f"karma; spending {link.spend} would waste {waste}; allowed 0..{useful}")
    if params["long_term"]:
        if not params["max_tests"] and any(link.winning == 0 for link in played):
            raise ParameterError("chain" if chain else "winners",
                                 "a long-term challenge with a 0-winner test never ends; give "
                                 "it a winner or a --max-tests limit")
    elif params["max_tests"]:
        raise ParameterError("max-tests", f"only a --long-term challenge has a time limit; "
                                          f"allowed 0, got {params['max_tests']}")
    _check_guesses(params["guess"], played, params["long_term"], params["max_tests"])
    fixed = params["winners_set"]
    if fixed and len(played) == 1 and not params["long_term"]:
        _check_hand(fixed, played[0])


def _check_guesses(guesses: Sequence[int], played: Sequence[Link], long_term: bool,
                   max_tests: int) -> None:
    if not guesses:
        return
    if not long_term and len(guesses) > len(played):
        raise ParameterError("guess", f"one guess per test: at most {len(played)}, got "
                                      f"{len(guesses)}")
    if long_term:
        _check_long_term_guesses(guesses, played, max_tests)
        return
    for link in played:
        _guess_for(guesses, link.number - 1, link)


def _check_long_term_guesses(guesses: Sequence[int], played: Sequence[Link],
                             max_tests: int) -> None:
    """Tests retry, so which challenge a guess meets depends on the hands: the guess for test
    *t* (from 0) may meet any of the first *t* + 1 challenges, the last guess (repeated) any of them.
    Each must fit every challenge it may meet, so a bad guess is refused before the roll
    rather than only when the hands happen to reach a narrower challenge."""
    if max_tests and len(guesses) > max_tests:
        raise ParameterError("guess", f"one guess per test: at most --max-tests ({max_tests}),"
                                      f" got {len(guesses)}")
    last = len(guesses) - 1
    for index, guess in enumerate(guesses):
        reach = played if index == last else played[:index + 1]
        narrowest = min(reach, key=lambda link: link.choices)
        if guess > narrowest.choices:
            which = "the last guess (used for every later test)" if index == last else \
                f"the guess for test {index + 1}"
            raise ParameterError("guess", f"a long-term challenge retries, so {which} may meet "
                                          f"challenge {narrowest.number}, a {narrowest}: a "
                                          f"finger 1..{narrowest.choices}, got {guess}")


def _guess_for(guesses: Sequence[int], index: int, link: Link) -> int:
    guess = guesses[min(index, len(guesses) - 1)]
    if guess > link.choices:
        raise ParameterError("guess", f"test {link.number} is a {link}: a finger 1..{link.choices},"
                                      f" got {guess}")
    return guess


def _check_hand(fingers: Sequence[int], link: Link) -> None:
    """The one test's hand: exactly its winning fingers, all different, within its choices."""
    if len(fingers) != link.winning:
        raise ParameterError("winners-set", f"the test is a {link}: give exactly "
                                            f"{link.winning} fingers, got {len(fingers)}")
    _valid_hand(fingers, link)


def _valid_hand(chunk: Sequence[int], link: Link) -> None:
    if len(set(chunk)) != len(chunk) or any(f > link.choices for f in chunk):
        want = "1 finger" if link.winning == 1 else f"{link.winning} different fingers"
        raise ParameterError("winners-set", f"test {link.number} is a {link}: {want} "
                                            f"from 1 to {link.choices}, "
                                            f"got {','.join(map(str, chunk))}")


class _Hands:
    """Hands for the tests as they are played: from ``--winners-set`` in order, or drawn."""

    def __init__(self, dice: DiceSource, fixed: Sequence[int]) -> None:
        self._dice = dice
        self._fixed = tuple(fixed)
        self._used = 0

    def take(self, link: Link) -> tuple[int, ...]:
        if not self._fixed:
            if link.automatic:  # nothing to hide: every finger or none wins
                return tuple(range(1, link.winning + 1))
            return tuple(sorted(sample_subset(self._dice, link.choices, link.winning)))
        chunk = self._fixed[self._used:self._used + link.winning]
        if len(chunk) < link.winning:
            raise ParameterError("winners-set", f"too few fingers: test {link.number} ({link}) "
                                                f"needs {link.winning}, {len(chunk)} left")
        _valid_hand(chunk, link)
        self._used += link.winning
        return tuple(sorted(chunk))

    def finish(self) -> None:
        if self._used < len(self._fixed):
            raise ParameterError("winners-set", f"too many fingers: {len(self._fixed)} given, "
                                                f"the tests played used {self._used}")


@dataclass(frozen=True)
class FingerTest:
    """One test as played: ``winning`` of ``choices`` (after ailment and karma), the hidden
    ``winners``, the ``guess`` and the karma after it."""

    number: int
    challenge: str
    choices: int
    winning: int
    spent: int
    winners: tuple[int, ...]
    guess: int
    success: bool
    automatic: bool
    karma_after: int


@dataclass(frozen=True)
class FingersResult(RollResult):
    """``winners``, ``guess`` and ``automatic`` are the last test's; ``tests`` lists every
    test played; ``total`` is always None."""

    winners: tuple[int, ...]
    guess: int
    karma_after: int
    automatic: bool
    tests: tuple[FingerTest, ...]


def _play(dice: DiceSource, params: Mapping[str, Any]) -> Iterator[FingerTest]:
    """Tests in order: a chain stops at its first failure, a long-term challenge retries."""
    chain = links(params)
    guesses, hands = params["guess"], _Hands(dice, params["winners_set"])
    karma, limit = params["karma"], params["max_tests"]
    passed = made = 0
    while passed < len(chain) and (not limit or made < limit):
        link = chain[passed].spending(karma) if params["long_term"] else chain[passed]
        guess = _guess_for(guesses, made, link)
        hand = hands.take(link)
        won = guess in hand
        karma = karma_after_test(karma, link.spend, won)
        made += 1
        yield FingerTest(made, str(link.challenge), link.choices, link.winning, link.spend,
                         hand, guess, won, link.automatic, karma)
        if won:
            passed += 1
        elif not params["long_term"]:
            break
    hands.finish()


def roll(dice: DiceSource, params: Mapping[str, Any]) -> FingersResult:
    if isinstance(dice, FacesDice):
        raise FacesError("fingers has no dice; fix the hidden fingers with --winners-set, "
                         "e.g. --winners-set 1,3")
    if not params["guess"]:
        raise ParameterError("guess", "required for a roll: the finger the player picks, "
                                      "1 (thumb) .. 5 (pinky)")
    tests = tuple(_play(dice, params))
    last = tests[-1]
    success = last.success and sum(t.success for t in tests) == len(links(params))
    return FingersResult(
        system="fingers",
        params=params,
        dice=tuple(f for t in tests for f in t.winners),
        total=None,
        outcome="success" if success else "failure",
        success=success,
        winners=last.winners,
        guess=last.guess,
        karma_after=last.karma_after,
        automatic=last.automatic,
        tests=tests,
    )


def _names(fingers: Sequence[int]) -> str:
    return ", ".join(f"{FINGER_NAMES[f]} ({f})" for f in fingers) or "none"


def describe(result: RollResult) -> list[str]:
    if not isinstance(result, FingersResult):
        raise TypeError(f"expected a fingers result, got {type(result).__name__}")
    last, p = result.tests[-1], result.params
    karma = f"karma {p['karma']} -> {result.karma_after}"
    lines = []
    setting = f"{last.winning} of {last.choices}"
    if last.challenge != setting.replace(" of ", "/"):
        setting += f" (set {last.challenge}{', ailment' if p['ailment'] else ''})"
    if len(result.tests) > 1 or p["chain"]:
        passed = sum(t.success for t in result.tests)
        kind = "long-term" if p["long_term"] else "chain"
        made = len(result.tests)
        lines.append(f"{kind}: {passed} of {len(links(p))} passed in {made} "
                     f"test{'' if made == 1 else 's'}; last {setting}")
    else:
        lines.append(setting)
    lines.append(f"winners: {_names(last.winners)}; guess: {_names((last.guess,))}")
    auto = ""
    if last.automatic:
        auto = " (automatic)" if last.winning else " (zero chance)"
    lines.append(f"{result.outcome.upper()}{auto}, {karma}")
    return lines


SYSTEM = SystemSpec(
    id="fingers",
    order=ORDER,
    panel=PANEL,
    title="Fingers (k of n)",
    summary="guess one of n fingers, k of them win; karma 0-5 earned on failures and spent "
            "for extra winners; ailments, chains and long-term challenges",
    params=PARAMS,
    outcomes=("success", "failure"),
    roll=roll,
    odds=odds,
    describe=describe,
    check=check,
)
