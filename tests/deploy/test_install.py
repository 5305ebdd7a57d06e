"""deploy/install.sh and deploy/uninstall.sh, run for real into a temporary root.

The commands that change the running system (apt-get, dpkg-query, groupadd, useradd, usermod,
userdel, systemctl, udevadm, and python3 for the venv and pip) are the logging stand-ins in
tests/deploy/fakebin, first on PATH; everything else (files, config.txt, the unit, the rules)
is real. The root starts as a Raspberry Pi OS one: the device groups and /boot/firmware/config.txt.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
FAKE = Path(__file__).resolve().parent / "fakebin" / "fake-command"
FAKED = ("apt-get", "apt-cache", "dpkg-query", "groupadd", "useradd", "usermod", "userdel", "systemctl", "udevadm",
         "python3")
#: What only looks: a dry run or a run with nothing to do calls nothing else.
READ_ONLY = re.compile(r"^(dpkg-query -|apt-cache policy |venv-python -c |systemctl is-(enabled|active) )")
STEPS = ["packages", "groups", "user", "I2C in config.txt", "i2c-dev module", "venv", "dicetower in the venv",
         "store extra", "GPIO libraries", "documentation", "dicetower on PATH", "config", "service unit",
         "network drop-in", "phone page ([web])", "udev rules", "systemd"]
#: What the packages step installs on Raspberry Pi OS (its archive has the GPIO packages).
APT_INSTALL = ("apt-get install -y -qq --no-install-recommends python3-venv i2c-tools espeak-ng python3-lgpio "
               "python3-rpi-lgpio")
#: An image's steps: the same, then what the device needs for its first boot.
IMAGE_STEPS = [*STEPS, "source for first boot", "first-boot unit"]
#: What preparing an image may run on this machine: looking into the image's dpkg database,
#: and the user tools, which edit the image's /etc/passwd and /etc/group (--prefix).
IMAGE_CALLS = re.compile(r"^(dpkg-query --admindir \S+/var/lib/dpkg |(groupadd|useradd|usermod) .*--prefix )")
CONFIG_TXT = "# Raspberry Pi OS\ndtparam=audio=on\n#dtparam=i2c_arm=on\n\n[all]\n"


@dataclass
class FakeSystem:
    root: Path
    bin: Path
    log: Path
    state: Path

    def run(self, script: str, *args: str, image: bool = False,
            scripts: Path = DEPLOY) -> subprocess.CompletedProcess[str]:
        """Run a script on a device whose / is the root (the commands are the stand-ins), or
        with ``image`` as it prepares an image (--root alone: nothing may run here)."""
        env = dict(os.environ, PATH=f"{self.bin}:{os.environ['PATH']}", DICETOWER_FAKE_LOG=str(self.log),
                   DICETOWER_FAKE_STATE=str(self.state), LC_ALL="C")
        env.pop("DICETOWER_INSTALL_LIVE", None)
        if not image:
            env["DICETOWER_INSTALL_LIVE"] = "1"
        return subprocess.run(["bash", str(scripts / script), "--root", str(self.root), *args],
                              capture_output=True, text=True, env=env, timeout=120)

    def install(self, *args: str, image: bool = False) -> subprocess.CompletedProcess[str]:
        return self.run("install.sh", *args, image=image)

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def calls_since(self, start: int) -> list[str]:
        return self.calls()[start:]

    def tree(self) -> dict[str, bytes | str]:
        """Every file (its bytes) and symlink (its target) under the root."""
        found: dict[str, bytes | str] = {}
        for path in sorted(self.root.rglob("*")):
            rel = str(path.relative_to(self.root))
            if path.is_symlink():
                found[rel] = "-> " + os.readlink(path)
            elif path.is_file():
                found[rel] = path.read_bytes()
        return found


@pytest.fixture
def system(tmp_path) -> FakeSystem:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in FAKED:
        (bin_dir / name).symlink_to(FAKE)
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\npi:x:1000:1000::/home/pi:/bin/bash\n")
    (root / "etc/group").write_text("root:x:0:\ndialout:x:20:pi\naudio:x:29:pi\nspi:x:999:pi\ni2c:x:998:pi\n"
                                    "gpio:x:997:pi\n")
    (root / "run/systemd/system").mkdir(parents=True)  # systemd is running (sd_booted)
    (root / "var/lib/dpkg").mkdir(parents=True)
    (root / "var/lib/dpkg/status").write_text("")  # an image's dpkg database (its packages are the fakes')
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text(CONFIG_TXT)
    return FakeSystem(root, bin_dir, tmp_path / "calls.log", tmp_path / "state")


def steps_in(out: str) -> list[str]:
    """The steps an output reports, in order, each once."""
    seen: list[str] = []
    for line in out.splitlines():
        m = re.match(r"^(?:ok|change|would|boot)\s+(.*?)(?::|$)", line)
        if m:
            name = next((s for s in STEPS if m.group(1).startswith(s)), m.group(1))
            if name not in seen:
                seen.append(name)
    return seen


def test_dry_run_prints_every_step_and_touches_nothing(system) -> None:
    before = system.tree()
    done = system.install("--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert steps_in(done.stdout) == STEPS
    assert system.tree() == before
    assert all(READ_ONLY.match(call) for call in system.calls()), system.calls()
    out = done.stdout
    packages = "python3-venv i2c-tools espeak-ng python3-lgpio python3-rpi-lgpio"
    assert f"would   packages {packages}: install {packages}" in out
    assert "$ systemctl enable --now dicetower.service" in out
    assert out.rstrip().endswith("dry run: 17 change(s) would be made; nothing was touched")


def test_install_into_a_root(system) -> None:
    done = system.install()
    assert done.returncode == 0, done.stderr
    root = system.root
    assert (root / "etc/systemd/system/dicetower.service").read_bytes() == (DEPLOY / "dicetower.service").read_bytes()
    assert (root / "etc/udev/rules.d/70-dicetower.rules").read_bytes() == (DEPLOY / "70-dicetower.rules").read_bytes()
    assert not (root / "etc/systemd/system/dicetower.service.d").exists()  # no network configured
    config = (root / "etc/dicetower/dicetower.toml").read_text()
    assert '\nstate_dir = "/var/lib/dicetower"\n' in config
    default = (REPO / "hardware/default.toml").read_text()
    assert config == re.sub(r"(?m)^state_dir = .*$", 'state_dir = "/var/lib/dicetower"', default)
    boot = (root / "boot/firmware/config.txt").read_text()
    assert boot.startswith(CONFIG_TXT)
    assert boot.endswith("[all]\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n# <<< dicetower\n")
    assert (root / "etc/modules-load.d/dicetower.conf").read_text().splitlines()[-1] == "i2c-dev"
    assert os.readlink(root / "usr/local/bin/dicetower") == "/opt/dicetower/venv/bin/dicetower"
    assert (root / "opt/dicetower/docs/deploy.md").read_bytes() == (REPO / "docs/deploy.md").read_bytes()
    passwd = (root / "etc/passwd").read_text()
    assert re.search(r"^dicetower:x:\d+:\d+:dicetower dice tower:/var/lib/dicetower:/usr/sbin/nologin$", passwd, re.M)
    groups = {line.split(":")[0]: line.split(":")[3].split(",") for line in (root / "etc/group").read_text().split()}
    assert all("dicetower" in groups[g] for g in ("gpio", "i2c", "spi", "dialout", "audio"))
    calls = system.calls()
    assert APT_INSTALL in calls
    assert f"python3 -m venv --system-site-packages {root}/opt/dicetower/venv" in calls
    assert f"venv-python -m pip install --quiet --disable-pip-version-check {REPO}" in calls
    assert not any("[store]" in c for c in calls)  # a tower: no store extra
    assert "ok      store extra: not asked for: a tower" in done.stdout
    assert not (root / "opt/dicetower/extras").exists()
    assert not any(c.startswith("groupadd") for c in calls)  # Raspberry Pi OS has the groups
    assert calls[-3:] == ["systemctl daemon-reload", "systemctl is-enabled --quiet dicetower.service",
                          "systemctl enable --now dicetower.service"]
    assert "udevadm control --reload" in calls
    assert done.stdout.rstrip().endswith("reboot to turn I2C on at 400 kHz (the display needs it): sudo reboot")


def test_a_second_run_changes_nothing_and_says_so(system) -> None:
    assert system.install().returncode == 0
    tree, start = system.tree(), len(system.calls())
    done = system.install()
    assert done.returncode == 0, done.stderr
    assert system.tree() == tree
    assert all(READ_ONLY.match(call) for call in system.calls_since(start))
    lines = done.stdout.splitlines()
    assert all(line.startswith("ok ") for line in lines[1:-1]), done.stdout
    assert steps_in(done.stdout) == STEPS
    assert lines[-1] == "nothing to change: dicetower is already installed"
    dry = system.install("--dry-run")
    assert dry.stdout.splitlines()[-1] == "dry run: 0 change(s) would be made; nothing was touched"


def test_new_source_is_installed_and_the_service_restarted(system) -> None:
    assert system.install().returncode == 0
    (system.root / "opt/dicetower/venv/.dicetower-source").write_text("an older source\n")
    start = len(system.calls())
    done = system.install()
    assert done.returncode == 0, done.stderr
    calls = system.calls_since(start)
    assert f"venv-python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps {REPO}" in calls
    assert calls[-1] == "systemctl restart dicetower.service"
    assert "done: 3 change(s); dicetower is installed" in done.stdout


def test_a_network_feature_brings_the_drop_in_and_taking_it_out_removes_it(system) -> None:
    assert system.install().returncode == 0
    config = system.root / "etc/dicetower/dicetower.toml"
    plain = config.read_text()
    config.write_text(plain + '\n[network]\nmqtt = "mqtt://broker.local:1883"\n')
    drop_in = system.root / "etc/systemd/system/dicetower.service.d/network.conf"
    start = len(system.calls())
    assert system.install().returncode == 0
    assert drop_in.read_bytes() == (DEPLOY / "dicetower-network.conf").read_bytes()
    assert system.calls_since(start)[-2:] == ["systemctl is-active --quiet dicetower.service",
                                              "systemctl restart dicetower.service"]
    config.write_text(plain)
    assert system.install().returncode == 0
    assert not drop_in.exists()


def test_the_phone_page_brings_its_drop_in_pyodide_and_avahi_and_taking_it_out_removes_it(system) -> None:
    assert system.install().returncode == 0
    config = system.root / "etc/dicetower/dicetower.toml"
    plain = config.read_text()
    config.write_text(plain.replace('enabled = false\nlisten = "0.0.0.0:80"', 'enabled = true\nlisten = "0.0.0.0:80"'))
    assert 'enabled = true\nlisten = "0.0.0.0:80"' in config.read_text()
    start = len(system.calls())
    done = system.install()
    assert done.returncode == 0, done.stderr
    drop_in = system.root / "etc/systemd/system/dicetower.service.d/web.conf"
    assert drop_in.read_bytes() == (DEPLOY / "dicetower-web.conf").read_bytes()
    assert (system.root / "etc/systemd/system/dicetower.service.d/network.conf").exists()  # it serves the network
    calls = system.calls_since(start)
    assert f"python3 {REPO}/tools/fetch_pyodide.py {system.root}/opt/dicetower/pyodide" in calls
    assert any(c.startswith("apt-get install") and "avahi-daemon" in c for c in calls) or \
        shutil.which("avahi-daemon"), calls
    again = system.install()
    assert "Pyodide 314.0.8 in /opt/dicetower/pyodide" in again.stdout, again.stdout  # nothing fetched again
    config.write_text(plain)
    assert system.install().returncode == 0
    assert not drop_in.exists()


def test_elsewhere_the_groups_are_made_and_config_txt_left_alone(system) -> None:
    (system.root / "etc/group").write_text("root:x:0:\ndialout:x:20:\n")
    (system.root / "boot/firmware/config.txt").unlink()
    done = system.install()
    assert done.returncode == 0, done.stderr
    assert [c for c in system.calls() if c.startswith("groupadd")] == [
        f"groupadd --system --prefix {system.root} {g}" for g in ("gpio", "i2c", "spi", "audio")]
    assert "ok      I2C in config.txt: no /boot/firmware/config.txt or /boot/config.txt" in done.stdout
    assert "reboot" not in done.stdout


def test_uninstall_reverses_the_install(system) -> None:
    before = system.tree()
    assert system.install().returncode == 0
    state = system.root / "var/lib/dicetower"
    state.mkdir(parents=True)
    (state / "rolls.jsonl").write_text("{}\n")  # what the service wrote

    kept = system.run("uninstall.sh")
    assert kept.returncode == 0, kept.stderr
    assert (state / "rolls.jsonl").exists()  # the roll log is never removed without --purge
    assert (system.root / "etc/dicetower/dicetower.toml").exists()
    assert "systemctl disable --now dicetower.service" in system.calls()

    dry = system.run("uninstall.sh", "--purge", "--dry-run")
    assert dry.returncode == 0 and (state / "rolls.jsonl").exists()
    purged = system.run("uninstall.sh", "--purge")
    assert purged.returncode == 0, purged.stderr
    assert system.tree() == before
    assert (system.state / "enabled").read_text() == "" and (system.state / "active").read_text() == ""
    again = system.run("uninstall.sh", "--purge")
    assert again.stdout.splitlines()[-1] == "nothing to change: dicetower is already removed"


def test_bad_options_are_one_line_and_status_2(system) -> None:
    for script, args, message in (
        ("install.sh", ["--frobnicate"], "install.sh: unknown option --frobnicate (allowed: --dry-run, --root DIR"),
        ("install.sh", ["--source", "/nonexistent"], "install.sh: --source: /nonexistent is not a dicetower source"),
        ("uninstall.sh", ["--root"], "uninstall.sh: --root needs a directory"),
    ):
        done = system.run(script, *args)
        assert done.returncode == 2
        assert done.stderr.startswith(message) and len(done.stderr.splitlines()) == 1, done.stderr
    assert system.calls() == []


def test_the_fakes_never_touch_this_machine(system) -> None:
    """Without --prefix a fake user tool refuses, so a wrong test cannot edit /etc/passwd."""
    env = dict(os.environ, DICETOWER_FAKE_LOG=str(system.log), DICETOWER_FAKE_STATE=str(system.state))
    done = subprocess.run([str(system.bin / "useradd"), "--system", "intruder"], env=env, capture_output=True,
                          text=True)
    assert done.returncode == 1 and "refusing" in done.stderr


def test_the_scripts_pass_shellcheck() -> None:
    from tests.support import require_command

    tool = require_command("shellcheck")
    scripts = [*sorted(DEPLOY.glob("*.sh")), FAKE]
    done = subprocess.run([tool, "-x", "-P", "SCRIPTDIR", *map(str, scripts)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout


# --- preparing an image (--root without DICETOWER_INSTALL_LIVE) -----------------------------


def test_preparing_an_image_runs_nothing_on_this_machine_and_says_what_runs_at_first_boot(system) -> None:
    done = system.install(image=True)
    assert done.returncode == 0, done.stderr
    calls = system.calls()
    assert calls and all(IMAGE_CALLS.match(call) for call in calls), calls  # no apt-get, venv, pip, systemctl, udevadm
    out = done.stdout
    assert steps_in(out) == IMAGE_STEPS
    assert "(an image: nothing is run on this machine)" in out.splitlines()[0]
    for later in ("apt-get install python3-venv i2c-tools espeak-ng python3-lgpio python3-rpi-lgpio "
                  "(needs the network; a GPIO package the distribution lacks comes from PyPI)",
                  "python3 -m venv --system-site-packages /opt/dicetower/venv",
                  "pip install /opt/dicetower/src into the venv",
                  "systemctl enable --now dicetower.service"):
        assert f": at first boot on the device: {later}" in out, later
        assert f"  - {later}" in out  # the summary at the end
    assert "at first boot, dicetower-firstboot.service will run /opt/dicetower/src/deploy/install.sh" in out
    assert "sudo reboot" not in out  # the device boots anyway
    root = system.root
    # what the image needs: its files, the source, and the first-boot unit, enabled
    assert (root / "etc/systemd/system/dicetower.service").read_bytes() == (DEPLOY / "dicetower.service").read_bytes()
    assert (root / "etc/udev/rules.d/70-dicetower.rules").is_file()
    assert (root / "etc/dicetower/dicetower.toml").is_file()
    assert re.search(r"^dicetower:", (root / "etc/passwd").read_text(), re.M)
    firstboot = root / "etc/systemd/system/dicetower-firstboot.service"
    assert firstboot.read_bytes() == (DEPLOY / "dicetower-firstboot.service").read_bytes()
    wants = root / "etc/systemd/system/multi-user.target.wants/dicetower-firstboot.service"
    assert os.readlink(wants) == "/etc/systemd/system/dicetower-firstboot.service"
    src = root / "opt/dicetower/src"
    assert os.access(src / "deploy/install.sh", os.X_OK)
    assert (src / "pyproject.toml").read_bytes() == (REPO / "pyproject.toml").read_bytes()
    assert (src / "hardware/default.toml").is_file() and not list(src.rglob("__pycache__"))
    assert not (root / "opt/dicetower/venv").exists()  # the device makes its own
    assert not (root / "etc/systemd/system/multi-user.target.wants/dicetower.service").exists()


def test_an_image_dry_run_touches_nothing_and_a_second_run_changes_nothing(system) -> None:
    before = system.tree()
    dry = system.install("--dry-run", image=True)
    assert dry.returncode == 0, dry.stderr
    assert system.tree() == before and all(IMAGE_CALLS.match(c) or READ_ONLY.match(c) for c in system.calls())
    assert system.install(image=True).returncode == 0
    tree = system.tree()
    again = system.install(image=True)
    assert again.returncode == 0, again.stderr
    assert system.tree() == tree
    reported = [line for line in again.stdout.splitlines() if re.match(r"^(ok|boot|change|would) ", line)]
    assert steps_in(again.stdout) == IMAGE_STEPS
    assert all(line.startswith(("ok ", "boot ")) for line in reported), again.stdout
    assert "nothing to change: dicetower is already installed" in again.stdout


def test_at_first_boot_the_device_finishes_the_install_from_the_image(system) -> None:
    """What dicetower-firstboot.service does on the device: the install.sh the image carries,
    on its own source, with the device's commands (here the stand-ins)."""
    assert system.install(image=True).returncode == 0
    start = len(system.calls())
    src = system.root / "opt/dicetower/src"
    done = system.run("install.sh", "--source", str(src), scripts=src / "deploy")
    assert done.returncode == 0, done.stderr
    calls = system.calls_since(start)
    assert APT_INSTALL in calls
    assert f"python3 -m venv --system-site-packages {system.root}/opt/dicetower/venv" in calls
    assert f"venv-python -m pip install --quiet --disable-pip-version-check {src}" in calls
    assert calls[-1] == "systemctl enable --now dicetower.service"
    assert not any(c.startswith("udevadm") for c in calls)  # the rules were read at boot
    assert "boot " not in done.stdout  # nothing is left for later
    assert system.run("install.sh", "--source", str(src), scripts=src / "deploy").stdout.splitlines()[-1] == \
        "nothing to change: dicetower is already installed"


def test_uninstalling_from_an_image_runs_nothing_here(system) -> None:
    before = system.tree()
    assert system.install(image=True).returncode == 0
    start = len(system.calls())
    done = system.run("uninstall.sh", "--purge", image=True)
    assert done.returncode == 0, done.stderr
    assert all(IMAGE_CALLS.match(c) or c.startswith("userdel --prefix") for c in system.calls_since(start))
    assert system.tree() == before


def test_help_shows_every_option(system) -> None:
    for script, options in (("install.sh", ("--dry-run", "--root DIR", "--source DIR", "--store")),
                            ("uninstall.sh", ("--dry-run", "--root DIR", "--purge"))):
        done = system.run(script, "--help")
        assert done.returncode == 0 and done.stdout.startswith(("Install", "Remove")), done.stdout
        assert all(f"  {option}" in done.stdout for option in options), done.stdout
        assert "shellcheck" not in done.stdout


# --- the GPIO stack, and what a root must be ----------------------------------------------------


@pytest.mark.parametrize("python", ["3.11", "3.13"])
def test_where_the_archive_has_no_gpio_packages_they_come_from_pypi_into_the_venv(system, python) -> None:
    """Debian (bookworm, trixie) has neither python3-lgpio nor python3-rpi-lgpio (Raspberry Pi
    OS has both): lgpio and rpi-lgpio come from PyPI, once; under Python 3.13, for which PyPI's
    lgpio has no wheel, lgpio's module comes as adafruit-lgpio."""
    (system.state).mkdir(exist_ok=True)
    if python == "3.13":
        (system.state / "python-3.13").touch()
    (system.state / "not-in-archive").write_text("python3-lgpio\npython3-rpi-lgpio\n")
    (system.state / "no-module").write_text("lgpio\nRPi.GPIO\n")
    done = system.install()
    assert done.returncode == 0, done.stderr
    calls = system.calls()
    assert "apt-get install -y -qq --no-install-recommends python3-venv i2c-tools espeak-ng" in calls
    assert ("ok      packages python3-venv i2c-tools espeak-ng python3-lgpio python3-rpi-lgpio: not in this "
            "distribution's archive: python3-lgpio python3-rpi-lgpio (from PyPI into the venv instead)") in done.stdout
    pips = [c for c in calls if c.startswith("venv-python -m pip install --quiet --disable-pip-version-check ")]
    lgpio = "lgpio>=0.2" if python == "3.11" else "adafruit-lgpio>=0.2"
    assert pips[-2:] == [f"venv-python -m pip install --quiet --disable-pip-version-check {lgpio}",
                         "venv-python -m pip install --quiet --disable-pip-version-check --no-deps rpi-lgpio>=0.6"]
    again = system.install()
    assert again.stdout.splitlines()[-1] == "nothing to change: dicetower is already installed", again.stdout
    assert "ok      GPIO libraries lgpio, RPi.GPIO: the venv imports them" in again.stdout


def test_an_installed_rpi_gpio_is_kept_and_no_shim_added(system) -> None:
    """An older image with python3-rpi.gpio already has RPi.GPIO's API: python3-rpi-lgpio
    (which conflicts with it) is not installed over it."""
    (system.state).mkdir(exist_ok=True)
    (system.state / "packages").write_text("python3-rpi.gpio\n")
    done = system.install()
    assert done.returncode == 0, done.stderr
    assert ("apt-get install -y -qq --no-install-recommends python3-venv i2c-tools espeak-ng python3-lgpio"
            in system.calls())


@pytest.mark.parametrize("image", [True, False])
def test_a_root_that_is_no_image_is_refused_before_anything_is_touched(tmp_path, system, image) -> None:
    """`install.sh --root DIR` on an empty directory used to fail half-way, in groupadd."""
    empty = tmp_path / "empty"
    empty.mkdir()
    env = dict(os.environ, PATH=f"{system.bin}:{os.environ['PATH']}", DICETOWER_FAKE_LOG=str(system.log),
               DICETOWER_FAKE_STATE=str(system.state), LC_ALL="C")
    env.pop("DICETOWER_INSTALL_LIVE", None)
    if not image:
        env["DICETOWER_INSTALL_LIVE"] = "1"
    done = subprocess.run(["bash", str(DEPLOY / "install.sh"), "--root", str(empty)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    lacking = "etc/passwd etc/group var/lib/dpkg/status" if image else "etc/passwd etc/group"
    assert done.stderr == (f"install.sh: --root: {empty} is not an image's root filesystem (no {lacking}): mount the "
                           "Raspberry Pi OS image's root partition there first (docs/deploy.md)\n")
    assert list(empty.iterdir()) == [] and system.calls() == []


def test_where_systemd_is_not_running_the_unit_is_enabled_for_the_next_boot(system) -> None:
    """In a chroot (an image built under qemu) there is no systemd to start the tower:
    `systemctl enable --now` would fail there; the unit is enabled and starts at boot."""
    (system.root / "run/systemd/system").rmdir()
    done = system.install()
    assert done.returncode == 0, done.stderr
    calls = system.calls()
    assert calls[-2:] == ["systemctl is-enabled --quiet dicetower.service", "systemctl enable dicetower.service"]
    assert not any(c.startswith(("systemctl daemon-reload", "systemctl enable --now")) for c in calls)
    again = system.install()
    assert "ok      systemd: dicetower.service enabled (systemd is not running here: it starts at boot)" in again.stdout
    assert again.stdout.splitlines()[-1] == "nothing to change: dicetower is already installed"


# --- the store's board (--store): the store extra, only where it is asked for -------------------

STORE_PIP = f"venv-python -m pip install --quiet --disable-pip-version-check {REPO}[store]"


def no_store_modules(system: FakeSystem) -> None:
    """The venv imports no starlette, uvicorn or anyio until the store extra is installed."""
    system.state.mkdir(exist_ok=True)
    (system.state / "no-module").write_text("starlette\nuvicorn\nanyio\n")


def test_store_on_a_fresh_install_comes_with_the_dependencies_and_is_remembered(system) -> None:
    no_store_modules(system)
    done = system.install("--store")
    assert done.returncode == 0, done.stderr
    calls = system.calls()
    assert STORE_PIP in calls and f"venv-python -m pip install --quiet --disable-pip-version-check {REPO}" not in calls
    assert steps_in(done.stdout) == STEPS
    assert "change  store extra: remember --store" in done.stdout
    assert (system.root / "opt/dicetower/extras").read_text() == "store\n"
    # later runs, without the option, keep the board: nothing to change, and a new source keeps the extra
    again = system.install()
    assert again.stdout.splitlines()[-1] == "nothing to change: dicetower is already installed", again.stdout
    assert ("ok      store extra: the venv imports starlette, uvicorn, anyio (--store, remembered in "
            "/opt/dicetower/extras)") in again.stdout
    (system.root / "opt/dicetower/venv/.dicetower-source").write_text("an older source\n")
    start = len(system.calls())
    assert system.install().returncode == 0
    assert STORE_PIP in system.calls_since(start)


def test_store_added_to_an_installed_tower_installs_only_the_extra(system) -> None:
    no_store_modules(system)
    assert system.install().returncode == 0
    start = len(system.calls())
    done = system.install("--store")
    assert done.returncode == 0, done.stderr
    assert [c for c in system.calls_since(start) if " pip " in c] == [STORE_PIP]
    assert "change  store extra: install the store extra (starlette, uvicorn)" in done.stdout
    assert "done: 2 change(s); dicetower is installed" in done.stdout  # remembered, installed; no restart
    again = system.install("--store")
    assert again.stdout.splitlines()[-1] == "nothing to change: dicetower is already installed", again.stdout


def test_a_dry_run_with_store_says_it_and_touches_nothing(system) -> None:
    assert system.install().returncode == 0
    no_store_modules(system)
    tree, start = system.tree(), len(system.calls())
    dry = system.install("--store", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert system.tree() == tree and all(READ_ONLY.match(c) for c in system.calls_since(start))
    assert "would   store extra: remember --store" in dry.stdout and f"$ {REPO}" not in dry.stdout
    assert f"          $ {system.root}/opt/dicetower/venv/bin/python -m pip install --quiet " \
           f"--disable-pip-version-check {REPO}\\[store\\]" in dry.stdout
    assert dry.stdout.splitlines()[-1] == "dry run: 2 change(s) would be made; nothing was touched"


def test_an_image_with_store_installs_the_extra_at_first_boot(system) -> None:
    before = system.tree()
    no_store_modules(system)
    done = system.install("--store", image=True)
    assert done.returncode == 0, done.stderr
    assert "  - pip install /opt/dicetower/src[store] into the venv" in done.stdout
    assert (system.root / "opt/dicetower/extras").read_text() == "store\n"
    start = len(system.calls())
    src = system.root / "opt/dicetower/src"
    first = system.run("install.sh", "--source", str(src), scripts=src / "deploy")  # the unit's ExecStart
    assert first.returncode == 0, first.stderr
    assert f"venv-python -m pip install --quiet --disable-pip-version-check {src}[store]" in system.calls_since(start)
    assert system.run("uninstall.sh", "--purge").returncode == 0
    assert system.tree() == before  # the remembered extra goes with /opt/dicetower
