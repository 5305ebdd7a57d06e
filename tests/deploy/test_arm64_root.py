"""The hobbyist's first boot on arm64 (issue 32): .ci/arm64-root.sh builds a Debian arm64 root
under qemu, prepares it with ``deploy/install.sh --root``, plays dicetower-firstboot.service in
it and checks the installed tower there; each of its checks is one test here.

``./run-tests`` starts the script in the background for each suite in
``$DICETOWER_ARM64_SUITES`` before the rest of the suite runs (it takes minutes under
emulation) and names its reports in ``$DICETOWER_ARM64_REPORTS`` (``SUITE=FILE,...``); these
tests wait for them. Run alone (plain pytest), the first test runs the script itself. Where the
kernel cannot run arm64 binaries the script says so in one line: the tests are skipped, and
fail under ``CI=true`` (as the MicroPython tests do).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / ".ci" / "arm64-root.sh"
#: The checks of the script, in its order (docs/deploy.md, "What CI proves").
CHECKS = ("uname", "image", "first-boot", "gpio", "service", "service-pi5", "roll-odds", "no-store", "sim",
          "replay", "verify-rolls", "engine")
#: Longest wait for a report: a cold debootstrap, the install and the engine's tests under
#: emulation on a busy 2-core machine (the script itself takes ~6 minutes warm, ~9 cold).
WAIT_S = 40 * 60


def suites() -> list[str]:
    return [s for s in os.environ.get("DICETOWER_ARM64_SUITES", "bookworm").split(",") if s]


def reports() -> dict[str, Path]:
    named = os.environ.get("DICETOWER_ARM64_REPORTS", "")
    return {suite: Path(path) for suite, _, path in (item.partition("=") for item in named.split(",") if item)}


def finished(report: Path) -> dict[str, str] | None:
    """The report's lines by their first word, once the script's "exit N" line is there."""
    if not report.exists():
        return None
    lines = {}
    for line in report.read_text().splitlines():
        name, _, rest = line.partition(" ")
        lines[name] = rest
    return lines if "exit" in lines else None


@pytest.fixture(scope="module", params=suites())
def report(request, tmp_path_factory) -> tuple[str, dict[str, str]]:
    suite = request.param
    path = reports().get(suite)
    if path is None:  # not started by ./run-tests: run it here
        path = tmp_path_factory.mktemp(f"arm64-{suite}") / "report"
        subprocess.run(["bash", str(SCRIPT), "--suite", suite, "--report", str(path)], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=WAIT_S)
    deadline = time.monotonic() + WAIT_S
    while (lines := finished(path)) is None:
        if time.monotonic() > deadline:
            pytest.fail(f"the arm64 {suite} root's checks did not finish in {WAIT_S} s (report {path})")
        time.sleep(2)  # waiting for another process: a poll, not a timed assertion
    if "unavailable" in lines:
        message = lines["unavailable"]
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return suite, lines


@pytest.mark.parametrize("check", CHECKS)
def test_arm64_root(report, check) -> None:
    suite, lines = report
    assert check in lines, f"{suite}: the script stopped before {check!r} (exit {lines['exit']})"
    status, _, detail = lines[check].partition(" ")
    if status == "skip":  # the engine's tests run in one root only (.ci/arm64.sh)
        pytest.skip(f"{suite} {check}: {detail.partition(' ')[2]}")
    assert status == "ok", f"{suite} {check}: {detail}"


def test_arm64_root_script_passes_shellcheck() -> None:
    from tests.support import require_command

    done = subprocess.run([require_command("shellcheck"), "-x", str(SCRIPT)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout


def test_where_arm64_cannot_run_the_script_says_so_in_one_line(tmp_path) -> None:
    """Not root (a stand-in `id` says uid 1000): the script cannot mount binfmt_misc or chroot;
    it says so in one line, exits 77 (tests skip, CI fails) and touches nothing."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "id").write_text('#!/bin/sh\n[ "$1" = -u ] && echo 1000\n')
    (bin_dir / "id").chmod(0o755)
    report = tmp_path / "report"
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", DICETOWER_CI_CACHE=str(tmp_path / "cache"))
    done = subprocess.run(["bash", str(SCRIPT), "--report", str(report)], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 77 and done.stdout == ""
    assert done.stderr == ("arm64 bookworm: this machine cannot run arm64 binaries (not root: debootstrap and chroot "
                           "need it): the arm64 root checks did not run\n")
    assert finished(report) == {"unavailable": "this machine cannot run arm64 binaries (not root: debootstrap and "
                                               "chroot need it): the arm64 root checks did not run", "exit": "77"}
    assert not (tmp_path / "cache").exists()


def test_a_bad_option_is_one_line_and_status_2() -> None:
    done = subprocess.run(["bash", str(SCRIPT), "--suite", "buster"], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "arm64-root.sh: --suite: bookworm or trixie, not buster\n"
