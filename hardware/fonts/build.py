"""Build the Pillow bitmap fonts from the hand-drawn glyph source ``tower6x8.txt``.

Two fonts come out of one source: ``tower6x8`` (the text) and ``tower12x16`` (the large
type: each glyph doubled with the Scale2x rule, which keeps diagonals smooth instead of
stair-stepped). Each is written as Pillow's ``.pil`` metrics plus the glyph sheet twice: as
``.png`` (what Pillow's own loader picks) and as a binary PBM (``P4``), which
:mod:`hardware.fonts` reads without Pillow's image plugins, for a shorter start-up.

Pillow's bitmap fonts index glyphs by one byte, so characters beyond Latin-1 (arrows, ≥, …)
are given slots 0x80-0x9F, the C1 control codes no text uses. The ``map`` line of the ``.pil``
header lists every drawn character with its slot; :mod:`hardware.fonts` translates through it.

Run ``python -m hardware.fonts.build`` after editing the glyph source; a test checks that the
shipped files match the source.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

FONT_DIR = Path(__file__).resolve().parent
SOURCE = FONT_DIR / "tower6x8.txt"
GLYPH_W, GLYPH_H = 5, 8
#: First slot for characters outside Latin-1 (C1 controls 0x80-0x9F are never drawn as text).
EXTRA_FIRST, EXTRA_LAST = 0x80, 0x9F


@dataclass(frozen=True)
class Glyph:
    char: str
    rows: tuple[str, ...]  # GLYPH_H strings of GLYPH_W '#'/'.'


@dataclass(frozen=True)
class FontSpec:
    name: str
    scale: int  # 1 = as drawn, 2 = Scale2x
    advance: int  # pixels from one character to the next


FONTS: tuple[FontSpec, ...] = (
    FontSpec("tower6x8", 1, 6),
    FontSpec("tower12x16", 2, 12),
)


def parse(text: str) -> tuple[Glyph, ...]:
    """Glyphs from the source format; raises ValueError naming the line of a malformed one."""
    glyphs: list[Glyph] = []
    lines = text.splitlines()
    i = 0
    seen: set[str] = set()
    while i < len(lines):
        line = lines[i].strip()
        if not line or line.startswith("#"):
            i += 1
            continue
        if not line.startswith("U+"):
            raise ValueError(f"{SOURCE.name} line {i + 1}: expected a 'U+XXXX' header, got {line!r}")
        char = chr(int(line[2:], 16))
        if char in seen:
            raise ValueError(f"{SOURCE.name} line {i + 1}: {line} drawn twice")
        seen.add(char)
        rows = tuple(row.strip() for row in lines[i + 1 : i + 1 + GLYPH_H])
        for n, row in enumerate(rows):
            if len(row) != GLYPH_W or set(row) - {"#", "."}:
                raise ValueError(
                    f"{SOURCE.name} line {i + 2 + n}: a glyph row is {GLYPH_W} of '#' or '.', got {row!r}"
                )
        if len(rows) != GLYPH_H:
            raise ValueError(f"{SOURCE.name} line {i + 1}: {line} needs {GLYPH_H} rows")
        glyphs.append(Glyph(char, rows))
        i += 1 + GLYPH_H
    return tuple(glyphs)


def slot_map(glyphs: Sequence[Glyph]) -> dict[str, int]:
    """The byte each character is stored at: Latin-1 as itself, others from 0x80 on."""
    slots: dict[str, int] = {}
    extra = EXTRA_FIRST
    for g in glyphs:
        code = ord(g.char)
        if code <= 0xFF and not EXTRA_FIRST <= code <= EXTRA_LAST:
            slots[g.char] = code
        else:
            if extra > EXTRA_LAST:
                raise ValueError(f"too many glyphs beyond Latin-1: {g.char!r} has no free slot")
            slots[g.char] = extra
            extra += 1
    return slots


def scale2x(rows: Sequence[str]) -> list[str]:
    """Double a bitmap with the Scale2x (AdvMAME2x) rule: corners follow matching edges."""
    h, w = len(rows), len(rows[0])

    def px(x: int, y: int) -> str:
        return rows[y][x] if 0 <= x < w and 0 <= y < h else "."

    out = [[""] * (2 * w) for _ in range(2 * h)]
    for y in range(h):
        for x in range(w):
            p = px(x, y)
            a, b, c, d = px(x, y - 1), px(x + 1, y), px(x - 1, y), px(x, y + 1)
            e0 = a if (c == a and c != d and a != b) else p
            e1 = b if (a == b and a != c and b != d) else p
            e2 = c if (d == c and d != b and c != a) else p
            e3 = d if (b == d and b != a and d != c) else p
            out[2 * y][2 * x], out[2 * y][2 * x + 1] = e0, e1
            out[2 * y + 1][2 * x], out[2 * y + 1][2 * x + 1] = e2, e3
    return ["".join(r) for r in out]


def build(spec: FontSpec, glyphs: Sequence[Glyph]) -> tuple[bytes, bytes, bytes]:
    """The ``.pil`` metrics, the ``.png`` glyph sheet and its ``.pbm`` form, of one font."""
    from PIL import FontFile, Image

    slots = slot_map(glyphs)
    ff = FontFile.FontFile()
    for g in glyphs:
        rows = list(g.rows) if spec.scale == 1 else scale2x(g.rows)
        w, h = len(rows[0]), len(rows)
        im = Image.new("1", (w, h))
        im.putdata([1 if ch == "#" else 0 for row in rows for ch in row])
        ff.glyph[slots[g.char]] = ((spec.advance, 0), (0, 0, w, h), (0, 0, w, h), im)
    ff.compile()
    if ff.bitmap is None:
        raise ValueError("the glyph source holds no glyphs")
    sheet = io.BytesIO()
    ff.bitmap.save(sheet, "PNG", optimize=False)
    mapping = " ".join(f"{ord(c):04X}={s:02X}" for c, s in slots.items())
    height = GLYPH_H * spec.scale
    metrics = b"PILfont\n" + f";;;;;;{height};\n".encode() + f"map {mapping}\n".encode() + b"DATA\n"
    metrics += ff._encode_metrics()
    w, h = ff.bitmap.size
    # netpbm P4: rows of packed bits, most significant first, 1 = black (so inverted here)
    pbm = f"P4\n{w} {h}\n".encode() + ff.bitmap.tobytes("raw", "1;I")
    return metrics, sheet.getvalue(), pbm


def build_all(source: Path = SOURCE) -> dict[str, tuple[bytes, bytes, bytes]]:
    glyphs = parse(source.read_text(encoding="utf-8"))
    return {spec.name: build(spec, glyphs) for spec in FONTS}


def main(argv: Sequence[str] | None = None) -> int:
    out = Path(argv[0]) if argv else FONT_DIR
    for name, (pil, png, pbm) in build_all().items():
        (out / f"{name}.pil").write_bytes(pil)
        (out / f"{name}.png").write_bytes(png)
        (out / f"{name}.pbm").write_bytes(pbm)
        print(f"wrote {out / name}.pil, .png and .pbm")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
