"""The setting the panel rolls: each row's value (from the field values or a player slot), and
the parameters a roll gets from them.

Values a player slot carries (karma, a Stability or wound track) are read from and written to
that slot, so editing them on a flow page edits the player's record; everything else is in
the panel's field values for the system. Lists are kept as their items' part values and turned
into the parameter's items at roll time (:mod:`engine.panel.pages`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.panel import pages, slots
from engine.panel.state import PanelState, evolve
from engine.systems import SystemSpec


def slot_index(s: PanelState, who: str) -> int:
    """The player slot a carried value of ``who`` lives in: the current player, or the slot
    the system's target row names."""
    spec = s.spec
    if who == "target" and spec.panel.target:
        number = s.field_values(spec.id).get(spec.panel.target)
        if isinstance(number, int):
            return (number - 1) % len(s.players)
    return (s.settings.player - 1) % len(s.players)


def value(s: PanelState, name: str) -> Any:
    """A scalar row's value."""
    spec = s.spec
    entry = pages.carried_entry(spec, name)
    if entry is not None or name in spec.panel.player:
        who = entry.who if entry is not None else "roller"
        slot = s.players[slot_index(s, who)]
        return slots.carried(slot, spec, s.settings.start_values, who).get(name)
    p = pages.params_by_name(spec)[name]
    return s.field_values().get(name, pages.start_value(p))


def with_value(s: PanelState, name: str, new: Any) -> PanelState:
    spec = s.spec
    entry = pages.carried_entry(spec, name)
    if entry is not None or name in spec.panel.player:
        index = slot_index(s, entry.who if entry is not None else "roller")
        slot = s.players[index].with_value(spec.id, name, new)
        return evolve(s, players=(*s.players[:index], slot, *s.players[index + 1:]))
    values = dict(s.values)
    values[spec.id] = {**s.field_values(), name: new}
    return evolve(s, values=values)


def items(s: PanelState, name: str) -> tuple[tuple[int, ...], ...]:
    """A list row's items (part values)."""
    spec = s.spec
    shape = spec.panel.lists[name]
    entry = pages.carried_entry(spec, name)
    if entry is not None:
        slot = s.players[slot_index(s, entry.who)]
        return pages.list_items(shape, pages.from_param(shape, slots.stored(slot, spec, name)))
    return pages.list_items(shape, s.field_values().get(name))


def with_items(s: PanelState, name: str, new: tuple[tuple[int, ...], ...]) -> PanelState:
    spec = s.spec
    if pages.carried_entry(spec, name) is not None:
        return with_value(s, name, pages.as_param(spec.panel.lists[name], new))
    return with_value(s, name, new)


def raw(s: PanelState, spec: SystemSpec) -> dict[str, Any]:
    """The roll's parameters as the panel has them set (the guess not included)."""
    values = s.field_values(spec.id)
    out: dict[str, Any] = {}
    for p in spec.params:
        shape = spec.panel.lists.get(p.name)
        if shape is not None and pages.carried_entry(spec, p.name) is None:
            listed = pages.list_items(shape, values.get(p.name))
            if listed:
                out[p.name] = pages.as_param(shape, listed)
        elif p.name in values and values[p.name] is not None:
            out[p.name] = values[p.name]
    roller = s.players[(s.settings.player - 1) % len(s.players)]
    out.update(slots.carried(roller, spec, s.settings.start_values))
    if spec.panel.target:
        target = s.players[_target_index(s, spec)]
        out.update(slots.carried(target, spec, s.settings.start_values, "target"))
    for lock in spec.panel.locks:
        out[lock.param] = values.get(lock.key) in slots.locked(roller, spec, lock)
    return _gated(spec, out)


def _target_index(s: PanelState, spec: SystemSpec) -> int:
    number = s.field_values(spec.id).get(spec.panel.target or "")
    return (number - 1) % len(s.players) if isinstance(number, int) else 0


def _set(value: Any) -> bool:
    return value is not None and value is not False and value != ()


def _gated(spec: SystemSpec, out: dict[str, Any]) -> dict[str, Any]:
    """Leave out what the rules take from elsewhere (a volley has no CR; a built rating
    replaces the rating) and what only counts beside another value (a wound track needs the
    defender's Body)."""
    gone = {name for name, other in spec.panel.omit.items() if _set(out.get(other))}
    gone |= {name for name, other in spec.panel.needs.items() if not _set(out.get(other))}
    return {k: v for k, v in out.items() if k not in gone}


def left_out(s: PanelState, spec: SystemSpec, name: str) -> bool:
    """Row ``name`` is set but not passed to the roll (see :func:`_gated`): the screen marks
    it, so a trait left on the first page under a given pool does not look counted."""
    other = spec.panel.omit.get(name)
    if other is not None and _set(value(s, other)):
        return True
    other = spec.panel.needs.get(name)
    return other is not None and not _set(value(s, other))


def keys(s: PanelState, spec: SystemSpec) -> Mapping[str, Any]:
    """The numbers a lock is kept under (the skill slot picked), for recording a result."""
    values = s.field_values(spec.id)
    return {lock.key: values.get(lock.key) for lock in spec.panel.locks}


def record(s: PanelState, spec: SystemSpec, result: Any) -> PanelState:
    """The player slots after ``result``: the roller's carried values and locks, and the
    target's (a horizons defender's wound track)."""
    players = list(s.players)
    index = (s.settings.player - 1) % len(players)
    players[index] = slots.record(players[index], result, spec, keys(s, spec))
    if spec.panel.target and spec.panel.carried_for("target"):
        t = _target_index(s, spec)
        players[t] = slots.record(players[t], result, spec, {}, who="target")
    return evolve(s, players=tuple(players))


def start_values(spec: SystemSpec) -> dict[str, Any]:
    """A system's field values on first visit: every row's start (lists empty)."""
    by_name = pages.params_by_name(spec)
    carried = set(slots.player_params(spec))
    out: dict[str, Any] = {}
    for name, p in by_name.items():
        if name in carried or name == spec.panel.guess:
            continue
        if name in spec.panel.lists:
            out[name] = ()
        elif p.kind in ("int", "bool", "choice"):
            out[name] = pages.start_value(p)
    return out


def restored(spec: SystemSpec, entries: Mapping[str, Any], players: int) -> dict[str, Any]:
    """Saved field values that are still in range, over the start values."""
    out = start_values(spec)
    by_name = pages.params_by_name(spec)
    for name in out:
        if name not in entries:
            continue
        saved = entries[name]
        if name in spec.panel.lists:
            listed = saved if isinstance(saved, tuple | list) else ()
            out[name] = pages.list_items(spec.panel.lists[name],
                                         tuple(tuple(i) for i in listed if isinstance(i, list | tuple)))
        elif pages.in_range(pages.bounded(spec, by_name[name], players), saved):
            out[name] = saved
    return out
