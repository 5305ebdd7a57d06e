"""A system's parameters as panel fields: which ones the buttons offer, their ranges, stepping
and how they read on a 21-character line.

The panel offers a parameter when its spec says ``panel`` and it has a finite shape (int, bool,
choice); lists stay on the command line. The finger ``guess`` is a button press, not a field,
and per-player values (karma) come from the player's slot.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from engine.params import Param
from engine.systems import SystemSpec

#: The fingers parameter set by pressing a finger button, never by a field.
GUESS = "guess"

#: Range the panel uses for an int parameter that leaves a bound open (the command line
#: still accepts anything); a button panel needs ends to stop at.
OPEN_LO, OPEN_HI = -99, 99

KINDS = ("int", "bool", "choice")


def panel_params(spec: SystemSpec, tracked: Collection[str] = ()) -> tuple[Param, ...]:
    """The parameters FIELD cycles through, in the spec's order."""
    return tuple(
        p for p in spec.params
        if p.panel and p.kind in KINDS and p.name != GUESS and p.name not in tracked
    )


def bounds(p: Param) -> tuple[int, int]:
    lo = OPEN_LO if p.lo is None else p.lo
    hi = OPEN_HI if p.hi is None else p.hi
    return lo, max(lo, hi)


def clamp(p: Param, value: Any) -> Any:
    """``value`` forced into the field's range (a choice not offered becomes the first)."""
    if p.kind == "int":
        lo, hi = bounds(p)
        number = value if isinstance(value, int) and not isinstance(value, bool) else lo
        return min(hi, max(lo, number))
    if p.kind == "bool":
        return bool(value)
    if p.kind == "choice":
        return value if value in p.choices else (p.choices[0] if p.choices else value)
    return value


def start_value(p: Param) -> Any:
    """The default, or for a required parameter the lowest value, kept within range."""
    if not p.required:
        return clamp(p, p.default)
    if p.kind == "int":
        lo, hi = bounds(p)
        return min(hi, max(lo, 0))
    return clamp(p, False if p.kind == "bool" else None)


def nudge(p: Param, value: Any, steps: int) -> Any:
    """``value`` moved ``steps`` presses (negative = MINUS): ints stop at their ends, a switch
    flips once per press, choices go round."""
    if steps == 0:
        return clamp(p, value)
    if p.kind == "int":
        return clamp(p, clamp(p, value) + steps * max(1, p.step))
    if p.kind == "bool":
        return bool(value) ^ (abs(steps) % 2 == 1)
    if p.kind == "choice" and p.choices:
        index = p.choices.index(value) if value in p.choices else 0
        return p.choices[(index + steps) % len(p.choices)]
    return value


def in_range(p: Param, value: Any) -> bool:
    if p.kind == "int":
        lo, hi = bounds(p)
        return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
    if p.kind == "bool":
        return isinstance(value, bool)
    if p.kind == "choice":
        return value in p.choices
    return True


def label(p: Param) -> str:
    return p.cli_name


def show(p: Param, value: Any) -> str:
    """The value as the screen reads it: ``10 difficult``, ``yes``, ``blue``."""
    if p.kind == "bool":
        return "yes" if value else "no"
    if p.kind == "int":
        for name, number in p.names.items():
            if number == value:
                return f"{value} {name}"
    return str(value)
