"""What players photograph: a roll's number and entry hash, and the reveal's four facts.

Every recorded result shows which roll of its session it is and the first
:data:`~engine.fingerprints.FINGERPRINT_HEX` (16) hex digits of its log entry's hash (the
entry is written before the result is shown, so the hash exists): ``#12 a1b2c3d4e5f6a7b8``.
The reveal shows the commitment, the table seed, the roll count and the log's head hash (the
reveal entry's own hash), as text and as a QR code. A rewrite of the log after the fact then
fails against the photos: ``dicetower replay --expect NOTE`` and ``tools/verify_rolls.py
--expect NOTE`` look for each noted value (:func:`parse_expect`) among the session, table
seed, roll and reveal entries' hashes and the commitments, and check a roll's number with it.
16 hex digits are 64 bits: a forger has to try about 2^64 entries to match one by chance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.fingerprints import FINGERPRINT_HEX, fingerprint_line, reveal_card

__all__ = ["EXPECT_MIN_DIGITS", "SHORT_DIGITS", "Fingerprint", "Noted", "check_expect", "parse_expect",
           "reveal_card"]

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
