"""``dicetower run`` with its panel, display and entropy all on the Pico (the twin's pty)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from firmware_bridge.twin import Twin
from tests.firmware_bridge.polling import wait_for

ROLL_PIN = 26  # [buttons] roll in the default wiring: GP26 on the Pico


def _entries(log: Path) -> list[dict]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def test_the_tower_runs_on_the_bridge(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with Twin(seed=9) as twin:
        config = tmp_path / "tower.toml"
        config.write_text(
            '[gpio]\nfactory = "bridge"\n[display]\nkind = "bridge"\n[entropy]\nsource = "bridge"\n'
            f'button_timing = false\n[bridge]\nport = "{twin.port}"\n[kiosk]\nstate_dir = "{state}"\n'
        )
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        proc = subprocess.Popen([sys.executable, "-m", "hardware", "run", "--config", str(config)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            wait_for(lambda: any(twin.pico.oled.gddram), timeout=60, what="the setup screen on the OLED")
            wait_for(lambda: ROLL_PIN in twin.bridge.pins.inputs, timeout=60, what="the ROLL button set up")
            # taps until a roll is recorded: a first tap may only dismiss the session's commitment
            # screen. A tap is released as soon as the Pico has debounced the press (held longer
            # than hold_ms on a loaded machine it would be a hold, which does not roll).
            def rolled() -> bool:
                return any(e.get("kind") == "roll" for p in state.glob("*.jsonl") for e in _entries(p))

            for _ in range(20):
                twin.press(ROLL_PIN)
                wait_for(lambda: twin.bridge.pins.inputs[ROLL_PIN].level == 0, what="the Pico seeing the press")
                twin.press(ROLL_PIN, down=False)
                wait_for(lambda: twin.bridge.pins.inputs[ROLL_PIN].level == 1, what="the Pico seeing the release")
                try:
                    wait_for(rolled, timeout=3, what="a roll in the roll log")
                    break
                except AssertionError:
                    continue
            assert rolled(), "no roll recorded after 20 taps on ROLL"
            assert twin.bridge.ev > 0  # edges and entropy chunks went out as events
        except AssertionError as exc:
            proc.kill()
            raise AssertionError(f"{exc}\n{proc.communicate(timeout=30)[1]}") from None
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "display bridge" in err and "BridgeFactory" in err
        wait_for(lambda: all(twin.level(p) == 0.0 for p in (12, 16, 20, 21, 25)), timeout=30, what="the LEDs off")


def test_sim_on_the_twin_matches_sim_on_mock_pins(capsys) -> None:
    from hardware.cli import main

    script = "roll,plus,field,roll,mode,roll"
    assert main(["sim", "--seed", "7", "--press", script]) == 0
    on_mock = capsys.readouterr().out
    assert main(["sim", "--bridge", "--seed", "7", "--press", script]) == 0
    on_twin = capsys.readouterr().out
    assert on_twin == on_mock and "roll" in on_twin
