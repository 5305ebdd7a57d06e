"""How the button panel offers and shows a coin flip (engine.systems.panel)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.systems.panel import PanelSpec, Versus, numbers, outcome_line


def _headline(data: Mapping[str, Any]) -> str:
    return f"{data['total']} vs {data['needed']}"


def _versus(data: Mapping[str, Any]) -> Versus:
    return Versus(data["total"], data["needed"], "heads")  # said by its label: "3 against need 2"


def _details(data: Mapping[str, Any]) -> list[str]:
    return [outcome_line(data), numbers("coins", data["dice"])]


PANEL = PanelSpec(
    sides=2,
    labels={"heads": "need"},
    headline=_headline,
    versus=_versus,
    details=_details,
    count="total",  # the heads light that many LEDs
)
