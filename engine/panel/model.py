"""The panel's vocabulary: buttons, events in, effects out.

The state machine (:mod:`engine.panel.machine`) maps ``(state, event, now)`` to
``(state, effects)``; the hardware layer turns gpiozero callbacks into :class:`Event` values and
carries out :class:`Effects` (draws the :class:`Screen`, sets LEDs, plays sounds). Everything
here is immutable so a transcript of events and effects can be compared and replayed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Button(StrEnum):
    """The five buttons, left to right. During a finger guess they are fingers 1..5."""

    MODE = "mode"
    FIELD = "field"
    MINUS = "minus"
    PLUS = "plus"
    ROLL = "roll"

    @property
    def finger(self) -> int:
        """Thumb 1 .. pinky 5."""
        return list(Button).index(self) + 1


class EventKind(StrEnum):
    PRESS = "press"
    RELEASE = "release"
    HOLD = "hold"  # the button has been held for the hold time (sent once, then repeats)
    TURN = "turn"  # rotary encoder: ``steps`` is +n clockwise, -n anticlockwise
    TICK = "tick"  # clock tick: animations, hold-repeat, idle timeout
    STATUS = "status"  # the hardware reports a status line (``text``), e.g. entropy health
    SESSION = "session"  # the dice session changed (``text``: see engine.panel.sessions)
    STATS = "stats"  # today's rolls per system (``text``: see engine.panel.attract)
    SPEECH = "speech"  # why speech cannot be heard (``text``; "" when it can), for the settings menu
    LOGGED = "logged"  # what the roll log took for the step before (``text``: see engine.panel.sessions)


@dataclass(frozen=True)
class Event:
    """One input to the state machine: a button (``button``), a turn of the encoder (``steps``),
    a tick, or a report from the hardware (``text``)."""

    kind: EventKind
    button: Button | None = None
    steps: int = 0
    text: str = ""

    def __post_init__(self) -> None:
        if self.kind in (EventKind.PRESS, EventKind.RELEASE, EventKind.HOLD) and self.button is None:
            raise ValueError(f"a {self.kind} event needs a button")

    def __str__(self) -> str:
        if self.button is not None:
            return f"{self.kind}:{self.button}"
        if self.kind is EventKind.TURN:
            return f"turn:{self.steps:+d}"
        if self.kind in (EventKind.STATUS, EventKind.SESSION, EventKind.SPEECH, EventKind.LOGGED):
            return f"{self.kind}:{self.text}"
        return str(self.kind)


@dataclass(frozen=True)
class Screen:
    """What the display should show, independent of the display.

    ``lines`` is the text every display can show (a 16x2 LCD shows the first two, the OLED
    all of them); ``title`` heads the screen. ``big`` is the outcome in large type (result
    screen). ``dice`` are dice to draw as glyphs, ``odds`` a 0..1 chance shown as a bar,
    ``selected`` the index into ``lines`` of the highlighted parameter. ``offset`` shifts the
    whole picture by a few pixels (attract screen, against OLED burn-in); ``contrast`` is
    0..1 (dimmed when idle). ``page`` counts up while a result longer than the display is
    up; a display that cannot show every line shows page ``page`` modulo its page count.
    ``foot`` is a line every page shows at the bottom (a recorded result's fingerprint, so a
    photograph of any page has it). ``qr`` is text a graphic display draws as a QR code at
    the left, with ``beside`` (short lines) at its right instead of the other text; a text
    display shows ``lines`` as ever.
    """

    title: str
    lines: tuple[str, ...] = ()
    big: str | None = None
    dice: tuple[int, ...] = ()
    odds: float | None = None
    selected: int | None = None
    offset: tuple[int, int] = (0, 0)
    contrast: float = 1.0
    page: int = 0  # which page of ``lines`` a screen too long for the display shows (it wraps round)
    kind: str = "setup"  # setup | rolling | result | turn | guess | reveal | settings | session | attract | message
    # | seed | card
    foot: str = ""
    qr: str = ""
    beside: tuple[str, ...] = ()

    def text(self) -> list[str]:
        """Plain text rendering: title, big line, lines, foot (for terminals and transcripts)."""
        out = [self.title]
        if self.big:
            out.append(self.big)
        out.extend(self.lines)
        if self.foot:
            out.append(self.foot)
        return out


@dataclass(frozen=True)
class Sound:
    """A short tone: ``name`` for the log, ``notes`` as (frequency Hz, seconds) pairs."""

    name: str
    notes: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class Effects:
    """What one step asks of the world; ``None`` means "leave as it is".

    ``leds`` are the five button LEDs' levels 0..1, ``rgb`` the RGB LED as (r, g, b) 0..1.
    ``rolled`` carries the roll result's JSON when this step rolled (for the log).
    ``request`` asks the hardware for something only it can do, between rolls: ``"reveal"``
    closes the dice session and reveals its seed, ``"open"`` opens the next one now (the
    answers come back as SESSION events).
    ``table_seed`` is ``(commitment, text)``: set this table seed on the session with that
    commitment (the one the players saw), record-first; the answer comes back as a SESSION
    event with the seed, or a LOGGED event saying why it is not set.
    """

    screen: Screen | None = None
    leds: tuple[float, float, float, float, float] | None = None
    rgb: tuple[float, float, float] | None = None
    sounds: tuple[Sound, ...] = ()
    rolled: dict[str, Any] | None = field(default=None, compare=False)
    request: str | None = None
    table_seed: tuple[str, str] | None = None

    @property
    def empty(self) -> bool:
        return (self.screen is None and self.leds is None and self.rgb is None and not self.sounds
                and self.request is None and self.table_seed is None)
