"""The session commitment, and the reveal's four facts, as QR codes for a player's phone
(segno, pure Python).

A commitment's code holds the 64 hex digits in upper case: QR's alphanumeric mode fits them
in a version 3 symbol (29 x 29 modules, error correction L), small enough to draw at 2 pixels
a module on a 128 x 64 OLED. Compare case-insensitively with the log's lower-case hex. Any
other text (the reveal's card) is coded exactly as given, in byte mode: 49 to 57 modules,
drawn at 1 pixel a module on the OLED.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
import io
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # segno pulls in xml.sax, urllib.request and http.client (25 ms on a laptop): loaded at
    # the first code drawn, not at start-up (docs/architecture.md)
    import segno

#: The private name segno's encoder is loaded under for the OLED (see :func:`_encoder`).
_ENCODER_PACKAGE = "hardware._segno_encoder"

__all__ = ["qr_matrix", "terminal_qr", "terminal_qr_text"]


_HEX = frozenset("0123456789abcdefABCDEF")


def _code(commitment: str) -> segno.QRCode:
    import segno

    return segno.make(commitment.upper(), error="l", micro=False)


def _text_code(text: str) -> segno.QRCode:
    import segno

    return segno.make(text, error="l", micro=False, mode="byte")


@functools.cache
def _encoder() -> ModuleType | None:
    """segno's encoder module alone (it needs only segno's ``consts``), loaded under a private
    package name without running segno's ``__init__``: that one imports segno's file writers
    and through them xml.sax, urllib.request, http.client and email (about 30 ms of the 45 ms
    segno costs), none of which the OLED's code needs, and the table-seed question draws a
    code on the first rolled frame of a session. The public ``segno`` stays untouched (the
    command line's terminal codes import it as usual). None if this segno is laid out
    otherwise: then the whole package is used (tests/hardware/test_qr.py holds the two to the
    same modules)."""
    try:
        spec = importlib.util.find_spec("segno")
        if spec is None or not spec.submodule_search_locations:
            return None
        package_spec = importlib.machinery.ModuleSpec(_ENCODER_PACKAGE, None, is_package=True)
        package_spec.submodule_search_locations = list(spec.submodule_search_locations)
        sys.modules.setdefault(_ENCODER_PACKAGE, importlib.util.module_from_spec(package_spec))
        encoder = importlib.import_module(_ENCODER_PACKAGE + ".encoder")
    except Exception:  # any surprise in segno's layout: the plain way below
        return None
    return encoder if callable(getattr(encoder, "encode", None)) else None


def _modules(text: str, **options: Any) -> Any:
    """The modules of ``text``'s code, through the encoder alone where it loads."""
    encoder = _encoder()
    if encoder is not None:
        return encoder.encode(text, **options).matrix
    import segno

    return segno.make(text, **options).matrix


def qr_matrix(text: str) -> tuple[tuple[bool, ...], ...]:
    """The QR code's modules, row by row, True for dark; no quiet zone. A commitment (64 hex
    digits) in upper case, alphanumeric; any other text exactly as given."""
    if len(text) == 64 and set(text) <= _HEX:
        matrix = _modules(text.upper(), error="l", micro=False)
    else:
        matrix = _modules(text, error="l", micro=False, mode="byte")
    return tuple(tuple(bool(m) for m in row) for row in matrix)


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
