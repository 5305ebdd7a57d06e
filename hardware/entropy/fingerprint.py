"""What players photograph: a roll's number and entry hash, and the reveal's four facts.

Every recorded result shows which roll of its session it is and the first 8 hex digits of
its log entry's hash (the entry is written before the result is shown, so the hash exists).
The reveal shows the commitment, the table seed, the roll count and the log's head hash (the
reveal entry's own hash), as text and as a QR code. A rewrite of the log after the fact then
fails against the photos: ``dicetower replay --expect HEX`` and ``tools/verify_rolls.py
--expect HEX`` look for each noted prefix (:func:`check_expect`) among the session and roll
entries' hashes and the commitments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.fingerprints import reveal_card

__all__ = ["EXPECT_MIN_DIGITS", "SHORT_DIGITS", "Fingerprint", "check_expect", "reveal_card"]

#: Hex digits of an entry hash shown beside a result.
SHORT_DIGITS = 8
#: The shortest prefix ``--expect`` takes (2^-32 odds that a forger's entry matches by chance).
EXPECT_MIN_DIGITS = 8
_HEX = re.compile(r"[0-9a-f]+")


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

    def __str__(self) -> str:
        if not self.session:
            return f"entry {self.short} (typed in: outside any session)"
        return f"roll #{self.number} of session #{self.session[:8]}, entry {self.short}"

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session or None, "number": self.number or None, "entry": self.short}


def check_expect(text: str) -> str:
    """``text`` as a fingerprint prefix (lower case), or ``ValueError`` saying what is allowed."""
    prefix = text.strip().lower()
    if not _HEX.fullmatch(prefix) or not EXPECT_MIN_DIGITS <= len(prefix) <= 64:
        raise ValueError(f"expected {EXPECT_MIN_DIGITS} to 64 hex digits (the start of an entry hash or a "
                         f"commitment), got {text!r}")
    return prefix
