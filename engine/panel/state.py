"""Everything the panel knows, as one immutable value.

:mod:`engine.panel.machine` makes new states from old ones; nothing here changes in place.
The hardware may read any field (e.g. to save the player slots) but never builds one itself:
it starts from :func:`engine.panel.machine.initial`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine import systems
from engine.panel import fields
from engine.panel.config import PanelConfig
from engine.panel.looks import Leds, Rgb
from engine.panel.model import Button, Screen
from engine.panel.players import PlayerSlot, player_params
from engine.panel.settings import ITEMS, Item, Settings
from engine.params import Param
from engine.results import RollResult
from engine.systems import SystemSpec

if TYPE_CHECKING:
    from engine.panel.attract import DayLine


class Mode(StrEnum):
    SETUP = "setup"  # choosing system and parameters
    ROLLING = "rolling"  # the roll is made; the animation runs
    RESULT = "result"  # outcome shown (fingers: the hand revealed)
    GUESS = "guess"  # fingers: the tower hides its hand, buttons are fingers
    SETTINGS = "settings"  # the menu opened by holding MODE
    MESSAGE = "message"  # a one-line problem (bad parameters, no entropy) until a press
    SESSION = "session"  # the session's commitment in full (from the settings menu)


@dataclass(frozen=True)
class View:
    """What the world currently shows; effects are the differences between two views."""

    screen: Screen
    leds: Leds
    rgb: Rgb


@dataclass(frozen=True)
class PanelState:
    """The panel at one moment. Times are the monotonic seconds passed to ``step``."""

    config: PanelConfig
    now: float
    settings: Settings
    players: tuple[PlayerSlot, ...]
    values: Mapping[str, Mapping[str, Any]]  # per system: field values the panel set
    mode: Mode = Mode.SETUP
    system_index: int = 0
    field_index: int = 0
    item_index: int = 0  # selected settings item
    armed: Item | None = None  # a reset (or the reveal) waiting for its second ROLL
    status: str = ""  # entropy status line from the hardware
    sessions: bool = False  # the hardware reports dice sessions (SESSION events)
    commitment: str = ""  # the open session's commitment (hex), "" when none is open
    revealed: str = ""  # the commitment of the last session whose seed was revealed
    session_why: str = ""  # why no session is open, as the hardware said
    revealing: bool = False  # a reveal was asked for and its new session not yet shown
    odds: float | None = None  # chance of success of the current setting
    problem: str | None = None  # why the current setting cannot roll
    result: RollResult | None = None
    guess: int | None = None  # the finger pressed for ``result``
    shown_at: float = 0.0  # when ``result`` (or the message) went up
    rolled_at: float = 0.0
    animate_until: float = 0.0
    message: tuple[str, str] = ("", "")  # (title, text)
    fingers: tuple[int, ...] = ()  # fingers that may be pressed in GUESS
    note: str = ""  # one-line feedback on the current screen
    held: Button | None = None  # MINUS/PLUS repeating
    repeat_at: float = 0.0
    mode_tap_from: int | None = None  # system before a MODE press, restored if it is a hold
    swallow: Button | None = None  # hold/release of a press that was used up (wake, finger)
    last_activity: float = 0.0
    asleep_at: float | None = None  # attract screen since
    day: tuple[DayLine, ...] | None = None  # today's rolls (STATS events); None: no roll log
    view: View | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "values", MappingProxyType({k: MappingProxyType(dict(v)) for k, v in self.values.items()})
        )

    @property
    def system_id(self) -> str:
        return self.config.systems[self.system_index % len(self.config.systems)]

    @property
    def spec(self) -> SystemSpec:
        return systems.get(self.system_id)

    @property
    def asleep(self) -> bool:
        return self.asleep_at is not None

    @property
    def slot(self) -> PlayerSlot:
        return self.players[(self.settings.player - 1) % len(self.players)]

    @property
    def item(self) -> Item:
        return ITEMS[self.item_index % len(ITEMS)]

    def fields(self) -> tuple[Param, ...]:
        """The current system's parameters FIELD cycles through."""
        spec = self.spec
        return fields.panel_params(spec, player_params(spec))

    def field(self) -> Param | None:
        offered = self.fields()
        return offered[self.field_index % len(offered)] if offered else None

    def field_values(self, system_id: str | None = None) -> Mapping[str, Any]:
        return self.values.get(system_id or self.system_id, MappingProxyType({}))
