"""Everything the panel knows, as one immutable value.

:mod:`engine.panel.machine` makes new states from old ones; nothing here changes in place.
The hardware may read any field (e.g. to save the player slots) but never builds one itself:
it starts from :func:`engine.panel.machine.initial`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine import systems
from engine.panel import menu, pages
from engine.panel.looks import Leds, Rgb
from engine.panel.menu import MenuItem, Settings
from engine.panel.model import Button, Screen
from engine.panel.options import PanelConfig, offered_starts
from engine.panel.sessions import Card
from engine.panel.slots import PlayerSlot
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
    TURNS = "turns"  # a group roll: each participant's dice revealed by a ROLL, then the result
    TABLE_SEED = "table seed"  # the table sets a seed of its own for the session (before its first roll)
    CARD = "card"  # a revealed session's four facts (commitment, table seed, rolls, head) and their QR code


@dataclass(frozen=True)
class View:
    """What the world currently shows; effects are the differences between two views.
    ``moving``: the picture changes with the clock alone (an animation, pages that turn), so
    a tick must draw it again; a still one is drawn again only when the state changes."""

    screen: Screen
    leds: Leds
    rgb: Rgb
    moving: bool = False


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
    page: str = pages.FIRST  # the setup page: first, advanced, or a flow's (engine.panel.pages)
    field_index: int = 0  # the selected row of the page
    item_index: int = 0  # selected settings item
    armed: MenuItem | None = None  # a reset (or the reveal) waiting for its second ROLL
    status: str = ""  # entropy status line from the hardware
    voice: str = ""  # why speech cannot be heard (no espeak-ng, no audio device), "" when it can
    sessions: bool = False  # the hardware reports dice sessions (SESSION events)
    commitment: str = ""  # the open session's commitment (hex), "" when none is open
    revealed: str = ""  # the commitment of the last session whose seed was revealed
    session_why: str = ""  # why no session is open, as the hardware said
    revealing: bool = False  # a reveal was asked for and its new session not yet shown
    table_seed: str | None = None  # the open session's table seed, as the roll log holds it
    started: bool = False  # the open session has a roll (too late for a table seed)
    seed_step: str = ""  # the table seed page: "ask" (set one?) or "enter" (finger presses)
    code: tuple[int, ...] = ()  # the fingers pressed for the table seed so far
    seed_for: str = ""  # the commitment the table seed page was opened for
    shown_for: str = ""  # the commitment whose question page (its QR code) the table has seen
    #: the session whose question the table answered on these keys (its commitment), and the code
    #: it typed (None: it chose none): the panel rolls in no other session
    answered: str = ""
    answered_code: str | None = None
    opening: bool = False  # a ROLL found no session open and asked for one: its question follows
    seed_back: Mode = Mode.SETUP  # where the table seed page goes back to
    fingerprint: str = ""  # the result's place in the roll log (``#12 a1b2c3d4e5f6a7b8``), once recorded
    card: Card | None = None  # the last revealed session's four facts (when the hardware knew them)
    card_next: Mode = Mode.SETTINGS  # where the reveal screen goes on to (the new session's commitment after a reveal)
    odds: float | None = None  # chance of success of the current setting
    problem: str | None = None  # why the current setting cannot roll
    compared: tuple[tuple[str, float], ...] = ()  # (value, chance) of the spec's ``compare`` parameter
    no_roll: str = ""  # why the rules call for no roll at this setting (``cr 5 < rating 8``); "" if they do
    result: RollResult | None = None
    guess: int | None = None  # the finger pressed for ``result`` (the first test's)
    guesses: tuple[int, ...] = ()  # fingers pressed so far for a chain's tests
    turn: int = 0  # the participant of a group roll on show (Mode.TURNS)
    shown_at: float = 0.0  # when ``result`` (or the message) went up
    rolled_at: float = 0.0
    animate_until: float = 0.0
    message: tuple[str, str] = ("", "")  # (title, text)
    fingers: tuple[int, ...] = ()  # fingers that may be pressed in GUESS
    note: str = ""  # one-line feedback on the current screen
    held: Button | None = None  # MINUS/PLUS repeating
    repeat_at: float = 0.0
    mode_tap_from: int | None = None  # system before a MODE press, restored if it is a hold
    #: the screen and row (or menu item) before a FIELD press, restored if it is a hold (a
    #: held FIELD asks speech to read the screen again, in full: docs/speech.md)
    field_tap_from: tuple[Mode, int] | None = None
    swallow: Button | None = None  # hold/release of a press that was used up (wake, finger)
    last_activity: float = 0.0
    asleep_at: float | None = None  # attract screen since
    day: tuple[DayLine, ...] | None = None  # today's rolls (STATS events); None: no roll log
    view: View | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        values = self.values
        if isinstance(values, MappingProxyType) and all(isinstance(v, MappingProxyType) for v in values.values()):
            return  # already frozen (``replace`` passes the old state's values through)
        object.__setattr__(
            self, "values", MappingProxyType({k: MappingProxyType(dict(v)) for k, v in values.items()})
        )

    @property
    def system_id(self) -> str:
        return self.config.systems[self.system_index % len(self.config.systems)]

    @cached_property
    def spec(self) -> SystemSpec:
        # kept per state: every row, value and view asks for it, and a state never changes
        return systems.get(self.system_id)

    @property
    def asleep(self) -> bool:
        return self.asleep_at is not None

    @property
    def slot(self) -> PlayerSlot:
        return self.players[(self.settings.player - 1) % len(self.players)]

    @property
    def menu_items(self) -> tuple[MenuItem, ...]:
        """The settings menu's items: its own and the enabled systems' start values."""
        return menu.items(offered_starts(self.config))

    @property
    def item(self) -> MenuItem:
        offered = self.menu_items
        return offered[self.item_index % len(offered)]

    def rows(self) -> tuple[pages.Row, ...]:
        """The rows FIELD walks on the current page."""
        return pages.rows(self.spec, self.page, self.field_values())

    def row(self) -> pages.Row:
        offered = self.rows()
        return offered[self.field_index % len(offered)]

    def fields(self) -> tuple[Param, ...]:
        """The parameters of the current page's rows (a list's rows count as its parameter)."""
        spec = self.spec
        by_name = pages.params_by_name(spec)
        names = dict.fromkeys(r.name for r in self.rows() if not r.moves)
        return tuple(pages.bounded(spec, by_name[n], self.config.players) for n in names)

    def field(self) -> Param | None:
        """The parameter the selected row sets (None on a row that opens a page)."""
        row = self.row()
        if row.moves:
            return None
        spec = self.spec
        return pages.bounded(spec, pages.params_by_name(spec)[row.name], self.config.players)

    def field_values(self, system_id: str | None = None) -> Mapping[str, Any]:
        return self.values.get(system_id or self.system_id, MappingProxyType({}))


#: PanelState's field names, for :func:`evolve`'s check.
_FIELD_NAMES = frozenset(f.name for f in fields(PanelState))
#: Fields the cached ``spec`` is computed from: changing one drops the cache.
_SPEC_FROM = frozenset({"config", "system_index"})


def evolve(state: PanelState, /, **changes: Any) -> PanelState:
    """``dataclasses.replace`` for a PanelState, several times faster.

    A panel step makes several new states, and ``replace`` re-runs the 40-field ``__init__``
    each time: measured, a quarter of a press's CPU. This copies the old state's fields
    and sets the changed ones; the cached ``spec`` is kept unless the system can have changed,
    and new ``values`` are frozen as ``__init__`` would. Checked against ``replace`` by a
    property test (tests/engine/panel/test_state.py)."""
    unknown = changes.keys() - _FIELD_NAMES
    if unknown:
        raise TypeError(f"PanelState has no field {min(unknown)!r}")
    new = object.__new__(PanelState)
    attrs = new.__dict__
    attrs.update(state.__dict__)
    attrs.update(changes)
    if "spec" in attrs and not _SPEC_FROM.isdisjoint(changes):
        del attrs["spec"]
    if "values" in changes:
        new.__post_init__()
    return new
