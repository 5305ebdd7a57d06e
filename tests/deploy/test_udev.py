"""deploy/70-dicetower.rules: valid udev syntax, and what it does to the devices it is for
(and not to others). ``udevadm verify`` checks it too where systemd 254+ provides it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.deploy.udev_rules import Device, RuleError, apply, parse

RULES = Path(__file__).resolve().parents[2] / "deploy" / "70-dicetower.rules"
PICO = {"idVendor": "2e8a", "idProduct": "0005", "serial": "E6614C311B7A5E2F"}


def rules():
    return parse(RULES.read_text(encoding="utf-8"))


def pico_tty(vendor: str = "2e8a", product: str = "0005") -> Device:
    usb = Device("usb", "1-1", attrs={**PICO, "idVendor": vendor, "idProduct": product})
    interface = Device("usb", "1-1:1.0", attrs={"bInterfaceClass": "02"}, parents=[usb])
    return Device("tty", "ttyACM0", env={"ID_SERIAL_SHORT": PICO["serial"]}, parents=[interface, usb])


def test_every_line_is_valid_udev() -> None:
    assert len(rules()) == 4


def test_the_reader_rejects_what_udev_rejects() -> None:
    for bad in ('KERNEL="hwrng"', 'GROUP=="x"', 'KERNEL=="a" GROUP="b"', 'FOO=="x"', 'MODE="rw"', "KERNEL==hwrng"):
        with pytest.raises(RuleError):
            parse(bad)


def test_hwrng_is_readable_by_the_dicetower_group() -> None:
    got = apply(rules(), Device("misc", "hwrng"))
    assert got["GROUP"] == "dicetower" and got["MODE"] == "0640"
    assert "GROUP" not in apply(rules(), Device("misc", "uinput"))


def test_the_pico_bridge_gets_a_stable_name_and_modemmanager_leaves_it_alone() -> None:
    got = apply(rules(), pico_tty())
    assert got["ENV{ID_MM_DEVICE_IGNORE}"] == "1"
    assert got["GROUP"] == "dialout" and got["MODE"] == "0660"
    assert got["SYMLINK"] == ["dicetower-bridge", f"dicetower-bridge-{PICO['serial']}"]
    usb = apply(rules(), Device("usb", "1-1", attrs=PICO, env={"DEVTYPE": "usb_device"}))
    assert usb["ENV{ID_MM_DEVICE_IGNORE}"] == "1"


def test_other_serial_devices_are_untouched() -> None:
    for vendor, product in (("2e8a", "000a"), ("0403", "6001")):  # Pico SDK CDC; an FTDI adapter
        assert apply(rules(), pico_tty(vendor, product)) == {"SYMLINK": []}


def test_udevadm_verify_where_available() -> None:
    udevadm = shutil.which("udevadm") or shutil.which("udevadm", path="/usr/sbin:/sbin")
    if udevadm is None or subprocess.run([udevadm, "verify", "--help"], capture_output=True).returncode != 0:
        pytest.skip("udevadm verify needs systemd 254 or newer; the rules are checked by the reader above")
    done = subprocess.run([udevadm, "verify", str(RULES)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
