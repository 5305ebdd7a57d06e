"""The coin plug-in, installed as its own distribution, is found through its entry point."""

from __future__ import annotations

import json
from pathlib import Path

from tests.plugins.install import dicetower


def test_the_installed_plugin_carries_its_entry_point(coin_site: Path) -> None:
    infos = sorted(coin_site.glob("dicetower_coin-*.dist-info"))
    assert len(infos) == 1, infos
    assert (infos[0] / "entry_points.txt").read_text().split() == ["[dicetower_systems]", "coin", "=",
                                                                  "dicetower_coin:SYSTEM"]


def test_dicetower_lists_the_plugin_after_the_shipped_systems(coin_site: Path, tmp_path: Path) -> None:
    done = dicetower(coin_site, ["systems", "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    listed = [s["id"] for s in json.loads(done.stdout)["systems"]]
    assert listed == ["infinity", "horizons", "d6cv", "immortal", "fingers", "coin"]


def test_without_the_plugin_on_the_path_there_is_no_coin(tmp_path: Path) -> None:
    import engine

    assert "coin" not in engine.ids()
    assert not engine.installed("coin")
