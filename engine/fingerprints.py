"""The reveal's four facts as one text: what the panel's reveal screen, ``dicetower session
close`` and the QR code both of them draw hold, so a photograph of either reads the same.

Pure text (the panel's screens are built in :mod:`engine`); the roll log's fingerprints
themselves (a roll's number and entry hash) are :mod:`hardware.entropy.fingerprint`'s.
"""

from __future__ import annotations

__all__ = ["FINGERPRINT_HEX", "reveal_card"]

# Hex digits of a roll's entry hash that name it beside its number (the OLED and the board alike).
FINGERPRINT_HEX = 16


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
