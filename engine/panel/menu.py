"""The settings menu (hold MODE): what players change at the table, and the menu's items.

Values are whole numbers (brightness in percent, animation in tenths of a second) so that
stepping never drifts and every value is exactly one the menu can show; speech is a switch.
Besides its own items the menu holds each enabled system's start values
(:class:`~engine.systems.panel.Start`, fingers' ``start karma``), after ``animation``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from engine.systems.panel import Start

BRIGHTNESS_RANGE = (10, 100, 10)  # percent: lo, hi, step
ANIMATION_RANGE = (0, 30, 1)  # tenths of a second


class Item(StrEnum):
    PLAYER = "player"
    BRIGHTNESS = "brightness"
    ANIMATION = "animation"
    SESSION = "session"  # the dice session's commitment; ROLL shows it in full
    TABLE_SEED = "table seed"  # the session's table seed; ROLL enters one (before the first roll)
    REVEAL = "reveal seed"  # ROLL, then ROLL again: reveal the seed, start a new session
    REVEALED = "revealed"  # the last revealed session; ROLL shows its reveal (four facts, QR code)
    RESET = "reset player"
    RESET_ALL = "reset all"
    SPEECH = "speech"  # results and the setup page spoken (engine/speech); MINUS/PLUS flip it
    EXIT = "exit"


#: The menu's own items; :func:`items` puts the systems' start values among them.
ITEMS: tuple[Item, ...] = tuple(Item)

#: A menu item: one of the menu's own, or a system's start value.
MenuItem = Item | Start


def items(starts: Sequence[Start] = ()) -> tuple[MenuItem, ...]:
    """The menu in order: its own items, the start values after ``animation``."""
    at = ITEMS.index(Item.ANIMATION) + 1
    return (*ITEMS[:at], *starts, *ITEMS[at:])

#: Items that ROLL carries out (twice for the resets and the reveal: the first press asks).
ACTIONS = frozenset({Item.SESSION, Item.TABLE_SEED, Item.REVEAL, Item.REVEALED, Item.RESET, Item.RESET_ALL,
                     Item.EXIT})
#: Actions that ask first: ROLL arms them, a second ROLL carries them out.
CONFIRMED = frozenset({Item.REVEAL, Item.RESET, Item.RESET_ALL})


@dataclass(frozen=True)
class Settings:
    """What the settings menu sets: the player slot, brightness, animation length (tenths of a
    second), the systems' start values (``(param, value)`` pairs, those set) and speech."""

    player: int = 1  # 1-based slot
    brightness: int = 100
    animation: int = 8
    starts: tuple[tuple[str, int], ...] = ()
    speech: bool = False

    def start(self, item: Start) -> int:
        """The value a fresh slot starts with for ``item``'s parameter (its default unless set)."""
        return item.clamp(dict(self.starts).get(item.param, item.default))

    @property
    def start_values(self) -> Mapping[str, int]:
        return dict(self.starts)

    def with_start(self, item: Start, value: int) -> Settings:
        kept = tuple((k, v) for k, v in self.starts if k != item.param)
        return replace(self, starts=tuple(sorted((*kept, (item.param, item.clamp(value))))))

    @property
    def contrast(self) -> float:
        return self.brightness / 100

    @property
    def animation_seconds(self) -> float:
        return self.animation / 10


def _clamp(value: int, lo: int, hi: int) -> int:
    return min(hi, max(lo, value))


def from_config(players: int, brightness: float, animation_seconds: float, starts: Mapping[str, int],
                speech: bool = False) -> Settings:
    """The settings at power-on; ``starts`` are the config's start values (checked there)."""
    lo, hi, step = BRIGHTNESS_RANGE
    bright = _clamp(round(brightness * 100 / step) * step, lo, hi)
    a_lo, a_hi, _ = ANIMATION_RANGE
    anim = _clamp(round(animation_seconds * 10), a_lo, a_hi)
    return Settings(1, bright, anim, tuple(sorted(starts.items())), bool(speech))


def adjust(settings: Settings, item: MenuItem, steps: int, players: int) -> Settings:
    """``settings`` after ``steps`` presses of PLUS (negative: MINUS) on ``item``.

    The player slot goes round (1 after the last); a switch flips on every press; the others
    stop at their ends.
    """
    if item is Item.PLAYER:
        return replace(settings, player=(settings.player - 1 + steps) % players + 1)
    if item is Item.BRIGHTNESS:
        lo, hi, step = BRIGHTNESS_RANGE
        return replace(settings, brightness=_clamp(settings.brightness + steps * step, lo, hi))
    if item is Item.ANIMATION:
        lo, hi, step = ANIMATION_RANGE
        return replace(settings, animation=_clamp(settings.animation + steps * step, lo, hi))
    if isinstance(item, Start):
        return settings.with_start(item, settings.start(item) + steps)
    if item is Item.SPEECH:
        return replace(settings, speech=settings.speech ^ (steps % 2 == 1))
    return settings


def valid(settings: Settings, players: int, starts: Sequence[Start] = ()) -> bool:
    """Every value within its range (the machine's invariant, checked by the tests); a start
    value within its system's range (``starts``: the ones the menu offers)."""
    ranges = {s.param: s for s in starts}
    return (
        1 <= settings.player <= players
        and BRIGHTNESS_RANGE[0] <= settings.brightness <= BRIGHTNESS_RANGE[1]
        and (settings.brightness - BRIGHTNESS_RANGE[0]) % BRIGHTNESS_RANGE[2] == 0
        and ANIMATION_RANGE[0] <= settings.animation <= ANIMATION_RANGE[1]
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for _, v in settings.starts)
        and all(ranges[k].lo <= v <= ranges[k].hi for k, v in settings.starts if k in ranges)
        and isinstance(settings.speech, bool)
    )


def show(settings: Settings, item: MenuItem) -> str:
    if item is Item.PLAYER:
        return f"P{settings.player}"
    if item is Item.BRIGHTNESS:
        return f"{settings.brightness}%"
    if item is Item.ANIMATION:
        return "off" if settings.animation == 0 else f"{settings.animation / 10:.1f}s"
    if isinstance(item, Start):
        return str(settings.start(item))
    if item is Item.SPEECH:
        return "on" if settings.speech else "off"
    return ""
