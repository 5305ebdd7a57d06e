"""The terminal as the tower's display: each screen as a small box of text.

On a TTY the box is redrawn in place; otherwise (a log, a pipe) each new screen is appended,
so the output reads as a transcript.
"""

from __future__ import annotations

import sys
from typing import TextIO

from engine.panel.model import Screen

WIDTH = 21


def text_box(screen: Screen, width: int = WIDTH) -> list[str]:
    rows = screen.text()
    first = 2 if screen.big else 1  # where ``lines`` start in ``rows`` (a foot comes after them)
    out = ["┌" + "─" * width + "┐"]
    for i, row in enumerate(rows):
        mark = "▌" if screen.selected is not None and i - first == screen.selected else "│"
        out.append(mark + row[:width].ljust(width) + "│")
    if screen.odds is not None:
        filled = round(max(0.0, min(1.0, screen.odds)) * width)
        out.append("│" + "█" * filled + "░" * (width - filled) + "│")
    out.append("└" + "─" * width + "┘")
    return out


class TerminalDisplay:
    def __init__(self, *, stream: TextIO | None = None, in_place: bool | None = None) -> None:
        self.stream = stream or sys.stdout
        self.in_place = self.stream.isatty() if in_place is None else in_place
        self._height = 0
        self.shown: list[str] | None = None

    def show(self, screen: Screen) -> None:
        box = text_box(screen)
        if box == self.shown:
            return
        if self.in_place and self._height:
            self.stream.write(f"\x1b[{self._height}F\x1b[J")  # up to the box's first line, clear below
        self.stream.write("\n".join(box) + "\n")
        self.stream.flush()
        self._height = len(box)
        self.shown = box

    def clear(self) -> None:
        if self.in_place and self._height:
            self.stream.write(f"\x1b[{self._height}F\x1b[J")
            self.stream.flush()
        self._height = 0
        self.shown = None

    def close(self) -> None:
        self.clear()
