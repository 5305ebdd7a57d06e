"""The firmware twin: the real firmware files under CPython on a :class:`SimPico`, attached to
one end of a real pty, so a host talks to it exactly as to a Pico on /dev/ttyACM0.

Each twin loads its own copies of the firmware modules (``main``, ``bridge``, ``codec``...)
with an import hook that hands them the simulated ``machine``, ``time``, ``micropython``,
``framebuf`` and ``os``; nothing is put into ``sys.modules``. ``unplug()`` closes the pty (the
host's reads fail as when a USB cable is pulled) and ``plug()`` starts a fresh Pico (a new
boot id) on a new pty. ``noise`` corrupts that fraction of the bytes on the line, in both
directions.

The Pico's life is modelled as far as a host can tell: the watchdog fires when the loop stops
feeding it (``pause()`` for longer than 4 s, or a REPL left with it armed) and reboots the Pico
in place (a new boot id, heartbeat flag 0); ``machine.reset()`` (the RESET request) does the
same; after EXIT_TO_REPL the port speaks MicroPython's REPL (:mod:`firmware_bridge.simrepl`),
whose Ctrl-D soft reset stops the timers and, in the friendly REPL only, runs ``main.py`` again.
A real Pico re-enumerates on USB when it resets; the twin keeps its pty.

``python -m firmware_bridge.twin`` starts one and prints its port (docs/bridge.md, section 8).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
import tty
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from firmware_bridge.errors import BridgeError
from firmware_bridge.firmware import codec
from firmware_bridge.siminterp import Flash, Interpreter, NoFlash
from firmware_bridge.simpico import PWRON_RESET, WDT_RESET, SimPico, SimReset, urandom_bits
from firmware_bridge.simrepl import CTRL_C, SimRepl

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"


def _pattern(bits: str) -> Callable[[], Callable[[], int]]:
    def make() -> Callable[[], int]:
        at = [0]

        def bit() -> int:
            at[0] += 1
            return int(bits[(at[0] - 1) % len(bits)])

        return bit

    return make


def _sticky(p_same: float, seed: int | None = None) -> Callable[[], Callable[[], int]]:
    def make() -> Callable[[], int]:
        rng = random.Random(seed)
        last = [rng.getrandbits(1)]

        def bit() -> int:
            if rng.random() >= p_same:
                last[0] ^= 1
            return last[0]

        return bit

    return make


def _lcg() -> Callable[[], int]:
    """The top bit of a 32-bit linear congruential generator (Numerical Recipes' constants)."""
    state = [12345]

    def bit() -> int:
        state[0] = (1664525 * state[0] + 1013904223) & 0xFFFFFFFF
        return state[0] >> 31

    return bit


def _lfsr(degree: int = 9689, tap: int = 84) -> Callable[[], int]:
    """A Fibonacci shift register, x^9689 + x^84 + 1, longer than an estimator window: run past
    its seed, every bit is the XOR of two bits too far back for a window to see."""
    rng = random.Random(5)
    reg = [rng.getrandbits(1) for _ in range(degree)]
    at = [0]

    def step() -> int:
        i = at[0]
        new = reg[i % degree] ^ reg[(i + tap) % degree]
        reg[i % degree] = new
        at[0] += 1
        return new

    for _ in range(2 * degree):
        step()
    return step


#: Ring-oscillator models for the twin (``--rosc``): what the firmware's RANDOMBIT reads give.
ROSC_MODELS: dict[str, tuple[str, Callable[[], Callable[[], int]]]] = {
    "urandom": ("unbiased bits from the OS (the default: a stand-in, not a noise source)", urandom_bits),
    "sticky": ("each bit repeats the last with probability 0.8 (an oscillator sampled too fast)", _sticky(0.8)),
    "stuck": ("every bit 1 (a dead oscillator)", _pattern("1")),
    "alternating": ("0, 1, 0, 1, ... (fully predictable)", _pattern("01")),
    "period7": ("the 7-bit pattern 1101000 over and over (fully predictable)", _pattern("1101000")),
    "lcg": ("the top bit of a 32-bit LCG: an algorithm, fully predictable, that passes every test", _lcg),
    "lfsr": ("a 9689-bit shift register (x^9689 + x^84 + 1): an algorithm that passes every test", _lfsr),
}


def load_firmware(sim_modules: dict[str, types.ModuleType], directory: Path | None = None, *,
                  flash: Flash | NoFlash | None = None,
                  write: Callable[[bytes], object] | None = None) -> dict[str, types.ModuleType]:
    """The firmware's modules from ``directory`` (the checkout's by default), loaded on demand,
    each seeing ``sim_modules`` as MicroPython's; ``main`` is loaded at once."""
    interp = Interpreter(sim_modules, directory or FIRMWARE_DIR, flash or NoFlash(), write)
    interp.load("main")
    return interp.modules


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


class SimInterrupt(BaseException):
    """Ctrl-C reached a Pico whose Ctrl-C is live (``micropython.kbd_intr(3)``): MicroPython's
    KeyboardInterrupt in whatever runs (safe mode's loop)."""


class PtyPort:
    """The firmware's byte port on the master end of a pty (non-blocking, like the USB CDC:
    a write that does not fit is dropped). While ``interrupt()`` says Ctrl-C is live, a 0x03
    read raises :class:`SimInterrupt`, and the bytes after it wait in ``after_interrupt`` (as
    MicroPython's USB CDC empties its input at Ctrl-C and keeps what follows)."""

    def __init__(self, fd: int, line_in: Callable[[bytes], bytes], line_out: Callable[[bytes], bytes]) -> None:
        self.fd = fd
        self.line_in = line_in
        self.line_out = line_out
        self.rx_bytes = 0
        self.drop: Callable[[bytes], bytes | None] | None = None  # a frame as sent -> as the line carries it
        self.interrupt: Callable[[], bool] = lambda: False
        self.after_interrupt = b""

    def read(self) -> bytes:
        try:
            data = os.read(self.fd, 256)
        except (BlockingIOError, OSError):  # EIO while no host has the port open
            return b""
        self.rx_bytes += len(data)
        data = self.line_in(data)
        if CTRL_C in data and self.interrupt():
            self.after_interrupt = data[data.rindex(CTRL_C) + 1 :]
            raise SimInterrupt()
        return data

    def write(self, data: bytes) -> int:
        wire: bytes | None = bytes(data)
        if self.drop is not None:
            wire = self.drop(bytes(data))
            if wire is None:
                return len(data)  # lost on the line
        sent = self.line_out(wire or b"")
        try:
            written = os.write(self.fd, sent) if sent else 0
        except OSError:  # EAGAIN: the host is not reading and the pty's buffer is full
            return 0
        return len(data) if written == len(sent) else written


#: The Pico's frames by name, for ``drop``/``corrupt`` (the twin's commands).
FRAME_KINDS = {"any": None, "reply": -1, "heartbeat": codec.EV_HEARTBEAT, "edge": codec.EV_EDGE,
               "entropy": codec.EV_ENTROPY}


class FirmwareLoop(Protocol):
    """What the twin asks of the firmware's running loop, ``bridge.Bridge`` or ``main.Safe``
    (MicroPython code the twin loads by ``exec``, so mypy sees neither class): one pass of the
    loop (truthy when it did something), and ``exit`` once the bridge has left for the REPL."""

    exit: bool

    def step(self) -> object: ...


class SafeModeLoop(FirmwareLoop, Protocol):
    """``main.Safe``: why the firmware is in safe mode, and leaving it for the REPL (Ctrl-C)."""

    reason: str

    def leave(self) -> None: ...


class Twin:
    """A simulated Pico running the real firmware on a pty; ``port`` is the path to open.

    ``flash`` is the Pico's file system, a directory (filled with this checkout's firmware
    when it holds no ``main.py``); by default a fresh temporary one, removed by :meth:`close`.
    Every boot loads the firmware from it, so what ``mpremote cp`` writes there runs after a
    reset."""

    def __init__(self, *, noise: float = 0.0, seed: int | None = None,
                 rosc_bits: Callable[[], int] | None = None, chip: str = "RP2040",
                 machine: str | None = None, flash: Path | str | None = None) -> None:
        self.noise = noise
        self.rng = random.Random(seed)
        self.rosc_bits = rosc_bits
        self.chip = chip
        self.machine = machine
        self._flash_tmp: tempfile.TemporaryDirectory[str] | None = None
        if flash is None:
            self._flash_tmp = tempfile.TemporaryDirectory(prefix="dicetower-twin-flash-")
            flash = self._flash_tmp.name
        self.flash = Path(flash)
        self.flash.mkdir(parents=True, exist_ok=True)
        if not (self.flash / "main.py").exists():
            for path in sorted(FIRMWARE_DIR.glob("*.py")):
                shutil.copyfile(path, self.flash / path.name)
        self.pico: SimPico | None = None
        self.bridge: FirmwareLoop | None = None  # bridge.Bridge while the firmware runs
        self.safe: SafeModeLoop | None = None  # main.Safe while the Pico is in safe mode
        self.repl: SimRepl | None = None
        self.interp: Interpreter | None = None
        self.modules: dict[str, types.ModuleType] = {}
        self.port: str | None = None
        self.boots = 0
        self.watchdog_resets = 0
        self.passes = 0  # loop passes (a test waits for one to know the Pico has looked)
        self.line_faults = 0
        self._clock_offset_ns = 0
        self._fds: tuple[int, int] | None = None
        self._pty: PtyPort | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._paused = threading.Event()
        self._resume_at: float | None = None
        self._lines: list[NoisyLine] = []
        self._faults: list[tuple[str, int | None]] = []  # ("drop" | "corrupt", frame type or None: any)
        self._faults_lock = threading.Lock()
        self.dropped: list[int] = []
        self.corrupted: list[int] = []

    # -- plugging ------------------------------------------------------------------------------
    def plug(self) -> str:
        """Power up a fresh Pico on a new pty; returns the pty's path."""
        if self._thread is not None:
            raise BridgeError("the twin is already plugged in")
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: a USB CDC port passes bytes as they are
        os.set_blocking(master, False)
        self._fds = (master, slave)
        self.port = os.ttyname(slave)
        self._lines = [NoisyLine(self.noise, self.rng), NoisyLine(self.noise, self.rng)]
        self._pty = PtyPort(master, self._lines[0], self._lines[1])
        self._pty.drop = self._fault
        # Ctrl-C is live in what main.py runs (safe mode's loop); at the REPL the REPL takes it itself
        self._pty.interrupt = lambda: self.safe is not None and self.pico is not None and self.pico.kbd_intr == CTRL_C
        self._boot(PWRON_RESET)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="bridge-twin", daemon=True)
        self._thread.start()
        return self.port

    def unplug(self) -> None:
        """Stop the Pico and close the pty: the host's port fails as when the cable is pulled."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=5)
        if self.pico is not None:
            self.pico.stop_timers()
        self.line_faults += sum(line.faults for line in self._lines)
        self._lines = []
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
        if self._flash_tmp is not None:
            self._flash_tmp.cleanup()
            self._flash_tmp = None

    def __enter__(self) -> Twin:
        if self._thread is None:
            self.plug()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def find(self) -> str | None:
        """The current port (what a host's Pico finder sees), None while unplugged."""
        return self.port if self._thread is not None else None

    # -- the Pico's life ----------------------------------------------------------------------
    def clock_ns(self) -> int:
        """The Pico's clock: the host's, plus whatever :meth:`advance` added."""
        return time.monotonic_ns() + self._clock_offset_ns

    def advance(self, seconds: float) -> None:
        """Move the Pico's clock on (a long wait without waiting: the watchdog, the safe state)."""
        self._clock_offset_ns += int(seconds * 1e9)

    @property
    def mode(self) -> str:
        """``bridge`` while the firmware runs, ``safe`` in safe mode (files that do not agree),
        ``repl`` after EXIT_TO_REPL, safe mode's Ctrl-C or a safe boot."""
        if self.bridge is not None:
            return "bridge"
        return "safe" if self.safe is not None else "repl"

    def _boot(self, cause: int) -> None:
        """A hard reset (power-up, watchdog, machine.reset()): a fresh Pico, main.py runs."""
        outside = {}
        if self.pico is not None:
            self.pico.stop_timers()
            outside = dict(self.pico.outside)  # a finger on a button stays there
        self.pico = SimPico(rosc_bits=self.rosc_bits, reset_cause=cause, clock_ns=self.clock_ns,
                              chip=self.chip, machine=self.machine, flash=self.flash)
        self.pico.outside.update(outside)
        self.boots += 1
        self._main()

    def _session(self) -> Interpreter:
        """A fresh MicroPython session (a boot or a soft reset): no modules, no globals."""
        assert self.pico is not None and self._pty is not None
        self.interp = Interpreter(self.pico.modules(), self.flash, self.pico.flash, self._pty.write)
        return self.interp

    def _main(self) -> None:
        """MicroPython starting afresh (a boot or a friendly-REPL soft reset): main.py runs."""
        assert self.pico is not None and self._pty is not None
        interp = self._session()
        self.modules = interp.modules
        self.bridge = self.safe = None
        self.repl = None
        try:
            main = interp.load("main")
            started = main.start(self._pty)
        except Exception as exc:  # main.py itself broken (cut short): MicroPython prints the error
            self._pty.write(Interpreter.traceback(exc).encode())
            started = None
        if started is None:
            self._to_repl()  # safe boot
        elif isinstance(started, main.Safe):  # main.start's other answer is a bridge.Bridge
            self.safe = started
        else:
            self.bridge = started

    def _to_repl(self) -> None:
        assert self.pico is not None and self._pty is not None
        self.repl = SimRepl(self._pty.write, self._soft_reset, self.pico.machine, self.interp)
        self.repl.start()

    def _soft_reset(self, raw: bool) -> None:
        assert self.pico is not None
        self.pico.stop_timers()
        if raw:
            assert self.repl is not None
            self.repl.interp = self._session()
        else:
            self._main()  # main.py runs again: the bridge is back, its watchdog armed again

    def _run(self) -> None:
        while not self._stop.is_set():
            pico = self.pico
            assert pico is not None
            if pico.watchdog_expired():
                self.watchdog_resets += 1
                self._boot(WDT_RESET)
                continue
            if self._resume_at is not None and time.monotonic() >= self._resume_at:
                self._resume_at = None
                self._paused.clear()
            if self._paused.is_set():
                self.passes += 1
                self._stop.wait(0.001 if self._resume_at is not None else 0.01)
                continue
            try:
                busy = self._pass()
            except SimReset:  # machine.reset(): on rp2 the watchdog resets the chip
                self._boot(WDT_RESET)
                busy = True
            self.passes += 1
            if not busy:
                self._stop.wait(0.0005)

    def _pass(self) -> bool:
        assert self._pty is not None
        if self.safe is not None:
            try:
                return bool(self.safe.step())
            except SimInterrupt:  # Ctrl-C: safe mode's loop ends, main.py returns, the REPL
                self.safe.leave()
                self.safe = None
                self._to_repl()
                assert self.repl is not None
                rest, self._pty.after_interrupt = self._pty.after_interrupt, b""
                self.repl.feed(rest)
                return True
        bridge = self.bridge
        if bridge is None:
            data = self._pty.read()
            if data and self.repl is not None:
                self.repl.feed(data)
            return bool(data)
        busy = bridge.step()
        if bridge.exit:
            self.modules["main"].finish(bridge)
            self.bridge = None
            self._to_repl()
        return bool(busy)

    def pause(self, paused: bool = True) -> None:
        """Freeze the Pico's loop (a Pico that stopped answering), or let it run again. The
        watchdog is hardware: it still counts, and reboots a Pico paused for over 4 s."""
        self._resume_at = None
        if paused:
            self._paused.set()
        else:
            self._paused.clear()

    def pause_for(self, ms: float) -> None:
        """Freeze the Pico's loop for ``ms`` milliseconds (of the host's clock), then go on."""
        self._resume_at = time.monotonic() + ms / 1000
        self._paused.set()

    def wait_passes(self, n: int = 2, timeout: float = 5.0) -> None:
        """Return once the Pico's loop has gone round ``n`` more times."""
        target = self.passes + n
        deadline = time.monotonic() + timeout
        while self.passes < target:
            if time.monotonic() > deadline:
                raise BridgeError(f"the twin's loop did not go round within {timeout:g} s")
            self._stop.wait(0.001)

    def drop_next(self, kind: int | None = None) -> None:
        """Lose the Pico's next frame of this type (None: any frame; -1: any reply) on the line."""
        with self._faults_lock:
            self._faults.append(("drop", kind))

    def corrupt_next(self, kind: int | None = None) -> None:
        """Flip one bit in the middle of the Pico's next frame of this type (None: any; -1: any
        reply): the host's decoder finds a wrong CRC and drops it."""
        with self._faults_lock:
            self._faults.append(("corrupt", kind))

    def _fault(self, wire: bytes) -> bytes | None:
        if not self._faults:
            return wire
        frame = codec.parse(wire[:-1]) if wire.endswith(b"\x00") else None
        if frame is None:
            return wire  # not one whole frame (the REPL's text): no fault aimed at it
        events = (codec.EV_EDGE, codec.EV_HEARTBEAT, codec.EV_ENTROPY)
        with self._faults_lock:
            aimed = [i for i, (_, kind) in enumerate(self._faults)
                     if kind is None or kind == frame[1] or (kind == -1 and frame[1] not in events)]
            if not aimed:
                return wire
            action, _ = self._faults.pop(aimed[0])
        if action == "drop":
            self.dropped.append(frame[1])
            return None
        self.corrupted.append(frame[1])
        out = bytearray(wire)
        at = len(out) // 2
        out[at] ^= 0x01 if out[at] != 0x01 else 0x02  # never 0x00: the frame stays one frame
        return bytes(out)

    # -- the outside world -------------------------------------------------------------------
    def press(self, pin: int, down: bool = True) -> None:
        """A button to ground on ``pin`` pressed (pulled low) or released (floats high)."""
        self._pico().drive(pin, 0 if down else None)

    def level(self, pin: int) -> float:
        return self._pico().level(pin)

    @property
    def faults(self) -> int:
        return self.line_faults + sum(line.faults for line in self._lines)

    def _pico(self) -> SimPico:
        if self.pico is None:
            raise BridgeError("the twin is not plugged in")
        return self.pico


#: The standalone twin's commands, typed on its stdin one a line (``help`` lists them).
COMMANDS = (
    ("press PIN", "pull GP<PIN> low, as a button to ground pressed"),
    ("release PIN", "let GP<PIN> go again (it floats to its pull)"),
    ("pause MS", "freeze the Pico's loop for MS milliseconds (over 4000: the watchdog reboots it)"),
    ("drop [KIND]", "lose the Pico's next frame on the line; KIND: " + ", ".join(FRAME_KINDS) + " (default any)"),
    ("corrupt [KIND]", "flip a bit in the Pico's next frame (the host sees a bad CRC); KIND as for drop"),
    ("status", "what the Pico is doing: bridge, safe (safe mode) or repl, and its boots"),
    ("help", "this list"),
)

CHIPS = ("RP2040", "RP2350", "RP2xxx")


def command(twin: Twin, line: str) -> str:
    """Carry out one command typed on the standalone twin's stdin; what it did, in one line.
    :class:`ValueError` with a one-line message for a command it does not know."""
    words = line.split()
    if not words:
        return ""
    name, args = words[0].lower(), words[1:]

    def pin() -> int:
        if len(args) != 1 or not args[0].isdigit() or not 0 <= int(args[0]) <= 29:
            raise ValueError(f"{name}: expected one GP number 0..29, got {' '.join(args) or 'nothing'}")
        return int(args[0])

    def kind() -> int | None:
        if len(args) > 1 or (args and args[0].lower() not in FRAME_KINDS):
            raise ValueError(f"{name}: expected one of {', '.join(FRAME_KINDS)}, got {' '.join(args)}")
        return FRAME_KINDS[args[0].lower()] if args else None

    if name in ("press", "release"):
        n = pin()
        twin.press(n, down=name == "press")
        return f"GP{n} {'pressed (low)' if name == 'press' else 'released'}"
    if name == "pause":
        try:
            ms = float(args[0]) if len(args) == 1 else math.nan
        except ValueError:
            ms = math.nan
        if not 0 < ms <= 600_000:
            raise ValueError(f"pause: expected milliseconds from 1 to 600000, got {' '.join(args) or 'nothing'}")
        twin.pause_for(ms)
        return f"the Pico's loop paused for {ms:g} ms"
    if name in ("drop", "corrupt"):
        k = kind()
        (twin.drop_next if name == "drop" else twin.corrupt_next)(k)
        what = "frame" if not args or args[0].lower() == "any" else args[0].lower() + " frame"
        return f"the Pico's next {what} will be {'dropped' if name == 'drop' else 'corrupted'}"
    if name == "status":
        reason = f" ({twin.safe.reason})" if twin.safe is not None else ""
        return f"{twin.mode}{reason}, boot {twin.boots}, watchdog resets {twin.watchdog_resets}, port {twin.port}"
    if name == "help":
        return "commands: " + "; ".join(f"{usage}: {text}" for usage, text in COMMANDS)
    raise ValueError(f"unknown command {words[0]!r}; type help for the list")


def _read_commands(twin: Twin, stream: Any, stop: threading.Event) -> None:
    for line in stream:
        if stop.is_set():
            return
        try:
            said = command(twin, line)
        except ValueError as exc:
            said = f"error: {exc}"
        except BridgeError as exc:
            said = f"error: {exc}"
        if said:
            print(f"twin: {said}", file=sys.stderr, flush=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The standalone twin's options (also ``dicetower bridge twin``'s)."""
    parser.description = (
        "Run the bridge firmware on a simulated Pico attached to a pty, for trying a host (dicetower's or your "
        "own) without a Pico. Prints the pty's path on the first line of stdout, then runs until Ctrl-C or "
        "SIGTERM, taking commands typed on its stdin, one a line (answers on stderr).")
    parser.epilog = "stdin commands: " + "; ".join(f"{usage}: {text}" for usage, text in COMMANDS) + "."
    parser.add_argument("--noise", type=float, default=0.0, metavar="P",
                        help="fraction of the line's bytes corrupted, both ways (0 <= P < 1; default 0)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the noise (default: random)")
    parser.add_argument("--rosc", choices=sorted(ROSC_MODELS), default="urandom",
                        help="what the ring oscillator gives: " + "; ".join(
                            f"{name}: {text}" for name, (text, _) in ROSC_MODELS.items()))
    parser.add_argument("--chip", choices=CHIPS, default="RP2040",
                        help="the chip: RP2040 (Pico, Pico W), RP2350 (Pico 2: no ring-oscillator entropy) or "
                             "RP2xxx (one the firmware does not know: it cannot disarm its watchdog)")
    parser.add_argument("--flash", metavar="DIR", default=None,
                        help="a directory as the Pico's flash, kept after the twin stops (filled with this "
                             "checkout's firmware when it has no main.py; default: a temporary one)")


def run(args: argparse.Namespace, error: Callable[[str], Any]) -> int:
    """The standalone twin with parsed ``args``; ``error(message)`` reports a bad option."""
    if not 0 <= args.noise < 1:
        error(f"--noise: expected a fraction from 0 up to 1, got {args.noise}")
    if args.flash is not None and Path(args.flash).exists() and not Path(args.flash).is_dir():
        error(f"--flash: {args.flash} is not a directory")
    twin = Twin(noise=args.noise, seed=args.seed, rosc_bits=ROSC_MODELS[args.rosc][1](), chip=args.chip,
                flash=args.flash)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    port = twin.plug()
    try:
        print(port, flush=True)
        print(f"dicetower twin: the bridge firmware on a simulated {args.chip} at {port} (rosc {args.rosc}, "
              f"noise {args.noise:g}, flash {twin.flash}); Ctrl-C stops it; type help for its commands",
              file=sys.stderr, flush=True)
        if sys.stdin is not None:
            threading.Thread(target=_read_commands, args=(twin, sys.stdin, stop), name="twin-commands",
                             daemon=True).start()
        while not stop.wait(0.5):
            pass
    finally:
        twin.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m firmware_bridge.twin``: a twin on a pty until Ctrl-C; its port on stdout."""
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.twin")
    add_arguments(parser)
    return run(parser.parse_args(argv), parser.error)


if __name__ == "__main__":
    sys.exit(main())
