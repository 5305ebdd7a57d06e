"""How the button panel offers and shows fingers (see :mod:`engine.systems.panel`).

The guess is a finger button (one per test of a chain), karma is the player slot's, and
chains and long-term challenges are flows; the reveal lists every test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.systems.fingers.rules import MAX_CHAIN, MAX_CHOICES, MAX_KARMA, MIN_CHOICES, links
from engine.systems.fingers.speech import SPEECH
from engine.systems.panel import (
    Carried,
    Flow,
    Line,
    ListShape,
    PanelSpec,
    Part,
    Start,
    numbers,
    outcome_line,
    phrase,
)


def _headline(data: Mapping[str, Any]) -> str:
    last = data["tests"][-1]
    return f"{last['winning']} of {last['choices']}"


def _test(t: Mapping[str, Any]) -> Line:
    won = " ".join(str(w) for w in t["winners"]) or "-"
    verdict = "ok" if t["success"] else "fail"
    said = phrase("fingers.test", n=t["number"], challenge=t["challenge"], winners=tuple(t["winners"]),
                  guess=t["guess"], verdict=verdict)
    return Line(f"#{t['number']} {t['challenge']} [{won}] pick {t['guess']} {verdict}", said)


def _details(data: Mapping[str, Any]) -> list[str]:
    picked = Line(f"you picked {data['guess']}", phrase("fingers.picked", guess=data["guess"]))
    out: list[str] = [outcome_line(data), picked, numbers("winners", data["winners"], key="fingers.winners")]
    if data.get("automatic"):
        out.append(Line("automatic", phrase("fingers.automatic")))
    tests = data.get("tests") or []
    if len(tests) > 1:
        out.extend(_test(t) for t in tests)
    return out


def _hidden(params: Mapping[str, Any], test: int) -> str:
    """``2 of 5 +1 karma``: the test whose finger is being picked (``test`` from 0, one per
    test of a chain), as played: an ailment's extra finger counted, the karma spent shown."""
    try:
        played = links(params)
    except (KeyError, TypeError, ValueError):
        return ""
    link = played[min(test, len(played) - 1)]
    return f"{link.challenge.winners} of {link.choices}" + (f" +{link.spend} karma" if link.spend else "")


def _chain_text(v: tuple[int, ...]) -> str:
    winning, choices, spend = v
    return f"{winning}/{choices}" + (f"+{spend}" if spend else "")


PANEL = PanelSpec(
    speech=SPEECH,
    advanced=("multi_spend",),
    sides=5,
    labels={"multi_spend": "multi spend", "long_term": "long term", "max_tests": "max tests",
            "winners_set": "fixed hand"},
    flows=(
        Flow("guess", ("guess",),
             "ROLL hides the hand; each finger button is a finger (thumb 1 .. pinky 5), one "
             "press per test of a chain", page=False),
        Flow("chain", ("chain",),
             "a chain of challenges that must all succeed: each one's winners of choices and "
             "the karma spent on it"),
        Flow("long-term", ("long_term", "max_tests"),
             "a long-term challenge: failed tests are retried until one passes, within the "
             "tests the time allows (0: no limit)"),
        Flow("hand", ("winners_set",),
             "the game master fixes the hidden winning fingers (each test's in turn) instead "
             "of the tower drawing them"),
    ),
    lists={
        # The command line's ranges (rules.py).
        "chain": ListShape((Part("winners", 0, MAX_CHOICES, 1), Part("of", MIN_CHOICES, MAX_CHOICES, MAX_CHOICES),
                            Part("spend", 0, MAX_KARMA, 0, omit=0)), _chain_text, most=MAX_CHAIN),
        # Ten fingers: a hand for each of a few tests. The command line takes up to a hand for
        # each of a long-term challenge's 100 tests; on five buttons that stays there.
        "winners_set": ListShape((Part("finger", 1, MAX_CHOICES, 1),), lambda v: v[0], most=10),
    },
    needs={"max_tests": "long_term"},
    carried=(Carried("karma", "karma_after"),),
    player=("karma",),
    # "a number from 0 to 5": what a fresh or reset slot starts with (the settings menu's item)
    starts=(Start("karma", 0, MAX_KARMA),),
    guess="guess",
    hand="winners",
    hidden=_hidden,
    headline=_headline,
    details=_details,
)
