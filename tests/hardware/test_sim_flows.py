"""The simulator scripts in docs/screenshots/flows/ reach, for each system, every parameter
and every flow with the five buttons: the transcript names every field the FIELD button
selected, shows every flow's page, and is the one committed (so the documented screenshots
are what the panel shows today).

The flows run with a roll log in an empty state directory (the log's entries timed by the
simulated clock, as ``sim --seed`` does), so results show their fingerprints and the same
script gives the same transcript. Regenerate after a deliberate change to the panel (each
script's first lines say how):
    .venv/bin/dicetower sim --seed flows --state-dir "$(mktemp -d)" \
        --script docs/screenshots/flows/SYSTEM.txt --out docs/screenshots/flows/SYSTEM --scale 1
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from engine.panel import pages as rows
from engine.systems import get, ids
from hardware.cli.sim import SimClock, Simulator, parse_script
from hardware.cli.tower import keep
from hardware.config import reader
from hardware.entropy import open_dice
from tests.engine.panel.words import check_lines

FLOWS = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "flows"


def _labels(system: str) -> set[str]:
    """What the transcript calls each row that sets a parameter: every field parameter and
    every row of every flow page (a list's count and the first item's numbers)."""
    spec = get(system)
    wanted: set[str] = set()
    items = {name: ((0,) * len(shape.parts),) for name, shape in spec.panel.lists.items()}
    for page in rows.pages(spec):
        for row in rows.rows(spec, page, items):
            if not row.moves:
                wanted.add(rows.label(spec, row))
    return wanted


def run_flow(script: Path, state: Path, seed: bytes) -> list[dict]:
    """A flow script as ``sim --seed SEED --state-dir STATE --script`` runs it."""
    config = reader.load()
    clock = SimClock()
    kept = keep(dataclasses.replace(config, kiosk=dataclasses.replace(config.kiosk, state_dir=str(state))),
                clock=clock)
    sim = Simulator(config, dice=open_dice(seed=seed, log=kept.roll_log), clock=clock, **kept.tower_options())
    try:
        return sim.run_script(parse_script(script.read_text(encoding="utf-8"), option="script"))
    finally:
        sim.close()


@pytest.mark.parametrize("system", ids())
def test_the_flow_script_reaches_every_parameter_and_every_flow(system: str, tmp_path) -> None:
    script = FLOWS / f"{system}.txt"
    steps = run_flow(script, tmp_path, b"flows")
    selected = {step["field"] for step in steps if step["field"]}
    missing = _labels(system) - selected
    assert not missing, f"{script.name} never selects {sorted(missing)}"
    titles = {step["screen"]["title"].split()[0] for step in steps}
    spec = get(system)
    for flow in spec.panel.flows:
        if flow.page:
            assert flow.name in titles, f"{script.name} never opens the {flow.name} page"
    for step in steps:  # no screen of the flow says None, nan, { or a Python repr
        check_lines(step["screen"]["lines"], f"{script.name}, step {step['event']!r} at {step['t']} s")
    kinds = {step["screen"]["kind"] for step in steps}
    assert kinds & {"result", "reveal"}, f"{script.name} never rolls"
    committed = json.loads((FLOWS / system / "transcript.json").read_text(encoding="utf-8"))

    def without_frame(transcript: list[dict]) -> list[dict]:
        return [{k: v for k, v in step.items() if k != "frame"} for step in transcript]

    assert without_frame(steps) == without_frame(committed), (
        f'docs/screenshots/flows/{system} is stale: .venv/bin/dicetower sim --seed flows --state-dir "$(mktemp -d)" '
        f"--script docs/screenshots/flows/{system}.txt --out docs/screenshots/flows/{system} --scale 1")
    for step in committed:
        assert (FLOWS / system / step["frame"]).exists()
