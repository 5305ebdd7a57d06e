"""Per-player values the tower carries from roll to roll: karma, wound and Stability tracks,
locked skill slots.

What is carried is the system's: :attr:`engine.systems.panel.PanelSpec.carried` names each
parameter fed from the slot and the result field stored back (fingers' ``karma_after``,
horizons' ``stability_after.marked``), and whose slot it is (the roller's, or the defender's
slot a flow names). A :class:`~engine.systems.panel.Lock` keeps a result flag per numbered
slot (immortal: the skill slot whose untrained attempt failed), cleared only by resetting the
player in the settings menu.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.params import Param
from engine.results import RollResult, to_jsonable
from engine.systems import SystemSpec
from engine.systems.panel import Lock, value_at

#: Tiers of a wound track stored as a mapping, in the order the ``wounds`` list gives them.
_TIERS = ("minor", "major", "critical")

#: Where a slot keeps a lock's locked numbers: ``locked:PARAM``.
_LOCKED = "locked:"


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class PlayerSlot:
    """One player's carried values: ``values[system][name]``."""

    values: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "values", _frozen({k: _frozen(v) for k, v in self.values.items()})
        )

    def get(self, system: str, name: str, default: Any = None) -> Any:
        return self.values.get(system, {}).get(name, default)

    def of(self, system: str) -> Mapping[str, Any]:
        return self.values.get(system, MappingProxyType({}))

    def with_value(self, system: str, name: str, value: Any) -> PlayerSlot:
        """The slot with ``name`` set (``None`` removes it)."""
        mine = {k: v for k, v in self.of(system).items() if k != name}
        if value is not None:
            mine[name] = _storable(value)
        return PlayerSlot({**self.values, system: mine})


def player_params(spec: SystemSpec) -> tuple[str, ...]:
    """Names of ``spec``'s parameters a player slot supplies (never a row of their own on the
    first page): carried values and locks."""
    names = [c.param for c in spec.panel.carried] + list(spec.panel.player)
    names += [lock.param for lock in spec.panel.locks]
    return tuple(dict.fromkeys(names))


def stored(slot: PlayerSlot, spec: SystemSpec, name: str) -> Any:
    """The slot's value for parameter ``name`` as the parameter takes it, or None."""
    names = {p.name: p for p in spec.params}
    if name not in names or name not in slot.of(spec.id):
        return None
    return _as_param(names[name], slot.of(spec.id)[name])


def carried(slot: PlayerSlot, spec: SystemSpec, starts: Mapping[str, int] = MappingProxyType({}),
            who: str = "roller") -> dict[str, Any]:
    """The parameters this slot brings to a roll of ``spec`` as ``who`` (the roller, or the
    target a flow names): stored values, and for a parameter never stored that the system
    starts (:attr:`PanelSpec.starts`: fingers' karma) the settings' start value, ``starts``."""
    names = {p.name: p for p in spec.params}
    out: dict[str, Any] = {}
    for entry in spec.panel.carried_for(who):
        usable = stored(slot, spec, entry.param)
        if usable is not None:
            out[entry.param] = usable
    if who != "roller":
        return out
    for name in spec.panel.player:
        if name not in out:
            usable = stored(slot, spec, name)
            start = next((st for st in spec.panel.starts if st.param == name), None)
            if usable is None and start is not None:
                p, first = names[name], start.clamp(starts.get(name, start.default))
                usable = max(p.lo if p.lo is not None else first, min(p.hi if p.hi is not None else first, first))
            if usable is not None:
                out[name] = usable
    return out


def locked(slot: PlayerSlot, spec: SystemSpec, lock: Lock) -> tuple[int, ...]:
    """The numbers (skill slots) locked for this player."""
    value = slot.get(spec.id, _LOCKED + lock.param, ())
    return tuple(v for v in value if isinstance(v, int)) if isinstance(value, tuple) else ()


def record(slot: PlayerSlot, result: RollResult, spec: SystemSpec, keys: Mapping[str, Any],
           who: str = "roller") -> PlayerSlot:
    """The slot after ``result``: each carried field stored back, and for the roller each
    lock whose flag the result set, at the number ``keys`` gives (the skill slot picked)."""
    data = result.to_dict()
    found: dict[str, Any] = {}
    for entry in spec.panel.carried_for(who):
        value = value_at(data, entry.field)
        if value is not None:
            found[entry.param] = _storable(value)
    if who == "roller":
        for lock in spec.panel.locks:
            key = keys.get(lock.key)
            if data.get(lock.flag) is True and isinstance(key, int):
                numbers = locked(slot, spec, lock)
                found[_LOCKED + lock.param] = tuple(sorted({*numbers, key}))
    if not found:
        return slot
    return PlayerSlot({**slot.values, spec.id: {**slot.of(spec.id), **found}})


def _as_param(p: Param, value: Any) -> Any:
    """A stored value as parameter ``p`` takes it, or None if it does not fit (then the
    system's default stands rather than a roll that cannot be made)."""
    if isinstance(value, Mapping):
        if p.kind == "int" and "marked" in value:
            value = value["marked"]
        elif p.kind == "list" and all(t in value for t in _TIERS):
            value = tuple(value[t] for t in _TIERS)
    try:
        return p.coerce(value)
    except ValueError:
        return None


def _storable(value: Any) -> Any:
    # JSON lists back to tuples, so a stored track is immutable and passes back as a list param
    value = to_jsonable(value)
    if isinstance(value, list):
        return tuple(_storable(v) for v in value)
    if isinstance(value, dict):
        return _frozen({k: _storable(v) for k, v in value.items()})
    return value


def to_json(slot: PlayerSlot) -> dict[str, Any]:
    return {system: dict(to_jsonable(values)) for system, values in slot.values.items()}


def from_json(data: Any) -> PlayerSlot:
    """A slot read back from :func:`to_json`; anything malformed is dropped, not trusted."""
    if not isinstance(data, Mapping):
        return PlayerSlot()
    values: dict[str, dict[str, Any]] = {}
    for system, entries in data.items():
        if isinstance(system, str) and isinstance(entries, Mapping):
            values[system] = {
                str(k): _storable(v) for k, v in entries.items() if isinstance(k, str)
            }
    return PlayerSlot(values)
