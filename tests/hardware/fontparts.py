"""Which characters a TrueType font draws: its ``cmap`` table read with the standard library
(formats 4 and 12, what DejaVu and every common font carry), for checking that the board's
page uses only glyphs of the fonts it names (tests/hardware/test_board_fonts.py)."""

from __future__ import annotations

import struct
from pathlib import Path

#: Where Debian and Raspberry Pi OS put fonts-dejavu-core's files.
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
#: The files of fonts-dejavu-core that the page uses (regular and bold, the sans and the mono).
PI_FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf")


def _table(data: bytes, tag: bytes) -> bytes:
    (count,) = struct.unpack_from(">H", data, 4)
    for i in range(count):
        name, _, offset, length = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        if name == tag:
            return data[offset:offset + length]
    raise ValueError(f"no {tag.decode()} table")


def _format4(sub: bytes) -> set[int]:
    (segs2,) = struct.unpack_from(">H", sub, 6)
    n = segs2 // 2
    ends = struct.unpack_from(f">{n}H", sub, 14)
    starts = struct.unpack_from(f">{n}H", sub, 16 + segs2)
    deltas = struct.unpack_from(f">{n}h", sub, 16 + 2 * segs2)
    range_at = 16 + 3 * segs2
    ranges = struct.unpack_from(f">{n}H", sub, range_at)
    out: set[int] = set()
    for i in range(n):
        for code in range(starts[i], ends[i] + 1):
            if code == 0xFFFF:
                continue
            if ranges[i] == 0:
                glyph = (code + deltas[i]) & 0xFFFF
            else:
                at = range_at + 2 * i + ranges[i] + 2 * (code - starts[i])
                (glyph,) = struct.unpack_from(">H", sub, at)
                glyph = (glyph + deltas[i]) & 0xFFFF if glyph else 0
            if glyph:
                out.add(code)
    return out


def _format12(sub: bytes) -> set[int]:
    (groups,) = struct.unpack_from(">I", sub, 12)
    out: set[int] = set()
    for i in range(groups):
        first, last, glyph = struct.unpack_from(">III", sub, 16 + 12 * i)
        out.update(code for n, code in enumerate(range(first, last + 1)) if glyph + n)
    return out


def covered(path: Path) -> set[int]:
    """The code points ``path`` (a .ttf) maps to a glyph other than .notdef."""
    cmap = _table(path.read_bytes(), b"cmap")
    (count,) = struct.unpack_from(">H", cmap, 2)
    out: set[int] = set()
    for i in range(count):
        platform, encoding, offset = struct.unpack_from(">HHI", cmap, 4 + 8 * i)
        if (platform, encoding) not in ((3, 1), (3, 10), (0, 3), (0, 4)):
            continue
        sub = cmap[offset:]
        (fmt,) = struct.unpack_from(">H", sub, 0)
        if fmt == 4:
            out |= _format4(sub)
        elif fmt == 12:
            out |= _format12(sub)
    return out
