"""``python -m firmware_bridge.twin``: a twin on its own, for third-party hosts."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from firmware_bridge.firmware import codec
from firmware_bridge.link import Link


def test_the_twin_runs_alone_and_prints_its_port() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "firmware_bridge.twin", "--rosc", "period7", "--chip", "RP2350"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = proc.stdout.readline().strip()
        assert port.startswith("/dev/pts/")
        with Link(port) as link:
            hello = link.wait_up(10)
            assert hello.firmware == "dicetower-bridge 1.2 on Raspberry Pi Pico2 with RP2350" and not hello.entropy
            assert link.request(codec.PING, b"\x03third party") == b"\x03third party"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert f"simulated RP2350 at {port}" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_bad_option_is_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "firmware_bridge.twin", "--noise", "1.5"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1].endswith(
        "--noise: expected a fraction from 0 up to 1, got 1.5")
    assert done.stdout == ""


@pytest.mark.parametrize("model", ["urandom", "sticky", "stuck", "alternating", "period7", "lcg", "lfsr"])
def test_every_oscillator_model_gives_bits(model: str) -> None:
    from firmware_bridge.twin import ROSC_MODELS

    bit = ROSC_MODELS[model][1]()
    bits = [bit() for _ in range(64)]
    assert set(bits) <= {0, 1}
