"""Every registered system is complete, the five shipped ones and a plug-in alike: what
docs/architecture.md "Writing a system plug-in" lists is checked piece by piece
(tests/contract.py), and every missing piece of every system is named in one failure, not the
first one found. The coin plug-in is checked in a dicetower process that has it on its path;
a copy of it with pieces taken out is told each one."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from engine.systems import ids, registry
from tests.contract import ROOT, every_system, report, shipped_problems
from tests.plugins.install import COIN, install, with_plugin

#: What the contract tells a copy of the coin with four pieces taken out: every one of them.
BROKEN_COIN = [
    "SystemSpec.title is empty",
    "parameter heads has no help",
    "no phrasebook in de (PanelSpec.speech.languages)",
    "no rules module dicetower_coin/verify_rules.py for tools/verify_rolls.py",
]


def _contract(site: Path | None, cwd: Path) -> dict[str, list[str]]:
    """``python -m tests.contract`` in a process that sees the plug-in in ``site``."""
    env = with_plugin(site)
    env["PYTHONPATH"] = f"{env['PYTHONPATH']}:{ROOT}" if env.get("PYTHONPATH") else str(ROOT)
    done = subprocess.run([sys.executable, "-m", "tests.contract"], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    found: dict[str, list[str]] = json.loads(done.stdout)
    return found


def test_every_shipped_system_has_every_piece() -> None:
    found = every_system()
    assert list(found) == list(ids()) == ["infinity", "horizons", "d6cv", "immortal", "fingers"]
    assert report(found) == ""


def test_the_coin_plugin_has_every_piece(coin_site: Path, tmp_path: Path) -> None:
    found = _contract(coin_site, tmp_path)
    assert list(found)[-1] == "coin"
    assert report(found) == ""


def test_a_plugin_missing_pieces_is_told_every_one(tmp_path: Path) -> None:
    broken = tmp_path / "coin"
    shutil.copytree(COIN, broken, ignore=shutil.ignore_patterns("__pycache__"))
    package = broken / "dicetower_coin"
    (package / "verify_rules.py").unlink()
    speech = (package / "speech.py").read_text()
    german = speech.index('        "de": Phrasebook(')
    (package / "speech.py").write_text(speech[:german] + "    },\n)\n")  # no German
    init = (package / "__init__.py").read_text()
    (package / "__init__.py").write_text(init.replace('title="Coin"', 'title=""').replace(
        '"heads needed for a success"', '""'))
    found = _contract(install(broken, tmp_path / "site"), tmp_path)
    assert found["coin"] == BROKEN_COIN, found["coin"]
    assert report({k: v for k, v in found.items() if k != "coin"}) == ""  # the shipped five are untouched


def test_a_sixth_shipped_system_without_its_files_is_told_each_one() -> None:
    # The repository's own pieces: a registered id with nothing outside the engine.
    got = shipped_problems("sixth")
    assert len(got) == 7, got
    for piece in ("bench/odds_sixth.py", "tests/tools/test_verify_rolls.py", "docs/rules/sixth.md", "docs/rules.md",
                  "docs/screenshots/flows/sixth.txt", "test_sixth.py", "test_sixth_odds.py"):
        assert any(piece in line for line in got), piece


def test_an_odds_bench_without_its_grid_is_told(tmp_path: Path) -> None:
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "odds_d6cv.py").write_text("def icepool_success(params):\n    return 0.5\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("")
    assert "bench/odds_d6cv.py defines no GRID" in shipped_problems("d6cv", tmp_path)


def test_the_shipped_systems_are_the_dicetower_distributions() -> None:
    assert {s for s, e in registry.installed().items() if e.distribution == "dicetower"} == set(ids())
