"""The reveal's four facts as one text: what the panel's reveal screen, ``dicetower session
close`` and the QR code both of them draw hold, so a photograph of either reads the same; and
that text read back (:func:`read_reveal_card`), for the checkers' ``--card``.

Pure text (the panel's screens are built in :mod:`engine`); the roll log's fingerprints
themselves (a roll's number and entry hash) are :mod:`hardware.entropy.fingerprint`'s.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["FINGERPRINT_HEX", "NO_TABLE_SEED", "RevealFacts", "card_table_seed", "fingerprint_line", "read_reveal_card",
           "reveal_card"]

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


def read_reveal_card(text: str) -> RevealFacts:
    """The four facts of a reveal card's text (as its QR code holds it, or the same on one
    line); ``ValueError`` naming what a card holds when ``text`` is not one."""
    found = _CARD.fullmatch(str(text).strip())
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
