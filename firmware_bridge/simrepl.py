"""MicroPython's REPL as the twin shows it once the bridge has handed the port over
(EXIT_TO_REPL, safe mode's Ctrl-C, a safe boot): the friendly and the raw REPL with their exact
prompts and control characters, Ctrl-D's soft reset, and the raw REPL's code execution, so the
real ``mpremote`` can copy files to the twin's flash and reset it.

Ctrl-A enters the raw REPL (``raw REPL; CTRL-B to exit`` then ``>``), Ctrl-B leaves it, Ctrl-C
clears the line, and Ctrl-D on an empty line soft-resets: ``MPY: soft reboot``, timers stop,
and in the friendly REPL ``main.py`` runs again (the bridge restarts), in the raw REPL it does
not (MicroPython's ports/rp2/main.c), which is why mpremote can copy files. In the raw REPL,
Ctrl-D after code runs it (``OK``, its output, 0x04, its error, 0x04, ``>``), as mpremote's
``exec`` expects; the raw-paste request (0x05 ``A`` 0x01) is answered ``R\\x00`` (understood,
not supported), so mpremote falls back to the plain raw REPL. The code runs under CPython
against the simulated Pico (:mod:`firmware_bridge.siminterp`).
"""

from __future__ import annotations

from collections.abc import Callable

from firmware_bridge.siminterp import Interpreter

CTRL_A, CTRL_B, CTRL_C, CTRL_D, CTRL_E = 1, 2, 3, 4, 5
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"


class SimRepl:
    """The REPL on the twin's port: ``feed`` takes the bytes the host typed; ``write`` sends
    the REPL's answers; ``soft_reset(raw)`` is called for Ctrl-D on an empty line; code runs in
    ``interp`` (the twin replaces it at every soft reset)."""

    def __init__(self, write: Callable[[bytes], object], soft_reset: Callable[[bool], None], machine: str,
                 interp: Interpreter | None = None) -> None:
        self.write = write
        self.soft_reset = soft_reset
        self.machine = machine
        self.interp = interp
        self.raw = False
        self.line = bytearray()
        self.soft_resets = 0
        self.executed = 0  # raw-REPL runs (mpremote's commands)
        self._paste = b""  # the raw-paste request read so far

    def banner(self) -> bytes:
        return (f"MicroPython v1.27.0 on 2025-12-10; {self.machine} (dicetower twin)\r\n"
                'Type "help()" for more information.\r\n>>> ').encode()

    def start(self) -> None:
        """What the Pico prints when main.py ends: the friendly REPL's banner."""
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
            self.write(b"\r\n")
            if line.strip():
                text = line.decode("utf-8", "replace")
                self.write((self.interp.interactive(text) if self.interp else "no interpreter\r\n").encode())
            self.write(b">>> ")
        elif c in (8, 127):
            if self.line:
                self.line.pop()
                self.write(b"\x08 \x08")
        elif c >= 32:
            self.line.append(c)
            self.write(bytes((c,)))

    def _raw(self, c: int) -> None:
        if self._paste or (c == CTRL_E and not self.line):
            self._paste += bytes((c,))
            if self._paste == b"\x05A\x01":
                self._paste = b""
                self.write(b"R\x00")  # raw paste understood, not supported: the plain raw REPL
            elif not b"\x05A\x01".startswith(self._paste):
                self.line.extend(self._paste)
                self._paste = b""
            return
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
            if not line:
                self.write(b"OK\r\n")
                self._soft_reset()
                return
            self.write(b"OK")
            self.executed += 1
            error = self.interp.execute(line.decode("utf-8", "replace")) if self.interp else "no interpreter\r\n"
            self.write(b"\x04" + error.encode() + b"\x04>")
        else:
            self.line.append(c)

    def _soft_reset(self) -> None:
        self.soft_resets += 1
        self.write(b"MPY: soft reboot\r\n")
        self.soft_reset(self.raw)
        if self.raw:
            self.write(RAW_BANNER + b">")
