"""The panel's bitmap fonts: ``tower6x8`` for text, ``tower12x16`` for the large type.

Drawn for this project (``tower6x8.txt``), so they ship under the project's MIT licence and
golden images never change with a Pillow or system-font update. :class:`BitmapFont` wraps a
Pillow ``ImageFont`` with the slot map that puts characters beyond Latin-1 (arrows, ≥, …)
into the one-byte glyph table; characters the font lacks lose their accents (é → e) or
become a box.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FONT_DIR = Path(__file__).resolve().parent
FALLBACK = "\ufffd"


@dataclass(frozen=True)
class BitmapFont:
    """A fixed-pitch bitmap font: ``cell`` is (advance, height) in pixels."""

    name: str
    font: Any  # PIL.ImageFont.ImageFont
    cell: tuple[int, int]
    slots: dict[str, str] = field(repr=False)
    _memo: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def encode(self, text: str) -> str:
        """``text`` as the font's one-byte slots (what ``ImageDraw.text`` is given)."""
        done = self._memo.get(text)
        if done is None:
            done = "".join(self._slot(ch) for ch in text)
            if len(self._memo) < 512:  # screens repeat; a bounded memo keeps rendering cheap
                self._memo[text] = done
        return done

    def _slot(self, ch: str) -> str:
        slot = self.slots.get(ch)
        if slot is not None:
            return slot
        import unicodedata  # only for characters the font lacks

        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        if base and all(c in self.slots for c in base):
            return "".join(self.slots[c] for c in base)
        return self.slots[FALLBACK]

    def width(self, text: str) -> int:
        return len(self.encode(text)) * self.cell[0]

    def covers(self, ch: str) -> bool:
        return ch in self.slots


def load(name: str = "tower6x8") -> BitmapFont:
    """Load a shipped font by name (``tower6x8`` or ``tower12x16``)."""
    path = FONT_DIR / f"{name}.pil"
    if not path.is_file():
        raise ValueError(f"font {name!r}: no {path.name} in {FONT_DIR}")
    font = _from_bits(path) or _from_png(path)
    slots = _slots(font.info)
    if FALLBACK not in slots or "M" not in slots:
        raise ValueError(f"font {name!r}: {path.name} has no character map; rebuild with hardware.fonts.build")
    advance, height = _cell(font)
    return BitmapFont(name, font, (advance, height), slots)


def _from_png(path: Path) -> Any:
    from PIL import ImageFont

    return ImageFont.load(str(path))


def _from_bits(path: Path) -> Any:
    """The font from its metrics and the glyph sheet's PBM, read here rather than through
    ``Image.open`` (which imports all of Pillow's image plugins): a shorter start-up. None, and
    the caller uses the PNG, if the PBM is missing or not the simple binary kind we write."""
    from PIL import Image, ImageFont

    try:
        raw = path.with_suffix(".pbm").read_bytes()
    except OSError:
        return None
    parts = raw.split(b"\n", 2)
    if len(parts) != 3 or parts[0] != b"P4":
        return None
    try:
        w, h = (int(v) for v in parts[1].split())
    except ValueError:
        return None
    font = ImageFont.ImageFont()
    loader = getattr(font, "_load_pilfont_data", None)  # Pillow's own .pil reader
    if not callable(loader) or len(parts[2]) != (w + 7) // 8 * h:
        return None
    try:
        image = Image.frombytes("1", (w, h), parts[2], "raw", "1;I")
        with path.open("rb") as metrics:
            loader(metrics, image)
    except (ValueError, SyntaxError, TypeError):
        return None
    return font


def _slots(info: list[bytes]) -> dict[str, str]:
    """Every drawn character and its slot, from the ``map`` header line the build writes."""
    slots: dict[str, str] = {}
    for line in info:
        text = line.decode("ascii").strip()
        if text.startswith("map "):
            for pair in text[4:].split():
                code, slot = pair.split("=")
                slots[chr(int(code, 16))] = chr(int(slot, 16))
    return slots


def _cell(font: Any) -> tuple[int, int]:
    # every glyph image is the full cell height, blank rows included
    bottom = font.getbbox("M")[3]
    advance = int(font.getlength("MM") - font.getlength("M"))
    return advance, int(bottom)
