"""The host link against the firmware twin on a real pty: handshake, faults, replug, timeouts."""

from __future__ import annotations

import os
import random

import pytest
import serial
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.errors import BridgeTimeout, VersionMismatch
from firmware_bridge.firmware import codec
from firmware_bridge.link import Link, State
from firmware_bridge.twin import Twin
from tests.firmware_bridge.polling import wait_for


def test_handshake_and_round_trip_with_ctrl_c_bytes(twin: Twin, link: Link) -> None:
    assert link.hello is not None and link.hello.uid == twin.pico.uid
    assert link.hello.caps & codec.CAP_ENTROPY
    assert twin.pico.kbd_intr == -1  # 0x03 is payload on the Pico, not KeyboardInterrupt
    payload = b"\x03" * 50 + bytes(range(150))
    assert link.request(codec.PING, payload) == payload


def test_leds_buttons_and_display_reach_the_pico(twin: Twin, link: Link) -> None:
    link.request(codec.PIN_MODE, bytes((5, codec.MODE_INPUT, codec.PULL_UP, 5)))
    link.request(codec.PIN_MODE, bytes((12, codec.MODE_PWM, 0, 0)))
    link.request(codec.PIN_SET, bytes((12,)) + codec.put_u16(32768) + codec.put_u16(500))
    assert twin.level(12) == pytest.approx(0.5, abs=1e-3)
    edges: list[tuple[int, int]] = []
    link.on_edge(lambda pin, level, at: edges.append((pin, level)))
    twin.press(5)
    wait_for(lambda: edges == [(5, 0)], what="the press")
    twin.press(5, down=False)
    wait_for(lambda: edges == [(5, 0), (5, 1)], what="the release")
    link.request(codec.DISPLAY_INIT, bytes((128, 64, 0x3C)))
    link.request(codec.DISPLAY_PAGES, bytes((7, 0)) + bytes(range(1, 129)))
    assert twin.pico.oled.on
    assert twin.pico.oled.gddram[7 * 128 : 8 * 128] == bytes(range(1, 129))


def test_a_duplicated_command_is_applied_once(twin: Twin, link: Link) -> None:
    link.request(codec.PIN_MODE, bytes((12, codec.MODE_PWM, 0, 0)))
    calls = []
    handler = twin.bridge.handlers[codec.PIN_SET]
    twin.bridge.handlers[codec.PIN_SET] = lambda p: calls.append(p) or handler(p)
    replies: list[int] = []
    link._dispatch = lambda v, k, s, p, orig=link._dispatch: (replies.append(s) if k & 0x80 and s == 999 else None,
                                                              orig(v, k, s, p))
    frame = codec.encode(codec.PIN_SET, 999, bytes((12,)) + codec.put_u16(1000) + codec.put_u16(0))
    link._write(frame + frame)  # the same request twice on the line
    wait_for(lambda: len(replies) == 2, what="both replies")
    assert len(calls) == 1  # answered twice, executed once
    assert twin.level(12) == pytest.approx(1000 / 65535)


def test_an_event_gap_makes_the_host_ask_for_the_state(twin: Twin, link: Link) -> None:
    link.request(codec.PIN_MODE, bytes((6, codec.MODE_INPUT, codec.PULL_UP, 1)))
    states: list[dict] = []
    link.on_state(states.append)
    twin.drop_next(codec.EV_EDGE)
    twin.press(6)  # its edge is lost on the line
    wait_for(lambda: states, what="the state request")
    assert states[-1][6] == (codec.MODE_INPUT, 0)  # the level the lost edge carried
    assert link.stats.event_gaps >= 1 and link.stats.state_requests >= 1


def test_an_entropy_chunk_after_a_gap_is_not_credited(twin: Twin, link: Link) -> None:
    chunks: list[tuple[int, bool]] = []
    link.on_entropy(lambda raw, ok: chunks.append((len(raw), ok)))
    twin.drop_next(codec.EV_ENTROPY)
    link.request(codec.ENTROPY_CREDIT, codec.put_u16(256))
    wait_for(lambda: len(chunks) == 3, what="the chunks after the lost one")
    assert chunks == [(64, False), (64, True), (64, True)]
    assert link.stats.entropy_discarded == 1


def test_stale_bytes_at_open_are_skipped() -> None:
    with Twin(seed=2) as twin:
        fd = os.open(twin.port, os.O_RDWR | os.O_NOCTTY)
        try:
            master = twin._fds[0]
            os.write(master, b"\x55\x12garbage without a delimiter" + codec.encode(codec.EV_HEARTBEAT, 0, b"x")[:-3])
        finally:
            os.close(fd)
        with Link(find=twin.find) as link:
            link.wait_up(10)
            assert link.request(codec.PING, b"fresh") == b"fresh"


def test_unplug_and_replug_gives_a_new_boot_and_the_config_again(twin: Twin, link: Link) -> None:
    connects: list[tuple[int, bool]] = []
    link.on_connect(lambda hello, new: connects.append((hello.boot_id, new)))
    first = link.hello.boot_id
    twin.unplug()
    wait_for(lambda: link.state is State.DISCONNECTED, what="the unplug")
    twin.plug()
    wait_for(lambda: link.state is State.UP and link.hello.boot_id != first, what="the replug")
    assert connects and connects[-1][1] is True and connects[-1][0] != first
    assert link.stats.reconnects == 1
    assert link.request(codec.PING, b"back") == b"back"


def test_a_pico_that_stops_answering_ends_in_a_timeout(twin: Twin, link: Link) -> None:
    twin.pause()
    try:
        with pytest.raises(BridgeTimeout, match=r"no reply to PING within 0.3 s \(sent \d+ times\)"):
            link.request(codec.PING, b"anyone?", timeout=0.3)
        wait_for(lambda: link.state is State.DEGRADED, what="the missing heartbeat")
    finally:
        twin.pause(False)
    wait_for(lambda: link.state is State.UP, what="the heartbeat again")


def test_a_major_version_mismatch_is_refused_on_both_sides() -> None:
    with Twin(seed=3) as twin:
        twin.modules["codec"].VERSION_MAJOR = 2  # a Pico with a newer protocol
        with Link(find=twin.find) as link, pytest.raises(VersionMismatch, match="update the Pico's firmware"):
            link.wait_up(10)
        assert twin.bridge.session is False


def test_noise_on_the_line_loses_nothing_that_is_accepted() -> None:
    rng = random.Random(7)
    # 2 % of bytes: a 40-byte frame gets through about 45 % of the time, so short requests
    with Twin(noise=0.02, seed=4) as twin, Link(find=twin.find, timeout=20.0) as link:
        link.wait_up(20)
        for _ in range(40):
            payload = rng.randbytes(rng.randrange(0, 30))
            assert link.request(codec.PING, payload) == payload
        assert twin.faults > 0 and link.stats.dropped_bad > 0


def test_pyserial_opens_the_pty_exclusively(twin: Twin, link: Link) -> None:
    with pytest.raises(serial.SerialException):
        serial.serial_for_url(twin.port, exclusive=True)


def test_an_event_number_too_high_does_not_deafen_the_host(twin: Twin, link: Link) -> None:
    """A well-framed event with a false, too high number (a CRC false accept in salvage, a
    faulty Pico) used to make every later edge a "duplicate" until the Pico rebooted. Now any
    number other than last+1 asks for the state, whose reply sets the number to the Pico's."""
    link.request(codec.PIN_MODE, bytes((6, codec.MODE_INPUT, codec.PULL_UP, 1)))
    edges: list[tuple[int, int]] = []
    link.on_edge(lambda pin, level, at: edges.append((pin, level)))
    requests = link.stats.state_requests
    forged = codec.encode(codec.EV_EDGE, 0, codec.put_u32(link._ev + 1_000_000) + bytes((7, 1)) + codec.put_u32(0))
    os.write(twin._fds[0], forged)  # as if the Pico had sent it
    wait_for(lambda: link.stats.state_requests > requests, what="the state request after the false number")
    wait_for(lambda: link._ev < 1_000_000, what="the Pico's number again")
    edges.clear()
    twin.press(6)
    wait_for(lambda: edges == [(6, 0)], what="the next press, heard")
    twin.press(6, down=False)
    wait_for(lambda: edges == [(6, 0), (6, 1)], what="its release")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(numbers=st.lists(st.one_of(st.integers(0, 8), st.integers(0, 0xFFFFFFFF)), min_size=1, max_size=4))
def test_no_event_number_leaves_the_host_deaf(twin: Twin, link: Link, numbers: list[int]) -> None:
    """Whatever numbers well-framed events carry (higher, lower, equal, wrapped), the link
    resyncs and every later edge arrives."""
    link.request(codec.PIN_MODE, bytes((6, codec.MODE_INPUT, codec.PULL_UP, 1)))
    edges: list[tuple[int, int]] = []
    link.on_edge(lambda pin, level, at: edges.append((pin, level)))
    for n in numbers:
        os.write(twin._fds[0], codec.encode(codec.EV_EDGE, 0, codec.put_u32(n) + bytes((7, 1)) + codec.put_u32(0)))
    wait_for(lambda: not link._gap and link._behind == 0, what="the resync")
    edges.clear()
    twin.press(6)
    wait_for(lambda: (6, 0) in edges, what="the press after the false numbers")
    twin.press(6, down=False)
    wait_for(lambda: (6, 1) in edges, what="its release")
