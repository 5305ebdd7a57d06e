"""The panel offers every value the command line takes, and no other: for every parameter
``dicetower systems --json`` lists, the range MINUS and PLUS walk on the panel is the range
the command line accepts.

A number is held to its ``min``/``max``; a choice or switch to its values; a list the panel
builds item by item (``panel_items``) is probed through the real command line (``dicetower
odds``): each number of an item at the panel's ends is accepted, one past them is refused,
and a page takes as many items as the command line does. (issue 18: a related character's
Coordination CR stopped at 100 of 228 and started at 10; an immortal hostile's TN at 60 of 79.)
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.panel import fields, pages
from engine.systems import get
from hardware.cli import main

#: Other options a list is probed with: those that let its numbers reach their widest range
#: (a Volley's attackers need --volley; ten Minor boxes need Body + Resolve of 6 or more;
#: five karma on a test need the karma and --multi-spend).
CONTEXT: dict[tuple[str, str], list[str]] = {
    ("infinity", "attacker"): ["--volley", "--damage", "2", "--defense", "20"],
    ("horizons", "wounds"): ["--body", "10", "--resolve", "10"],
    ("fingers", "chain"): ["--karma", "5", "--multi-spend"],
    ("fingers", "winners_set"): ["--winners", "1"],
}
#: An item's other numbers while one of them is probed, where the start values would refuse
#: its end for another reason (five karma on 1 of 5 would waste one: probe it on 0 of 5).
OTHERS: dict[tuple[str, str, str], dict[str, int]] = {
    ("fingers", "chain", "spend"): {"winners": 0},
}
#: Lists the panel takes fewer items of than the command line, and why.
FEWER_ITEMS: dict[tuple[str, str], str] = {
    ("fingers", "winners_set"): "a hand for each of a long-term challenge's 100 tests (500 fingers) stays on "
                                "the command line; the panel's fixed hand takes 10 fingers",
}


def _listing() -> list[dict[str, Any]]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["systems", "--json"]) == 0
    return json.loads(out.getvalue())["systems"]


LISTING = _listing()
PARAMS = [(s["id"], p) for s in LISTING for p in s["params"]]


def _accepts(system: str, flag: str, item: str, context: list[str]) -> bool:
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["odds", system, flag, item, *context, "--json"])
    assert code in (0, 2), err.getvalue()
    return code == 0


@pytest.mark.parametrize(("system", "param"), PARAMS, ids=[f"{s}-{p['name']}" for s, p in PARAMS])
def test_the_panel_walks_the_command_lines_range(system: str, param: dict[str, Any]) -> None:
    spec = get(system)
    p = spec.param(param["name"])
    if param["panel"] == "field" or (param["type"] != "list" and param["panel"].startswith("flow:")):
        if param["type"] == "int":
            assert fields.bounds(pages.bounded(spec, p, 9)) == (param["min"], param["max"])
        elif param["type"] == "choice":
            walked = {fields.nudge(p, param["choices"][0], n) for n in range(len(param["choices"]))}
            assert walked == set(param["choices"])
        else:
            assert {fields.nudge(p, False, n) for n in range(2)} == {False, True}
        return
    if "panel_items" not in param:
        # a list with no page of its own: the finger buttons (one per test), never typed
        flow = spec.panel.flow(param["panel"].removeprefix("flow:"))
        assert not flow.page, f"{system} {param['name']}: a list on a page needs panel_items"
        return
    _probe_items(system, param)


def _probe_items(system: str, param: dict[str, Any]) -> None:
    spec = get(system)
    shape = spec.panel.lists[param["name"]]
    items = param["panel_items"]
    context = CONTEXT.get((system, param["name"]), [])
    if items["fixed"]:
        assert items["most"] == 1 and param["max_items"] == len(items["parts"])  # one positional item
    elif (system, param["name"]) in FEWER_ITEMS:
        assert items["most"] < param["max_items"]
    else:
        assert items["most"] == param["max_items"], f"{system} {param['name']}: items 0..{items['most']} on the " \
                                                    f"panel, 0..{param['max_items']} on the command line"

    def text(values: list[int]) -> str:
        made = pages.as_param(shape, (tuple(values),))
        return ",".join(str(v) for v in made)

    for i, part in enumerate(items["parts"]):
        values = [p["start"] for p in items["parts"]]
        for k, other in enumerate(items["parts"]):
            values[k] = OTHERS.get((system, param["name"], part["name"]), {}).get(other["name"], values[k])
        where = f"{system} --{param['name']} {part['name']}"
        probes = [part["min"], part["max"]] + ([] if part.get("names") else [part["max"] + 1])
        if part.get("omit") != part["min"]:
            probes.append(part["min"] - 1)
        for value in probes:
            values[i] = value
            inside = part["min"] <= value <= part["max"]
            item = text(values)
            assert _accepts(system, f"--{param['name'].replace('_', '-')}", item, context) == inside, (
                f"{where}: the panel's range is {part['min']}..{part['max']}, but the command line "
                f"{'refuses' if inside else 'takes'} {item!r}")
        if part.get("names"):  # every value of a named part reads as a name the command line takes
            for value in range(part["min"], part["max"] + 1):
                values[i] = value
                assert _accepts(system, f"--{param['name'].replace('_', '-')}", text(values), context), where


def test_every_list_a_flow_page_builds_is_probed() -> None:
    listed = {(s, p["name"]) for s, p in PARAMS if "panel_items" in p}
    built = {(s["id"], name) for s in LISTING for name in get(s["id"]).panel.lists}
    assert listed == built
