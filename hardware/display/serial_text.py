"""A character display on a serial port: 16x2/20x4 LCD backpacks or a plain terminal.

The panel's screens put the most important text first (title, then the big word or the first
line), so a two-line LCD shows :meth:`Screen.text`'s first two rows. Each frame rewrites
every row padded to the width, so nothing is left over from the frame before, and is sent
only when the text changed: at 9600 baud a 16x2 frame takes about 40 ms.

Command sets: ``matrix-orbital`` (also the Adafruit USB/serial LCD backpack), ``sparkfun``
(SerLCD), ``ansi`` (a VT100-style terminal on the port) and ``plain`` (lines of text).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from engine.panel.model import Screen

#: Characters a character LCD lacks, as ASCII (others lose their accents or become '?').
ASCII = {
    "≥": ">=", "≤": "<=", "≠": "!=", "±": "+-", "×": "x", "÷": "/", "…": "...", "–": "-", "—": "-",
    "→": ">", "←": "<", "↑": "^", "↓": "v", "▶": ">", "◀": "<", "•": "*", "·": ".", "°": "o",
    "✓": "v", "✗": "x", "★": "*", "♥": "<3", "█": "#",
}

# SerLCD row start addresses (HD44780 DDRAM) for 16- and 20-column panels
_SPARKFUN_ROWS = {16: (0, 64, 16, 80), 20: (0, 64, 20, 84)}


def to_ascii(text: str) -> str:
    out = []
    for ch in text:
        if " " <= ch <= "~":
            out.append(ch)
        elif ch in ASCII:
            out.append(ASCII[ch])
        else:
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
            out.append(base if base and all(" " <= c <= "~" for c in base) else "?")
    return "".join(out)


def frame_rows(screen: Screen, cols: int, rows: int) -> list[str]:
    """The rows a ``cols`` x ``rows`` character display shows for ``screen``."""
    text = [to_ascii(line)[:cols].ljust(cols) for line in screen.text()]
    text = text[:rows]
    return text + [" " * cols] * (rows - len(text))


class SerialTextDisplay:
    """Screens as text on a serial character display.

    ``port`` is an open pyserial port (``serial.serial_for_url("loop://")`` in tests) or a
    port name/URL to open at ``baudrate``. Errors (``SerialException`` is an ``OSError``) are
    left to :class:`hardware.display.ResilientDisplay`.
    """

    def __init__(self, *, port: Any, cols: int = 16, rows: int = 2, protocol: str = "matrix-orbital",
                 baudrate: int = 9600) -> None:
        if isinstance(port, str):
            import serial

            port = serial.serial_for_url(port, baudrate=baudrate, timeout=0, write_timeout=1)
        self.port = port
        self.cols = cols
        self.rows = rows
        self.protocol = protocol
        self.shown: list[str] | None = None
        self._brightness: int | None = None
        self._start()

    def _start(self) -> None:
        if self.protocol == "ansi":
            self.port.write(b"\x1b[2J\x1b[H\x1b[?25l")  # clear, home, hide the cursor
        elif self.protocol == "matrix-orbital":
            self.port.write(b"\xfe\x58\xfe\x54")  # clear, cursor blink off
        elif self.protocol == "sparkfun":
            self.port.write(b"\xfe\x01")
        self.port.flush()

    def show(self, screen: Screen) -> None:
        rows = frame_rows(screen, self.cols, self.rows)
        level = max(0, min(255, round(screen.contrast * 255)))
        if rows == self.shown and level == self._brightness:
            return
        data = bytearray()
        if level != self._brightness:
            data += self._backlight(level)
        for i, row in enumerate(rows):
            data += self._goto(i) + row.encode("ascii")
            if self.protocol in ("ansi", "plain"):
                data += b"\r\n"
        if self.protocol == "plain":
            data += b"\r\n"  # a blank line between frames
        self.port.write(bytes(data))
        self.port.flush()
        self.shown = rows
        self._brightness = level

    def _goto(self, row: int) -> bytes:
        if self.protocol == "matrix-orbital":
            return bytes((0xFE, 0x47, 1, row + 1))
        if self.protocol == "sparkfun":
            starts = _SPARKFUN_ROWS.get(self.cols, _SPARKFUN_ROWS[16])
            return bytes((0xFE, 0x80 + starts[row % 4]))
        if self.protocol == "ansi":
            return f"\x1b[{row + 1};1H".encode("ascii")
        return b""

    def _backlight(self, level: int) -> bytes:
        if self.protocol == "matrix-orbital":
            return bytes((0xFE, 0x99, level))
        if self.protocol == "sparkfun":
            return bytes((0x7C, 128 + round(level * 29 / 255)))
        return b""

    def clear(self) -> None:
        if self.protocol == "matrix-orbital":
            self.port.write(b"\xfe\x58")
        elif self.protocol == "sparkfun":
            self.port.write(b"\xfe\x01")
        elif self.protocol == "ansi":
            self.port.write(b"\x1b[2J\x1b[H\x1b[?25h")
        self.port.flush()
        self.shown = None

    def close(self) -> None:
        try:
            self.clear()
        finally:
            self.port.close()
