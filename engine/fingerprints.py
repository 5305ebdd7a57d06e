"""The reveal's four facts as one text: what the panel's reveal screen, ``dicetower session
close`` and the QR code both of them draw hold, so a photograph of either reads the same.

Pure text (the panel's screens are built in :mod:`engine`); the roll log's fingerprints
themselves (a roll's number and entry hash) are :mod:`hardware.entropy.fingerprint`'s.
"""

from __future__ import annotations

__all__ = ["FINGERPRINT_HEX", "fingerprint_line", "reveal_card"]

#: Hex digits of a roll's entry hash shown beside its result (OLED, command line, JSON, the
#: board): 16 digits are 64 bits, so a forger who wants another entry to show the same digits
#: must try about 2^64 of them (docs/fairness.md, "What a player can verify").
FINGERPRINT_HEX = 16
#: Characters of the OLED's one line (128 pixels of the 6-pixel font).
_LINE = 21


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
        f"table seed {table_seed if table_seed is not None else '(none)'}",
        f"rolls {rolls}",
        f"head {head}",
    ])
