"""The coin plug-in (tests/plugins/coin), built and installed the way a player installs a
plug-in, but offline and into a folder of its own: nothing of dicetower is edited, and the
plug-in reaches dicetower only through the ``dicetower_systems`` entry points of its metadata."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

COIN = Path(__file__).resolve().parent / "coin"


def install(source: Path, site: Path) -> Path:
    """``pip install`` the project at ``source`` into ``site`` (no index, no build isolation:
    offline, with the test environment's setuptools), from a copy, so the build's files never
    land in the repository."""
    work = site.parent / f"{source.name}-src"
    shutil.copytree(source, work, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           "--no-index", "--no-build-isolation", "--no-deps", "--target", str(site), str(work)],
                          capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise AssertionError(f"pip could not install {source.name}:\n{done.stdout}\n{done.stderr}")
    return site


@pytest.fixture(scope="session")
def coin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the installed coin plug-in (its package and its .dist-info)."""
    return install(COIN, tmp_path_factory.mktemp("coin") / "site")


def with_plugin(site: Path | None, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a dicetower process that sees the plug-in in ``site`` (None: only
    what is installed)."""
    out = dict(os.environ if env is None else env)
    if site is not None:
        out["PYTHONPATH"] = os.pathsep.join([str(site), *filter(None, [out.get("PYTHONPATH")])])
    return out


def dicetower(site: Path | None, args: Sequence[str], cwd: Path, *, stdin: str | None = None,
              env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The installed ``dicetower`` command, run with the plug-in in ``site`` on its path."""
    command = Path(sys.executable).with_name("dicetower")
    return subprocess.run([str(command), *args], cwd=cwd, env=with_plugin(site, env), input=stdin,
                          capture_output=True, text=True, timeout=timeout, check=False)
