"""``dicetower stats [DIR] [--today] [--json]``: the logged rolls against the exact odds.

Per system and per setting: how many rolls, each outcome observed against its expected count,
and a chi-square p-value (:mod:`engine.stats`). Only the tower's own dice count; typed-in and
``--seed`` rolls are listed as not counted. The log is read entry by entry, never whole.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from engine.stats import SystemReport, Tally, counted_result, excluded_kind
from hardware.cli.output import out
from hardware.files.state import StateError
from hardware.tower.daystats import logged_on


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("stats", help="logged rolls against the exact odds, with a chi-square p-value")
    p.add_argument("dir", metavar="DIR", nargs="?",
                   help="the state directory (or a rolls.jsonl); default: the state directory")
    p.add_argument("--today", action="store_true", help="only the rolls of today (local time)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_stats, reads_only=True)


def log_path(given: str | None) -> Path:
    """The roll log named by DIR (a directory holding rolls.jsonl, or the file itself)."""
    from hardware.cli.log import find_log

    return find_log(given, "DIR")


def entries(path: Path) -> Iterator[dict[str, Any]]:
    """The log's entries (lines that are not one are skipped: `log verify` reports them)."""
    from hardware.files.rolllog import read_entries

    try:
        for stored in read_entries(path):
            if stored.entry is not None:
                yield stored.entry
    except OSError as exc:
        raise StateError(f"stats: cannot read {path}: {exc.strerror or exc}") from None


def tally(path: Path, day: date | None = None) -> tuple[Tally, Counter[str]]:
    counted, excluded = Tally(), Counter[str]()
    for entry in entries(path):
        if day is not None and not logged_on(entry, day):
            continue
        result = counted_result(entry)
        if result is not None:
            counted.add(result)
        elif (why := excluded_kind(entry)) is not None:
            excluded[why] += 1
    return counted, excluded


def cmd_stats(args: argparse.Namespace) -> int:
    path = log_path(args.dir)
    day = date.today() if args.today else None
    counted, excluded = tally(path, day)
    reports = counted.reports()
    if args.json:
        out(json.dumps({"log": str(path), "day": day.isoformat() if day else None, "rolls": len(counted),
                          "not_counted": dict(excluded), "systems": [r.to_dict() for r in reports]}))
        return 0
    out(headline(path, len(counted), excluded, day))
    for report in reports:
        out("\n".join(describe(report)))
    return 0


def headline(path: Path, rolls: int, excluded: Counter[str], day: date | None) -> str:
    when = f" on {day.isoformat()}" if day else ""
    line = f"stats {path}: {rolls} roll{'' if rolls == 1 else 's'}{when} counted"
    if excluded:
        names = {"entered": "typed in", "test": "--seed test", "unreadable": "unreadable"}
        line += " (not counted: " + ", ".join(f"{n} {names.get(k, k)}" for k, n in sorted(excluded.items())) + ")"
    return line


def _p(value: float | None) -> str:
    if value is None:
        return "p n/a (too few rolls)"
    return f"p = {value:.3g}"


def describe(report: SystemReport) -> list[str]:
    fit = report.fit
    test = _p(None) if fit is None else f"chi-square {fit.statistic:.2f} on {fit.dof} df, {_p(fit.p_value)}"
    lines = [f"{report.system}: {report.rolls} rolls, {report.successes} successes "
             f"(expected {report.expected_successes:.1f}), {test}"]
    for s in report.settings:
        if s.problem:
            lines.append(f"  {s.label}: {s.rolls} rolls, {s.problem}")
            continue
        lines.append(f"  {s.label}: {s.rolls} rolls, {_p(s.fit.p_value if s.fit else None)}"
                     + (f", {s.fit.impossible} impossible outcome(s)!" if s.fit and s.fit.impossible else ""))
        expected = s.expected
        cells = [f"{k} {s.observed.get(k, 0)} ({expected[k]:.1f})" for k in s.probabilities]
        cells += [f"{k} {n} (0.0)" for k, n in s.observed.items() if k not in s.probabilities]
        lines.append("    " + "  ".join(cells))
    return lines
