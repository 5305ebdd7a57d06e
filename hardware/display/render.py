"""Draw a panel :class:`~engine.panel.model.Screen` as a 1-bit picture for a 128x64 OLED.

Layout, top to bottom: the title; under it the chance of success as a bar (or a plain rule
when the screen has no odds); the large type and the dice as boxed numbers, side by side
when they fit; then the text lines, the selected one inverted; a screen with no selection and more lines
than fit (a long result) shows page ``Screen.page`` of them, with a track at the right edge. Line spacing opens up to
9 pixels when there is room and closes to 8 when there is not; a screen with more lines
than fit shows the window that keeps the selected line in view. Seven lines fill the
screen: then the chance moves to a 1-pixel gauge up the right edge (filled from the bottom).

A screen with a QR code (``Screen.qr``: a session's commitment, the table seed page's, the
reveal's four facts) is drawn as that code on the left, as large as fits the 64-pixel square
(2 pixels a module for a commitment, 1 for the reveal's longer text) with a lit quiet zone,
and ``Screen.beside`` on the right (the commitment's digits in eight groups of eight, the
short forms), so a player can photograph or scan it; its other lines stay on text displays
(:meth:`Screen.text`). A screen's ``foot`` (a recorded result's fingerprint) is the bottom
line of every page.

Pure drawing: no device, no I/O; the same Screen always gives the same pixels (golden
images in ``tests/hardware/golden`` hold it to that).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.panel.model import Screen

if TYPE_CHECKING:
    from PIL import Image
    from PIL.ImageDraw import ImageDraw

    from hardware.fonts import BitmapFont

DIE_W, DIE_H = 15, 13
DIE_GAP = 2
BIG_GAP = 6  # between the large word and the dice beside it
BIG_TRAILING = 2  # blank columns after the last large glyph (10-pixel glyphs in 12-pixel cells)


#: Texts kept drawn (:meth:`Renderer._stamp`): a screen has about ten, an animation cycles a few
#: dozen; at most 512 bytes each.
STAMPS_KEPT = 256

#: Pictures kept by screen (:meth:`Renderer.render`): 1 KB each on a 128x64 display.
FRAMES_KEPT = 48

QR_SCALE = 2  # pixels per QR module for a commitment: about 0.34 mm on a 0.96" OLED, a phone reads it
QR_BOX = 64  # the QR code's square, quiet zone included (29 modules x 2 + 3 on each side)
QR_QUIET = 3  # the least quiet zone, in pixels, on each side


def qr_scale(modules: int) -> int:
    """Pixels per module for a code ``modules`` wide: the most that fit QR_BOX with its quiet
    zone (2 for a commitment's 29, 1 for the reveal's 49 to 57); 0 when none fits."""
    return (QR_BOX - 2 * QR_QUIET) // modules


@dataclass(frozen=True)
class _Layout:
    """Where a screen's parts go: its bar, where the body starts, the feature and its height,
    the line pitch and which lines show."""

    bar: str  # "wide" (bar under the title), "edge" (gauge up the right edge), "rule", "none"
    body_top: int
    feature: str  # "", "side" (big and dice in one row), "stack" (big, then dice), "big", "dice"
    feature_h: int
    pitch: int
    lines: tuple[int, ...]  # indices of ``screen.lines`` shown, top to bottom
    glyph_dice: bool
    paged: tuple[int, int] | None = None  # (first line shown, lines in all) when the lines page


class Renderer:
    """Screens to images of ``size`` pixels (1-bit, mode ``"1"``) in the shipped fonts."""

    def __init__(self, size: tuple[int, int] = (128, 64), *, font: BitmapFont | None = None,
                 big_font: BitmapFont | None = None) -> None:
        from hardware.fonts import load

        self.width, self.height = size
        self.font = font or load("tower6x8")
        self.big_font = big_font or load("tower12x16")
        self.cw, self.ch = self.font.cell
        self.bw, self.bh = self.big_font.cell
        self._stamps: dict[tuple[str, bool], Image.Image | None] = {}
        self._frames: dict[Screen, Image.Image] = {}

    def render(self, screen: Screen) -> Image.Image:
        """``screen``'s picture (a new image the caller may keep or change).

        A screen equal to one of the last FRAMES_KEPT is copied from its kept picture rather
        than drawn again: the roll animation cycles through a few frames, and a player stepping
        a value up and down sees the same setup screens again."""
        kept = self._frames.get(screen)
        if kept is None:
            kept = self._draw(screen)
            if len(self._frames) >= FRAMES_KEPT:
                self._frames.clear()  # bounded: start again rather than track use
            self._frames[screen] = kept
        return kept.copy()

    def _draw(self, screen: Screen) -> Image.Image:
        from PIL import Image, ImageDraw

        image = Image.new("1", (self.width, self.height), 0)
        draw = ImageDraw.Draw(image)
        if screen.qr and self.height >= QR_BOX and self.width >= QR_BOX + 8 * self.cw and self._qr_view(draw, screen):
            return image
        layout = self.layout(screen)
        self._title(draw, screen.title)
        self._bar(draw, layout, screen.odds)
        y = layout.body_top
        if layout.feature:
            self._feature(draw, screen, layout, y)
            y += layout.feature_h + 2
        right = self.width - (3 if layout.bar == "edge" else 1)  # keep the highlight off the gauge
        for n, index in enumerate(layout.lines):
            self._line(draw, screen.lines[index], y + n * layout.pitch, index == screen.selected, layout.pitch,
                       right)
        if layout.paged is not None:
            self._pager(draw, layout.paged, len(layout.lines), y, self.bottom(screen))
        if screen.foot:
            self._text(draw, (0, self.height - self.ch), screen.foot[: self.width // self.cw])
        dx, dy = screen.offset
        if dx or dy:
            shifted = Image.new("1", image.size, 0)
            shifted.paste(image, (int(dx), int(dy)))
            image = shifted
        return image

    def _qr_view(self, draw: ImageDraw, screen: Screen) -> bool:
        """The QR code of ``screen.qr`` on the left, ``screen.beside`` on the right; False (and
        nothing drawn) when the code is too large for the square."""
        from hardware.display.qr import qr_matrix

        modules = qr_matrix(screen.qr)
        scale = qr_scale(len(modules))
        if scale < 1:
            return False
        size = len(modules) * scale
        margin = (QR_BOX - size) // 2
        draw.rectangle((0, 0, QR_BOX - 1, QR_BOX - 1), fill=1)  # the quiet zone is lit: dark modules show
        for r, row in enumerate(modules):
            for c, dark in enumerate(row):
                if dark:
                    x, y = margin + c * scale, margin + r * scale
                    draw.rectangle((x, y, x + scale - 1, y + scale - 1), fill=0)
        rows = screen.beside[: self.height // self.ch]
        width = max((len(line) for line in rows), default=0)
        x = QR_BOX + max(0, (self.width - QR_BOX - width * self.cw) // 2)
        top = (self.height - len(rows) * self.ch) // 2
        for n, line in enumerate(rows):
            self._text(draw, (x, top + n * self.ch), line[: (self.width - QR_BOX) // self.cw])
        return True

    # --- layout -----------------------------------------------------------------------------

    def layout(self, screen: Screen) -> _Layout:
        """Where everything goes; decided before drawing so the choice is testable."""
        dice = tuple(screen.dice)
        glyph_dice = len(dice) > 0 and len(dice) * (DIE_W + DIE_GAP) - DIE_GAP <= self.width
        big = screen.big or ""
        feature, feature_h = "", 0
        if big and glyph_dice:
            if self._big_width(big) + BIG_GAP + self._dice_width(len(dice)) <= self.width:
                feature, feature_h = "side", self.bh
            else:
                feature, feature_h = "stack", self.bh + 2 + DIE_H
        elif big:
            feature, feature_h = "big", self.bh
        elif glyph_dice:
            feature, feature_h = "dice", DIE_H
        # the dice drawn as glyphs make a "dice 3 5" text line redundant on this display
        dice_text = {"dice " + " ".join(str(d) for d in dice), " ".join(str(d) for d in dice)}
        wanted = [i for i, line in enumerate(screen.lines) if not (glyph_dice and line.strip() in dice_text)]

        bar = "wide" if screen.odds is not None else "rule"
        top = 14 if bar == "wide" else 11
        bottom = self.bottom(screen)
        room = bottom - top - (feature_h + 2 if feature else 0)
        if len(wanted) * self.ch > room and not feature:
            # seven lines: the bar's rows go to the text, the chance to a gauge up the right edge
            bar = "edge" if screen.odds is not None else "none"
            top = self.ch
            room = bottom - top
        pitch = self.ch + 1 if len(wanted) * (self.ch + 1) - 1 <= room else self.ch
        fits = max(0, (room + (pitch - self.ch)) // pitch)
        if screen.selected is None and len(wanted) > fits > 0:
            shown, paged = _page(wanted, screen.page, fits), True
        else:
            shown, paged = _window(wanted, screen.selected, fits), False
        return _Layout(bar, top, feature, feature_h, pitch, tuple(shown), glyph_dice,
                       (wanted.index(shown[0]), len(wanted)) if paged and shown else None)

    def bottom(self, screen: Screen) -> int:
        """Where the text lines end: above the foot line, if the screen has one."""
        return self.height - (self.ch if screen.foot else 0)

    def _big_width(self, text: str) -> int:
        return max(0, self.big_font.width(text) - BIG_TRAILING)

    def _dice_width(self, n: int) -> int:
        return n * (DIE_W + DIE_GAP) - DIE_GAP

    # --- drawing ----------------------------------------------------------------------------

    def _text(self, draw: ImageDraw, xy: tuple[int, int], text: str, fill: int = 1, big: bool = False) -> None:
        stamp = self._stamp(text, big)
        if stamp is not None:
            draw.bitmap(xy, stamp, fill=fill)

    def _stamp(self, text: str, big: bool) -> Image.Image | None:
        """``text`` drawn once as a 1-bit mask, kept for the next frame that shows it.

        Screens repeat most of their text from frame to frame (titles, row names, the dice
        of an animation), and stamping a kept mask costs a fifth of laying the glyphs out
        again. The same pixels as ``ImageDraw.text`` (a property test holds it to that)."""
        key = (text, big)
        stamp = self._stamps.get(key)
        if stamp is None and key not in self._stamps:
            from PIL import Image, ImageDraw

            font = self.big_font if big else self.font
            encoded = font.encode(text)
            _, _, w, h = font.font.getbbox(encoded)
            if w > 0 and h > 0:
                stamp = Image.new("1", (w, h), 0)
                ImageDraw.Draw(stamp).text((0, 0), encoded, font=font.font, fill=1)
            if len(self._stamps) >= STAMPS_KEPT:
                self._stamps.clear()  # a bounded cache: start again rather than track use
            self._stamps[key] = stamp
        return stamp

    def _title(self, draw: ImageDraw, title: str) -> None:
        self._text(draw, (0, 0), title[: self.width // self.cw])

    def _bar(self, draw: ImageDraw, layout: _Layout, odds: float | None) -> None:
        w = self.width
        if layout.bar == "rule":
            draw.line((0, 9, w - 1, 9), fill=1)
        elif layout.bar == "wide" and odds is not None:
            draw.rectangle((0, 9, w - 1, 12), outline=1, fill=0)
            filled = round(max(0.0, min(1.0, odds)) * (w - 2))
            if filled > 0:
                draw.rectangle((1, 10, filled, 11), fill=1)
        elif layout.bar == "edge" and odds is not None:
            top, bottom = layout.body_top, self.height - 1
            filled = round(max(0.0, min(1.0, odds)) * (bottom - top + 1))
            if filled > 0:
                draw.line((w - 1, bottom - filled + 1, w - 1, bottom), fill=1)
            draw.point([(w - 1, y) for y in range(bottom - filled - 1, top - 1, -2)], fill=1)

    def _line(self, draw: ImageDraw, text: str, y: int, selected: bool, pitch: int, right: int) -> None:
        if selected:
            top = y - 1 if pitch > self.ch else y
            draw.rectangle((0, top, right, y + self.ch - 1), fill=1)
        self._text(draw, (0, y), text[: self.width // self.cw], fill=0 if selected else 1)

    def _pager(self, draw: ImageDraw, paged: tuple[int, int], shown: int, top: int, bottom: int) -> None:
        """Where this page is among all of them: a 1-pixel track up the right edge of the
        text with the page's part filled, so a reader sees there is more and it will turn."""
        first, total = paged
        height = bottom - top
        start = top + first * height // total
        end = top + min(total, first + shown) * height // total - 1
        x = self.width - 1
        draw.point([(x, yy) for yy in range(top, bottom, 2)], fill=1)
        draw.line((x, start, x, max(start, end)), fill=1)

    def _feature(self, draw: ImageDraw, screen: Screen, layout: _Layout, y: int) -> None:
        big = screen.big or ""
        dice = tuple(screen.dice)
        if layout.feature == "side":
            total = self._big_width(big) + BIG_GAP + self._dice_width(len(dice))
            x = (self.width - total) // 2
            self._text(draw, (x, y), big, big=True)
            x += self._big_width(big) + BIG_GAP
            self._dice(draw, dice, x, y + (self.bh - DIE_H) // 2)
        elif layout.feature in ("big", "stack"):
            self._text(draw, ((self.width - self._big_width(big)) // 2, y), big, big=True)
            if layout.feature == "stack":
                self._dice(draw, dice, (self.width - self._dice_width(len(dice))) // 2, y + self.bh + 2)
        elif layout.feature == "dice":
            self._dice(draw, dice, (self.width - self._dice_width(len(dice))) // 2, y)

    def _dice(self, draw: ImageDraw, dice: tuple[int, ...], x: int, y: int) -> None:
        for value in dice:
            _die(draw, x, y)
            label = str(value)
            tw = len(label) * self.cw - 1
            self._text(draw, (x + (DIE_W - tw + 1) // 2, y + (DIE_H - 7) // 2), label)
            x += DIE_W + DIE_GAP


def _die(draw: ImageDraw, x: int, y: int) -> None:
    """A die outline with cut corners."""
    r, b = x + DIE_W - 1, y + DIE_H - 1
    draw.line((x + 1, y, r - 1, y), fill=1)
    draw.line((x + 1, b, r - 1, b), fill=1)
    draw.line((x, y + 1, x, b - 1), fill=1)
    draw.line((r, y + 1, r, b - 1), fill=1)


def _page(indices: list[int], page: int, fits: int) -> list[int]:
    """Page ``page`` (going round) of ``indices``, ``fits`` to a page."""
    count = -(-len(indices) // fits)
    start = (page % count) * fits
    return indices[start : start + fits]


def _window(indices: list[int], selected: int | None, fits: int) -> list[int]:
    """At most ``fits`` of ``indices``, from the top, moved down just enough to show ``selected``."""
    if len(indices) <= fits:
        return indices
    start = 0
    if selected is not None and selected in indices:
        pos = indices.index(selected)
        if pos >= fits:
            start = pos - fits + 1
    return indices[start : start + fits]


def to_text_blocks(image: Image.Image, *, quadrants: bool = False) -> list[str]:
    """A 1-bit image as Unicode block characters: half blocks (one character per 1x2 pixels),
    or with ``quadrants`` one character per 2x2 pixels for narrow terminals."""
    w, h = image.size
    px = image.load()
    if px is None:  # Pillow has no pixel access only for an image without pixels
        raise ValueError(f"cannot read the pixels of {image!r}")
    rows: list[str] = []
    if not quadrants:
        for y in range(0, h, 2):
            row = []
            for x in range(w):
                top = bool(px[x, y])
                bottom = bool(px[x, y + 1]) if y + 1 < h else False
                row.append(_HALF[(top, bottom)])
            rows.append("".join(row))
        return rows
    for y in range(0, h, 2):
        row = []
        for x in range(0, w, 2):
            bits = 0
            for n, (dx, dy) in enumerate(((0, 0), (1, 0), (0, 1), (1, 1))):
                xx, yy = x + dx, y + dy
                if xx < w and yy < h and px[xx, yy]:
                    bits |= 1 << n
            row.append(_QUAD[bits])
        rows.append("".join(row))
    return rows


_HALF = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}
# bit 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right
_QUAD = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"
