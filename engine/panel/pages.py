"""The rows FIELD walks on each setup page, and where each row's value lives.

Pages: the first page (the system's everyday parameters and a "more" row), the advanced page
(every other field parameter, one row per flow, and "back"), and one page per flow (its
parameters; a list parameter as a count row plus a row per number of each item). A row's
value is in the panel's field values, or, for a value a player slot carries (karma, a
Stability or wound track), in that slot: editing it edits the slot. All of it is read from
the system's :class:`~engine.systems.panel.PanelSpec`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from engine.panel import fields
from engine.params import Param
from engine.systems import SystemSpec
from engine.systems.panel import Carried, ListShape

#: Page names: the first page, the advanced page; a flow's page is ``flow:NAME``.
FIRST, ADVANCED = "", "advanced"
FLOW = "flow:"

#: Row kinds.
PARAM, COUNT, PART, OPEN, GO = "param", "count", "part", "open", "go"


@dataclass(frozen=True)
class Row:
    """One line FIELD can select. ``name`` is the parameter (PARAM, COUNT, PART), the flow
    (OPEN) or the page to go to (GO); ``item``/``part`` locate a number in a list."""

    kind: str
    name: str
    item: int = 0
    part: int = 0

    @property
    def moves(self) -> bool:
        """PLUS/MINUS on this row change the page, not a value."""
        return self.kind in (OPEN, GO)


def params_by_name(spec: SystemSpec) -> Mapping[str, Param]:
    """The spec's parameters and the panel's own rows (``panel.extra``), by name: more than
    the spec's own map (``SystemSpec.resolve``'s), so kept under a name of its own."""
    return spec.derived("panel rows by name", _params_by_name)


def _params_by_name(spec: SystemSpec) -> Mapping[str, Param]:
    return MappingProxyType({**{p.name: p for p in spec.params}, **{p.name: p for p in spec.panel.extra}})


def _flow_param_names(spec: SystemSpec) -> set[str]:
    return {n for f in spec.panel.flows for n in f.params}


def _scalar(p: Param) -> bool:
    return p.kind in fields.KINDS


def first_page(spec: SystemSpec) -> tuple[str, ...]:
    """Parameter names on the first page: the spec's ``panel`` parameters and panel-only rows
    that no flow takes, except values a player slot carries."""
    return spec.derived("first_page", _first_page)


def _first_page(spec: SystemSpec) -> tuple[str, ...]:
    in_flows = _flow_param_names(spec)
    carried = {c.param for c in spec.panel.carried} | set(spec.panel.player)
    names = [p.name for p in spec.params
             if p.panel and _scalar(p) and p.name not in in_flows and p.name not in carried
             and p.name not in spec.panel.advanced]
    names += [p.name for p in spec.panel.extra if p.name not in in_flows]
    return tuple(names)


def advanced_page(spec: SystemSpec) -> tuple[str, ...]:
    """Field parameters not on the first page: the rest of the ``field`` routes."""
    return spec.derived("advanced_page", _advanced_page)


def _advanced_page(spec: SystemSpec) -> tuple[str, ...]:
    first = set(first_page(spec))
    return tuple(p.name for p in spec.params
                 if spec.panel.route(p) == "field" and p.name not in first)


def rows(spec: SystemSpec, page: str, values: Mapping[str, Any]) -> tuple[Row, ...]:
    """The rows of ``page``, in FIELD order. ``values`` gives list lengths."""
    if page == FIRST:
        return (*(Row(PARAM, n) for n in first_page(spec)), Row(GO, ADVANCED))
    if page == ADVANCED:
        opens = tuple(Row(OPEN, f.name) for f in spec.panel.flows if f.page)
        return (*(Row(PARAM, n) for n in advanced_page(spec)), *opens, Row(GO, FIRST))
    flow = spec.panel.flow(page[len(FLOW):])
    by_name = params_by_name(spec)
    out: list[Row] = []
    for name in flow.params:
        shape = spec.panel.lists.get(name)
        if shape is None:
            if name in by_name and _scalar(by_name[name]):
                out.append(Row(PARAM, name))
            continue
        items = list_items(shape, values.get(name))
        if shape.fixed is None:
            out.append(Row(COUNT, name))
        for i in range(len(items)):
            out.extend(Row(PART, name, i, k) for k in range(len(shape.parts)))
    return (*out, Row(GO, ADVANCED))


def pages(spec: SystemSpec) -> tuple[str, ...]:
    return (FIRST, ADVANCED, *(FLOW + f.name for f in spec.panel.flows if f.page))


def depth(page: str) -> int:
    """0 for the first page, 1 for the advanced page, 2 for a flow's."""
    return 0 if page == FIRST else (1 if page == ADVANCED else 2)


def page_of(spec: SystemSpec, name: str) -> str:
    """The page whose rows set parameter ``name``."""
    if name in first_page(spec):
        return FIRST
    flow = spec.panel.flow_of(name)
    if flow is not None and flow.page:
        return FLOW + flow.name
    return ADVANCED


# --- list values --------------------------------------------------------------------------


def list_items(shape: ListShape, stored: Any) -> tuple[tuple[int, ...], ...]:
    """A list row's items as part values, each within its part's range (a fixed list always
    has its ``fixed`` items)."""
    items: list[tuple[int, ...]] = []
    if isinstance(stored, tuple):
        for item in stored:
            if isinstance(item, tuple) and len(item) == len(shape.parts):
                items.append(tuple(_within(part.lo, part.hi, v, part.start) for part, v in
                                   zip(shape.parts, item, strict=True)))
    if shape.fixed is not None:
        items = items[: shape.fixed]
        items += [tuple(part.start for part in shape.parts)] * (shape.fixed - len(items))
    return tuple(items[: shape.most])


def _within(lo: int, hi: int, value: Any, start: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return start
    return min(hi, max(lo, value))


def as_param(shape: ListShape, items: tuple[tuple[int, ...], ...]) -> Any:
    """The list as the parameter takes it: a fixed list is its one item's numbers (a wound
    track's three tiers), any other one text item per entry."""
    if shape.fixed is not None:
        return tuple(items[0]) if items else ()
    return tuple(shape.text(item) for item in items)


def from_param(shape: ListShape, value: Any) -> tuple[tuple[int, ...], ...]:
    """A fixed list's numbers as a parameter gives them back (``(1, 0, 0)``)."""
    if shape.fixed is not None and isinstance(value, tuple) and len(value) == len(shape.parts):
        return (tuple(v if isinstance(v, int) else 0 for v in value),)
    return ()


def resize(shape: ListShape, items: tuple[tuple[int, ...], ...], count: int) -> tuple[tuple[int, ...], ...]:
    new = tuple(part.start for part in shape.parts)
    return items[:count] + (new,) * max(0, count - len(items))


def set_part(shape: ListShape, items: tuple[tuple[int, ...], ...], item: int, part: int, steps: int
             ) -> tuple[tuple[int, ...], ...]:
    p = shape.parts[part]
    old = items[item]
    number = min(p.hi, max(p.lo, old[part] + steps))
    return (*items[:item], (*old[:part], number, *old[part + 1:]), *items[item + 1:])


def most(spec: SystemSpec, name: str) -> int:
    shape = spec.panel.lists[name]
    limit = params_by_name(spec)[name].max_items
    return min(shape.most, limit) if limit is not None else shape.most


# --- where a value lives ------------------------------------------------------------------


def carried_entry(spec: SystemSpec, name: str) -> Carried | None:
    for c in spec.panel.carried:
        if c.param == name:
            return c
    return None


def optional(p: Param) -> bool:
    """A parameter whose default is None: the panel offers ``-`` (not given) below its range
    (a number) or before its first choice."""
    return not p.required and p.default is None and p.kind in ("int", "choice")


def nudge(p: Param, value: Any, steps: int) -> Any:
    """:func:`fields.nudge`, with ``-`` (None) below the range of an optional number and
    between the last and first of an optional choice."""
    if not optional(p):
        return fields.nudge(p, value, steps)
    if p.kind == "choice":
        ring = (None, *p.choices)
        index = ring.index(value) if value in ring else 0
        return ring[(index + steps) % len(ring)]
    lo, _ = fields.bounds(p)
    if value is None:
        return None if steps < 0 else fields.nudge(p, lo, steps - 1)
    if value + steps * max(1, p.step) < lo:
        return None
    return fields.nudge(p, value, steps)


def in_range(p: Param, value: Any) -> bool:
    return (value is None and optional(p)) or fields.in_range(p, value)


def start_value(p: Param) -> Any:
    return None if optional(p) else fields.start_value(p)


def show(p: Param, value: Any) -> str:
    return "-" if value is None else fields.show(p, value)


def bounded(spec: SystemSpec, p: Param, players: int) -> Param:
    """The parameter with its range as this panel has it: a player-slot row stops at the
    number of slots."""
    if p.name == spec.panel.target:
        return replace(p, hi=players)
    return p


def label(spec: SystemSpec, row: Row) -> str:
    """What a value row is called on the screen and in transcripts: the parameter's label
    (``cr``), ``hostile count``, ``hostile1 tn``, ``wounds minor``."""
    name = spec.panel.label(params_by_name(spec)[row.name])
    if row.kind == COUNT:
        return f"{name} count"
    if row.kind == PART:
        shape = spec.panel.lists[row.name]
        prefix = name if shape.fixed is not None else f"{name}{row.item + 1}"
        return f"{prefix} {shape.parts[row.part].name}"
    return name


_FLAG = re.compile(r"--([a-z][a-z0-9-]*)(?: (yes|no)\b)?")


def cli_label(spec: SystemSpec, cli_name: str) -> str:
    """The screen label of the parameter the command line calls ``--cli_name`` (the name
    itself, spaced, for one the system does not have)."""
    for p in spec.params:
        if p.cli_name == cli_name:
            return spec.panel.label(p)
    return cli_name.replace("-", " ")


def panel_words(spec: SystemSpec, text: str) -> str:
    """``text`` (an engine message written for the command line) with each flag named by the
    panel's label for it: ``--choices (3)`` -> ``choices (3)``, ``--skill-locked yes`` ->
    ``skill locked``; the panel has rows and switches, not flags."""

    def label(m: re.Match[str]) -> str:
        name = cli_label(spec, m[1])
        return {"yes": name, "no": f"{name} off"}.get(m[2] or "", name)

    return _FLAG.sub(label, text)
