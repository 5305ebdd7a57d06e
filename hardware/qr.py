"""The session commitment, and the reveal's four facts, as QR codes for a player's phone
(segno, pure Python).

A commitment's code holds the 64 hex digits in upper case: QR's alphanumeric mode fits them
in a version 3 symbol (29 x 29 modules, error correction L), small enough to draw at 2 pixels
a module on a 128 x 64 OLED. Compare case-insensitively with the log's lower-case hex. Any
other text (the reveal's card) is coded exactly as given, in byte mode: 49 to 57 modules,
drawn at 1 pixel a module on the OLED.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # segno pulls in xml.sax, urllib.request and http.client (25 ms on a laptop): loaded at
    # the first code drawn, not at start-up (docs/architecture.md)
    import segno

__all__ = ["qr_matrix", "terminal_qr", "terminal_qr_text"]


_HEX = frozenset("0123456789abcdefABCDEF")


def _code(commitment: str) -> segno.QRCode:
    import segno

    return segno.make(commitment.upper(), error="l", micro=False)


def _text_code(text: str) -> segno.QRCode:
    import segno

    return segno.make(text, error="l", micro=False, mode="byte")


def qr_matrix(text: str) -> tuple[tuple[bool, ...], ...]:
    """The QR code's modules, row by row, True for dark; no quiet zone. A commitment (64 hex
    digits) in upper case, alphanumeric; any other text exactly as given."""
    code = _code(text) if len(text) == 64 and set(text) <= _HEX else _text_code(text)
    return tuple(tuple(bool(m) for m in row) for row in code.matrix)


def terminal_qr(commitment: str) -> str:
    """The QR code in Unicode half blocks, two modules per character cell, with a quiet zone."""
    out = io.StringIO()
    _code(commitment).terminal(out=out, compact=True, border=2)
    return out.getvalue()


def terminal_qr_text(text: str) -> str:
    """Any text (the reveal's card: commitment, table seed, rolls, head) as a QR code in
    half blocks, exactly as given: a table seed is case-sensitive, so nothing is upper-cased
    (byte mode; a larger symbol than a commitment alone)."""
    out = io.StringIO()
    _text_code(text).terminal(out=out, compact=True, border=2)
    return out.getvalue()
