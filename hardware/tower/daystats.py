"""Today's rolls, counted from the roll log as it grows, for the attract screen.

:class:`DayStats` reads the log once from the start of today (found by bisecting the file on
the entries' times, so a log that grew for years costs a few reads, not a scan) and then only
the bytes appended since; a line still being written waits for its newline. At midnight (local
time) it starts a new day. What it counts is what ``dicetower stats --today`` counts
(:func:`engine.stats.counted_result`), and it hands the panel the text of a STATS event
(:mod:`engine.panel.attract`) whenever the figures change.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.panel import attract
from engine.stats import Tally, counted_result

#: How often the tower counts today's rolls from the roll log (for the attract screen).
DAY_STATS_EVERY_NS = 5_000_000_000
#: The log is read this much at a time.
CHUNK = 1 << 20


def logged_on(entry: Mapping[str, Any], day: date) -> bool:
    """Whether the entry's time (UTC in the log) falls on ``day`` in local time."""
    return entry_day(entry) == day


def entry_day(entry: Mapping[str, Any]) -> date | None:
    stamp = entry.get("time")
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone().date()
    except ValueError:
        return None


@lru_cache(maxsize=256)
def _odds(system: str, params_json: str) -> Mapping[str, Any]:
    import engine

    return engine.odds(system, **json.loads(params_json))


def cached_odds(system: str, **params: Any) -> Mapping[str, Any]:
    """engine.odds, remembered per setting: the figures are recomputed after every roll."""
    return _odds(system, json.dumps(params, sort_keys=True))


class DayStats:
    """Today's counted rolls per system from the roll log at ``path``."""

    def __init__(self, path: str | os.PathLike[str], *, today: Callable[[], date] = date.today) -> None:
        self.path = Path(path)
        self.today = today
        self._day: date | None = None
        self._tally = Tally()
        self._offset: int | None = None  # where the next unread line starts
        self._inode: int | None = None
        self._text: str | None = None

    def refresh(self) -> str | None:
        """Read what was appended; the STATS text when it differs from the last one, else None."""
        day = self.today()
        if day != self._day:
            self._day, self._tally, self._offset = day, Tally(), None
        self._read(day)
        text = attract.encode(self.lines())
        if text == self._text:
            return None
        self._text = text
        return text

    def lines(self) -> list[attract.DayLine]:
        out = []
        for report in self._tally.reports(cached_odds):
            fit = report.fit
            out.append(attract.DayLine(report.system, report.rolls, report.successes, report.expected_successes,
                                       None if fit is None else fit.p_value))
        return out

    def _read(self, day: date) -> None:
        from hardware.files.safefile import open_file

        try:
            fd = open_file(self.path)  # a FIFO or a link planted there is refused, never waited on
        except FileNotFoundError:
            return  # no roll yet
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if info.st_ino != self._inode or (self._offset or 0) > info.st_size:
                self._inode, self._offset = info.st_ino, None  # a new file (rotated, replaced)
            if self._offset is None:
                self._offset = start_of_day(f, info.st_size, day)
            f.seek(self._offset)
            while self._offset < info.st_size:
                data = f.read(min(CHUNK, info.st_size - self._offset))
                end = data.rfind(b"\n") + 1  # only whole lines; a line being written waits
                if end == 0:
                    break
                self._offset += end
                f.seek(self._offset)
                for raw in data[:end].splitlines():
                    self._count(raw, day)

    def _count(self, raw: bytes, day: date) -> None:
        from hardware.files.rolllog import MAX_LINE_BYTES, parse_line

        entry = parse_line(raw) if len(raw) <= MAX_LINE_BYTES else None
        if entry is None or not logged_on(entry, day):
            return
        result = counted_result(entry)
        if result is not None:
            self._tally.add(result)


def start_of_day(f: Any, size: int, day: date) -> int:
    """The offset of a line at or before the first entry logged on ``day`` or later, found by
    bisection (entries are appended in time order)."""
    from hardware.files.rolllog import MAX_LINE_BYTES, parse_line

    lo, hi = 0, size
    while hi - lo > 4096:
        mid = (lo + hi) // 2
        f.seek(mid)
        f.readline(MAX_LINE_BYTES + 1)  # to the start of the next whole line (no line is longer)
        start = f.tell()
        line = f.readline(MAX_LINE_BYTES + 1)
        entry = parse_line(line) if line.endswith(b"\n") else None
        when = entry_day(entry) if entry is not None else None
        if when is not None and when < day:
            lo = start
        else:
            hi = mid
    return lo
