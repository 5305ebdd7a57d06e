"""``dicetower bridge selftest`` on the twin: clean and on a line that corrupts 2 % of bytes."""

from __future__ import annotations

import json

from firmware_bridge import selftest
from hardware.cli import main


def test_selftest_json_on_the_twin(capsys) -> None:
    assert main(["bridge", "selftest", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] is True
    assert set(result) >= {"ok", "frames", "rtt_ms", "dropped_bad", "retransmits"}
    assert set(result["rtt_ms"]) == {"p50", "p99"}
    assert result["dropped_bad"] == 0 and result["frames"] > 100
    assert all(v is True for v in result["checks"].values())


def test_selftest_is_ok_on_a_noisy_line() -> None:
    result = selftest.run(noise_p=0.02, seed=11, pings=20)
    assert result["ok"] is True, result
    assert result["line_faults"] > 0 and result["dropped_bad"] > 0 and result["retransmits"] > 0


def test_selftest_options_are_checked(capsys) -> None:
    assert main(["bridge", "selftest", "--noise", "0.5"]) == 2
    assert "--noise: expected a fraction of bytes from 0 to 0.1, got '0.5'" in capsys.readouterr().err
    assert main(["bridge", "selftest", "--port", "loop://", "--noise", "0.01"]) == 2


def test_selftest_on_a_port_with_no_pico_fails_cleanly(capsys) -> None:
    result = selftest.run("loop://", pings=1, up_timeout=4.0)  # our own HELLO comes back: not a reply
    assert result["ok"] is False
    assert "no handshake within 4 s" in result["error"] and "no reply to HELLO" in result["error"]
