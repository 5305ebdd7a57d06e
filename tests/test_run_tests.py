"""``./run-tests`` run as root installs the Debian packages the tests need
(.ci/apt-packages.txt): before it does, it says which and why, and how to install nothing.

The real ``ensure_system_packages`` (.ci/system-deps.sh) runs with stand-ins for ``id`` (root
or not), ``sudo`` and ``apt-get`` (which log what they are asked) first on PATH, over a list
whose commands are missing here, so this machine is never changed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LIST = """# COMMAND PACKAGE...  # why
no-such-broker-xyz broker-pkg broker-clients   # a real broker for the network tests
bash bash   # always here: never installed
no-such-browser-xyz browser-pkg
"""


def _fake(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(0o755)


def _run(tmp_path: Path, *, root: bool, sudo: bool = False, **env: str) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "calls.log"
    _fake(bin_dir, "id", f'[ "$1" = -u ] && echo {0 if root else 1000}\n')
    # apt-get logs its call and what had been said on stderr by then
    _fake(bin_dir, "apt-get", f'echo "apt-get $*" >>"{log}"; cp "{tmp_path}/stderr" "{tmp_path}/said-before"\n')
    then = 'exec "$@"' if sudo else "exit 1"
    _fake(bin_dir, "sudo", f'[ "$1" = -n ] && shift; {then}\n')
    listing = tmp_path / "apt-packages.txt"
    listing.write_text(LIST)
    script = f"source {REPO / '.ci/system-deps.sh'}; ensure_system_packages"
    full_env = {k: v for k, v in os.environ.items() if k not in ("DICETOWER_NO_APT", "CI")}
    full_env.update(PATH=f"{bin_dir}:/usr/bin:/bin", DICETOWER_APT_LIST=str(listing), **env)
    with open(tmp_path / "stderr", "w") as err:
        done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=full_env, stdout=subprocess.PIPE, stderr=err,
                              text=True, timeout=60)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout, (tmp_path / "stderr").read_text())


def _calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def test_as_root_it_says_which_packages_and_why_before_installing(tmp_path: Path) -> None:
    done = _run(tmp_path, root=True)
    assert done.returncode == 0, done.stderr
    said = (tmp_path / "said-before").read_text()  # what stderr held when apt-get first ran
    assert "installing Debian packages with apt-get" in said
    assert "  broker-pkg broker-clients: a real broker for the network tests\n" in said
    assert "  browser-pkg\n" in said  # no reason given: the packages alone
    assert "bash" not in said.split("for these tests:")[1]  # a command that is here is not installed
    assert "DICETOWER_NO_APT=1" in said
    assert _calls(tmp_path) == ["apt-get update -qq",
                                "apt-get install -y -qq --no-install-recommends broker-pkg broker-clients browser-pkg"]


def test_through_password_less_sudo_it_says_so(tmp_path: Path) -> None:
    done = _run(tmp_path, root=False, sudo=True)
    assert done.returncode == 0, done.stderr
    assert "with apt-get (through sudo), for these tests:" in (tmp_path / "said-before").read_text()


@pytest.mark.parametrize(("root", "env", "said"), [
    (False, {}, "run as root, or: sudo apt-get install broker-pkg broker-clients browser-pkg"),
    (True, {"DICETOWER_NO_APT": "1"}, "DICETOWER_NO_APT is set: not installing broker-pkg broker-clients browser-pkg"),
])
def test_without_root_or_with_the_opt_out_nothing_is_installed(tmp_path: Path, root: bool, env: dict[str, str],
                                                               said: str) -> None:
    done = _run(tmp_path, root=root, **env)
    assert done.returncode == 0, done.stderr
    assert said in done.stderr
    assert _calls(tmp_path) == []
