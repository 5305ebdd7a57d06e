"""The settings menu (hold MODE): what players change at the table, and the menu's items.

Values are whole numbers (brightness in percent, animation in tenths of a second) so that
stepping never drifts and every value is exactly one the menu can show; speech is a switch.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

BRIGHTNESS_RANGE = (10, 100, 10)  # percent: lo, hi, step
ANIMATION_RANGE = (0, 30, 1)  # tenths of a second
KARMA_RANGE = (0, 5, 1)  # fingers: "a number from 0 to 5"


class Item(StrEnum):
    PLAYER = "player"
    BRIGHTNESS = "brightness"
    ANIMATION = "animation"
    START_KARMA = "start karma"
    SESSION = "session"  # the dice session's commitment; ROLL shows it in full
    TABLE_SEED = "table seed"  # the session's table seed; ROLL enters one (before the first roll)
    REVEAL = "reveal seed"  # ROLL, then ROLL again: reveal the seed, start a new session
    REVEALED = "revealed"  # the last revealed session; ROLL shows its reveal (four facts, QR code)
    RESET = "reset player"
    RESET_ALL = "reset all"
    SPEECH = "speech"  # results and the setup page spoken (engine/speech); MINUS/PLUS flip it
    EXIT = "exit"


ITEMS: tuple[Item, ...] = tuple(Item)

#: Items that ROLL carries out (twice for the resets and the reveal: the first press asks).
ACTIONS = frozenset({Item.SESSION, Item.TABLE_SEED, Item.REVEAL, Item.REVEALED, Item.RESET, Item.RESET_ALL,
                     Item.EXIT})
#: Actions that ask first: ROLL arms them, a second ROLL carries them out.
CONFIRMED = frozenset({Item.REVEAL, Item.RESET, Item.RESET_ALL})


@dataclass(frozen=True)
class Settings:
    """What the settings menu sets: the player slot, brightness, animation length (tenths of a
    second), starting karma and speech."""

    player: int = 1  # 1-based slot
    brightness: int = 100
    animation: int = 8
    start_karma: int = 0
    speech: bool = False

    @property
    def contrast(self) -> float:
        return self.brightness / 100

    @property
    def animation_seconds(self) -> float:
        return self.animation / 10


def _clamp(value: int, lo: int, hi: int) -> int:
    return min(hi, max(lo, value))


def from_config(players: int, brightness: float, animation_seconds: float, start_karma: int,
                speech: bool = False) -> Settings:
    lo, hi, step = BRIGHTNESS_RANGE
    bright = _clamp(round(brightness * 100 / step) * step, lo, hi)
    a_lo, a_hi, _ = ANIMATION_RANGE
    anim = _clamp(round(animation_seconds * 10), a_lo, a_hi)
    k_lo, k_hi, _ = KARMA_RANGE
    return Settings(1, bright, anim, _clamp(start_karma, k_lo, k_hi), bool(speech))


def adjust(settings: Settings, item: Item, steps: int, players: int) -> Settings:
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
    if item is Item.START_KARMA:
        lo, hi, step = KARMA_RANGE
        return replace(settings, start_karma=_clamp(settings.start_karma + steps * step, lo, hi))
    if item is Item.SPEECH:
        return replace(settings, speech=settings.speech ^ (steps % 2 == 1))
    return settings


def valid(settings: Settings, players: int) -> bool:
    """Every value within its range (the machine's invariant, checked by the tests)."""
    return (
        1 <= settings.player <= players
        and BRIGHTNESS_RANGE[0] <= settings.brightness <= BRIGHTNESS_RANGE[1]
        and (settings.brightness - BRIGHTNESS_RANGE[0]) % BRIGHTNESS_RANGE[2] == 0
        and ANIMATION_RANGE[0] <= settings.animation <= ANIMATION_RANGE[1]
        and KARMA_RANGE[0] <= settings.start_karma <= KARMA_RANGE[1]
        and isinstance(settings.speech, bool)
    )


def show(settings: Settings, item: Item) -> str:
    if item is Item.PLAYER:
        return f"P{settings.player}"
    if item is Item.BRIGHTNESS:
        return f"{settings.brightness}%"
    if item is Item.ANIMATION:
        return "off" if settings.animation == 0 else f"{settings.animation / 10:.1f}s"
    if item is Item.START_KARMA:
        return str(settings.start_karma)
    if item is Item.SPEECH:
        return "on" if settings.speech else "off"
    return ""
