"""The engine's verifier in Pyodide (the phone page's Python), run by node: every case of the
forgery corpus fails with replay's first problem, and the honest logs pass, in one Pyodide.

Pyodide comes from the npm registry (web/package-lock.json), installed into .pyodide by
tools/fetch_pyodide.py (./run-tests does); the engine goes in as the zip the tower serves.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from engine.verify.night import check_text
from hardware.web.assets import PageError, engine_zip, find_pyodide
from tests.engine.verify.test_night import notes_of, text_of
from tests.hardware import forgeries
from tests.support import require_command

HERE = Path(__file__).resolve().parent


def pyodide_dir() -> Path:
    import os

    try:
        return find_pyodide()
    except PageError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"{exc}; ./run-tests installs it")
        pytest.skip(str(exc))


def test_the_corpus_and_the_honest_logs_get_replays_verdict_in_pyodide(forgery_cases, forgery_honest,
                                                                      tmp_path) -> None:
    node = require_command("node")
    folder = pyodide_dir()
    cases = [{"name": name, "text": text_of(case.entries), "notes": notes_of(case)}
             for name, case in forgery_cases.items()]
    honest = forgery_honest
    cases += [{"name": "honest panel night", "text": text_of(honest.panel),
               "notes": {"expect": [honest.panel_noted["panel commitment"], *honest.panel_shown],
                         "table_seed": [forgeries.PANEL_CODE]}},
              {"name": "honest table night", "text": text_of(honest.table),
               "notes": {"expect": list(honest.noted.values()), "table_seed": [forgeries.TABLE_SEED],
                         "allow_mix": list(forgeries.MIXES), "count": 30}}]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    (tmp_path / "engine.zip").write_bytes(engine_zip())
    done = subprocess.run([node, str(HERE / "pyodide_check.mjs"), str(tmp_path / "cases.json"),
                           str(tmp_path / "out.json"), str(folder), str(tmp_path / "engine.zip")],
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    results = {r["name"]: r for r in json.loads((tmp_path / "out.json").read_text())}
    for c in cases:
        here = json.loads(check_text(c["text"], c["notes"]))  # the same engine under CPython
        got = results[c["name"]]
        assert got["verdict"] == here["verdict"], c["name"]
        assert got["problems"] == [[p["entry"], p["code"]] for p in here["problems"]], c["name"]
        if c["name"] in forgery_cases:
            assert got["verdict"] == f"fail: {forgery_cases[c['name']].code}", c["name"]
        else:
            assert got["verdict"] == "pass", (c["name"], got["problems"])
