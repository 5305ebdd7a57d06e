"""The phone page's verifier (the engine under Pyodide, hardware/web) checks the coin's rolls:
the engine zip a tower or board builds with the plug-in installed carries the plug-in's modules
and its entry points, so Pyodide finds the coin as the tower does. A zip built without it
cannot recompute a coin roll, and says which system it lacks."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.plugins.install import Night, with_plugin
from tests.support import require_command
from tests.web.test_pyodide import HERE as WEB_TESTS
from tests.web.test_pyodide import pyodide_dir

ROOT = Path(__file__).resolve().parents[2]


def zip_of(site: Path | None, cwd: Path) -> bytes:
    """hardware.web.assets.engine_zip() as a process seeing the plug-in in ``site`` builds it."""
    done = subprocess.run([sys.executable, "-c", "import sys; from hardware.web.assets import engine_zip; "
                           "sys.stdout.buffer.write(engine_zip())"], cwd=ROOT, env=with_plugin(site),
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def notes(night: Night) -> dict:
    noted = night.table.noted
    return {"expect": [*noted.commitments, *noted.results], "table_seed": list(noted.codes), "count": 2}


def test_the_zip_carries_the_plugin_and_its_entry_point(coin_site: Path, tmp_path: Path) -> None:
    z = zipfile.ZipFile(io.BytesIO(zip_of(coin_site, tmp_path)))
    names = set(z.namelist())
    assert {"dicetower_coin/__init__.py", "dicetower_coin/verify_rules.py", "dicetower_coin/speech.py"} <= names
    assert z.read("dicetower_coin-1.0.0.dist-info/entry_points.txt").decode().splitlines() == [
        "[dicetower_systems]", "coin = dicetower_coin:SYSTEM"]
    assert zip_of(coin_site, tmp_path) == zip_of(coin_site, tmp_path)  # the same bytes (the page's hash)


def test_the_phone_verifier_checks_the_coins_night_in_pyodide(coin_site: Path, coin_night: Night,
                                                             tmp_path: Path) -> None:
    node = require_command("node")
    folder = pyodide_dir()
    text = (coin_night.state / "rolls.jsonl").read_text()
    cases = [{"name": "coin night", "text": text, "notes": notes(coin_night)}]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    for label, site in (("with", coin_site), ("without", None)):
        (tmp_path / f"{label}.zip").write_bytes(zip_of(site, tmp_path))
        done = subprocess.run([node, str(WEB_TESTS / "pyodide_check.mjs"), str(tmp_path / "cases.json"),
                               str(tmp_path / f"{label}.json"), str(folder), str(tmp_path / f"{label}.zip")],
                              capture_output=True, text=True, timeout=900, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads((tmp_path / "with.json").read_text())[0]
    assert (got["verdict"], got["problems"], got["rolls"]) == ("pass", [], 2)
    alone = json.loads((tmp_path / "without.json").read_text())[0]
    assert alone["verdict"] == "fail: roll-mismatch", alone
