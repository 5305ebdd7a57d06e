"""docs/bridge.md is the firmware: a host written from its text and examples alone
(tests/firmware_bridge/spec_host.py: the standard library and pyserial, nothing of dicetower's
host) handshakes, reads pins, drives an LED, draws text and gathers entropy against the twin,
and sees every behaviour the spec names (INFO past the tail, PIN_SET on an input, DISPLAY_PAGES
past the edge, DISPLAY_INIT's sizes, display requests before DISPLAY_INIT, a short HELLO, seq 0,
the cache, the REPL banner after EXIT_TO_REPL)."""

from __future__ import annotations

import ast
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.simframebuf import FrameBuffer
from firmware_bridge.twin import Twin
from tests.firmware_bridge import spec_host as spec
from tests.firmware_bridge.spec_host import Refused, SpecHost

HERE = Path(__file__).resolve().parent


def test_the_spec_host_imports_only_the_standard_library_and_pyserial() -> None:
    tree = ast.parse((HERE / "spec_host.py").read_text(encoding="utf-8"))
    nodes = list(ast.walk(tree))
    names = {alias.name.split(".")[0] for node in nodes if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module.split(".")[0] for node in nodes if isinstance(node, ast.ImportFrom) and node.module}
    assert names - {"__future__"} <= set(sys.stdlib_module_names) | {"serial"}, names


@pytest.fixture
def pico() -> Iterator[tuple[Twin, SpecHost]]:
    twin = Twin(seed=21)
    twin.plug()
    host = SpecHost(twin.port)
    try:
        yield twin, host
    finally:
        host.close()
        twin.close()


def test_handshake_and_the_tail_by_info(pico) -> None:
    twin, host = pico
    with pytest.raises(Refused) as refused:
        host.request(spec.PING, b"before")
    assert refused.value.code == 6  # no session before a HELLO
    info = host.hello()
    assert (info["major"], info["minor"], info["max_payload"]) == (1, 2, 200)
    assert info["caps"] & 0b11111 == 0b11111  # pins, PWM, display, entropy, disarm: an RP2040
    assert info["uid"] == twin.pico.uid and info["firmware"] == "dicetower-bridge 1.2 on Raspberry Pi Pico with RP2040"
    tail = info["tail"]
    assert host.request(spec.INFO, bytes((len(tail), 16))) == bytes((len(tail),))  # past the tail: the total alone
    assert host.request(spec.INFO, bytes((len(tail) - 3, 16))) == bytes((len(tail),)) + tail[-3:]
    with pytest.raises(Refused) as short:
        host.request(spec.HELLO, b"\x01\x02\x09")
    assert short.value.code == 2
    assert host.request(spec.PING, b"\x03 still open") == b"\x03 still open"  # a short HELLO changed nothing
    host.wait("a heartbeat", lambda: host.events.beats)
    assert host.events.beats[-1]["boot_id"] == info["boot_id"]


def test_seq_zero_is_dropped_and_a_repeated_seq_answered_from_the_cache(pico) -> None:
    _, host = pico
    host.hello()
    host.wait("a heartbeat", lambda: host.events.beats)
    bad = host.events.beats[-1]["bad_frames"]
    host.send(spec.PING, b"zero", seq=0)
    host.send(spec.HELLO, bytes((1, 2, 9, 9, 9, 9, 1)), seq=0)
    seq = host.send(spec.PING, b"after")
    host.wait("the reply", lambda: seq in host.replies)
    assert 0 not in host.replies and host.replies.pop(seq) == (spec.PING | 0x80, b"after")
    host.wait("the count", lambda: host.events.beats[-1]["bad_frames"] == bad + 2)
    # the same seq again, with another payload: the cached reply, not executed
    assert host.request(spec.PING, b"other", seq=seq) == b"after"


def test_read_pins_drive_an_led(pico) -> None:
    twin, host = pico
    host.hello()
    assert host.request(spec.PIN_MODE, bytes((5, 1, 1, 2))) == bytes((5, 1))  # GP5 input, pull-up, 2 ms
    twin.press(5)
    host.wait("the press", lambda: host.events.edges)
    twin.press(5, down=False)
    host.wait("the release", lambda: len(host.events.edges) == 2)
    (ev1, pin1, level1, _), (ev2, pin2, level2, _) = host.events.edges
    assert (pin1, level1, pin2, level2) == (5, 0, 5, 1) and ev2 == ev1 + 1
    with pytest.raises(Refused) as reserved:
        host.request(spec.PIN_MODE, bytes((14, 2, 0, 0)))
    assert reserved.value.code == 3
    assert host.request(spec.PIN_MODE, bytes((25, 3, 0, 0))) == bytes((25, 0))  # the LED, PWM
    assert host.request(spec.PIN_SET, bytes((25,)) + spec.u16(32768) + spec.u16(1000)) == b""
    assert twin.level(25) == pytest.approx(0.5, abs=1e-4)
    with pytest.raises(Refused) as on_input:  # PIN_SET on an input: ERROR 3, and nothing changes
        records = bytes((25,)) + spec.u16(65535) + spec.u16(0) + bytes((5,)) + spec.u16(1) + spec.u16(0)
        host.request(spec.PIN_SET, records)
    assert on_input.value.code == 3 and twin.level(25) == pytest.approx(0.5, abs=1e-4)
    state = host.state()
    assert state["pins"] == {5: (1, 1), 25: (3, 32768)} and state["edges"] == {5: 2, 25: 0}
    assert state["ev"] == ev2


def test_draw_text(pico) -> None:
    twin, host = pico
    host.hello()
    with pytest.raises(Refused) as early:
        host.request(spec.DISPLAY_TEXT, bytes((0, 0)) + b"too soon")
    assert early.value.code == 5  # no display set up yet
    for width, height in ((130, 64), (128, 60), (0, 64), (128, 72)):
        with pytest.raises(Refused) as size:
            host.request(spec.DISPLAY_INIT, bytes((width, height, 0x3C)))
        assert size.value.code == 2, (width, height)
    with pytest.raises(Refused) as absent:
        host.request(spec.DISPLAY_INIT, bytes((128, 64, 0x3D)))  # nothing answers there
    assert absent.value.code == 5
    assert host.request(spec.DISPLAY_INIT, bytes((128, 64, 0x3C))) == b""
    assert host.request(spec.DISPLAY_TEXT, bytes((2, 8)) + b"Hello") == b""
    assert host.request(spec.DISPLAY_SHOW, bytes((0x80, 1))) == b""
    expected = bytearray(128 * 8)
    FrameBuffer(expected, 128, 64, 0).text("Hello", 8, 16, 1)  # MicroPython's font, 8x8, as the spec says
    assert bytes(twin.pico.oled.gddram) == bytes(expected) and twin.pico.oled.on
    for page, column, size in ((8, 0, 1), (0, 128, 1), (7, 120, 9)):
        with pytest.raises(Refused) as edge:
            host.request(spec.DISPLAY_PAGES, bytes((page, column)) + b"\xff" * size)
        assert edge.value.code == 2, (page, column, size)
    assert host.request(spec.DISPLAY_PAGES, bytes((7, 120)) + b"\xff" * 8) == b""
    assert bytes(twin.pico.oled.gddram[-8:]) == b"\xff" * 8


def test_gather_entropy(pico) -> None:
    _, host = pico
    info = host.hello()
    assert info["caps"] & 8
    assert host.request(spec.ENTROPY_CREDIT, spec.u16(256) + bytes((32,))) == spec.u16(256)
    host.wait("256 raw bytes", lambda: sum(len(raw) for _, raw in host.events.entropy) >= 256)
    chunks = host.events.entropy
    assert sum(len(raw) for _, raw in chunks) == 256 and all(len(raw) <= 32 for _, raw in chunks)
    numbers = [ev for ev, _ in chunks]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # each takes the next number
    host.wait("a heartbeat after them", lambda: host.events.beats and host.events.beats[-1]["ev"] == numbers[-1])
    with pytest.raises(Refused) as bad_chunk:
        host.request(spec.ENTROPY_CREDIT, spec.u16(10) + bytes((193,)))
    assert bad_chunk.value.code == 2


def test_exit_to_repl_then_the_repl_banner(pico) -> None:
    _, host = pico
    host.hello()
    assert host.request(spec.EXIT_TO_REPL) == b"\x01"  # disarms: an RP2040
    text = bytearray(host.buf)  # what came after the reply's delimiter so far
    deadline = time.monotonic() + 10
    while b">>> " not in text:
        assert time.monotonic() < deadline, f"no REPL banner within 10 s: {bytes(text)!r}"
        text += host.port.read(max(1, host.port.in_waiting))
    assert b"\x00" not in text  # no frame after the reply: text, the REPL's
    banner = bytes(text).decode()
    assert banner.startswith("MicroPython v") and "Raspberry Pi Pico with RP2040" in banner
    assert banner.endswith('Type "help()" for more information.\r\n>>> ')
