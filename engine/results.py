"""Immutable result values shared by every system: a roll and its exact odds.

Each system subclasses :class:`RollResult` with its own fields (a subclass with its own
``__post_init__`` calls ``super().__post_init__()``); both values keep a read-only copy of the
parameters they are given (:func:`freeze`), so no system has to remember to; ``to_dict`` gives the stable
JSON that ``dicetower roll --json`` prints and :func:`engine.roll` returns.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any


def freeze(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    """A read-only copy, so result values cannot be changed after the fact."""
    return MappingProxyType(dict(mapping))


_PLAIN = frozenset({int, float, str, bool, type(None)})
_MAPPINGS = frozenset({dict, MappingProxyType})
_SEQUENCES = frozenset({tuple, list})


def to_jsonable(value: Any) -> Any:
    """Tuples to lists, mappings to dicts, dataclasses to dicts, Fractions to floats."""
    # Exact-type checks first: this runs for every parameter of every odds call.
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind in _MAPPINGS:  # a plain value needs no call: most parameters are
        return {str(k): v if type(v) in _PLAIN else to_jsonable(v) for k, v in value.items()}
    if kind in _SEQUENCES:
        return [to_jsonable(v) for v in value]
    if kind is Fraction:
        return value.numerator / value.denominator
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return [to_jsonable(v) for v in sorted(value)]
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return value


class Distribution(Mapping[str, Fraction]):
    """A read-only distribution whose probabilities share one denominator: key ``keys[i]``
    has ``counts[i] / denominator``. Its Fractions are made only when read: a large exploding
    pool has dozens with hundred-digit denominators, and the odds' JSON
    (:meth:`Odds.to_dict`) needs none of them, only each value reduced once."""

    __slots__ = ("_counts", "_denominator", "_index", "_keys")

    def __init__(self, keys: Sequence[str], counts: Sequence[int], denominator: int) -> None:
        if len(keys) != len(counts):
            raise ValueError(f"{len(keys)} keys for {len(counts)} counts")
        self._keys = tuple(keys)
        self._counts = tuple(counts)
        self._denominator = denominator
        self._index = {k: i for i, k in enumerate(self._keys)}

    def __getitem__(self, key: str) -> Fraction:
        return Fraction(self._counts[self._index[key]], self._denominator)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"Distribution({dict(self)!r})"

    def float_and_text(self) -> tuple[dict[str, float], dict[str, str]]:
        """Each probability as a float (correctly rounded) and as its reduced fraction."""
        floats: dict[str, float] = {}
        texts: dict[str, str] = {}
        d = self._denominator
        for key, n in zip(self._keys, self._counts, strict=True):
            floats[key] = n / d
            g = math.gcd(n, d)
            texts[key] = f"{n // g}/{d // g}" if d != g else str(n // g)
        return floats, texts


@dataclass(frozen=True)
class RollResult:
    """What every roll has. ``total`` is None where the system has no total (fingers)."""

    system: str
    params: Mapping[str, Any]
    dice: tuple[int, ...]
    total: int | None
    outcome: str
    success: bool

    def __post_init__(self) -> None:
        # The result owns a read-only copy of its parameters, whatever the system passed
        # in: a caller's dict changed later cannot change a logged roll.
        object.__setattr__(self, "params", freeze(self.params))

    def to_dict(self) -> dict[str, Any]:
        return {f.name: to_jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class RollAdvice:
    """Whether the rules call for a roll at all at this setting (infinity: "You roll, you only
    ever roll, when ... The CR is equal or greater than the character's skill").

    ``needed`` False means the rules assume the outcome without a roll (the player may still
    roll); ``reason`` says why, citing the rule; ``short`` is the why in a few words for the
    panel (``cr 5 < rating 8``)."""

    needed: bool
    reason: str
    short: str


@dataclass(frozen=True)
class Odds:
    """Exact probabilities of one setting.

    ``outcomes`` maps each outcome name to its probability; ``extra`` holds system-specific
    distributions (infinity ``doubles``, horizons ``successes``) keyed by name.
    ``truncated`` is the probability mass left out by truncating an infinite series
    (exploding dice), at most 1e-15; 0 where everything is exact. ``advice``: whether the
    rules call for a roll here (:class:`RollAdvice`; None where they always do).
    """

    system: str
    params: Mapping[str, Any]
    success: Fraction
    outcomes: Mapping[str, Fraction]
    extra: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)
    truncated: Fraction = Fraction(0)
    advice: RollAdvice | None = None  # only systems whose rules say when to roll

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", freeze(self.params))  # read-only, as RollResult's

    def to_dict(self) -> dict[str, Any]:
        floats, texts = _float_and_text(self.outcomes)
        out: dict[str, Any] = {
            "system": self.system,
            "params": to_jsonable(self.params),
            "success": _float(self.success),
            "outcomes": floats,
        }
        exact: dict[str, Any] = {"success": _text(self.success), "outcomes": texts}
        for name, dist in self.extra.items():
            out[name], exact[name] = _float_and_text(dist)
        out["exact"] = exact
        out["truncated"] = _float(self.truncated)
        if self.advice is not None:
            out["roll_needed"] = self.advice.needed
            out["roll_needed_reason"] = self.advice.reason
        return out


def _float_and_text(dist: Mapping[Any, Fraction]) -> tuple[dict[str, float], dict[str, str]]:
    """A distribution as floats and as exact fraction strings, in one pass (each probability's
    numerator and denominator read once: a large exploding pool has dozens)."""
    if isinstance(dist, Distribution):
        return dist.float_and_text()
    floats: dict[str, float] = {}
    texts: dict[str, str] = {}
    for k, p in dist.items():
        key, n, d = str(k), p.numerator, p.denominator
        floats[key] = n / d
        texts[key] = f"{n}/{d}" if d != 1 else str(n)
    return floats, texts


def _float(p: Fraction) -> float:
    # Correctly rounded like float(Fraction), without its generic dispatch.
    return p.numerator / p.denominator


def _text(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)
