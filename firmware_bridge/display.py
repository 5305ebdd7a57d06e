"""The Pico's SSD1306 as a luma-style device: ``display(image)`` sends only the bytes of the
1-bit frame that changed since the last one (in pieces of at most :data:`PIECE` bytes, so a
noisy line still gets them through), ``contrast``, ``show``/``hide``, ``clear``, ``cleanup``.

The frame is kept here: after the Pico rebooted (a new boot id) it is set up and sent again
whole. Link failures are ``BridgeError`` (an ``OSError``), which the tower's resilient display
treats like a pulled I2C cable: it carries on and retries.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from firmware_bridge.firmware import codec
from firmware_bridge.link import Hello, Link

PIECE = 64


def pages_of(image: Any, width: int, height: int) -> bytes:
    """A mode-"1" PIL image as SSD1306 pages: byte ``page * width + x`` holds pixels
    ``(x, 8 * page) .. (x, 8 * page + 7)``, the top one in bit 0."""
    image = image.convert("1")
    pixels = image.load()
    out = bytearray(width * (height // 8))
    for y in range(height):
        bit = 1 << (y % 8)
        row = (y // 8) * width
        for x in range(width):
            if pixels[x, y]:
                out[row + x] |= bit
    return bytes(out)


def changed_spans(old: bytes, new: bytes, piece: int = PIECE) -> list[tuple[int, bytes]]:
    """``(offset, bytes)`` runs where ``new`` differs from ``old`` (a single unchanged byte
    between two changes is sent along rather than starting a new request), each at most
    ``piece`` bytes; offsets are into the whole frame."""
    spans: list[tuple[int, bytes]] = []
    i, n = 0, len(new)
    while i < n:
        if old[i] == new[i]:
            i += 1
            continue
        j = i
        while j < n and j - i < piece and (old[j] != new[j] or (j + 1 < n and old[j + 1] != new[j + 1])):
            j += 1
        spans.append((i, new[i:j]))
        i = j
    return spans


class BridgeOled:
    """A luma-like device on the Pico's OLED (I2C0, GP8/GP9)."""

    def __init__(self, link: Link, *, width: int = 128, height: int = 64, address: int = 0x3C) -> None:
        self.link = link
        self.width = width
        self.height = height
        self.size = (width, height)
        self.mode = "1"
        self.address = address
        self._frame = bytes(width * height // 8)  # what we want shown
        self._sent: bytes | None = None  # what the Pico has (None: set it up first)
        self._contrast = 0xFF
        self._lock = threading.Lock()
        self.bytes_sent = 0
        link.on_connect(self._reconnected)

    def _setup(self) -> bytes:
        """Set the Pico's display up; returns what it then shows (a cleared frame)."""
        self.link.request(codec.DISPLAY_INIT, bytes((self.width, self.height, self.address)))
        self.link.request(codec.DISPLAY_SHOW, bytes((self._contrast, 1)))
        self._sent = bytes(len(self._frame))  # the Pico clears its frame when set up
        return self._sent

    def _push(self) -> None:
        old = self._sent if self._sent is not None else self._setup()
        for offset, data in changed_spans(old, self._frame):
            page, col = divmod(offset, self.width)
            self.link.request(codec.DISPLAY_PAGES, bytes((page, col)) + data)
            self.bytes_sent += len(data)
        self._sent = self._frame

    def display(self, image: Any) -> None:
        with self._lock:
            self._frame = pages_of(image, self.width, self.height)
            self._push()

    def _reconnected(self, hello: Hello, new_boot: bool) -> None:
        if not new_boot:
            return
        with self._lock:
            self._sent = None
            with contextlib.suppress(OSError):  # the next display() or the tower's retry sends it
                self._push()

    def contrast(self, level: int) -> None:
        with self._lock:
            self._contrast = max(0, min(255, int(level)))
            if self._sent is None:
                self._setup()
            self.link.request(codec.DISPLAY_SHOW, bytes((self._contrast, 1)))

    def show(self) -> None:
        self.link.request(codec.DISPLAY_SHOW, bytes((self._contrast, 1)))

    def hide(self) -> None:
        self.link.request(codec.DISPLAY_SHOW, bytes((self._contrast, 0)))

    def clear(self) -> None:
        with self._lock:
            self._frame = bytes(len(self._frame))
            self._push()

    def cleanup(self) -> None:
        self.hide()
