"""MicroPython's ``framebuf`` for the twin: a MONO_VLSB frame buffer over the caller's bytearray
(the SSD1306 layout: one byte is eight pixels of a column, top pixel in bit 0).

Text is drawn with Pillow's built-in bitmap font, not MicroPython's 8x8 font, so a twin's
text looks a little different from a board's (the host normally sends whole pages anyway).
"""

from __future__ import annotations

import types

MONO_VLSB = 0


class FrameBuffer:
    def __init__(self, buf: bytearray, width: int, height: int, fmt: int) -> None:
        if fmt != MONO_VLSB:
            raise ValueError("the twin's framebuf has MONO_VLSB only")
        self.buf = buf
        self.width = width
        self.height = height

    def pixel(self, x: int, y: int, c: int | None = None) -> int | None:
        if not (0 <= x < self.width and 0 <= y < self.height):
            return None
        at = (y // 8) * self.width + x
        if c is None:
            return (self.buf[at] >> (y % 8)) & 1
        if c:
            self.buf[at] |= 1 << (y % 8)
        else:
            self.buf[at] &= ~(1 << (y % 8)) & 0xFF
        return None

    def fill(self, c: int) -> None:
        self.buf[:] = bytes([0xFF if c else 0]) * len(self.buf)

    def fill_rect(self, x: int, y: int, w: int, h: int, c: int) -> None:
        for yy in range(max(0, y), min(self.height, y + h)):
            for xx in range(max(0, x), min(self.width, x + w)):
                self.pixel(xx, yy, c)

    def text(self, s: str, x: int, y: int, c: int = 1) -> None:
        from PIL import Image, ImageDraw, ImageFont

        loader = getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)
        font = loader()
        img = Image.new("1", (8 * len(s), 8), 0)
        ImageDraw.Draw(img).text((0, -2), s, fill=1, font=font)
        for yy in range(8):
            for xx in range(img.width):
                if img.getpixel((xx, yy)):
                    self.pixel(x + xx, y + yy, c)


def module() -> types.ModuleType:
    m = types.ModuleType("framebuf")
    m.FrameBuffer = FrameBuffer  # type: ignore[attr-defined]
    m.MONO_VLSB = MONO_VLSB  # type: ignore[attr-defined]
    return m
