"""``dicetower run`` as a process: the appliance loop on mock pins, stopped by SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
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
    import hardware.panel.io as panel_io
    from hardware.cli import main

    def no_gpio(name: str = "auto"):
        raise panel_io.NoGpioError("no GPIO on this machine (lgpio: No module named 'lgpio')")

    def no_simulator(*args, **kwargs):
        raise AssertionError("the simulator must not start without a terminal")

    monkeypatch.setattr(panel_io, "open_pin_factory", no_gpio)
    monkeypatch.setattr(tower, "interactive", no_simulator)
    monkeypatch.setattr(tower, "is_a_raspberry_pi", lambda: True)
    with open(os.devnull) as devnull:  # what systemd gives a service
        monkeypatch.setattr(sys, "stdin", devnull)
        code = main(["run"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""  # cannot start here: exit 2 (1 is "a check failed")
    import importlib.util

    hint = "lgpio is installed: are there /dev/gpiochip*" if importlib.util.find_spec("lgpio") else "install the GPIO"
    assert err.startswith(f"dicetower: no GPIO on this machine (lgpio: No module named 'lgpio'); {hint}")
    assert len(err.strip().splitlines()) == 1


def test_tower_on_a_laptop_without_a_terminal_says_how_to_run_the_simulator_scripted() -> None:
    """./tower with no terminal on a laptop used to say "install a GPIO backend"; there the
    missing piece is the terminal for the simulator."""
    from hardware.cli.tower import is_a_raspberry_pi

    if is_a_raspberry_pi():
        pytest.skip("this is a Raspberry Pi: the GPIO backend is what is missing")
    proc = subprocess.run([sys.executable, "-m", "hardware", "run"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "dicetower: not a Raspberry Pi (no GPIO), and no terminal here for the simulator (stdin and "
        "stdout are not one); run it scripted instead: dicetower sim --press mode,field,plus,roll "
        "(or --script FILE; see docs/simulator.md)\n")


def test_the_machine_is_a_pi_only_when_its_model_says_so(tmp_path) -> None:
    from hardware.cli.tower import is_a_raspberry_pi

    model, cpuinfo = tmp_path / "model", tmp_path / "cpuinfo"
    assert not is_a_raspberry_pi(model, cpuinfo)
    model.write_bytes(b"Raspberry Pi Zero 2 W Rev 1.0\x00")
    assert is_a_raspberry_pi(model, cpuinfo)
    model.write_bytes(b"Pine64 RockPro64\x00")
    assert not is_a_raspberry_pi(model, cpuinfo)
    # no device tree (a container or chroot on a Pi): the kernel's Model line in /proc/cpuinfo
    model.unlink()
    cpuinfo.write_bytes(b"processor\t: 0\nRevision\t: d04170\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n")
    assert is_a_raspberry_pi(model, cpuinfo)
    cpuinfo.write_bytes(b"processor\t: 0\nmodel name\t: Intel(R) Xeon(R) CPU\n")
    assert not is_a_raspberry_pi(model, cpuinfo)


@pytest.mark.parametrize("piped", [False, True])
def test_sim_without_a_terminal_writes_no_screen_codes_and_says_how_to_script_it(piped) -> None:
    stdin = {"input": "m r q"} if piped else {"stdin": subprocess.DEVNULL}  # a pipe, /dev/null
    proc = subprocess.run([sys.executable, "-m", "hardware", "sim", "--seed", "x"], **stdin,
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "\x1b" not in proc.stderr
    assert proc.stderr == (
        "dicetower sim: error: the interactive simulator needs a terminal (stdin and stdout are "
        "not one); run it scripted instead: dicetower sim --press mode,field,plus,roll (or "
        "--script FILE; see docs/simulator.md)\n")


def test_run_with_a_busy_pin_is_one_line_naming_the_key(tmp_path, capsys) -> None:
    from gpiozero import LED

    from hardware.cli.tower import run_tower
    from hardware.config.reader import loads
    from hardware.panel.io import open_pin_factory

    config = loads('[display]\nkind = "dummy"\n[entropy]\nsource = "kernel"\nbutton_timing = false\n')
    factory = open_pin_factory("mock")
    other = LED(26, pin_factory=factory)  # another program holds ROLL's pin
    try:
        assert run_tower(config, factory) == 2  # cannot start here (docs/roll-log.md)
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
        child.expect(r"dicetower: dice: no session, so no rolls: (cannot record: )?"
                     r"cannot (open the roll log|keep the new session's seed)")
        child.expect(r"dicetower: running \(")
        child.kill(signal.SIGTERM)
        child.expect("dicetower: stopped: LEDs off, display cleared")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
    finally:
        child.close(force=True)
    assert not (tmp_path / "~").exists()
