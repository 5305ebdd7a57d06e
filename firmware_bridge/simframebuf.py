"""MicroPython's ``framebuf`` for the twin: a MONO_VLSB frame buffer over the caller's bytearray
(the SSD1306 layout: one byte is eight pixels of a column, top pixel in bit 0).

Text is drawn as MicroPython's ``framebuf.text`` draws it, checked against real MicroPython
(tests/firmware_bridge/test_micropython.py): its own 8x8 font, one cell per byte of the
string's UTF-8 form, a checkered box for every byte outside 32..126 (so "é" is two boxes),
drawing stops at a NUL, and cells are clipped at the edges.
"""

from __future__ import annotations

import types

from firmware_bridge.petme128 import glyph

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
        for code in s.encode("utf-8", "surrogatepass"):
            if code == 0:
                break  # MicroPython walks a C string
            for column in glyph(code):
                if 0 <= x < self.width:
                    yy = y
                    while column:
                        if column & 1:
                            self.pixel(x, yy, c)
                        column >>= 1
                        yy += 1
                x += 1


def module() -> types.ModuleType:
    m = types.ModuleType("framebuf")
    vars(m).update(FrameBuffer=FrameBuffer, MONO_VLSB=MONO_VLSB)
    return m
