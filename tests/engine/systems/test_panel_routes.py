"""Every parameter of every system has a panel route (``field`` or ``flow:NAME``) and a
label, and what each system's panel spec names exists: one place per system."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.panel import pages as rows
from engine.systems import get, ids
from engine.systems.panel import SCALAR_KINDS


@pytest.mark.parametrize("system", ids())
def test_every_parameter_has_a_route_and_a_label(system: str) -> None:
    spec = get(system)
    flows = {f.name for f in spec.panel.flows}
    for p in spec.params:
        route = spec.panel.route(p)
        assert route == "field" or (route.startswith("flow:") and route[5:] in flows), (system, p.name, route)
        if route == "field":
            assert p.kind in SCALAR_KINDS, (system, p.name)
        assert spec.panel.label(p)
        listed = spec.describe_spec()["params"]
        assert {"panel", "label"} <= set(listed[0])


@pytest.mark.parametrize("system", ids())
def test_what_the_panel_spec_names_exists(system: str) -> None:
    spec = get(system)
    panel = spec.panel
    names = set(rows.params_by_name(spec))
    for flow in panel.flows:
        assert set(flow.params) <= names, (system, flow.name)
    for name, shape in panel.lists.items():
        assert spec.param(name).kind == "list"
        assert all(part.lo <= part.start <= part.hi for part in shape.parts)
    for name in (*panel.labels, *panel.advanced, *panel.omit, *panel.needs, *panel.omit.values(),
                 *panel.needs.values(), *panel.player):
        assert name in names, (system, name)
    for carried in panel.carried:
        assert carried.param in names and carried.who in ("roller", "target")
    for lock in panel.locks:
        assert lock.param in names and lock.key in names
    # a list no page can edit would have no route in practice
    for p in spec.params:
        if p.kind == "list" and p.name != panel.guess:
            assert p.name in panel.lists, (system, p.name)


@pytest.mark.parametrize("system", ids())
def test_every_field_parameter_is_a_row_of_a_page(system: str) -> None:
    spec = get(system)
    on_pages = {r.name for page in rows.pages(spec) for r in rows.rows(spec, page, {}) if not r.moves}
    for p in spec.params:
        if spec.panel.route(p) == "field":
            assert p.name in on_pages or p.name in spec.panel.player, (system, p.name)
        flow = spec.panel.flow_of(p.name)
        if flow is not None and flow.page and p.name not in spec.panel.lists:
            assert p.name in on_pages, (system, p.name)


def test_systems_json_lists_the_routes() -> None:
    out = subprocess.run([sys.executable, "-m", "hardware", "systems", "--json"], capture_output=True,
                         text=True, check=True).stdout
    listing = json.loads(out)["systems"]
    for system in listing:
        for p in system["params"]:
            assert p["panel"] == "field" or p["panel"].startswith("flow:"), (system["id"], p["name"])
            assert p["label"]
