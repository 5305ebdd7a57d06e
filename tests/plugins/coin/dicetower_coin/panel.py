"""How the button panel offers and shows a coin flip (engine.systems.panel)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dicetower_coin.rules import HEADS
from dicetower_coin.speech import SPEECH
from engine.systems.panel import Line, PanelSpec, Versus, outcome_line, phrase


def _headline(data: Mapping[str, Any]) -> str:
    return f"{data['total']} vs {data['needed']}"


def _versus(data: Mapping[str, Any]) -> Versus:
    return Versus(data["total"], data["needed"], "heads")  # said by its label: "3 against need 2"


def _details(data: Mapping[str, Any]) -> list[str]:
    """The outcome, then the coins as they fell: ``coins H T H``, said "coins heads, tails and heads"."""
    sides = tuple("heads" if face == HEADS else "tails" for face in data["dice"])
    shown = " ".join(side[0].upper() for side in sides)
    return [outcome_line(data), Line(f"coins {shown}", phrase("coin.flips", faces=sides, n=len(sides)))]


PANEL = PanelSpec(
    speech=SPEECH,
    sides=2,
    labels={"heads": "need"},
    headline=_headline,
    versus=_versus,
    details=_details,
    count="total",  # the heads light that many LEDs
)
