"""The firmware twin: the real firmware files under CPython on a :class:`SimBoard`, attached to
one end of a real pty, so a host talks to it exactly as to a board on /dev/ttyACM0.

Each twin loads its own copies of the firmware modules (``main``, ``bridge``, ``codec``...)
with an import hook that hands them the simulated ``machine``, ``time``, ``micropython`` and
``framebuf``; nothing is put into ``sys.modules``. ``unplug()`` closes the pty (the host's
reads fail as when a USB cable is pulled) and ``plug()`` starts a fresh board (a new boot id)
on a new pty. ``noise`` corrupts that fraction of the bytes on the line, in both directions.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import random
import threading
import tty
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge.errors import BridgeError
from firmware_bridge.firmware import codec
from firmware_bridge.simboard import SimBoard

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"


def load_firmware(sim_modules: dict[str, types.ModuleType]) -> dict[str, types.ModuleType]:
    """The firmware's modules, loaded on demand, each seeing ``sim_modules`` as MicroPython's."""
    loaded: dict[str, types.ModuleType] = {}

    def _import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level == 0:
            if name in sim_modules:
                return sim_modules[name]
            if name in loaded:
                return loaded[name]
            if (FIRMWARE_DIR / f"{name}.py").is_file():
                return load(name)
        return builtins.__import__(name, globals, locals, fromlist, level)

    hooked = dict(vars(builtins), __import__=_import)

    def load(name: str) -> types.ModuleType:
        path = FIRMWARE_DIR / f"{name}.py"
        module = types.ModuleType(name)
        module.__file__ = str(path)
        module.__dict__["__builtins__"] = hooked
        loaded[name] = module
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
        return module

    load("main")
    return loaded


class NoisyLine:
    """Corrupts a fraction ``p`` of the bytes passing: flips a bit, drops, duplicates, or
    inserts a garbage byte before it (each a quarter of the faults)."""

    def __init__(self, p: float, rng: random.Random) -> None:
        if not 0 <= p < 1:
            raise ValueError(f"noise must be a fraction from 0 up to 1, got {p}")
        self.p = p
        self.rng = rng
        self.faults = 0

    def __call__(self, data: bytes) -> bytes:
        if not self.p:
            return data
        out = bytearray()
        rng = self.rng
        for b in data:
            if rng.random() >= self.p:
                out.append(b)
                continue
            self.faults += 1
            fault = rng.randrange(4)
            if fault == 0:
                out.append(b ^ (1 << rng.randrange(8)))
            elif fault == 2:
                out += bytes((b, b))
            elif fault == 3:
                out += bytes((rng.randrange(256), b))
        return bytes(out)


class PtyPort:
    """The firmware's byte port on the master end of a pty (non-blocking, like the USB CDC:
    a write that does not fit is dropped)."""

    def __init__(self, fd: int, line_in: Callable[[bytes], bytes], line_out: Callable[[bytes], bytes]) -> None:
        self.fd = fd
        self.line_in = line_in
        self.line_out = line_out
        self.rx_bytes = 0
        self.drop: Callable[[bytes], bool] | None = None

    def read(self) -> bytes:
        try:
            data = os.read(self.fd, 256)
        except (BlockingIOError, OSError):  # EIO while no host has the port open
            return b""
        self.rx_bytes += len(data)
        return self.line_in(data)

    def write(self, data: bytes) -> int:
        if self.drop is not None and self.drop(bytes(data)):
            return len(data)  # lost on the line
        sent = self.line_out(bytes(data))
        try:
            written = os.write(self.fd, sent) if sent else 0
        except OSError:  # EAGAIN: the host is not reading and the pty's buffer is full
            return 0
        return len(data) if written == len(sent) else written


class Twin:
    """A simulated Pico running the real firmware on a pty; ``port`` is the path to open."""

    def __init__(self, *, noise: float = 0.0, seed: int | None = None,
                 rosc_bits: Callable[[], int] | None = None) -> None:
        self.noise = noise
        self.rng = random.Random(seed)
        self.rosc_bits = rosc_bits
        self.board: SimBoard | None = None
        self.bridge: Any = None
        self.modules: dict[str, types.ModuleType] = {}
        self.port: str | None = None
        self.boots = 0
        self.line_faults = 0
        self._fds: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._paused = threading.Event()
        self._lines: list[NoisyLine] = []
        self._drop_kinds: list[int] = []
        self.dropped: list[int] = []

    # -- plugging ------------------------------------------------------------------------------
    def plug(self) -> str:
        """Power up a fresh board on a new pty; returns the pty's path."""
        if self._thread is not None:
            raise BridgeError("the twin is already plugged in")
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: a USB CDC port passes bytes as they are
        os.set_blocking(master, False)
        self._fds = (master, slave)
        self.port = os.ttyname(slave)
        self.board = SimBoard(rosc_bits=self.rosc_bits)
        self.modules = load_firmware(self.board.modules())
        self._lines = [NoisyLine(self.noise, self.rng), NoisyLine(self.noise, self.rng)]
        port = PtyPort(master, self._lines[0], self._lines[1])
        port.drop = self._drop_frame
        self.bridge = self.modules["main"].start(port)
        if self.bridge is None:
            raise BridgeError("the twin's board booted into safe mode")
        self.boots += 1
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="bridge-twin", daemon=True)
        self._thread.start()
        return self.port

    def unplug(self) -> None:
        """Stop the board and close the pty: the host's port fails as when the cable is pulled."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=5)
        self.line_faults += sum(line.faults for line in self._lines)
        fds, self._fds = self._fds, None
        if fds is not None:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def replug(self) -> str:
        self.unplug()
        return self.plug()

    def close(self) -> None:
        self.unplug()

    def __enter__(self) -> Twin:
        if self._thread is None:
            self.plug()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def find(self) -> str | None:
        """The current port (what a host's board finder sees), None while unplugged."""
        return self.port if self._thread is not None else None

    # -- the board's loop --------------------------------------------------------------------
    def pause(self, paused: bool = True) -> None:
        """Freeze the board's loop (a board that stopped answering), or let it run again."""
        if paused:
            self._paused.set()
        else:
            self._paused.clear()

    def drop_next(self, kind: int) -> None:
        """Lose the board's next frame of this type on the line (a fault the test aims)."""
        self._drop_kinds.append(kind)

    def _drop_frame(self, wire: bytes) -> bool:
        if not self._drop_kinds:
            return False
        frame = codec.parse(wire[:-1])
        if frame is None or frame[1] not in self._drop_kinds:
            return False
        self._drop_kinds.remove(frame[1])
        self.dropped.append(frame[1])
        return True

    def _run(self) -> None:
        bridge = self.bridge
        while not self._stop.is_set() and not bridge.exit:
            if self._paused.is_set():
                self._stop.wait(0.01)
                continue
            if not bridge.step():
                self._stop.wait(0.0005)

    # -- the outside world -------------------------------------------------------------------
    def press(self, pin: int, down: bool = True) -> None:
        """A button to ground on ``pin`` pressed (pulled low) or released (floats high)."""
        self._board().drive(pin, 0 if down else None)

    def level(self, pin: int) -> float:
        return self._board().level(pin)

    @property
    def faults(self) -> int:
        return self.line_faults + sum(line.faults for line in self._lines)

    def _board(self) -> SimBoard:
        if self.board is None:
            raise BridgeError("the twin is not plugged in")
        return self.board
