"""fingers rules shared by rolling and odds: challenges ("2 of 5"), how ailment and karma turn
a challenge into the test actually played, and how karma moves after a test."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.params import parse_whole

MIN_CHOICES = 2
MAX_CHOICES = 5
#: Challenges in one --chain.
MAX_CHAIN = 10
MAX_KARMA = 5

FINGER_NAMES: Mapping[int, str] = {1: "thumb", 2: "index", 3: "middle", 4: "ring", 5: "pinky"}

# ASCII digits only: \d would also take "１/５".
_CHALLENGE = re.compile(r"^\s*([0-9]+)\s*(?:/|of)\s*([0-9]+)\s*(?:\+\s*([0-9]+))?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Challenge:
    """``winners`` of ``choices`` as the GM sets it, with ``spend`` karma put on it."""

    winners: int
    choices: int
    spend: int = 0

    def __str__(self) -> str:
        return f"{self.winners}/{self.choices}" + (f"+{self.spend}" if self.spend else "")


def parse_challenge(value: Any) -> Challenge:
    """``"1/5"``, ``"1 of 5"``, ``"1/5+1"`` (one karma spent on this test) -> Challenge."""
    if isinstance(value, Challenge):
        text = str(value)
    elif isinstance(value, str):
        text = value
    else:
        raise ValueError(f"{value!r} is not a challenge like 1/5")
    match = _CHALLENGE.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a challenge; write WINNERS/CHOICES[+KARMA] like 1/5+1")
    winners, choices, spend = int(match[1]), int(match[2]), int(match[3] or 0)
    if not MIN_CHOICES <= choices <= MAX_CHOICES:
        raise ValueError(f"{text!r}: choices must be {MIN_CHOICES}..{MAX_CHOICES}, got {choices}")
    if winners > choices:
        raise ValueError(f"{text!r}: winners must be 0..{choices}, got {winners}")
    if spend > MAX_KARMA:
        raise ValueError(f"{text!r}: karma spent must be 0..{MAX_KARMA}, got {spend}")
    return Challenge(winners, choices, spend)


def challenge_text(value: Any) -> str:
    """A chain item as the parameter keeps it: the canonical ``"1/5"`` or ``"1/5+1"``, so a
    roll's ``params`` can be given back as they are."""
    return str(parse_challenge(value))


def parse_finger(value: Any) -> int:
    """A finger 1 (thumb) .. 5 (pinky)."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a finger")
    try:
        finger = parse_whole(str(value)) if not isinstance(value, int) else value
    except ValueError:
        raise ValueError(f"{value!r} is not a finger number") from None
    if not 1 <= finger <= MAX_CHOICES:
        raise ValueError(f"a finger is 1 (thumb) .. {MAX_CHOICES} (pinky), got {finger}")
    return finger


@dataclass(frozen=True)
class Link:
    """A test as played: ``winning`` of ``choices`` after the ailment and the karma spent."""

    number: int
    challenge: Challenge
    choices: int
    winning: int
    spend: int

    @property
    def automatic(self) -> bool:
        """Decided before the guess: guaranteed (all fingers win) or a zero test."""
        return self.winning in (0, self.choices)

    def __str__(self) -> str:
        return f"{self.winning} of {self.choices}"

    def spending(self, karma: int) -> Link:
        """The test as made by a player who holds ``karma``: a long-term challenge spends
        the karma put on it on every test while it lasts (what is left, when less)."""
        spend = min(self.spend, karma)
        if spend == self.spend:
            return self
        return Link(self.number, self.challenge, self.choices,
                    min(self.choices, self.challenge.winners + spend), spend)


def challenges(params: Mapping[str, Any]) -> tuple[Challenge, ...]:
    """The chain, or the one challenge set by --winners/--choices/--spend."""
    if params["chain"]:
        return tuple(parse_challenge(item) for item in params["chain"])
    return (Challenge(params["winners"], params["choices"], params["spend"]),)


def links(params: Mapping[str, Any]) -> tuple[Link, ...]:
    """Each challenge as played: the ailment adds a choice (to at most 5), each karma spent
    adds a winner (to at most every finger)."""
    out = []
    for number, c in enumerate(challenges(params), start=1):
        choices = min(MAX_CHOICES, c.choices + 1) if params["ailment"] else c.choices
        out.append(Link(number, c, choices, min(choices, c.winners + c.spend), c.spend))
    return tuple(out)


def karma_after_test(karma: int, spend: int, success: bool) -> int:
    """Spent karma is gone; a failure earns one unless karma was spent on it; 0..5."""
    after = karma - spend + (0 if success or spend else 1)
    return max(0, min(MAX_KARMA, after))
