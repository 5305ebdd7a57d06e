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


def test_run_without_gpio_as_a_service_fails_in_one_line_instead_of_a_simulator(monkeypatch, capsys) -> None:
    """Under systemd (stdin /dev/null) the fallback simulator read end-of-input and exited 0 at
    once: the unit looked finished, Restart=on-failure did nothing, and the journal got the
    simulator's escape codes. Only a terminal gets the simulator now."""
    import hardware.cli.tower as tower
    import hardware.panel_io as panel_io
    from hardware.cli import main

    def no_gpio(name: str = "auto"):
        raise panel_io.NoGpioError("no GPIO on this machine (lgpio: No module named 'lgpio')")

    def no_simulator(*args, **kwargs):
        raise AssertionError("the simulator must not start without a terminal")

    monkeypatch.setattr(panel_io, "open_pin_factory", no_gpio)
    monkeypatch.setattr(tower, "interactive", no_simulator)
    with open(os.devnull) as devnull:  # what systemd gives a service
        monkeypatch.setattr(sys, "stdin", devnull)
        code = main(["run"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.startswith("dicetower: no GPIO on this machine (lgpio: No module named 'lgpio'); install a GPIO")
    assert len(err.strip().splitlines()) == 1


def test_run_with_a_busy_pin_is_one_line_naming_the_key(tmp_path, capsys) -> None:
    from gpiozero import LED

    from hardware.cli.tower import run_tower
    from hardware.config import loads
    from hardware.panel_io import open_pin_factory

    config = loads('[display]\nkind = "dummy"\n[entropy]\nsource = "kernel"\nbutton_timing = false\n')
    factory = open_pin_factory("mock")
    other = LED(26, pin_factory=factory)  # another program holds ROLL's pin
    try:
        assert run_tower(config, factory) == 1
    finally:
        other.close()
    err = capsys.readouterr().err
    assert err.startswith("dicetower: GPIO: buttons.roll (BCM 26): ") and len(err.strip().splitlines()) == 1


def test_run_starts_and_says_why_when_its_state_dir_cannot_be_made(tmp_path) -> None:
    """It exited 2 before: an unattended tower stayed dark in a restart loop. Now it runs,
    the journal says why, and the display says why it cannot roll. ``~`` is the home directory."""
    (tmp_path / "card").write_text("a file where the state directory should be")
    config = tmp_path / "tower.toml"
    config.write_text(
        '[gpio]\nfactory = "mock"\n[display]\nkind = "terminal"\n'
        '[kiosk]\nstate_dir = "~/card/state"\n[entropy]\nsource = "kernel"\nbutton_timing = false\n'
    )
    env = dict(os.environ, PYTHONUNBUFFERED="1", HOME=str(tmp_path))
    child = pexpect.spawn(sys.executable, ["-m", "hardware", "run", "--config", str(config)], env=env,
                          encoding="utf-8", timeout=20, dimensions=(40, 100))
    try:
        child.expect(rf"dicetower: kiosk.state_dir: cannot create {tmp_path}/card/state: Not a directory")
        child.expect(r"dicetower: dice: no session, so no rolls: cannot open the roll log")
        child.expect(r"dicetower: running \(")
        child.kill(signal.SIGTERM)
        child.expect("dicetower: stopped: LEDs off, display cleared")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
    finally:
        child.close(force=True)
    assert not (tmp_path / "~").exists()
