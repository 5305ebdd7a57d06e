"""hardware.tower.daystats: today's rolls counted from a real roll log as it grows, the same as
``dicetower stats --today``; a long history is skipped by bisection; a line being written waits."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import engine
from engine.panel import attract
from hardware.cli.stats import tally
from hardware.files.rolllog import RollLog
from hardware.tower.daystats import DayStats, start_of_day

RESULT = engine.roll("d6cv", stat=5, cv=7, faces=[4])  # a success
MISS = engine.roll("d6cv", stat=5, cv=7, faces=[1])


class Clock:
    def __init__(self, when: datetime) -> None:
        self.t = int(when.timestamp() * 1e9)

    def __call__(self) -> int:
        return self.t


def log_at(path, when: datetime) -> tuple[RollLog, Clock]:
    clock = Clock(when)
    return RollLog(path, clock=clock, fsync=False), clock


def local_noon(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 12).astimezone()


def test_counts_today_as_the_stats_command_does(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    today = date.today()
    log, clock = log_at(path, local_noon(today - timedelta(days=1)))
    log.append("roll", session="s", roll_kind="rolled", result=RESULT)  # yesterday
    clock.t = int(local_noon(today).timestamp() * 1e9)
    for result in (RESULT, MISS, RESULT):
        log.append("roll", session="s", roll_kind="rolled", result=result)
    log.append("roll", session=None, roll_kind="entered", result=RESULT)  # typed in: not counted
    stats = DayStats(path, today=lambda: today)
    text = stats.refresh()
    (line,) = attract.decode(text)
    assert (line.system, line.rolls, line.successes) == ("d6cv", 3, 2)
    counted, _ = tally(path, today)
    (report,) = counted.reports()
    assert line.expected == round(report.expected_successes, 3)
    assert stats.refresh() is None  # nothing new
    log.append("roll", session="s", roll_kind="rolled", result=MISS)
    assert attract.decode(stats.refresh())[0].rolls == 4


def test_a_line_being_written_waits_for_its_newline(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    log, _ = log_at(path, datetime.now(UTC))
    log.append("roll", session="s", roll_kind="rolled", result=RESULT)
    whole = path.read_bytes()
    stats = DayStats(path)
    assert attract.decode(stats.refresh())[0].rolls == 1
    with open(path, "ab") as f:
        f.write(whole[:-1][: len(whole) // 2])  # half an entry, no newline yet
    assert stats.refresh() is None
    path.write_bytes(whole)  # the same file (inode), the torn tail cut: nothing new either
    assert stats.refresh() is None


def test_a_new_day_starts_from_nothing_and_a_new_file_is_read_from_its_start(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    day = [date.today()]
    log, clock = log_at(path, local_noon(day[0]))
    log.append("roll", session="s", roll_kind="rolled", result=RESULT)
    stats = DayStats(path, today=lambda: day[0])
    assert attract.decode(stats.refresh())[0].rolls == 1
    day[0] += timedelta(days=1)
    assert stats.refresh() == ""  # midnight: nothing rolled yet today
    clock.t = int(local_noon(day[0]).timestamp() * 1e9)
    path.rename(tmp_path / "rolls.1.jsonl")  # rotated: a fresh file continues the chain
    log2, _ = log_at(path, local_noon(day[0]))
    log2.append("roll", session="s", roll_kind="rolled", result=MISS)
    assert attract.decode(stats.refresh())[0].rolls == 1


def test_years_of_history_are_skipped_by_bisection(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    today = date.today()
    log, clock = log_at(path, local_noon(today - timedelta(days=400)))
    for i in range(3000):  # ~2 MB of older rolls, a few hours apart
        clock.t += 3 * 3600 * 10**9
        if clock.t >= int(local_noon(today - timedelta(days=1)).timestamp() * 1e9):
            break
        log.append("roll", session="s", roll_kind="rolled", result=RESULT if i % 2 else MISS)
    clock.t = int(local_noon(today).timestamp() * 1e9)
    log.append("roll", session="s", roll_kind="rolled", result=RESULT)
    log.append("roll", session="s", roll_kind="rolled", result=RESULT)
    size = path.stat().st_size
    with open(path, "rb") as f:
        start = start_of_day(f, size, today)
    assert size - start < 4096 + 2000  # only the last lines are read
    assert attract.decode(DayStats(path, today=lambda: today).refresh())[0].rolls == 2


def test_no_log_yet_is_no_rolls(tmp_path) -> None:
    assert DayStats(tmp_path / "rolls.jsonl").refresh() == ""
