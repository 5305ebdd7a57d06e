"""MicroPython's REPL as the twin shows it once the bridge has handed the port over
(EXIT_TO_REPL): the friendly and the raw REPL's control characters, their exact prompts, and
Ctrl-D's soft reset, so a host or an ``mpremote``-like tool can be tried against it. It runs
no Python: code sent to it gets an error back, as a failing command would on a board.

Ctrl-A enters the raw REPL (``raw REPL; CTRL-B to exit`` then ``>``), Ctrl-B leaves it, Ctrl-C
clears the line, and Ctrl-D on an empty line soft-resets: ``MPY: soft reboot``, timers stop,
and in the friendly REPL ``main.py`` runs again (the bridge restarts), in the raw REPL it
does not (MicroPython's ports/rp2/main.c), which is why mpremote can copy files.
"""

from __future__ import annotations

from collections.abc import Callable

CTRL_A, CTRL_B, CTRL_C, CTRL_D = 1, 2, 3, 4
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"
NO_CODE = b"NotImplementedError: the dicetower twin's REPL runs no code\r\n"


class SimRepl:
    """The REPL on the twin's port: ``feed`` takes the bytes the host typed; ``write`` sends
    the REPL's answers; ``soft_reset(raw)`` is called for Ctrl-D on an empty line."""

    def __init__(self, write: Callable[[bytes], object], soft_reset: Callable[[bool], None], machine: str) -> None:
        self.write = write
        self.soft_reset = soft_reset
        self.machine = machine
        self.raw = False
        self.line = bytearray()
        self.soft_resets = 0

    def banner(self) -> bytes:
        return (f"MicroPython v1.27.0 on 2025-12-10; {self.machine} (dicetower twin)\r\n"
                'Type "help()" for more information.\r\n>>> ').encode()

    def start(self) -> None:
        """What the board prints when main.py ends: the friendly REPL's banner."""
        self.raw = False
        self.line.clear()
        self.write(self.banner())

    def feed(self, data: bytes) -> None:
        for c in data:
            if self.raw:
                self._raw(c)
            else:
                self._friendly(c)

    def _friendly(self, c: int) -> None:
        if c == CTRL_A:
            self.raw = True
            self.line.clear()
            self.write(b"\r\n" + RAW_BANNER + b">")
        elif c == CTRL_B:
            self.line.clear()
            self.write(b"\r\n" + self.banner())
        elif c == CTRL_C:
            self.line.clear()
            self.write(b"\r\n>>> ")
        elif c == CTRL_D:
            if not self.line:
                self.write(b"\r\n")
                self._soft_reset()
        elif c == 13:
            line, self.line = bytes(self.line), bytearray()
            self.write(b"\r\n" + (b"" if not line.strip() else b"Traceback (most recent call last):\r\n"
                                  b'  File "<stdin>", line 1, in <module>\r\n' + NO_CODE) + b">>> ")
        elif c >= 32:
            self.line.append(c)
            self.write(bytes((c,)))

    def _raw(self, c: int) -> None:
        if c == CTRL_A:
            self.line.clear()
            self.write(RAW_BANNER + b">")
        elif c == CTRL_B:
            self.raw = False
            self.line.clear()
            self.write(b"\r\n" + self.banner())
        elif c == CTRL_C:
            self.line.clear()
        elif c == CTRL_D:
            line, self.line = bytes(self.line), bytearray()
            self.write(b"OK")
            if not line:
                self.write(b"\r\n")
                self._soft_reset()
            else:  # the output, 0x04, the exception, 0x04, then the prompt
                self.write(b"\x04" + NO_CODE + b"\x04>")
        else:
            self.line.append(c)

    def _soft_reset(self) -> None:
        self.soft_resets += 1
        self.write(b"MPY: soft reboot\r\n")
        self.soft_reset(self.raw)
        if self.raw:
            self.write(RAW_BANNER + b">")
