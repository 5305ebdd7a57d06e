"""Per-player values the tower carries from roll to roll: karma, wound and stability tracks,
locked untrained skills.

Stored generically: after a roll, every result field ``NAME_after`` becomes the player's
``NAME`` for that system, and the next roll of that system passes it back as parameter
``NAME`` when the system takes one (a track stored as a mapping passes back its marked
boxes). So a system that grows a new track needs no panel change. A flag in
:data:`STICKY_FLAGS` (immortal's ``skill_locked``) is set by the first result that sets it and
cleared only by resetting the player in the settings menu.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.params import Param
from engine.results import RollResult, to_jsonable
from engine.systems import SystemSpec

_AFTER = "_after"

#: Parameters that are a player's running value rather than a setting at the table; the
#: panel fills them from the player slot and does not offer them as fields.
PLAYER_PARAMS: frozenset[str] = frozenset({"karma", "skill_locked"})

#: Result flags kept once set: the immortal skill lock ("may not make a roll requiring that
#: same skill thereafter until he gains at least 1 rank"); the panel cannot tell skills
#: apart, so the lock holds for the player's untrained attempts until a reset.
STICKY_FLAGS: frozenset[str] = frozenset({"skill_locked"})

#: Tiers of a wound track stored as a mapping, in the order the ``wounds`` list gives them.
_TIERS = ("minor", "major", "critical")

#: Parameters a fresh or reset slot starts from the "start karma" setting.
STARTS_FROM_SETTING: frozenset[str] = frozenset({"karma"})


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


def player_params(spec: SystemSpec) -> tuple[str, ...]:
    """Names of ``spec``'s parameters the player slot supplies."""
    return tuple(p.name for p in spec.params if p.name in PLAYER_PARAMS)


def carried(slot: PlayerSlot, spec: SystemSpec, start_karma: int) -> dict[str, Any]:
    """The parameters this player brings to a roll of ``spec``: stored values for the
    parameters the system takes, the start value for a player value never stored."""
    names = {p.name: p for p in spec.params}
    out: dict[str, Any] = {}
    for name, value in slot.of(spec.id).items():
        if name in names:
            usable = _as_param(names[name], value)
            if usable is not None:
                out[name] = usable
    for name in player_params(spec):
        if name not in out and name in STARTS_FROM_SETTING:
            p = names[name]
            value = start_karma
            if p.hi is not None:
                value = min(p.hi, value)
            if p.lo is not None:
                value = max(p.lo, value)
            out[name] = value
    return out


def record(slot: PlayerSlot, result: RollResult) -> PlayerSlot:
    """The slot after ``result``: every ``NAME_after`` field stored as ``NAME``."""
    found: dict[str, Any] = {}
    for key, value in result.to_dict().items():
        if key.endswith(_AFTER) and len(key) > len(_AFTER) and value is not None:
            found[key[: -len(_AFTER)]] = _storable(value)
        elif key in STICKY_FLAGS and value is True:
            found[key] = True
    if not found:
        return slot
    merged = dict(slot.values)
    merged[result.system] = {**slot.of(result.system), **found}
    return PlayerSlot(merged)


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
