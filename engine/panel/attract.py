"""The attract screen of a tower that keeps a roll log: today's rolls per system against the
exact odds, then the open session's commitment, one page at a time.

The hardware counts the day's rolls from the roll log (what ``dicetower stats --today``
prints) and sends them in a STATS event, one line per system::

    infinity 12 5 4.800 0.61

(system, rolls, successes, expected successes, chi-square p-value or ``-`` while there are
too few rolls). The panel keeps the last such text; a tower without a log never sends one
and keeps the plain attract screen that names the systems.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.panel import sessions
from engine.panel.model import Screen
from engine.panel.screens import ATTRACT_WIDTH, ROWS, fit, status_part


@dataclass(frozen=True)
class DayLine:
    """One system's rolls today."""

    system: str
    rolls: int
    successes: int
    expected: float  # successes the exact odds expect from these rolls
    p_value: float | None  # chi-square over its settings; None: too few rolls yet


def encode(lines: Iterable[DayLine]) -> str:
    """The STATS event text for these lines."""
    out = []
    for d in lines:
        p = "-" if d.p_value is None else f"{d.p_value:.3g}"
        out.append(f"{d.system} {d.rolls} {d.successes} {d.expected:.3f} {p}")
    return "\n".join(out)


def decode(text: str) -> tuple[DayLine, ...]:
    """The lines of a STATS event's text; a line that is not one is left out (never raises)."""
    found = []
    for raw in str(text).splitlines():
        words = raw.split()
        if len(words) != 5:
            continue
        system, rolls, successes, expected, p = words
        try:
            line = DayLine(system, int(rolls), int(successes), float(expected), None if p == "-" else float(p))
        except ValueError:
            continue
        if line.rolls < 0 or line.successes < 0 or not math.isfinite(line.expected):
            continue
        if line.p_value is not None and not 0.0 <= line.p_value <= 1.0:
            continue
        found.append(line)
    return tuple(found)


def pages(day: Sequence[DayLine], commitment: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(title, lines) for each page the attract screen cycles through: one per system rolled
    today (or one saying nothing was), then the commitment when a session is open."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for d in day:
        if d.rolls == 0:
            continue
        p = "p: too few rolls" if d.p_value is None else f"chi2 p = {d.p_value:.2g}"
        expected = f"{d.expected:.1f}" if d.expected < 1000 else f"{d.expected:.0f}"
        out.append((d.system, (f"{d.rolls} roll{'' if d.rolls == 1 else 's'} today",
                               f"won {d.successes} = {100 * d.successes / d.rolls:.0f}%",
                               f"odds {expected} = {100 * d.expected / d.rolls:.0f}%", p)))
    if not out:
        out.append(("today", ("no rolls yet", "press any button")))
    if sessions.is_commitment(commitment):
        out.append(("commitment", sessions.lines(commitment)))
    return tuple(out)


def screen(day: Sequence[DayLine], commitment: str, page: int, offset: tuple[int, int], status: str,
           contrast: float, *, step: int = 0) -> Screen:
    """Page ``page`` (it goes round) of :func:`pages` as the attract screen, with the status line."""
    shown = pages(day, commitment)
    title, lines = shown[page % len(shown)]
    rows = tuple(fit(line, ATTRACT_WIDTH) for line in lines[: ROWS - 1])
    if status:
        rows = (*rows, status_part(status, step))
    return Screen(title=fit(title, ATTRACT_WIDTH), lines=rows, offset=offset, contrast=contrast, kind="attract")
