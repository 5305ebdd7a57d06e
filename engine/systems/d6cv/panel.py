"""How the button panel offers and shows d6cv (see :mod:`engine.systems.panel`).

Contests, repeat and changing checks, and construction are flows: the first page keeps the
plain check (stat, skill, modifier, CV, criticals), and each check of a series is listed on
the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.systems.panel import Flow, PanelSpec, Versus, outcome_line


def _headline(data: Mapping[str, Any]) -> str:
    checks = data.get("checks") or []
    if isinstance(data.get("opponent_total"), int):
        return f"{data['total']} vs {data['opponent_total']}"
    if len(checks) > 1:
        return f"{sum(1 for c in checks if c['success'])}/{len(checks)} checks"
    return f"{data['total']} vs {data['cv']}"


def _versus(data: Mapping[str, Any]) -> Versus | None:
    """The headline for speech; a repeat or construction check has none (its headline counts
    the checks)."""
    if isinstance(data.get("opponent_total"), int):
        return Versus(data["total"], data["opponent_total"], "opponent_total")
    if len(data.get("checks") or []) > 1:
        return None
    return Versus(data["total"], data["cv"], "cv")


def _check(c: Mapping[str, Any]) -> str:
    against = f"vs {c['opponent_total']}" if c.get("opponent_total") is not None else f"cv {c['cv']}"
    rolls = "+".join(str(r) for r in c["rolls"])
    crit = {"success": " CRIT", "failure": " FUMBLE"}.get(c.get("critical", "none"), "")
    return f"{c['part']} {against}: {rolls} ={c['total']} {'ok' if c['success'] else 'fail'}{crit}"


def _details(data: Mapping[str, Any]) -> list[str]:
    out = [outcome_line(data)]
    critical = data.get("critical")
    if isinstance(critical, str) and critical != "none":
        out.append(f"CRITICAL {critical.upper()}")
    checks = data.get("checks") or []
    if len(checks) > 1 or data.get("opponent_total") is not None:
        out.extend(_check(c) for c in checks)
    if data.get("base_time"):
        out.append(f"base time {data['base_time']}")
    return out


PANEL = PanelSpec(
    sides=6,
    # each label fits beside its longest value on a 21-character line (vs skill 0 untrained)
    labels={"opponent_stat": "vs stat", "opponent_skill": "vs skill", "opponent_modifier": "vs mod",
            "cv_step": "cv step", "construction": "build", "complexity": "complex."},
    flows=(
        Flow("contest", ("contest", "opponent_stat", "opponent_skill", "opponent_modifier"),
             "a Dice Contest: targeted (the target wins ties) or untargeted, and the opponent's "
             "stat, skill and modifier; the tower rolls both sides"),
        Flow("repeat", ("repeat", "cv_step", "goal"),
             "repeat and changing checks: how many checks, the CV change from one to the next, "
             "and whether all or any must succeed"),
        Flow("construction", ("construction", "complexity"),
             "construction: blueprint, execution or the whole project, and its complexity"),
    ),
    headline=_headline,
    versus=_versus,
    details=_details,
)
