"""How outcomes look and sound on the panel: RGB colours, the LED row, big words, tones.

One table per concern so a builder who wants other colours edits one place. What is particular
to a system (its roll colours, its outcomes that are neither success nor failure) comes from
its :class:`~engine.systems.panel.PanelSpec`; no system is named here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from engine import systems
from engine.panel.model import Sound
from engine.results import RollResult
from engine.systems.panel import PanelSpec

Rgb = tuple[float, float, float]
Leds = tuple[float, float, float, float, float]

OFF: Rgb = (0.0, 0.0, 0.0)
GREEN: Rgb = (0.0, 1.0, 0.0)
RED: Rgb = (1.0, 0.0, 0.0)
AMBER: Rgb = (1.0, 0.55, 0.0)
WAITING: Rgb = (0.35, 0.0, 0.6)  # the tower is hiding its hand
ERROR: Rgb = (0.6, 0.0, 0.0)

LEDS_OFF: Leds = (0.0, 0.0, 0.0, 0.0, 0.0)

#: Words for the large type, when not the outcome in capitals. About 10 characters fit 128
#: pixels in the large font; a longer word scrolls (engine.panel.screens.marquee).
BIG: Mapping[str, str] = MappingProxyType({})

ROLL_SOUND = Sound("roll", ((880.0, 0.03), (1320.0, 0.03)))
SUCCESS_SOUND = Sound("success", ((660.0, 0.08), (990.0, 0.12)))
FAILURE_SOUND = Sound("failure", ((330.0, 0.1), (220.0, 0.15)))
MIXED_SOUND = Sound("complication", ((440.0, 0.1), (440.0, 0.1)))
ERROR_SOUND = Sound("error", ((150.0, 0.15),))
LIMIT_SOUND = Sound("limit", ((200.0, 0.04),))
WAKE_SOUND = Sound("wake", ((523.0, 0.05),))


def big_word(outcome: str) -> str:
    return BIG.get(outcome, outcome.upper())


def outcome_rgb(result: RollResult) -> Rgb:
    """The colour of the roll where the system has one, else green / amber / red."""
    panel = systems.get(result.system).panel
    colour = getattr(result, panel.colour, None) if panel.colour else None
    if isinstance(colour, str):
        rgb = colour_rgb(colour, panel.colours)
        if rgb is not None:
            return rgb
    if result.outcome in panel.mixed:
        return AMBER
    return GREEN if result.success else RED


def colour_rgb(name: str, colours: Mapping[str, tuple[int, int, int]] | None = None) -> Rgb | None:
    """The RGB LED colour of a roll colour, from the system's own table (``PanelSpec.colours``;
    without one, the first system whose table has that colour); None for a colour no table
    knows."""
    key = name.strip().lower()
    tables = [colours] if colours is not None else [s.panel.colours for s in systems.all_systems()]
    for table in tables:
        rgb = table.get(key)
        if rgb is not None:
            return (rgb[0] / 255, rgb[1] / 255, rgb[2] / 255)
    return None


def outcome_leds(result: RollResult) -> Leds:
    """The LED row after a roll.

    fingers: LED i lit = finger i wins. A count the system reports (horizons successes,
    infinity Success Rating) lights that many LEDs from the left (at most five); any other
    success lights all five, a failure none.
    """
    panel = systems.get(result.system).panel
    hand = winners(result, panel)
    if hand is not None:
        return _row(i in hand for i in range(1, 6))
    count = getattr(result, panel.count, None) if panel.count else None
    if isinstance(count, int) and not isinstance(count, bool):
        return _row(i < count for i in range(5))
    return _row(result.success for _ in range(5))


def outcome_sound(result: RollResult) -> Sound:
    if result.outcome in systems.get(result.system).panel.mixed:
        return MIXED_SOUND
    return SUCCESS_SOUND if result.success else FAILURE_SOUND


def fingers_leds(fingers: tuple[int, ...] | frozenset[int]) -> Leds:
    return _row(i in fingers for i in range(1, 6))


def chase_leds(frame: int) -> Leds:
    """One LED running along the row while the dice tumble."""
    lit = frame % 8
    lit = lit if lit < 5 else 8 - lit  # back and forth: 0 1 2 3 4 3 2 1
    return _row(i == lit for i in range(5))


def winners(result: RollResult, panel: PanelSpec) -> frozenset[int] | None:
    """The winning fingers of a system whose result is a hand (the field its panel names)."""
    if panel.hand is None:
        return None
    value = getattr(result, panel.hand, None)
    if isinstance(value, frozenset | set | tuple | list):
        return frozenset(v for v in value if isinstance(v, int) and not isinstance(v, bool))
    return None


def _row(bits: Any) -> Leds:
    values = tuple(1.0 if b else 0.0 for b in bits)
    return (values[0], values[1], values[2], values[3], values[4])
