"""How a panel is set up: enabled systems, timings, player slots.

Fixed for a run (the config file feeds it); what the players change at the table lives in
:class:`engine.panel.state.Settings` instead. A bad value raises
:class:`~engine.errors.ParameterError` whose ``key`` is the option's name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine import systems as installed_systems
from engine.errors import ParameterError
from engine.systems.panel import Start


@dataclass(frozen=True)
class PanelConfig:
    """Panel options; times are seconds.

    ``systems`` are the enabled systems in MODE order (every installed one when not given).
    ``animation_seconds`` is the starting roll-animation length (0 = off; players change it in
    the settings menu). ``result_hold_seconds`` is how long a result stays before the setup
    screen returns (0 = until a press). ``idle_seconds`` without a press starts the attract
    screen, which moves every ``attract_step_seconds``. ``starts`` are the start values a
    fresh or reset player slot begins with (``(param, value)`` pairs: fingers' karma, the
    config's ``start_karma``; changeable in the settings menu, :func:`offered_starts`).
    ``speak`` starts with speech on (the settings menu's "speech" switch; the config's
    ``[sound] speak``).
    """

    systems: tuple[str, ...] = field(default_factory=installed_systems.ids)
    hold_repeat_delay: float = 0.4
    animation_seconds: float = 0.8
    animation_frame_seconds: float = 0.1
    result_hold_seconds: float = 60.0
    idle_seconds: float = 300.0
    attract_step_seconds: float = 2.0
    players: int = 4
    starts: tuple[tuple[str, int], ...] = ()
    brightness: float = 1.0
    speak: bool = False
    #: the phone page's address ("" when the tower serves none: ``[web]``); with one, the
    #: reveal's QR code opens the page with the card in its fragment
    page_url: str = ""

    def __post_init__(self) -> None:
        systems = tuple(str(s).strip().lower() for s in self.systems)
        object.__setattr__(self, "systems", systems)
        if not systems:
            raise ParameterError("systems", f"enable at least one of {', '.join(installed_systems.ids())}",
                                 flag=False)
        for s in systems:
            if not installed_systems.installed(s):
                raise ParameterError("systems", f"unknown system {s!r}; choose from "
                                                f"{', '.join(installed_systems.ids())}", flag=False)
        if len(set(systems)) != len(systems):
            raise ParameterError("systems", f"each system once, got {', '.join(systems)}", flag=False)
        _positive("hold_repeat_delay", self.hold_repeat_delay)
        _positive("animation_frame_seconds", self.animation_frame_seconds)
        _positive("idle_seconds", self.idle_seconds)
        _positive("attract_step_seconds", self.attract_step_seconds)
        _at_least_zero("animation_seconds", self.animation_seconds)
        _at_least_zero("result_hold_seconds", self.result_hold_seconds)
        if isinstance(self.players, bool) or not isinstance(self.players, int) or not 1 <= self.players <= 9:
            raise ParameterError("players", f"a whole number from 1 to 9, got {self.players!r}", flag=False)
        object.__setattr__(self, "starts", tuple(sorted((str(k), v) for k, v in dict(self.starts).items())))
        for name, value in self.starts:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ParameterError(f"start_{name}", f"a whole number of at least 0, got {value!r}", flag=False)
        if not 0.0 < float(self.brightness) <= 1.0:
            raise ParameterError("brightness", f"a number above 0 up to 1, got {self.brightness!r}", flag=False)


def offered_starts(config: PanelConfig) -> tuple[Start, ...]:
    """The start values the settings menu offers: each enabled system's (one per parameter, the
    first system's where two share one), in MODE order. Imports every enabled system: the
    menu asks only once it is opened."""
    found: dict[str, Start] = {}
    for system in config.systems:
        for start in installed_systems.get(system).panel.starts:
            found.setdefault(start.param, start)
    return tuple(found.values())


def _positive(name: str, value: float) -> None:
    if not _finite(value) or value <= 0:
        raise ParameterError(name, f"a number of seconds above 0, got {value!r}", flag=False)


def _at_least_zero(name: str, value: float) -> None:
    if not _finite(value) or value < 0:
        raise ParameterError(name, f"a number of seconds of at least 0, got {value!r}", flag=False)


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)

