"""The firmware files: each compiles with mpy-cross (MicroPython's own compiler) and the
Pico's behaviour the host cannot see directly (safe state, watchdog, safe boot)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.firmware import codec
from firmware_bridge.simpico import SimPico
from firmware_bridge.twin import FIRMWARE_DIR, PtyPort, load_firmware

FILES = sorted(FIRMWARE_DIR.glob("*.py"))


def test_the_firmware_has_its_files() -> None:
    assert {p.name for p in FILES} >= {"main.py", "bridge.py", "codec.py", "pins.py", "oled.py", "rosc.py",
                                       "usbport.py"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_firmware_file_compiles_with_mpy_cross(path: Path, tmp_path: Path) -> None:
    out = tmp_path / (path.stem + ".mpy")
    run = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(out), str(path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert out.stat().st_size > 0


class _Wire:
    """A byte port in memory for driving the firmware's loop step by step."""

    def __init__(self) -> None:
        self.inbox = b""
        self.sent = codec.Decoder()
        self.frames: list[tuple[int, int, int, bytes]] = []

    def read(self) -> bytes:
        data, self.inbox = self.inbox, b""
        return data

    def write(self, data: bytes) -> int:
        self.frames += self.sent.feed(data)
        return len(data)


def _pico(clock: list[int], **kwargs) -> tuple[SimPico, object, _Wire]:
    def now() -> int:
        clock[0] += 1000  # every reading of the Pico's clock takes a microsecond
        return clock[0]

    pico = SimPico(clock_ns=now, **kwargs)
    modules = load_firmware(pico.modules())
    wire = _Wire()
    return pico, modules["main"].start(wire), wire


def test_silent_host_puts_the_pico_in_its_safe_state() -> None:
    clock = [0]
    pico, bridge, wire = _pico(clock)
    wire.inbox = codec.encode(codec.HELLO, 1, bytes((1, 0, 1, 2, 3, 4))) + codec.encode(
        codec.PIN_MODE, 2, bytes((12, codec.MODE_PWM, 0, 0))) + codec.encode(
        codec.PIN_SET, 3, bytes((12,)) + codec.put_u16(65535) + codec.put_u16(0)) + codec.encode(
        codec.ENTROPY_CREDIT, 4, codec.put_u16(1000))
    bridge.step()
    assert pico.level(12) == 1.0 and bridge.credit > 0
    clock[0] += 3_100_000_000  # 3.1 s without a frame
    bridge.step()
    assert pico.level(12) == 0.0 and bridge.credit == 0 and bridge.safe
    beats = [f for f in wire.frames if f[1] == codec.EV_HEARTBEAT]
    assert beats[-1][3][16] & codec.FLAG_SAFE  # the heartbeat says so
    assert codec.get_u16(beats[-1][3], 17) == 1  # and counts it (1.1)
    assert pico.wdt_timeout_ms is not None and pico.wdt_timeout_ms <= 5000 and pico.wdt_feeds >= 2


def test_a_request_before_hello_is_refused() -> None:
    clock = [0]
    _, bridge, wire = _pico(clock)
    wire.inbox = codec.encode(codec.PING, 5, b"x")
    bridge.step()
    assert [(f[1], f[3][0]) for f in wire.frames if f[2] == 5] == [(codec.ERROR, codec.E_NO_SESSION)]


def test_safe_boot_pin_leaves_the_repl_alone() -> None:
    pico = SimPico(safe_boot=True)
    assert load_firmware(pico.modules())["main"].start(_Wire()) is None
    assert pico.kbd_intr is None and pico.wdt_timeout_ms is None


def test_exit_to_repl_lingers_for_a_retry_then_ends_the_loop_silently() -> None:
    clock = [0]
    _, bridge, wire = _pico(clock)
    wire.inbox = codec.encode(codec.HELLO, 1, bytes((1, 0, 0, 0, 0, 0))) + codec.encode(codec.EXIT_TO_REPL, 2)
    bridge.step()
    assert bridge.leaving and not bridge.exit
    sent = len(wire.frames)
    clock[0] += 300_000_000
    wire.inbox = codec.encode(codec.EXIT_TO_REPL, 2) + codec.encode(codec.PING, 3, b"late")  # its reply was lost
    bridge.step()
    assert [(f[1], f[2]) for f in wire.frames[sent:]] == [(codec.EXIT_TO_REPL | codec.REPLY, 2)]  # no heartbeat
    clock[0] += 600_000_000
    bridge.step()
    assert bridge.exit and len(wire.frames) == sent + 1


def test_rosc_not_running_means_no_entropy() -> None:
    clock = [0]
    pico, bridge, wire = _pico(clock)
    pico.rosc_status = 0
    wire.inbox = codec.encode(codec.HELLO, 1, bytes((1, 0, 0, 0, 0, 0))) + codec.encode(
        codec.ENTROPY_CREDIT, 2, codec.put_u16(10))
    bridge.step()
    hello = next(f for f in wire.frames if f[1] == codec.HELLO | codec.REPLY)
    assert not codec.get_u16(hello[3], 10) & codec.CAP_ENTROPY
    assert next(f for f in wire.frames if f[2] == 2)[1] == codec.ERROR


def test_the_pty_port_drops_what_does_not_fit() -> None:
    import os

    master, slave = os.openpty()
    try:
        os.set_blocking(master, False)
        port = PtyPort(master, lambda b: b, lambda b: b)
        sent = [port.write(b"\x01" * 200) for _ in range(2000)]
        assert 0 in sent  # the pty's buffer filled: writes drop instead of blocking
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.parametrize("path", [p for p in FILES if p.name != "main.py"], ids=lambda p: p.name)
def test_every_firmware_file_is_main_s_build(path: Path) -> None:
    """main.py starts the bridge only when every file carries its BUILD: raise them together."""
    modules = load_firmware(SimPico().modules())
    assert {p.stem for p in FILES if p.name != "main.py"} == set(modules["main"].MODULES)
    text = path.read_text(encoding="utf-8")
    assert text.endswith(f"\nBUILD = {modules['main'].BUILD}\n")  # the last line: a file cut short has none


def _interrupted_update(tmp_path: Path, stale: str) -> Path:
    """The Pico's flash as an interrupted `mpremote cp` leaves it: ``stale`` is still the
    previous build's file."""
    import shutil

    copy = tmp_path / "flash"
    shutil.copytree(FIRMWARE_DIR, copy)
    old = copy / f"{stale}.py"
    old.write_text(old.read_text(encoding="utf-8").replace("\nBUILD = ", "\nBUILD = -1 + "), encoding="utf-8")
    return copy


def test_an_interrupted_update_leaves_the_pico_in_safe_mode_never_in_a_reset_loop(tmp_path) -> None:
    """bridge.py and chip.py copied, pins.py not yet: the bridge does not start, the watchdog is
    not armed, Ctrl-C is live, and the Pico says why (issues 28 and 39)."""
    from firmware_bridge.twin import Twin

    with Twin(seed=7, flash=_interrupted_update(tmp_path, "pins")) as twin:
        assert twin.mode == "safe" and not twin.pico.wdt_armed
        assert twin.safe.reason == f"pins.py not build {codec.BUILD}"
        twin.advance(10.0)  # far beyond the 4 s watchdog
        twin.wait_passes(3)
        assert twin.watchdog_resets == 0 and twin.mode == "safe" and twin.boots == 1
        assert twin.pico.kbd_intr == 3  # Ctrl-C interrupts: mpremote gets in


def test_a_bridge_that_fails_to_build_is_safe_mode_before_the_watchdog_is_armed() -> None:
    pico = SimPico()
    modules = load_firmware(pico.modules())

    def broken(port, wdt=None):
        raise TypeError("Pins.__init__() takes 2 positional arguments but 3 were given")

    assert modules["main"].why() == ""  # which loads every file
    modules["bridge"].Bridge = broken
    safe = modules["main"].start(_Wire())
    assert safe.reason.startswith("the bridge did not start (TypeError: Pins.__init__() takes 2")
    assert not pico.wdt_armed and pico.kbd_intr == 3  # no reset loop, and Ctrl-C works


def test_a_started_bridge_has_its_watchdog_armed() -> None:
    pico, bridge, _ = _pico([0])
    assert bridge is not None and bridge.wdt is not None and pico.wdt_armed


def test_get_state_lists_the_pins_by_number_inputs_and_outputs_together() -> None:
    """docs/bridge.md: "per configured pin (by pin number)"; the firmware sent inputs first."""
    pico = SimPico()
    modules = load_firmware(pico.modules())
    modules["main"].why()  # loads every file
    pins = modules["pins"].Pins()
    for n, mode in ((12, codec.MODE_OUTPUT), (2, codec.MODE_INPUT), (5, codec.MODE_OUTPUT), (3, codec.MODE_INPUT)):
        pins.mode(n, mode, codec.PULL_UP if mode == codec.MODE_INPUT else 0, 5)
    assert [row[0] for row in pins.state()] == [2, 3, 5, 12]


def test_display_text_refuses_a_column_past_the_edge() -> None:
    pico = SimPico()
    modules = load_firmware(pico.modules())
    modules["main"].why()
    machine = modules["bridge"].machine
    i2c = machine.I2C(0, sda=machine.Pin(8), scl=machine.Pin(9), freq=400000)
    oled = modules["oled"].Oled(i2c, 128, 64, 0x3C)
    oled.text(0, 127, "x")
    with pytest.raises(ValueError, match="column 128"):
        oled.text(0, 128, "x")
