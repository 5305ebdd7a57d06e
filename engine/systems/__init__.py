"""The game systems, found by id among the installed ones (:mod:`engine.systems.registry`).

Each system is a plug-in: a package whose ``__init__`` defines ``SYSTEM``, a
:class:`SystemSpec`, registered in the ``dicetower_systems`` entry-point group. The five
shipped ones are ``engine/systems/<id>/`` (``rules.py``: the rules as data and small
functions, ``odds.py``: exact odds, ``panel.py``: its :class:`PanelSpec`); a plug-in is a
distribution of its own (docs/architecture.md, "Writing a system plug-in"). Packages are
imported on first use so that start-up on a Pi Zero pays only for the systems it touches. A
system imports only the engine's shared modules, never another system (tests/test_layering.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.dice import DiceSource
from engine.errors import UnknownSystemError
from engine.params import Param, resolve
from engine.results import Odds, RollResult
from engine.systems import registry
from engine.systems.panel import PanelSpec

T = TypeVar("T")

#: Settings whose odds a spec keeps (:meth:`SystemSpec.known_odds`).
ODDS_KEPT = 64

#: The listing order of a system that declares none (:attr:`SystemSpec.order`): after the
#: shipped five (10 to 50), by id among themselves.
LAST = 1000


@dataclass(frozen=True)
class SystemSpec:
    """A game system: its parameters and the pure functions that roll and compute odds.

    ``roll(dice, params)`` and ``odds(params)`` receive parameters already resolved by
    :meth:`resolve` (defaults filled, types checked, cross-checks done by ``check``).
    ``describe(result)`` gives a few human-readable lines for the terminal. ``panel`` is
    everything the button panel knows about the system (:mod:`engine.systems.panel`).
    ``check(params, given)`` gets the resolved parameters and the names the caller actually
    supplied, so a rule like "--pool or --trait, not both" can tell a given value from a default.
    """

    id: str
    title: str
    summary: str
    params: tuple[Param, ...]
    outcomes: tuple[str, ...]
    roll: Callable[[DiceSource, Mapping[str, Any]], RollResult]
    odds: Callable[[Mapping[str, Any]], Odds]
    describe: Callable[[RollResult], list[str]]
    check: Callable[[dict[str, Any], frozenset[str]], None] | None = None
    panel: PanelSpec = field(default_factory=PanelSpec)  # how the button panel offers and shows it
    #: where it stands in MODE's order and every listing: by (order, id), lowest first; its
    #: module declares the same number as ``ORDER = N`` so that listing imports no system
    order: int = LAST
    # values computed from the spec alone, and recent odds (see derived, known_odds); not
    # copied by dataclasses.replace, so a changed spec starts with an empty one
    _memo: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    _odds: dict[Any, Odds] = field(default_factory=dict, init=False, compare=False, repr=False)

    def resolve(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Validated parameters; raises :class:`engine.errors.ParameterError`."""
        params = resolve(self.params, raw, self.derived("params by name", _params_by_name))
        if self.check is not None:
            given = frozenset(str(k).replace("-", "_") for k, v in raw.items() if v is not None)
            self.check(params, given)
        return params

    def derived(self, key: str, make: Callable[[SystemSpec], T]) -> T:
        """``make(self)``, made once per spec: what the panel derives from the spec alone (its
        pages, its parameters by name). The spec never changes, and the panel asks on every
        press."""
        memo = self._memo
        if key not in memo:
            memo[key] = make(self)
        made: T = memo[key]
        return made

    def known_odds(self, params: Mapping[str, Any]) -> Odds:
        """``odds(params)``, kept for the last ODDS_KEPT settings. Exact odds can take
        milliseconds (a large exploding pool), and the panel asks again for the setting a
        player steps back to, and for each choice it compares."""
        key = tuple(sorted(params.items()))
        try:
            got = self._odds.get(key)
        except TypeError:  # a value that cannot be a key: nothing kept
            return self.odds(params)
        if got is None:
            if len(self._odds) >= ODDS_KEPT:
                self._odds.clear()  # bounded: start again rather than track use
            got = self._odds[key] = self.odds(params)
        return got

    def forget_odds(self) -> None:
        """Drop the kept odds (:meth:`known_odds`): the next call of each setting computes
        them again (what bench/bench_odds.py times as a cold call)."""
        self._odds.clear()

    def typed_in(self, params: Mapping[str, Any]) -> bool:
        """Whether a roll of these parameters (a roll's ``params``) is typed in: a parameter
        marked ``entered`` is given, so its outcome was not drawn."""
        return any(params.get(p.name) for p in self.derived("entered params", _entered))

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def describe_spec(self) -> dict[str, Any]:
        """The system as ``dicetower systems --json`` lists it (``starts``: what a fresh player
        slot starts with, the settings menu's item and the config's ``[panel]`` key)."""
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "summary": self.summary,
            "outcomes": list(self.outcomes),
            "params": [self._describe_param(p) for p in self.params],
        }
        if self.panel.starts:
            out["starts"] = [{"param": s.param, "min": s.lo, "max": s.hi, "default": s.default, "item": str(s),
                              "config": f"panel.{s.key}"} for s in self.panel.starts]
        return out

    def _describe_param(self, p: Param) -> dict[str, Any]:
        """A parameter with its panel route (``field`` or ``flow:NAME``) and screen label; a
        list the panel builds item by item also has ``panel_items``: how many items its page
        takes and each item's numbers with the range MINUS/PLUS walk (``omit``: the value
        that leaves that number out, ``names``: how the values read when not as numbers)."""
        out = {**p.describe(), "panel": self.panel.route(p), "label": self.panel.label(p)}
        shape = self.panel.lists.get(p.name)
        if shape is not None:
            most = shape.fixed if shape.fixed is not None else min(shape.most, p.max_items or shape.most)
            out["panel_items"] = {"most": most, "fixed": shape.fixed is not None,
                                  "parts": [_describe_part(part) for part in shape.parts]}
        return out


def _entered(spec: SystemSpec) -> tuple[Param, ...]:
    return tuple(p for p in spec.params if p.entered)


def typed_in(result: Mapping[str, Any]) -> bool:
    """Whether a logged result (its JSON: ``system`` and ``params``) was typed in, by its
    system's ``entered`` parameters (False for a system not installed: nothing to type in)."""
    system, params = result.get("system"), result.get("params")
    if not isinstance(system, str) or not isinstance(params, Mapping) or not installed(system):
        return False
    return get(system).typed_in(params)


def _params_by_name(spec: SystemSpec) -> dict[str, Param]:
    return {p.name: p for p in spec.params}


def _describe_part(part: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": part.name, "min": part.lo, "max": part.hi, "start": part.start}
    if part.omit is not None:
        out["omit"] = part.omit
    if part.names:
        out["names"] = list(part.names)
    return out


def get(system_id: str) -> SystemSpec:
    """The installed system with that id, imported on first use; :class:`UnknownSystemError`
    names the installed ids, :class:`~engine.systems.registry.SystemPluginError` an installed
    one that is broken."""
    key = str(system_id).strip().lower()
    found = registry.installed().get(key)
    if found is None:
        raise UnknownSystemError(str(system_id), ids())
    spec = found.load()
    if not isinstance(spec, SystemSpec) or spec.id != key:
        what = f"a SystemSpec with id {spec.id!r}" if isinstance(spec, SystemSpec) else type(spec).__name__
        raise registry.SystemPluginError(f"system {key!r} (distribution {found.distribution}): "
                                         f"{found.module}:{found.attribute} is {what}, not its SystemSpec")
    return spec


def installed(system_id: str) -> bool:
    """Whether a system by that id is installed, without importing it."""
    return str(system_id).strip().lower() in registry.installed()


def all_systems() -> tuple[SystemSpec, ...]:
    """Every installed system in listing (and MODE) order (:func:`ids`), each imported."""
    return tuple(get(s) for s in ids())


def ids() -> tuple[str, ...]:
    """The installed systems' ids in listing order: by order, then id. A system's order is the
    ``ORDER`` its module declares (read without importing it), else its spec's (imported)."""
    found = registry.installed()
    orders = {key: entry.declared_order() for key, entry in found.items()}
    ranked = {key: order if order is not None else get(key).order for key, order in orders.items()}
    return tuple(sorted(found, key=lambda key: (ranked[key], key)))
