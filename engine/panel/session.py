"""What the hardware tells the panel about the dice session, in a SESSION event's text.

The tower's dice commit to each session's seed (SHA-256 of the seed material) before its first
roll and reveal the seed at its end (docs/fairness.md); the panel shows the commitment so a
player can note it before rolling. One line of text keeps :class:`~engine.panel.model.Event`
as it is:

- ``<64 hex digits>``: a session is open and this is its commitment;
- ``revealed <64 hex digits>``: that session is closed and its seed is in the roll log; no
  session is open until the next commitment arrives;
- anything else: no session is open, and the text says why (``not enough entropy ...``).

Dice without sessions (typed-in faces, a plain DRBG in tests) send nothing, and the panel
shows no commitment.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

#: The :attr:`~engine.panel.model.Effects.request` that asks the hardware to reveal the seed.
REVEAL = "reveal"
#: Hex digits of the short form shown on the setup and settings screens (``#3fa2c1d0``); the
#: roll log's session id is the first 16, so the short form is a prefix of it.
SHORT_DIGITS = 8
#: Hex digits per line of the full view (the 16x2 LCD shows one such line whole).
LINE_DIGITS = 16
_HEX = frozenset(string.hexdigits.lower())
_REVEALED = "revealed"


@dataclass(frozen=True)
class News:
    """One SESSION event, parsed: exactly one of the fields is set (``why`` may be empty)."""

    commitment: str = ""  # the open session's commitment
    revealed: str = ""  # the commitment of the session just revealed
    why: str = ""  # no session is open: why


def is_commitment(text: str) -> bool:
    """64 lowercase hex digits: a SHA-256 in hex."""
    return len(text) == 64 and set(text) <= _HEX


def parse(text: str) -> News:
    """The event's text as :class:`News`; never raises (anything unknown means "none open")."""
    words = str(text).split()
    if len(words) == 1 and is_commitment(words[0].lower()):
        return News(commitment=words[0].lower())
    if len(words) == 2 and words[0] == _REVEALED and is_commitment(words[1].lower()):
        return News(revealed=words[1].lower())
    return News(why=" ".join(words))


def committed(commitment: str) -> str:
    """The text for an open session."""
    return _checked(commitment)


def revealed(commitment: str) -> str:
    """The text for a session whose seed was just revealed (written to the roll log)."""
    return f"{_REVEALED} {_checked(commitment)}"


def unavailable(why: str) -> str:
    """The text for "no session is open", kept from reading as one of the other two."""
    text = " ".join(str(why).split()) or "no session open"
    return text if parse(text).why == text else f"no session: {text}"


def short(commitment: str) -> str:
    """``#3fa2c1d0``: the first digits, enough to match a photograph or the log."""
    return "#" + commitment[:SHORT_DIGITS]


def lines(commitment: str) -> tuple[str, ...]:
    """The whole commitment, :data:`LINE_DIGITS` digits a line (four lines)."""
    return tuple(commitment[i : i + LINE_DIGITS] for i in range(0, len(commitment), LINE_DIGITS))


def _checked(commitment: str) -> str:
    text = str(commitment).strip().lower()
    if not is_commitment(text):
        raise ValueError(f"a commitment is 64 hex digits (SHA-256), got {commitment!r}")
    return text
