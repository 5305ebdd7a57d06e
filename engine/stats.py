"""Rolls observed against the exact odds: counts per system and setting, and a chi-square test.

A *setting* is one system with one set of parameters; within it every roll has the same exact
outcome probabilities (:func:`engine.odds`), so its outcome counts can be tested against them
with Pearson's chi-square goodness of fit. Cells expecting fewer than five rolls are pooled
into one (the usual rule for the test to hold); a setting with fewer than two cells left has
no p-value yet. A system's test adds its settings' statistics and degrees of freedom (a sum
of independent chi-squares is one). An outcome the odds call impossible makes p = 0.

Which log entries count (:func:`counted_result`): rolls made by the tower's own dice
(``roll_kind`` ``rolled``, or older entries inside a dice session). Dice typed in by a player
(``entered``) and ``--seed`` rolls (``test``) say nothing about the tower's fairness.

The chi-square survival function is computed here (regularized upper incomplete gamma, by
series and continued fraction) so the tower needs no scipy; the tests check it against scipy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import systems
from engine.params import REQUIRED

#: Cells expecting fewer rolls than this are pooled.
MIN_EXPECTED = 5.0
_EPS = 1e-15
_TINY = 1e-300
_MAX_TERMS = 10_000


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), for a > 0."""
    if not a > 0 or not math.isfinite(a):
        raise ValueError(f"gamma_q: a must be a positive number, got {a!r}")
    if math.isnan(x):
        raise ValueError("gamma_q: x is not a number")
    if x <= 0:
        return 1.0
    if x == math.inf:
        return 0.0
    if x < a + 1:
        return max(0.0, 1.0 - _p_series(a, x))
    return _q_fraction(a, x)


def _front(a: float, x: float) -> float:
    return math.exp(-x + a * math.log(x) - math.lgamma(a))


def _p_series(a: float, x: float) -> float:
    """P(a, x) by its power series (converges fast for x < a + 1)."""
    term = total = 1.0 / a
    ap = a
    for _ in range(_MAX_TERMS):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * _front(a, x)


def _q_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction, evaluated with the modified Lentz method."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_TERMS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = d if abs(d) >= _TINY else _TINY
        c = b + an / c
        c = c if abs(c) >= _TINY else _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h * _front(a, x)


def chi_square_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X chi-square distributed with ``dof`` degrees of freedom."""
    if isinstance(dof, bool) or not isinstance(dof, int) or dof < 1:
        raise ValueError(f"chi_square_sf: dof must be a whole number >= 1, got {dof!r}")
    if statistic < 0:
        raise ValueError(f"chi_square_sf: the statistic must be >= 0, got {statistic!r}")
    return gamma_q(dof / 2.0, statistic / 2.0)


@dataclass(frozen=True)
class Fit:
    """A chi-square goodness-of-fit result: statistic, degrees of freedom and p-value
    (None when there are not yet enough rolls for two cells); ``impossible`` counts rolls
    of outcomes the odds give probability 0."""

    statistic: float
    dof: int
    p_value: float | None
    impossible: int = 0


def goodness_of_fit(observed: Mapping[str, int], probabilities: Mapping[str, float],
                    *, min_expected: float = MIN_EXPECTED) -> Fit:
    """Pearson's chi-square of ``observed`` counts against exact outcome ``probabilities``."""
    n = sum(observed.values())
    impossible = sum(c for k, c in observed.items() if probabilities.get(k, 0.0) <= 0.0)
    cells: list[tuple[float, float]] = []
    pool_obs = pool_exp = 0.0
    for outcome, p in probabilities.items():
        if p <= 0.0:
            continue
        exp, obs = p * n, float(observed.get(outcome, 0))
        if exp < min_expected:
            pool_obs, pool_exp = pool_obs + obs, pool_exp + exp
        else:
            cells.append((obs, exp))
    if pool_exp > 0:
        cells.append((pool_obs, pool_exp))
    statistic = sum((o - e) ** 2 / e for o, e in cells)
    dof = len(cells) - 1
    if impossible:
        return Fit(statistic, max(dof, 0), 0.0, impossible)
    if n == 0 or dof < 1:
        return Fit(statistic, 0, None)
    return Fit(statistic, dof, chi_square_sf(statistic, dof))


def counted_result(entry: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The roll result a log entry holds if it counts for the statistics, else None."""
    if entry.get("kind") != "roll":
        return None
    kind = entry.get("roll_kind")
    if kind is None:
        kind = "rolled" if entry.get("session") else "entered"
    result = entry.get("result")
    if kind != "rolled" or not isinstance(result, Mapping):
        return None
    if not isinstance(result.get("system"), str) or not isinstance(result.get("params"), Mapping):
        return None
    if not isinstance(result.get("outcome"), str):
        return None
    return result


def excluded_kind(entry: Mapping[str, Any]) -> str | None:
    """For a roll entry that does not count: why (``entered``, ``test``, ``unreadable``)."""
    if entry.get("kind") != "roll" or counted_result(entry) is not None:
        return None
    kind = entry.get("roll_kind") or ("rolled" if entry.get("session") else "entered")
    return kind if kind != "rolled" else "unreadable"


@dataclass(frozen=True)
class SettingReport:
    system: str
    params: Mapping[str, Any]
    label: str
    rolls: int
    observed: Mapping[str, int]
    probabilities: Mapping[str, float]
    successes: int
    success_probability: float | None
    fit: Fit | None
    problem: str = ""  # why there are no odds for this setting

    @property
    def expected(self) -> dict[str, float]:
        return {k: p * self.rolls for k, p in self.probabilities.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "params": dict(self.params), "label": self.label, "rolls": self.rolls, "observed": dict(self.observed),
            "probabilities": dict(self.probabilities), "expected": self.expected, "successes": self.successes,
            "expected_successes": None if self.success_probability is None else self.success_probability * self.rolls,
            **_fit_dict(self.fit), **({"problem": self.problem} if self.problem else {}),
        }


@dataclass(frozen=True)
class SystemReport:
    system: str
    settings: tuple[SettingReport, ...]
    fit: Fit | None

    @property
    def rolls(self) -> int:
        return sum(s.rolls for s in self.settings)

    @property
    def successes(self) -> int:
        return sum(s.successes for s in self.settings)

    @property
    def expected_successes(self) -> float:
        return sum(s.success_probability * s.rolls for s in self.settings if s.success_probability is not None)

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "rolls": self.rolls, "successes": self.successes,
                "expected_successes": self.expected_successes, **_fit_dict(self.fit),
                "settings": [s.to_dict() for s in self.settings]}


def _fit_dict(fit: Fit | None) -> dict[str, Any]:
    if fit is None:
        return {"chi_square": None, "dof": 0, "p_value": None, "impossible": 0}
    return {"chi_square": fit.statistic, "dof": fit.dof, "p_value": fit.p_value, "impossible": fit.impossible}


@dataclass
class _Setting:
    system: str
    params: Mapping[str, Any]
    outcomes: dict[str, int] = field(default_factory=dict)
    successes: int = 0


Odds = Callable[..., Mapping[str, Any]]


class Tally:
    """Counts of outcomes per system and setting; :meth:`add` a roll result (the ``result``
    of a log entry, or what ``engine.roll`` returns), then :meth:`reports`."""

    def __init__(self) -> None:
        self._settings: dict[tuple[str, str], _Setting] = {}

    def __len__(self) -> int:
        return sum(sum(s.outcomes.values()) for s in self._settings.values())

    def add(self, result: Mapping[str, Any]) -> None:
        system, params = str(result["system"]), dict(result["params"])
        key = (system, json.dumps(params, sort_keys=True, default=str))
        setting = self._settings.setdefault(key, _Setting(system, params))
        outcome = str(result["outcome"])
        setting.outcomes[outcome] = setting.outcomes.get(outcome, 0) + 1
        setting.successes += bool(result.get("success"))

    def add_all(self, results: Iterable[Mapping[str, Any]]) -> Tally:
        for result in results:
            self.add(result)
        return self

    def reports(self, odds: Odds | None = None) -> tuple[SystemReport, ...]:
        """One report per system (in the order systems were first seen), settings by count."""
        if odds is None:
            from engine import odds as engine_odds

            odds = engine_odds
        by_system: dict[str, list[SettingReport]] = {}
        for setting in self._settings.values():
            by_system.setdefault(setting.system, []).append(_setting_report(setting, odds))
        out = []
        for system, settings in by_system.items():
            settings.sort(key=lambda s: (-s.rolls, s.label))
            out.append(SystemReport(system, tuple(settings), _combined([s.fit for s in settings])))
        return tuple(out)


def _setting_report(setting: _Setting, odds: Odds) -> SettingReport:
    rolls = sum(setting.outcomes.values())
    label = setting_label(setting.system, setting.params)
    try:
        answer = odds(setting.system, **setting.params)
        probabilities = {str(k): float(v) for k, v in answer["outcomes"].items()}
        success = float(answer["success"])
    except Exception as exc:  # a setting from an older version, or an edited log
        return SettingReport(setting.system, setting.params, label, rolls, dict(setting.outcomes), {},
                             setting.successes, None, None, problem=f"no odds: {exc}")
    return SettingReport(setting.system, setting.params, label, rolls, dict(setting.outcomes), probabilities,
                         setting.successes, success, goodness_of_fit(setting.outcomes, probabilities))


def _combined(fits: list[Fit | None]) -> Fit | None:
    usable = [f for f in fits if f is not None and (f.p_value is not None)]
    if not usable:
        return None
    impossible = sum(f.impossible for f in usable)
    statistic = sum(f.statistic for f in usable)
    dof = sum(f.dof for f in usable)
    if impossible:
        return Fit(statistic, dof, 0.0, impossible)
    return Fit(statistic, dof, chi_square_sf(statistic, dof))


def setting_label(system: str, params: Mapping[str, Any]) -> str:
    """The setting in a few words: the numbers that set the odds (``rating 8, cr 10``; the
    panel's whole-number fields with a non-zero default) and anything else not at its default."""
    try:
        spec: Any = systems.get(system)
    except Exception:
        spec = None
    order = {p.name: i for i, p in enumerate(spec.params)} if spec is not None else {}
    parts = []
    for name, value in sorted(params.items(), key=lambda item: (order.get(item[0], len(order)), item[0])):
        param = None
        if spec is not None:
            try:
                param = spec.param(name)
            except Exception:
                param = None
        default = REQUIRED if param is None else param.default
        if isinstance(default, tuple):
            default = list(default)
        key_number = param is not None and param.panel and param.kind == "int" and default not in (0, None, REQUIRED)
        if value is None or value == [] or (value == default and not key_number):
            continue
        if isinstance(value, list):
            shown = ",".join(map(str, value))
        elif isinstance(value, bool):
            shown = "yes" if value else "no"
        else:
            shown = str(value)
        parts.append(f"{name} {shown}")
    return ", ".join(parts) or "defaults"
