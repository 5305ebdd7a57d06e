"""The reveal's four facts as one text: what the panel's reveal screen, ``dicetower session
close`` and the QR code both of them draw hold, so a photograph of either reads the same; and
that text read back (:func:`read_reveal_card`), for the checkers' ``--card``.

Also a roll's fingerprint (its number in its session and its entry hash: :class:`Fingerprint`)
and what the players note of it (:class:`Noted`, :func:`parse_expect`): pure text, read the
same by the tower, the checkers and the phone page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import parse_qs, quote

__all__ = ["EXPECT_MIN_DIGITS", "FINGERPRINT_HEX", "NO_TABLE_SEED", "SHORT_DIGITS", "Fingerprint", "Noted",
           "RevealFacts", "card_table_seed", "check_expect", "fingerprint_line", "parse_expect", "read_reveal_card",
           "reveal_card", "reveal_url"]

#: Hex digits of a roll's entry hash shown beside its result (OLED, command line, JSON, the
#: board): 16 digits are 64 bits, so a forger who wants another entry to show the same digits
#: must try about 2^64 of them (docs/fairness.md, "What a player can verify").
FINGERPRINT_HEX = 16
#: Characters of the OLED's one line (128 pixels of the 6-pixel font).
_LINE = 21
#: What the card says for a session without a table seed.
NO_TABLE_SEED = "(none)"
#: The card as text: its first line may be left out, and its lines may be joined by any run of
#: white space (one line on a command line); the table seed is everything between ``table
#: seed`` and the last ``rolls N head HEX`` (a table seed has no space at either end).
_CARD = re.compile(r"(?:dicetower\s+reveal\s+)?commitment\s+([0-9a-fA-F]{64})\s+table\s+seed\s+(\S(?:.*\S)?)"
                   r"\s+rolls\s+(\d{1,9})\s+head\s+([0-9a-fA-F]{64})", re.DOTALL)


class RevealFacts(NamedTuple):
    """A reveal card read back: the commitment, the table seed as the card says it
    (:data:`NO_TABLE_SEED` for a session without one), the roll count and the head (the
    reveal entry's hash), hex in lower case."""

    commitment: str
    table_seed: str
    rolls: int
    head: str


def fingerprint_line(number: int, entry: str) -> str:
    """How a recorded result names itself: ``#12 a1b2c3d4e5f6a7b8`` (its number in its session
    and the first :data:`FINGERPRINT_HEX` hex digits of its log entry's hash); a typed-in roll
    (number 0), which on the panel is only a game master's fingers hand, ``hand
    a1b2c3d4e5f6a7b8``. Roll #1000 (a session's last) drops the ``#`` so the line keeps to
    the OLED's 21 characters."""
    digits = str(entry)[:FINGERPRINT_HEX]
    if not number:
        return f"hand {digits}"
    line = f"#{int(number)} {digits}"
    return line if len(line) <= _LINE else f"{int(number)} {digits}"


def reveal_card(commitment: str, table_seed: str | None, rolls: int, head: str) -> str:
    """The commitment, the table seed, the roll count and the head (the reveal entry's hash),
    one a line under a first line naming what it is."""
    return "\n".join([
        "dicetower reveal",
        f"commitment {commitment}",
        f"table seed {card_table_seed(table_seed)}",
        f"rolls {rolls}",
        f"head {head}",
    ])


def reveal_url(page: str, card: str) -> str:
    """The phone page's address with a reveal card in its fragment (``PAGE#card=...``): what
    the reveal's QR code holds on a tower that serves the page (``[web]``). The fragment never
    reaches a server; the page reads the card from it."""
    return f"{page}#card={quote(card, safe='')}"


def read_reveal_card(text: str) -> RevealFacts:
    """The four facts of a reveal card's text (as its QR code holds it, or the same on one
    line, or the phone page's address with the card in its fragment: :func:`reveal_url`);
    ``ValueError`` naming what a card holds when ``text`` is not one."""
    text = str(text).strip()
    if text.lower().startswith(("http://", "https://")) and "#" in text:
        cards = parse_qs(text.partition("#")[2]).get("card")
        text = cards[0] if cards else text
    found = _CARD.fullmatch(text.strip())
    if found is None:
        raise ValueError("a reveal card is the text of the reveal's QR code: 'commitment HEX64 table seed CODE "
                         f"rolls N head HEX64' (lines or one line), got {str(text)[:80]!r}")
    seed = found[2]
    if "\n" in seed or "\r" in seed:  # one field a line: a code never spans two
        raise ValueError(f"a reveal card's table seed is one line, got {seed!r}")
    return RevealFacts(found[1].lower(), seed, int(found[3]), found[4].lower())


def card_table_seed(table_seed: str | None) -> str:
    """A session's table seed as its reveal card says it."""
    return table_seed if table_seed is not None else NO_TABLE_SEED

#: Hex digits of an entry hash shown beside a result.
SHORT_DIGITS = FINGERPRINT_HEX
#: The shortest prefix ``--expect`` takes: 64 bits, so that no forger can grind a rewritten
#: entry (or a session's seed) until its hash starts with what the players noted.
EXPECT_MIN_DIGITS = FINGERPRINT_HEX
#: What a player may type for a noted value: ``HEX``, or a result's ``N:HEX`` / ``#N:HEX`` /
#: ``#N HEX`` / ``roll #N HEX`` (the number of the roll in its session, then its fingerprint).
_NOTE = re.compile(r"(?:(?:roll\s*)?#?\s*(\d{1,9})\s*[:\s]\s*)?([0-9a-f]+)")


@dataclass(frozen=True)
class Fingerprint:
    """A recorded roll: its session (16 hex digits), its number in the session (from 1) and
    its log entry's hash. A typed-in roll, logged outside any session, has session ``""`` and
    number 0."""

    session: str
    number: int
    entry: str

    @property
    def short(self) -> str:
        return self.entry[:SHORT_DIGITS]

    @property
    def line(self) -> str:
        """``#12 a1b2c3d4e5f6a7b8`` as the OLED shows it (``entered …`` for a typed-in roll)."""
        return fingerprint_line(self.number, self.entry) if self.number else f"entered {self.short}"

    def __str__(self) -> str:
        if not self.session:
            return f"entry {self.short} (typed in: outside any session)"
        return f"roll #{self.number} of session #{self.session[:8]}, entry {self.short}"

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session or None, "number": self.number or None, "entry": self.short}


@dataclass(frozen=True)
class Noted:
    """One value the players noted: a hex prefix of at least :data:`EXPECT_MIN_DIGITS`
    digits, and for a result the roll's number in its session (``number``, None when not
    given). ``text`` is the normal form (``12:a1b2…`` or ``a1b2…``)."""

    prefix: str
    number: int | None = None

    @property
    def text(self) -> str:
        return f"{self.number}:{self.prefix}" if self.number is not None else self.prefix

    def __str__(self) -> str:
        return f"roll #{self.number} {self.prefix}" if self.number is not None else self.prefix


def parse_expect(text: str) -> Noted:
    """What a player typed for ``--expect``: ``HEX`` (a commitment, the reveal's head, any
    entry's hash) or ``N:HEX`` for a result (``#N:HEX``, ``#N HEX`` and ``roll #N HEX`` too,
    as the OLED and the command line show it); ``ValueError`` saying what is allowed."""
    found = _NOTE.fullmatch(" ".join(str(text).lower().split()))
    if found is None or not EXPECT_MIN_DIGITS <= len(found[2]) <= 64 or (found[1] is not None and int(found[1]) == 0):
        raise ValueError(f"expected {EXPECT_MIN_DIGITS} to 64 hex digits (a commitment, the reveal's head, or a "
                         f"result as N:HEX, e.g. 12:a1b2c3d4e5f6a7b8), got {text!r}")
    return Noted(found[2], int(found[1]) if found[1] is not None else None)


def check_expect(text: str) -> str:
    """``text`` as a noted value in its normal form (``12:a1b2…`` or ``a1b2…``); ``ValueError``
    saying what is allowed."""
    return parse_expect(text).text
