"""deploy/dicetower.service: what the issue asks of it, checked by systemd's own tools.

``systemd-analyze verify`` loads the unit (and the network drop-in) against a small root where
its ExecStart exists; ``systemd-analyze security --offline=true`` scores its exposure. The
score is printed with ``pytest -s`` so a change that raises it shows in review.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support import require_command

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
UNIT = DEPLOY / "dicetower.service"
NETWORK = DEPLOY / "dicetower-network.conf"
#: The most the exposure may be: what is left is what GPIO, I2C and the Pico bridge need
#: (docs/deploy.md, "Hardening").
MAX_EXPOSURE = 0.6
MAX_EXPOSURE_WITH_NETWORK = 1.5


def unit_settings(path: Path) -> list[tuple[str, str, str]]:
    """(section, key, value) for every assignment, in order (keys may repeat)."""
    section = ""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        found.append((section, key.strip(), value.strip()))
    return found


def values(key: str, path: Path = UNIT) -> list[str]:
    return [v for _, k, v in unit_settings(path) if k == key]


def test_the_unit_has_what_the_issue_asks_for() -> None:
    one = {
        "Type": "notify", "Restart": "always", "StartLimitIntervalSec": "0", "User": "dicetower",
        "SupplementaryGroups": "gpio i2c spi dialout audio", "StateDirectory": "dicetower",
        "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes", "NoNewPrivileges": "yes",
        "DevicePolicy": "closed", "RestrictAddressFamilies": "AF_UNIX", "CapabilityBoundingSet": "",
    }
    for key, value in one.items():
        assert values(key) == [value], key
    assert re.fullmatch(r"\d+", values("WatchdogSec")[0])
    assert values("SystemCallFilter")[0] == "@system-service"
    assert ("Unit", "StartLimitIntervalSec", "0") in unit_settings(UNIT)  # where systemd reads it
    allowed = {v.rsplit(" ", 1)[0]: v.rsplit(" ", 1)[1] for v in values("DeviceAllow")}
    assert allowed == {
        "char-gpiochip": "rw", "/dev/gpiomem": "rw", "char-i2c": "rw", "char-spi": "rw",
        "char-ttyACM": "rw", "char-ttyUSB": "rw", "char-ttyAMA": "rw", "/dev/ttyS0": "rw", "/dev/hwrng": "r",
        "char-alsa": "rw",  # speech (docs/speech.md): espeak-ng opens /dev/snd/pcm*, control*, timer
    }


def test_the_network_drop_in_adds_inet_and_nothing_else() -> None:
    assert values("RestrictAddressFamilies", NETWORK) == ["", "AF_UNIX AF_INET AF_INET6 AF_NETLINK"]
    assert values("PrivateNetwork", NETWORK) == ["no"]
    assert values("IPAddressDeny", NETWORK) == [""]
    assert {k for _, k, _ in unit_settings(NETWORK)} == {"RestrictAddressFamilies", "PrivateNetwork", "IPAddressDeny"}


def _root(tmp_path: Path, *, network: bool = False, unit: Path = UNIT,
          programs: tuple[str, ...] = ("opt/dicetower/venv/bin/dicetower",)) -> Path:
    """A root holding the unit (and the drop-in), its programs (ExecStart ...) as executables
    and systemd's own units (sysinit.target and the rest that a service depends on)."""
    root = tmp_path / "root"
    units = root / "etc/systemd/system"
    units.mkdir(parents=True)
    (units / unit.name).write_bytes(unit.read_bytes())
    if network:
        (units / "dicetower.service.d").mkdir()
        (units / "dicetower.service.d/network.conf").write_bytes(NETWORK.read_bytes())
    for program in programs:
        exe = root / program
        exe.parent.mkdir(parents=True, exist_ok=True)
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    (root / "usr/lib/systemd").mkdir(parents=True)
    system_units = next(p for p in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")) if p.is_dir())
    (root / "usr/lib/systemd/system").symlink_to(system_units)
    return root


@pytest.mark.parametrize("network", [False, True], ids=["plain", "network"])
def test_systemd_analyze_verify_is_clean(tmp_path, network) -> None:
    _verify(_root(tmp_path, network=network), "dicetower.service")


def test_the_first_boot_unit_runs_the_install_script_the_image_carries_and_verifies(tmp_path) -> None:
    """deploy/install.sh --root puts it in an image (tests/deploy/test_install.py)."""
    unit = DEPLOY / "dicetower-firstboot.service"
    text = unit.read_text()
    assert "ExecStart=/opt/dicetower/src/deploy/install.sh --source /opt/dicetower/src\n" in text
    assert "ExecStartPost=/bin/systemctl disable dicetower-firstboot.service\n" in text
    assert "After=network-online.target\n" in text and "WantedBy=multi-user.target\n" in text
    _verify(_root(tmp_path, unit=unit, programs=("opt/dicetower/src/deploy/install.sh", "bin/systemctl")),
            unit.name)


def _verify(root: Path, unit: str) -> None:
    tool = require_command("systemd-analyze")
    done = subprocess.run([tool, "verify", f"--root={root}", unit],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # a warning (an unknown key, a bad value) is a failure too; the host's own units may
    # draw complaints about their symlinks in a root like this one, which are not ours
    ours = [line for line in done.stderr.splitlines()
            if "dicetower" in line and "Failed to resolve symlink" not in line]
    assert ours == []


def exposure(tmp_path: Path, *, network: bool) -> float:
    tool = require_command("systemd-analyze")
    root = _root(tmp_path, network=network)
    done = subprocess.run([tool, "security", "--offline=true", f"--root={root}", "dicetower.service"],
                          capture_output=True, text=True, timeout=120)
    match = re.search(r"Overall exposure level for dicetower\.service: (\d+\.\d)", done.stdout)
    assert match, done.stdout + done.stderr
    return float(match.group(1))


def test_exposure_score(tmp_path) -> None:
    plain = exposure(tmp_path / "plain", network=False)
    with_network = exposure(tmp_path / "network", network=True)
    print(f"systemd-analyze security: {plain} (with the network drop-in: {with_network})")
    assert plain <= MAX_EXPOSURE
    assert with_network <= MAX_EXPOSURE_WITH_NETWORK
