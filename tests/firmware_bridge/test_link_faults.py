"""A link that never dies and loses no press: short replies, internal errors, lost edge pairs,
the Pico's safe state, and the firmware's own checks (reserved pins, entropy credits, chips)."""

from __future__ import annotations

import json

import pytest
from gpiozero import PWMLED, Button

from firmware_bridge import selftest
from firmware_bridge.errors import BadReply, PicoRefused
from firmware_bridge.firmware import codec
from firmware_bridge.link import Link, State
from firmware_bridge.pins import BridgeFactory
from firmware_bridge.twin import Twin
from hardware.cli import main
from tests.firmware_bridge.polling import wait_for


def test_a_short_get_state_reply_is_a_bad_reply_and_the_link_lives_on(twin: Twin, link: Link) -> None:
    twin.bridge.handlers[codec.GET_STATE] = lambda p: b"\x01\x02\x03"
    with pytest.raises(BadReply, match=r"GET_STATE reply of 3 bytes, at least 9 expected"):
        link.get_state()
    link._gap = True  # the keeper asks for the state itself: it must survive the same reply
    wait_for(lambda: link.last_error and "GET_STATE" in link.last_error, what="the keeper's error")
    assert link.request(codec.PING, b"alive") == b"alive"
    assert link._threads and all(t.is_alive() for t in link._threads)


def test_a_state_reply_whose_records_do_not_fit_is_refused(twin: Twin, link: Link) -> None:
    twin.bridge.handlers[codec.GET_STATE] = lambda p: bytes(8) + b"\x05"  # 5 pins announced, none sent
    with pytest.raises(BadReply, match=r"for 5 pins, 29 expected"):
        link.get_state()


def test_short_events_are_dropped_not_used(twin: Twin, link: Link) -> None:
    edges: list[tuple[int, int]] = []
    link.on_edge(lambda pin, level, at: edges.append((pin, level)))
    before = link.stats.dropped_bad
    twin.bridge.event(codec.EV_EDGE, b"\x05")  # an edge without its level and time
    wait_for(lambda: link.stats.dropped_bad > before, what="the short edge counted")
    assert edges == [] and link.request(codec.PING) == b""


def test_an_internal_error_in_the_keeper_is_logged_once_and_the_link_shakes_hands_again(twin: Twin) -> None:
    lines: list[str] = []
    with Link(find=twin.find, log=lines.append) as link:
        link.wait_up(10)
        real = link._keep_step
        calls = [0]

        def broken() -> None:
            calls[0] += 1
            if calls[0] <= 3:
                raise TypeError("a bug")
            real()

        link._keep_step = broken
        wait_for(lambda: calls[0] > 3 and link.state is State.UP, what="the link back up")
        errors = [line for line in lines if "internal error" in line]
        assert errors == ["bridge: internal error in the link keeper (TypeError: a bug); the link shakes hands again"]
        assert link.stats.internal_errors == 3
        assert link.request(codec.PING, b"x") == b"x"


def test_a_failing_subscriber_stops_nothing(twin: Twin, link: Link) -> None:
    link.request(codec.PIN_MODE, bytes((5, codec.MODE_INPUT, codec.PULL_UP, 1)))
    seen: list[int] = []
    link.on_edge(lambda pin, level, at: 1 / 0)
    link.on_edge(lambda pin, level, at: seen.append(level))
    twin.press(5)
    wait_for(lambda: seen == [0], what="the second subscriber's edge")
    assert link.request(codec.PING, b"ok") == b"ok"


def test_selftest_prints_its_json_whatever_breaks(monkeypatch, capsys) -> None:
    def broken(*args, **kwargs):
        raise IndexError("index out of range")

    monkeypatch.setattr(selftest, "_leds", broken)
    assert main(["bridge", "selftest", "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] is False and result["error"] == "internal error: IndexError: index out of range"


def test_a_lost_press_and_release_are_recovered_from_the_edge_counts(twin: Twin, link: Link) -> None:
    link.request(codec.PIN_MODE, bytes((6, codec.MODE_INPUT, codec.PULL_UP, 1)))
    edges: list[tuple[int, int]] = []
    link.on_edge(lambda pin, level, at: edges.append((pin, level)))
    twin.drop_next(codec.EV_EDGE)
    twin.drop_next(codec.EV_EDGE)
    twin.press(6)
    wait_for(lambda: twin.bridge.pins.inputs[6].edges == 1, what="the press on the Pico")
    twin.press(6, down=False)
    wait_for(lambda: edges == [(6, 0), (6, 1)], what="both edges recovered")
    assert twin.dropped == [codec.EV_EDGE, codec.EV_EDGE] and link.stats.edges_recovered == 2


def test_a_gpiozero_button_sees_a_press_whose_edges_were_both_lost(twin: Twin, link: Link) -> None:
    factory = BridgeFactory(link=link)
    try:
        presses: list[bool] = []
        button = Button(7, pin_factory=factory)
        button.when_pressed = lambda: presses.append(True)
        twin.drop_next(codec.EV_EDGE)
        twin.drop_next(codec.EV_EDGE)
        twin.press(7)
        wait_for(lambda: twin.bridge.pins.inputs[7].edges == 1, what="the press on the Pico")
        twin.press(7, down=False)
        wait_for(lambda: presses == [True], what="the press")
        wait_for(lambda: not button.is_pressed, what="the release")
        button.close()
    finally:
        factory.close()


def test_outputs_come_back_after_the_safe_state(twin: Twin, link: Link) -> None:
    factory = BridgeFactory(link=link)
    try:
        led = PWMLED(12, pin_factory=factory)
        led.value = 0.25
        assert twin.level(12) == pytest.approx(0.25, abs=1e-4)
        twin.advance(3.5)  # the Pico hears nothing for 3.5 s: every output off
        wait_for(lambda: link.stats.restores == 1, what="the restore")
        wait_for(lambda: twin.level(12) == pytest.approx(0.25, abs=1e-4), what="the level again")
        led.close()
    finally:
        factory.close()


@pytest.mark.parametrize("pin", [8, 9, 14])
def test_the_firmware_refuses_its_own_pins(twin: Twin, link: Link, pin: int) -> None:
    with pytest.raises(PicoRefused, match=rf"GP{pin} is the .*kept by the bridge firmware") as info:
        link.request(codec.PIN_MODE, bytes((pin, codec.MODE_OUTPUT, 0, 0)))
    assert info.value.code == codec.E_BAD_PIN


def test_entropy_credits_are_checked_and_the_chunk_resets(twin: Twin, link: Link) -> None:
    for bad in (bytes((0,)), bytes((193,))):
        with pytest.raises(PicoRefused, match=r"chunk (0|193): 1..192 bytes allowed") as info:
            link.request(codec.ENTROPY_CREDIT, codec.put_u16(10) + bad)
        assert info.value.code == codec.E_BAD_PAYLOAD
    with pytest.raises(PicoRefused, match="bytes u16 and an optional chunk"):
        link.request(codec.ENTROPY_CREDIT, b"\x01")
    link.request(codec.ENTROPY_CREDIT, codec.put_u16(0) + bytes((16,)))
    assert twin.bridge.chunk == 16
    link.request(codec.ENTROPY_CREDIT, codec.put_u16(0))
    assert twin.bridge.chunk == codec.CHUNK_DEFAULT


def test_an_rp2350_offers_no_entropy_and_says_why() -> None:
    with Twin(seed=8, chip="RP2350") as twin, Link(find=twin.find) as link:
        hello = link.wait_up(10)
        assert not hello.entropy and "RP2350" in hello.firmware
        with pytest.raises(PicoRefused, match=r"no ring-oscillator entropy on an RP2350 .*only on an RP2040"):
            link.request(codec.ENTROPY_CREDIT, codec.put_u16(8))
        link.exit_to_repl()
        wait_for(lambda: twin.mode == "repl", what="the REPL")
        assert (0x400D8000 + 0x3000, 1 << 30) in twin.pico.mem_writes and not twin.pico.wdt_armed


def test_a_pico_w_keeps_gp25_for_its_radio() -> None:
    with Twin(seed=9, machine="Raspberry Pi Pico W with RP2040") as twin, Link(find=twin.find) as link:
        link.wait_up(10)
        with pytest.raises(PicoRefused, match=r"GP25 is not a usable pin on this Pico"):
            link.request(codec.PIN_MODE, bytes((25, codec.MODE_OUTPUT, 0, 0)))


def test_hello_comes_brief_then_info_in_parts(twin: Twin, link: Link) -> None:
    assert link.hello.firmware == "dicetower-bridge 1.2 on Raspberry Pi Pico with RP2040"
    assert link.hello.uid == twin.pico.uid and link.hello.minor == 2
    part = link.request(codec.INFO, bytes((0, 4)))
    assert part[0] == 1 + 8 + len(link.hello.firmware) and part[1:] == bytes((8,)) + twin.pico.uid[:3]


def test_an_echoing_peer_gets_hellos_backed_off_not_hundreds() -> None:
    """A line that echoes (a loopback, a wrong device) sent our HELLO back; its bytes made the
    peer look alive, and the HELLO went again at once: 286 in 3 s. Our own requests coming back
    are not a Pico: the HELLO backs off as on a silent line."""
    import re

    link = Link("loop://").start()
    try:
        wait_for(lambda: "no reply to HELLO" in (link.last_error or ""), timeout=30, what="one handshake's end")
        sends = int(re.search(r"sent (\d+) times", link.last_error).group(1))
        assert 1 <= sends <= 10, link.last_error  # 0.05, 0.1, 0.2 ... 1.0 s apart within the 3 s
    finally:
        link.close()
