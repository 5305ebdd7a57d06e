"""Rolls against the exact odds: per outcome, how many came up and how many were expected.

Every roll's setting can differ, so the expectation is summed roll by roll: an outcome
expected with probability p_i in roll i is expected sum(p_i) times, with variance
sum(p_i (1 - p_i)) (a sum of independent Bernoulli trials, exact, no normal-table lookup
needed to state it). ``z`` is (observed - expected) / sd: a tower whose |z| stays large over
many rolls deserves a look; statistics never turn a badge red (the replay is the proof).
Only ``rolled`` rolls count (typed-in and ``--seed`` test rolls are not random), and the board
adds a session's rolls only once the verifier has replayed that session clean: statistics
count verified rolls only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.errors import EngineError


@lru_cache(maxsize=512)
def _odds(system: str, params_json: str) -> tuple[tuple[str, float], ...] | None:
    from engine.systems import get

    try:
        spec = get(system)
        odds = spec.odds(spec.resolve(json.loads(params_json)))
    except (EngineError, ValueError, TypeError, KeyError, ArithmeticError, RecursionError):
        return None
    return tuple((name, p.numerator / p.denominator) for name, p in odds.outcomes.items())


def outcome_odds(system: str, params: Mapping[str, Any]) -> dict[str, float] | None:
    """The exact outcome probabilities of one setting (None when the engine cannot give them)."""
    try:
        key = json.dumps(params, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return None
    found = _odds(system, key)
    return dict(found) if found is not None else None


def counts_as_random(entry: Mapping[str, Any]) -> bool:
    """A roll of a dice session that is not typed in or seeded for a test."""
    return entry.get("session") is not None and entry.get("roll_kind", "rolled") == "rolled" \
        and not entry.get("faces")


@dataclass
class OutcomeTally:
    observed: int = 0
    expected: float = 0.0
    variance: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        sd = math.sqrt(self.variance)
        z = (self.observed - self.expected) / sd if sd > 0 else 0.0
        return {"observed": self.observed, "expected": round(self.expected, 3), "sd": round(sd, 3),
                "z": round(z, 2)}


@dataclass
class SystemTally:
    rolls: int = 0
    unpriced: int = 0  # rolls whose setting the engine could not price (not counted in outcomes)
    outcomes: dict[str, OutcomeTally] = field(default_factory=dict)

    def add(self, result: Mapping[str, Any]) -> None:
        self.rolls += 1
        params = result.get("params")
        odds = outcome_odds(str(result.get("system")), params) if isinstance(params, Mapping) else None
        if odds is None:
            self.unpriced += 1
            return
        outcome = str(result.get("outcome"))[:40]
        for name, p in odds.items():
            t = self.outcomes.setdefault(name, OutcomeTally())
            t.expected += p
            t.variance += p * (1 - p)
        self.outcomes.setdefault(outcome, OutcomeTally()).observed += 1

    def to_dict(self) -> dict[str, Any]:
        return {"rolls": self.rolls, "unpriced": self.unpriced,
                "outcomes": {k: v.to_dict() for k, v in self.outcomes.items()}}


    def to_plain(self) -> dict[str, Any]:
        return {"rolls": self.rolls, "unpriced": self.unpriced,
                "outcomes": {k: [v.observed, v.expected, v.variance] for k, v in self.outcomes.items()}}

    def add_plain(self, plain: Mapping[str, Any]) -> None:
        self.rolls += int(plain.get("rolls", 0))
        self.unpriced += int(plain.get("unpriced", 0))
        for name, (observed, expected, variance) in plain.get("outcomes", {}).items():
            t = self.outcomes.setdefault(str(name), OutcomeTally())
            t.observed += int(observed)
            t.expected += float(expected)
            t.variance += float(variance)


@dataclass
class Stats:
    """Per-system tallies of one tower, or of the whole store. The plain form
    (``{system: {"rolls", "unpriced", "outcomes": {name: [observed, expected, variance]}}}``)
    is what the record keeps and the verifier process sends."""

    systems: dict[str, SystemTally] = field(default_factory=dict)

    def add(self, entry: Mapping[str, Any]) -> None:
        """Count one roll entry (if it is a roll of a dice session: :func:`counts_as_random`)."""
        result = entry.get("result")
        if not isinstance(result, Mapping) or not counts_as_random(entry):
            return
        self.systems.setdefault(str(result.get("system"))[:40], SystemTally()).add(result)

    def to_dict(self) -> dict[str, Any]:
        return {k: v.to_dict() for k, v in sorted(self.systems.items())}

    def to_plain(self) -> dict[str, Any]:
        return {k: v.to_plain() for k, v in self.systems.items()}

    def add_plain(self, plain: Mapping[str, Any]) -> None:
        for system, tally in plain.items():
            self.systems.setdefault(str(system), SystemTally()).add_plain(tally)

    @classmethod
    def from_plain(cls, plain: Mapping[str, Any]) -> Stats:
        stats = cls()
        stats.add_plain(plain)
        return stats
