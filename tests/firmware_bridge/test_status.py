"""``dicetower bridge status``: what the Pico is doing, in one line (or JSON); exit 0 only while
it runs the bridge. Safe mode's line is in test_update.py."""

from __future__ import annotations

import json

from firmware_bridge.twin import Twin
from hardware.cli import main


def test_a_pico_running_the_bridge(capsys) -> None:
    with Twin(seed=31) as twin:
        assert main(["bridge", "status", "--port", twin.port]) == 0
        line = capsys.readouterr().out.strip()
        assert line.startswith(f"bridge at {twin.port}: running dicetower-bridge 1.2 on Raspberry Pi Pico with RP2040 "
                               "(protocol 1.2), boot ")
        assert ", up " in line and "bad frames 0" in line
        assert main(["bridge", "status", "--port", twin.port, "--json"]) == 0
        got = json.loads(capsys.readouterr().out)
        assert got["state"] == "bridge" and got["watchdog_disarm"] is True and got["entropy"] is True


def test_a_port_where_nothing_answers(capsys) -> None:
    """A pty nobody reads: what a Pico at its REPL, another firmware or a dead line looks like."""
    import os
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        assert main(["bridge", "status", "--port", os.ttyname(slave), "--timeout", "1"]) == 1
        line = capsys.readouterr().out.strip()
        assert line.startswith(f"bridge at {os.ttyname(slave)}: not running the bridge (") and "main.why()" in line
    finally:
        os.close(master)
        os.close(slave)


def test_a_port_that_cannot_be_opened_is_one_line(capsys) -> None:
    assert main(["bridge", "status", "--port", "/dev/null/nothing", "--timeout", "1"]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("bridge at /dev/null/nothing: cannot open /dev/null/nothing")


def test_a_bad_timeout_is_one_line(capsys) -> None:
    assert main(["bridge", "status", "--timeout", "soon"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["dicetower: error: --timeout: expected seconds from 0 to 600, got 'soon'"]


def test_no_pico_plugged_in_is_one_line_and_the_json_state_no_pico(capsys, monkeypatch) -> None:
    """Nothing with the Pico's USB id: one line naming it, and ``"state": "no Pico"`` in JSON
    (``"no board"`` before "board" came to mean the store's witness only, docs/bridge.md)."""
    from serial.tools import list_ports

    monkeypatch.setattr(list_ports, "comports", lambda: [])
    assert main(["bridge", "status"]) == 1
    assert capsys.readouterr().out.strip() == ("bridge: no Raspberry Pi Pico found by USB id 2e8a:0005; plug it in "
                                               "or give --port (/dev/ttyACM0)")
    assert main(["bridge", "status", "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == {"port": None, "state": "no Pico"}
