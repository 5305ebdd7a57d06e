"""The standalone twin as a tool for a host author (docs/bridge.md, section 8): commands typed on
its stdin press and release a pin, pause the Pico's loop, drop or corrupt the Pico's next
frame; each one is in its --help and in the docs."""

from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from firmware_bridge.firmware import codec
from firmware_bridge.link import Link, State
from firmware_bridge.twin import COMMANDS
from tests.firmware_bridge.polling import wait_for

ROOT = Path(__file__).resolve().parents[2]


class StandaloneTwin:
    """``python -m firmware_bridge.twin`` in a subprocess: its port, and its stderr line by line."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "firmware_bridge.twin", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.port = self.proc.stdout.readline().strip()
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line.rstrip("\n"))

    def type(self, line: str) -> str:
        """Type one command; the twin's answer line."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.said("twin: ")

    def said(self, prefix: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"the twin said nothing starting {prefix!r} within {timeout:g} s") from None
            if line.startswith(prefix):
                return line

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture
def standalone() -> Iterator[StandaloneTwin]:
    twin = StandaloneTwin("--seed", "3")
    try:
        assert twin.port.startswith("/dev/pts/")
        twin.said("dicetower twin: ")
        yield twin
    finally:
        twin.close()


def test_press_and_release_a_pin(standalone: StandaloneTwin) -> None:
    edges: list[tuple[int, int]] = []
    with Link(standalone.port) as link:
        link.wait_up(10)
        link.on_edge(lambda pin, level, at: edges.append((pin, level)))
        assert link.request(codec.PIN_MODE, bytes((5, codec.MODE_INPUT, codec.PULL_UP, 2))) == bytes((5, 1))
        assert standalone.type("press 5") == "twin: GP5 pressed (low)"
        wait_for(lambda: edges == [(5, 0)], what="the press")
        assert standalone.type("release 5") == "twin: GP5 released"
        wait_for(lambda: edges == [(5, 0), (5, 1)], what="the release")


def test_pause_the_link_for_some_milliseconds(standalone: StandaloneTwin) -> None:
    states: list[State] = []
    with Link(standalone.port) as link:
        first = link.wait_up(10).boot_id
        assert standalone.type("pause 3000") == "twin: the Pico's loop paused for 3000 ms"
        wait_for(lambda: (states.append(link.state), link.state)[1] is State.DEGRADED, what="the link's loss")
        wait_for(lambda: link.state is State.UP, what="the link back")
        assert link.hello.boot_id == first  # the same boot: 3 s is below the watchdog's 4 s
        assert link.request(codec.PING, b"back") == b"back"


def _frames(port: serial.Serial, decoder: codec.Decoder, until: int, timeout: float = 10.0) -> list:
    """Frames from ``port`` up to and including the reply with seq ``until``."""
    got: list = []
    deadline = time.monotonic() + timeout
    while not any(f[2] == until and f[1] & codec.REPLY and f[1] not in (codec.EV_HEARTBEAT, codec.EV_EDGE,
                                                                             codec.EV_ENTROPY) for f in got):
        assert time.monotonic() < deadline, f"no reply {until} within {timeout:g} s: {got}"
        got += decoder.feed(port.read(max(1, port.in_waiting)))
    return got


@pytest.mark.parametrize("fault", ["drop", "corrupt"])
def test_drop_or_corrupt_the_picos_next_reply(standalone: StandaloneTwin, fault: str) -> None:
    port = serial.serial_for_url(standalone.port, timeout=0.05)
    try:
        decoder = codec.Decoder()
        port.write(b"\x00" + codec.encode(codec.HELLO, 1, bytes((1, 2, 7, 7, 7, 7, 1))))
        _frames(port, decoder, 1)
        said = standalone.type(f"{fault} reply")
        assert said == f"twin: the Pico's next reply frame will be {'dropped' if fault == 'drop' else 'corrupted'}"
        bad = decoder.bad
        port.write(codec.encode(codec.PING, 2, b"lost") + codec.encode(codec.PING, 3, b"kept"))
        got = _frames(port, decoder, 3)
        replies = [(f[2], f[3]) for f in got if f[1] == codec.PING | codec.REPLY]
        assert replies == [(3, b"kept")]  # the Pico answered 2 first: that reply never came through
        assert decoder.bad == bad + (fault == "corrupt")  # a corrupted frame fails its CRC
        port.write(codec.encode(codec.PING, 2, b"lost"))  # sent again: the Pico's cache has only 3's
        assert [(f[2], f[3]) for f in _frames(port, decoder, 2) if f[1] == codec.PING | codec.REPLY] == [(2, b"lost")]
    finally:
        port.close()


def test_drop_the_next_heartbeat_any_frame(standalone: StandaloneTwin) -> None:
    assert standalone.type("drop heartbeat") == "twin: the Pico's next heartbeat frame will be dropped"
    assert standalone.type("corrupt") == "twin: the Pico's next frame will be corrupted"
    assert standalone.type("status").startswith("twin: bridge, boot 1, watchdog resets 0, port /dev/pts/")


def test_a_bad_command_is_one_line_and_the_twin_carries_on(standalone: StandaloneTwin) -> None:
    assert standalone.type("press") == "twin: error: press: expected one GP number 0..29, got nothing"
    assert standalone.type("pause soon") == "twin: error: pause: expected milliseconds from 1 to 600000, got soon"
    assert standalone.type("drop everything") == (
        "twin: error: drop: expected one of any, reply, heartbeat, edge, entropy, got everything")
    assert standalone.type("fly") == "twin: error: unknown command 'fly'; type help for the list"
    assert standalone.type("help").startswith("twin: commands: press PIN: ")
    with Link(standalone.port) as link:
        assert link.wait_up(10).firmware.startswith("dicetower-bridge 1.2")


def test_every_command_is_in_the_help_and_the_docs() -> None:
    helped = subprocess.run([sys.executable, "-m", "firmware_bridge.twin", "--help"], capture_output=True, text=True,
                            timeout=60, cwd=ROOT)
    assert helped.returncode == 0
    text = " ".join(helped.stdout.split())
    docs = (ROOT / "docs" / "bridge.md").read_text(encoding="utf-8")
    for usage, _ in COMMANDS:
        assert usage in text, usage
        assert f"`{usage}`" in docs, usage
    also = subprocess.run([sys.executable, "-m", "hardware", "bridge", "twin", "--help"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert also.returncode == 0 and all(usage in " ".join(also.stdout.split()) for usage, _ in COMMANDS)
    assert re.search(r"--flash DIR", also.stdout)
