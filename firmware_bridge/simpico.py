"""The simulated RP2040 the firmware twin runs on: ``machine``, ``micropython``, ``time`` and
``framebuf`` as MicroPython has them, built per Pico (no module-level state).

Pins have an outside level a test drives (a pressed button pulls its pin low), outputs and
PWM duties the test reads back, the ring oscillator's STATUS and RANDOMBIT registers come from
:class:`SimPico` (its ``rosc_bits`` can be stuck or biased), and an SSD1306 model on I2C keeps
the display memory the firmware writes. The chip is an RP2040 (or an RP2350, whose registers
sit elsewhere); the watchdog counts on the Pico's clock and :meth:`SimPico.watchdog_expired`
says when it would fire; ``machine.reset()`` raises :class:`SimReset` for the twin to reboot.
"""

from __future__ import annotations

import errno
import os
import threading
import time as _time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge.firmware import codec

ROSC_STATUS = 0x40060018
ROSC_RANDOMBIT = 0x4006001C
ROSC_OK = (1 << 31) | (1 << 12)
SYSINFO_CHIP_ID = 0x40000000
#: SYSINFO CHIP_ID per chip (PART in bits 12..27: 2 is the RP2040, 4 the RP2350).
#: "RP2xxx" is a chip the firmware does not know (PART 7): its watchdog cannot be disarmed.
CHIP_IDS = {"RP2040": 0x20002927, "RP2350": 0x20004927, "RP2xxx": 0x20007927}
#: WATCHDOG_BASE per chip (CTRL at +0, ENABLE bit 30; +0x2000 sets bits, +0x3000 clears them).
WATCHDOG_CTRL = {"RP2040": 0x40058000, "RP2350": 0x400D8000}
WATCHDOG_ENABLE = 1 << 30
SET_ALIAS = 0x2000
CLEAR_ALIAS = 0x3000
#: What ``os.uname().machine`` says on MicroPython, per chip (the model's name + the chip).
MACHINES = {"RP2040": "Raspberry Pi Pico with RP2040", "RP2350": "Raspberry Pi Pico2 with RP2350",
            "RP2xxx": "a Pico clone with an RP2xxx"}
PWRON_RESET = 1
WDT_RESET = 3
OLED_ADDRESS = 0x3C


class SimReset(BaseException):
    """``machine.reset()``: the twin reboots the Pico (a BaseException, so that no handler in
    the firmware catches it)."""


def urandom_bits() -> Callable[[], int]:
    """A ring oscillator stand-in: unbiased bits from the OS (the twin simulates, it is no
    noise source of its own)."""
    bits: list[int] = []

    def bit() -> int:
        if not bits:
            bits.extend((b >> i) & 1 for b in os.urandom(64) for i in range(8))
        return bits.pop()

    return bit


class Ssd1306Model:
    """The display memory of an SSD1306 as the firmware's I2C writes leave it."""

    def __init__(self, width: int = 128, height: int = 64) -> None:
        self.width = width
        self.pages = height // 8
        self.gddram = bytearray(width * self.pages)
        self.on = False
        self.contrast = 0x7F
        self.window = (0, width - 1, 0, self.pages - 1)
        self.cursor = (0, 0)
        self.data_bytes = 0

    def write(self, buf: bytes) -> None:
        if not buf:
            return
        if buf[0] == 0x00 and len(buf) > 1:
            self._command(buf[1], bytes(buf[2:]))
        elif buf[0] == 0x40:
            self._data(bytes(buf[1:]))

    def _command(self, cmd: int, args: bytes) -> None:
        if cmd == 0x21 and len(args) == 2:
            self.window = (args[0], args[1], self.window[2], self.window[3])
            self.cursor = (args[0], self.window[2])
        elif cmd == 0x22 and len(args) == 2:
            self.window = (self.window[0], self.window[1], args[0], args[1])
            self.cursor = (self.window[0], args[0])
        elif cmd in (0xAE, 0xAF):
            self.on = cmd == 0xAF
        elif cmd == 0x81 and args:
            self.contrast = args[0]

    def _data(self, data: bytes) -> None:
        col0, col1, page0, page1 = self.window
        col, page = self.cursor
        for b in data:
            self.gddram[page * self.width + col] = b
            self.data_bytes += 1
            col += 1
            if col > col1:
                col = col0
                page = page0 if page >= page1 else page + 1
        self.cursor = (col, page)

    def pixel(self, x: int, y: int) -> int:
        return (self.gddram[(y // 8) * self.width + x] >> (y % 8)) & 1


class SimPico:
    """One simulated Pico: outside pin levels, the ROSC, the OLED, the watchdog's feeds."""

    def __init__(self, *, uid: bytes = b"\xe6\x61\x41\x04\x03\x2b\x2c\x21",
                 rosc_bits: Callable[[], int] | None = None, safe_boot: bool = False,
                 reset_cause: int = PWRON_RESET, clock_ns: Callable[[], int] = _time.monotonic_ns,
                 chip: str = "RP2040", machine: str | None = None, flash: Path | None = None) -> None:
        from firmware_bridge.siminterp import Flash, NoFlash

        if chip not in CHIP_IDS:
            raise ValueError(f"chip must be one of {', '.join(CHIP_IDS)}, got {chip!r}")
        self.uid = uid
        self.chip = chip
        self.flash: Flash | NoFlash = Flash(flash) if flash is not None else NoFlash()
        self.machine = machine or MACHINES[chip]
        self.wdt_armed = False
        self.wdt_fed_ns = 0
        self.wdt_fires = 0
        self.mem_writes: list[tuple[int, int]] = []
        self.timers: list[SimTimer] = []
        self.rosc_bits = rosc_bits or urandom_bits()
        self.rosc_status = ROSC_OK
        self.reset_cause = reset_cause
        self.clock_ns = clock_ns
        self.outside: dict[int, int] = {}  # levels driven from outside (a pressed button)
        self.pins: dict[int, SimPin] = {}
        self.pwms: dict[int, SimPWM] = {}
        self.oled = Ssd1306Model()
        self.oled_present = True
        self.wdt_feeds = 0
        self.wdt_timeout_ms: int | None = None
        self.kbd_intr: int | None = None
        if safe_boot:
            self.outside[14] = 0

    def watchdog_expired(self) -> bool:
        """Whether the armed watchdog has gone unfed longer than its timeout."""
        if not self.wdt_armed or self.wdt_timeout_ms is None:
            return False
        return self.clock_ns() - self.wdt_fed_ns > self.wdt_timeout_ms * 1_000_000

    def stop_timers(self) -> None:
        """What a soft reset does to ``machine.Timer``s (the watchdog is hardware: it stays)."""
        for timer in self.timers:
            timer.deinit()
        self.timers.clear()

    def drive(self, n: int, level: int | None) -> None:
        """Drive pin ``n`` from outside (None: let it float to its pull)."""
        pin = self.pins.get(n)
        before = pin.value() if pin is not None else None
        if level is None:
            self.outside.pop(n, None)
        else:
            self.outside[n] = 1 if level else 0
        if pin is not None and pin.value() != before:
            pin.fire()

    def level(self, n: int) -> float:
        """What output ``n`` drives: 0..1 (a PWM duty as a fraction)."""
        pwm = self.pwms.get(n)
        if pwm is not None and pwm.active:
            return pwm.duty / 65535
        pin = self.pins.get(n)
        return float(pin.out) if pin is not None and pin.mode == SimPin.OUT else 0.0

    def modules(self) -> dict[str, types.ModuleType]:
        """Fresh ``machine``, ``micropython``, ``time`` and ``framebuf`` modules for this Pico."""
        from firmware_bridge import simframebuf

        return {
            "machine": _machine(self),
            "micropython": _micropython(self),
            "time": _sim_time(self),
            "framebuf": simframebuf.module(),
            "os": _sim_os(self),
        }


class SimPin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8
    pico: SimPico

    def __init__(self, n: int, mode: int = -1, pull: int | None = None, value: int | None = None) -> None:
        self.n = n
        self.mode = self.IN if mode == -1 else mode
        self.pull = pull
        self.out = value or 0
        self.handler: Callable[[Any], None] | None = None
        self.pico.pins[n] = self

    def value(self, v: int | None = None) -> int | None:
        if v is not None:
            self.out = 1 if v else 0
            return None
        if self.mode == self.OUT:
            return self.out
        outside = self.pico.outside.get(self.n)
        if outside is not None:
            return outside
        return 1 if self.pull == self.PULL_UP else 0

    def irq(self, handler: Callable[[Any], None] | None = None, trigger: int = 0) -> None:
        self.handler = handler

    def fire(self) -> None:
        if self.handler is not None:
            self.handler(self)


class SimPWM:
    pico: SimPico

    def __init__(self, pin: SimPin, freq: int = 1000, duty_u16: int = 0) -> None:
        self.pin = pin
        self.frequency = freq
        self.duty = duty_u16
        self.active = True
        self.pico.pwms[pin.n] = self

    def freq(self, f: int | None = None) -> int | None:
        if f is None:
            return self.frequency
        if not 8 <= f <= 62_500_000:
            raise ValueError("freq out of range")
        self.frequency = f
        return None

    def duty_u16(self, d: int | None = None) -> int | None:
        if d is None:
            return self.duty
        self.duty = d
        return None

    def deinit(self) -> None:
        self.active = False


class SimI2C:
    pico: SimPico

    def __init__(self, bus: int, *, sda: Any = None, scl: Any = None, freq: int = 400_000) -> None:
        self.bus = bus

    def writeto(self, address: int, buf: bytes) -> int:
        if address != OLED_ADDRESS or not self.pico.oled_present:
            raise OSError(errno.ENODEV, "ENODEV")
        self.pico.oled.write(bytes(buf))
        return 1

    def scan(self) -> list[int]:
        return [OLED_ADDRESS] if self.pico.oled_present else []


class SimWDT:
    pico: SimPico

    def __init__(self, id: int = 0, timeout: int = 5000) -> None:
        if timeout > 8388:
            raise ValueError("timeout too long for the RP2040 watchdog")
        self.pico.wdt_timeout_ms = timeout
        self.pico.wdt_armed = True
        self.pico.wdt_fed_ns = self.pico.clock_ns()

    def feed(self) -> None:
        self.pico.wdt_feeds += 1
        self.pico.wdt_fed_ns = self.pico.clock_ns()


class SimTimer:
    PERIODIC = 1
    ONE_SHOT = 0
    pico: SimPico

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._timer: threading.Timer | None = None
        self._stopped = False
        self.pico.timers.append(self)

    def init(self, *, period: int, mode: int = 1, callback: Callable[[Any], None]) -> None:
        self._stopped = False

        def fire() -> None:
            if self._stopped:
                return
            callback(self)
            if mode == self.PERIODIC and not self._stopped:
                self.init(period=period, mode=mode, callback=callback)

        self._timer = threading.Timer(period / 1000, fire)
        self._timer.daemon = True
        self._timer.start()

    def deinit(self) -> None:
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()


class _Mem32:
    def __init__(self, pico: SimPico) -> None:
        self.pico = pico

    def __getitem__(self, address: int) -> int:
        pico = self.pico
        if address == SYSINFO_CHIP_ID:
            return CHIP_IDS[pico.chip]
        if address in (ROSC_STATUS, ROSC_RANDOMBIT) and pico.chip != "RP2040":
            # ACCESSCTRL on an RP2350: firmware that reads it here has not checked the chip
            raise AssertionError(f"the firmware read 0x{address:08x}, not the ROSC on an {pico.chip}")
        if address == ROSC_STATUS:
            return pico.rosc_status
        if address == ROSC_RANDOMBIT:
            return pico.rosc_bits() & 1
        return 0

    def __setitem__(self, address: int, value: int) -> None:
        pico = self.pico
        pico.mem_writes.append((address, value))
        ctrl = WATCHDOG_CTRL.get(pico.chip, -1)  # a chip whose registers nobody knows: nothing to hit
        if address == ctrl + CLEAR_ALIAS and value & WATCHDOG_ENABLE:
            pico.wdt_armed = False
        elif address == ctrl + SET_ALIAS and value & WATCHDOG_ENABLE:
            pico.wdt_armed = True
            pico.wdt_fed_ns = pico.clock_ns()


def _bind(cls: type, pico: SimPico) -> type:
    return type(cls.__name__.replace("Sim", ""), (cls,), {"pico": pico})


def _machine(pico: SimPico) -> types.ModuleType:
    def reset() -> None:
        raise SimReset()

    m = types.ModuleType("machine")
    vars(m).update(Pin=_bind(SimPin, pico), PWM=_bind(SimPWM, pico), I2C=_bind(SimI2C, pico),
                   WDT=_bind(SimWDT, pico), Timer=_bind(SimTimer, pico), mem32=_Mem32(pico),
                   unique_id=lambda: pico.uid, reset_cause=lambda: pico.reset_cause, reset=reset,
                   PWRON_RESET=PWRON_RESET, WDT_RESET=WDT_RESET)
    return m


def _micropython(pico: SimPico) -> types.ModuleType:
    def kbd_intr(c: int) -> None:
        pico.kbd_intr = c

    m = types.ModuleType("micropython")
    vars(m).update(kbd_intr=kbd_intr, const=lambda x: x)
    return m


def _sim_os(pico: SimPico) -> types.ModuleType:
    m = types.ModuleType("os")
    vars(m).update(uname=lambda: types.SimpleNamespace(
        sysname="rp2", nodename="rp2", release="1.27.0", version="v1.27.0 (dicetower twin)", machine=pico.machine))
    return m


def _sim_time(pico: SimPico) -> types.ModuleType:
    period = codec.TICKS_PERIOD
    start = pico.clock_ns()
    # a Pico's counters do not start at the host's zero: start near the wrap, so every
    # twin run crosses it within about a minute and the host's unwrapping is exercised
    base_us = period - 60_000_000

    def ticks_us() -> int:
        return (base_us + (pico.clock_ns() - start) // 1000) % period

    def ticks_ms() -> int:
        return ((pico.clock_ns() - start) // 1_000_000) % period

    def ticks_diff(a: int, b: int) -> int:
        return ((a - b + period // 2) % period) - period // 2

    def ticks_add(a: int, d: int) -> int:
        return (a + d) % period

    m = types.ModuleType("time")
    vars(m).update(ticks_us=ticks_us, ticks_ms=ticks_ms, ticks_diff=ticks_diff, ticks_add=ticks_add,
                   sleep_ms=lambda ms: _time.sleep(ms / 1000), sleep_us=lambda us: _time.sleep(us / 1e6),
                   sleep=_time.sleep, time=_time.time)
    return m
