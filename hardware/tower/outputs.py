"""The tower's outputs: what a step's effects do to the LEDs, the buzzer and the display.

LEDs are set before the display is drawn, so a slow or failing display never delays them.
The screens of a roll that is not in the roll log (``kiosk.unrecorded = "show"``) are titled
UNRECORDED until the panel leaves the result.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from engine.panel.model import Effects, Screen
from hardware.display import Picturing, ResilientDisplay
from hardware.panel.io import PanelIO

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["RESULT_SCREENS", "Outputs"]

#: Screens that show a roll (marked UNRECORDED when the roll could not be logged).
RESULT_SCREENS = frozenset({"rolling", "result"})


class Outputs:
    """The panel's LEDs and buzzer (``io``, claimed by :meth:`claim`) and its display.

    ``frames`` counts the screens sent to the display, ``rolls`` the rolls carried out;
    ``effects_seen`` keeps the last few effects (for the simulator's transcript)."""

    def __init__(self, display: ResilientDisplay) -> None:
        self.display = display
        self.io: PanelIO | None = None
        self.frames = 0
        self.rolls = 0
        self.effects_seen: list[Effects] = []
        self.marking = False  # the screens of an unrecorded roll are titled UNRECORDED

    def first(self, screen: Screen | None, now: int) -> None:
        """The first picture, before the pins are claimed: the display is what a player sees
        of start-up, the buttons and LEDs are ready a few milliseconds later."""
        if screen is not None:
            self.display.show(screen, now)
            self.frames += 1

    def claim(self, io: PanelIO) -> None:
        self.io = io

    def apply(self, fx: Effects, now: int) -> None:
        """Carry out a step's effects: LEDs, then sounds, then the picture."""
        io = self.io
        if io is not None:
            if fx.leds is not None:
                io.set_leds(fx.leds)
            if fx.rgb is not None:
                io.set_rgb(fx.rgb)
            if fx.sounds and io.sound is not None:
                io.sound.play(fx.sounds, now)
        if fx.screen is not None:
            self.display.show(self._marked(fx.screen), now)
            self.frames += 1
        if fx.rolled is not None:
            self.rolls += 1
        if not fx.empty or fx.rolled is not None:
            self.effects_seen.append(fx)
            del self.effects_seen[:-16]

    def _marked(self, screen: Screen) -> Screen:
        """The screens of a roll that is not in the log say so in their title."""
        if not self.marking:
            return screen
        if screen.kind not in RESULT_SCREENS:
            self.marking = False
            return screen
        return replace(screen, title="UNRECORDED")

    # --- what the world sees ----------------------------------------------------------------------

    @property
    def screen(self) -> Screen | None:
        return self.display.screen

    @property
    def frame(self) -> Image.Image | None:
        """The last picture sent to an OLED (a PIL image), or None for a text display."""
        shown = self.display.display
        return shown.image if isinstance(shown, Picturing) else None

    def close(self) -> None:
        """LEDs off, buzzer quiet, display cleared and closed."""
        if self.io is not None:
            self.io.close()
        self.display.clear()
        self.display.close()

    def abandon(self) -> None:
        """No panel after all (a pin busy, no permission): the screen must not look ready to play."""
        self.display.clear()
        self.display.close()
