"""``dicetower run`` as a process: the appliance loop on mock pins, stopped by SIGTERM."""

from __future__ import annotations

import os
import signal
import sys

import pytest

pexpect = pytest.importorskip("pexpect")


def test_run_stops_cleanly_on_sigterm(tmp_path) -> None:
    config = tmp_path / "tower.toml"
    config.write_text(
        '[gpio]\nfactory = "mock"\n[display]\nkind = "terminal"\n'
        f'[kiosk]\nstate_dir = "{tmp_path / "state"}"\n[entropy]\nsource = "kernel"\nbutton_timing = false\n'
    )
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    child = pexpect.spawn(sys.executable, ["-m", "hardware", "run", "--config", str(config)], env=env,
                          encoding="utf-8", timeout=20, dimensions=(40, 100))
    try:
        child.expect(r"dicetower: running \(")
        assert "│infinity" in child.before  # the terminal display shows the setup screen
        child.kill(signal.SIGTERM)
        child.expect("dicetower: stopped: LEDs off, display cleared")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        assert "Traceback" not in (child.before or "")
    finally:
        child.close(force=True)
    assert (tmp_path / "state" / "panel.json").exists()  # the panel saved its memory on the way out
