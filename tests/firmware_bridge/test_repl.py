"""Handing the Pico to mpremote: ``dicetower bridge repl`` on the twin, whose watchdog, soft
reset and REPL are modelled, and what happens without the disarm (the bug it fixes)."""

from __future__ import annotations

import os
import time

from firmware_bridge.firmware import codec
from firmware_bridge.link import Link, State
from firmware_bridge.simpico import WATCHDOG_CTRL
from firmware_bridge.twin import Twin
from hardware.cli import main
from tests.firmware_bridge.polling import wait_for


class Terminal:
    """What mpremote does on the port, byte for byte (a raw pty opened like a serial port)."""

    def __init__(self, port: str) -> None:
        self.fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.seen = b""

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def read_until(self, marker: bytes, timeout: float = 10.0) -> bytes:
        deadline = time.monotonic() + timeout
        while marker not in self.seen:
            if time.monotonic() > deadline:
                raise AssertionError(f"no {marker!r} within {timeout:g} s; got {self.seen[-200:]!r}")
            try:
                self.seen += os.read(self.fd, 4096)
            except BlockingIOError:
                time.sleep(0.002)
        head, _, self.seen = self.seen.partition(marker)
        return head + marker

    def close(self) -> None:
        os.close(self.fd)


def _enter_raw_repl_with_soft_reset(term: Terminal) -> None:
    """mpremote's connect: interrupt, raw REPL, Ctrl-D soft reset (pyboard.enter_raw_repl)."""
    term.send(b"\r\x03\x03")
    term.send(b"\r\x01")
    term.read_until(b"raw REPL; CTRL-B to exit\r\n>")
    term.send(b"\x04")
    term.read_until(b"soft reboot\r\n")
    term.read_until(b"raw REPL; CTRL-B to exit\r\n>")


def test_bridge_repl_then_mpremote_soft_reset_leaves_the_pico_in_its_repl(capsys) -> None:
    with Twin(seed=1) as twin:
        first_boot = twin.boots
        assert main(["bridge", "repl", "--port", twin.port]) == 0
        out = capsys.readouterr().out
        assert f"mpremote connect {twin.port} cp " in out and "/firmware_bridge/firmware/*.py :" in out
        assert f"mpremote connect {twin.port} reset" in out
        wait_for(lambda: twin.mode == "repl", what="the Pico's REPL")
        pico = twin.pico
        assert not pico.wdt_armed  # disarmed through WATCHDOG CTRL's clear alias
        assert (WATCHDOG_CTRL["RP2040"] + 0x3000, 1 << 30) in pico.mem_writes
        assert pico.kbd_intr == 3 and twin.repl.line == b""  # Ctrl-C is back; the host typed nothing
        term = Terminal(twin.port)
        try:
            _enter_raw_repl_with_soft_reset(term)
            assert twin.repl.soft_resets == 1 and pico.timers == []
            twin.advance(10.0)  # far beyond the 4 s watchdog
            twin.wait_passes(3)
            assert twin.mode == "repl" and twin.boots == first_boot and twin.watchdog_resets == 0
            term.send(b"\x02")  # mpremote leaves the raw REPL when it is done
            term.read_until(b">>> ")
        finally:
            term.close()


def test_without_the_disarm_the_watchdog_brings_the_bridge_back_mid_update() -> None:
    """The 1.0 firmware's way (a timer feeding the watchdog): mpremote's soft reset stops the
    timer and the still-armed watchdog reboots the Pico into the bridge."""
    with Twin(seed=2) as twin, Link(find=twin.find) as link:
        link.wait_up(10)
        twin.modules["chip"].disarm_watchdog = lambda chip: False  # as firmware 1.0 did
        link.exit_to_repl()
        wait_for(lambda: twin.mode == "repl", what="the REPL")
        assert twin.pico.wdt_armed and twin.pico.timers  # kept fed by a timer
        term = Terminal(twin.port)
        try:
            _enter_raw_repl_with_soft_reset(term)
        finally:
            term.close()
        twin.advance(5.0)
        wait_for(lambda: twin.watchdog_resets == 1 and twin.mode == "bridge", what="the watchdog's reboot")


def test_a_soft_reset_in_the_friendly_repl_starts_the_bridge_again() -> None:
    with Twin(seed=3) as twin:
        with Link(find=twin.find) as link:
            link.wait_up(10)
            link.exit_to_repl()
        wait_for(lambda: twin.mode == "repl", what="the REPL")
        term = Terminal(twin.port)
        try:
            term.send(b"\x04")  # Ctrl-D at the >>> prompt: main.py runs
            term.read_until(b"MPY: soft reboot\r\n")
        finally:
            term.close()
        wait_for(lambda: twin.mode == "bridge" and twin.pico.wdt_armed, what="the bridge again")
        with Link(find=twin.find) as link:
            assert link.wait_up(10).firmware.startswith("dicetower-bridge 1.2")


def test_a_lost_exit_reply_is_answered_from_the_cache_and_nothing_reaches_the_repl() -> None:
    with Twin(seed=4) as twin, Link(find=twin.find) as link:
        link.wait_up(10)
        twin.drop_next(codec.EXIT_TO_REPL | codec.REPLY)
        link.exit_to_repl()
        assert twin.dropped == [codec.EXIT_TO_REPL | codec.REPLY] and link.stats.retransmits >= 1
        wait_for(lambda: twin.mode == "repl", what="the REPL")
        twin.wait_passes(5)
        assert twin.repl.line == b"" and not twin.repl.raw and twin.repl.soft_resets == 0


def test_a_stopped_loop_is_reset_by_the_watchdog_and_the_host_shakes_hands_again() -> None:
    with Twin(seed=5) as twin, Link(find=twin.find) as link:
        first = link.wait_up(10).boot_id
        twin.pause()
        twin.advance(5.0)
        wait_for(lambda: twin.watchdog_resets == 1, what="the watchdog")
        twin.pause(False)
        wait_for(lambda: link.state is State.UP and link.hello.boot_id != first, what="the new boot")
        beats: list[bytes] = []
        link._dispatch = lambda v, k, s, p, orig=link._dispatch: (beats.append(p) if k == codec.EV_HEARTBEAT
                                                                  else None, orig(v, k, s, p))
        wait_for(lambda: beats, what="a heartbeat")
        assert beats[-1][16] & codec.FLAG_WDT_RESET


def test_reset_request_reboots_the_pico() -> None:
    with Twin(seed=6) as twin, Link(find=twin.find) as link:
        first = link.wait_up(10).boot_id
        link.request(codec.RESET)
        wait_for(lambda: link.state is State.UP and link.hello.boot_id != first, what="the reboot")
        assert twin.boots == 2


def test_bridge_repl_without_a_pico_is_one_line(capsys) -> None:
    assert main(["bridge", "repl", "--port", "/dev/null/nothing"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("dicetower: bridge repl: ") and "/dev/null/nothing" in err[0]


def test_bridge_repl_refuses_a_chip_whose_watchdog_the_firmware_cannot_disarm(capsys) -> None:
    """The firmware knows the RP2040's and RP2350's watchdog registers only; on another chip
    (HELLO's caps without CAP_DISARM) `bridge repl` says why in one line, sends nothing, and
    exits 1: the Pico stays in the bridge."""
    with Twin(seed=4, chip="RP2xxx") as twin:
        assert main(["bridge", "repl", "--port", twin.port]) == 1
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()
        assert captured.out == "" and len(err) == 1
        assert err[0].startswith(f"dicetower: bridge repl: {twin.port}: its firmware (dicetower-bridge 1.2 on a "
                                 "Pico clone with an RP2xxx) does not know this chip, so it cannot disarm its watchdog")
        assert "--force" in err[0] and "resets into the bridge within 4 s" in err[0]
        twin.wait_passes(3)
        assert twin.mode == "bridge" and twin.pico.wdt_armed


def test_bridge_repl_force_goes_on_and_warns_that_the_watchdog_stays_armed(capsys) -> None:
    with Twin(seed=4, chip="RP2xxx") as twin:
        assert main(["bridge", "repl", "--port", twin.port, "--force"]) == 0
        out = capsys.readouterr().out
        assert "watchdog disarmed" not in out and "its watchdog still armed (kept fed by a timer)" in out
        assert "Warning: the firmware does not know this Pico's chip" in out
        wait_for(lambda: twin.mode == "repl", what="the Pico's REPL")
        assert twin.pico.wdt_armed and twin.pico.timers


def test_bridge_repl_help_says_what_force_costs(capsys) -> None:
    import pytest

    with pytest.raises(SystemExit):
        main(["bridge", "repl", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--force" in text and "the Pico resets into the bridge within 4 s" in text


def test_mpremote_right_after_bridge_repl_gets_in(capsys) -> None:
    """`bridge repl` returns only after the Pico's 0.5 s linger: the docs chain mpremote
    right after it, and its Ctrl-C / Ctrl-A reach the REPL, not the bridge."""
    from hardware.cli.bridge_tools import LINGER_S

    with Twin(seed=5) as twin:
        assert LINGER_S * 1000 == twin.modules["bridge"].LINGER_MS
        assert main(["bridge", "repl", "--port", twin.port]) == 0
        assert twin.mode == "repl"  # the linger is over when the command returns
        term = Terminal(twin.port)
        try:
            _enter_raw_repl_with_soft_reset(term)  # at once, as the docs' recipe does
            assert twin.repl.soft_resets == 1
        finally:
            term.close()
