"""The coin plug-in (tests/plugins/coin), built and installed the way a player installs a
plug-in, but offline and into a folder of its own: nothing of dicetower is edited, and the
plug-in reaches dicetower only through the ``dicetower_systems`` entry points of its metadata.
The fixtures ``coin_site`` and ``coin_night`` (tests/conftest.py) are made here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.hardware.tablenight import Table, code_presses

COIN = Path(__file__).resolve().parent / "coin"
#: The code the table sets on the keys in :func:`coin_night`.
CODE = "31425512"
#: MODE from infinity's setup to the coin's: past the shipped five (the coin's order is 60).
TO_COIN = "mode " * 5


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


@dataclass
class Night:
    """A table's night with the coin on the simulated tower: its state directory, the
    simulator's steps, what the players noted (:class:`Table`) and those notes as the
    checkers' options (``--count`` included)."""

    state: Path
    steps: list[dict[str, Any]]
    table: Table
    notes: list[str]


def coin_night(coin_site: Path, work: Path) -> Night:
    """The coin on the simulated panel (kernel entropy, speech on): the table sets its code,
    raises the coins to 4, rolls twice and quits (the tower reveals); what the players noted,
    read from the screens as tests/hardware/tablenight.py reads them."""
    state = work / "state"
    config = work / "tower.toml"
    config.write_text('[entropy]\nsource = "kernel"\n[sound]\nspeak = true\n[panel]\nanimation_seconds = 0\n')
    script = work / "night.txt"
    script.write_text(f"{TO_COIN}\n{code_presses(CODE)}\nplus\nroll\nroll\n")
    done = dicetower(coin_site, ["sim", "--config", str(config), "--state-dir", str(state), "--script", str(script),
                                 "--json"], work)
    assert done.returncode == 0, done.stderr
    steps = json.loads(done.stdout)
    table = Table(state, ("coin",))
    for step in steps:
        table._note(step["screen"])
    table.noted.codes.append(CODE)
    return Night(state, steps, table, [*table.noted.args(), "--count", "2"])
