"""``dicetower replay LOG``: recompute every logged roll from its session's revealed seed.

Exit 0 when every revealed roll matches (sessions not yet revealed are listed, not failed,
unless ``--all-revealed``); 1 when a roll, a commitment, a seed, the continuity of a session,
one session at a time or the hash chain does not check out, or when what the players noted
(``--expect``, ``--table-seed``) is not in the log: one line per problem naming the entry.
Rolls are counted by kind: only ``rolled`` rolls of revealed sessions are *verified*; sessions
without a table seed are listed apart.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParameterError
from hardware.cli.log import find_log
from hardware.cli.output import out, say

if TYPE_CHECKING:  # replay is loaded by the command that replays, not at every start-up
    from hardware.entropy.replay import ReplayReport

EXIT_MISMATCH = 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="recompute logged rolls from the revealed seeds")
    p.add_argument("log", metavar="LOG", help="a roll log (rolls.jsonl) or the state directory holding it")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--all-revealed", action="store_true",
                   help="fail when a session is still open (at the end of a night, every session should be)")
    p.add_argument("--expect", metavar="HEX", action="append", default=[],
                   help="a fingerprint the players noted (at least 8 hex digits: the start of a roll's or session's "
                        "entry hash, of a commitment, or the reveal's head); repeatable")
    p.add_argument("--table-seed", metavar="TEXT", action="append", default=[],
                   help="the table seed the players set: the sessions they noted (--expect), or every session, must "
                        "carry it; repeatable")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    from hardware.entropy.fingerprint import check_expect
    from hardware.entropy.replay import replay_log
    from hardware.entropy.seed import TableSeedError, check_table_seed

    path = find_log(args.log, "LOG")
    try:
        expect = [check_expect(text) for text in args.expect]
    except ValueError as exc:
        raise ParameterError("expect", str(exc)) from None
    try:
        seeds = [check_table_seed(text) for text in args.table_seed]
    except TableSeedError as exc:
        raise ParameterError("table-seed", str(exc).removeprefix("table seed: ")) from None
    report = replay_log(path, expect=expect, table_seeds=seeds)
    problems = [str(p) for p in report.problems]
    if args.all_revealed:
        problems += [f"entry {o.line_no}: session {o.session} is still open ({o.rolls} roll(s) unchecked)"
                     for o in report.open_sessions]
    if args.json:
        out(json.dumps({**report.to_dict(), "ok": not problems}))
    else:
        out("\n".join(_summary(path, report, problems)))
    for problem in problems:
        say(f"dicetower: {path}: {problem}")
    return 0 if not problems else EXIT_MISMATCH


def _summary(path: Path, report: ReplayReport, problems: list[str]) -> list[str]:
    opened = len(report.open_sessions)
    lines = [f"replay {path}: {report.entries} entries, {report.sessions} session(s) "
             f"({report.revealed} revealed, {opened} open)",
             f"  verified: {report.rolls_verified} roll(s) recomputed from revealed seeds"]
    if report.rolls_entered:
        lines.append(f"  entered:  {report.rolls_entered} roll(s) typed in (--faces, --winners-set): entered, "
                     "not rolled; nothing to check")
    if report.rolls_test:
        lines.append(f"  test:     {report.rolls_test} test roll(s) from --seed sessions: recomputed, but a test "
                     "session, not fair")
    if report.rolls_open:
        lines.append(f"  open:     {report.rolls_open} roll(s) in sessions not revealed yet: not checked")
    if report.rolls_mixed:
        lines.append(f"  mixed:    {report.rolls_mixed} roll(s) carry a typed --mix (each entry's mix is the text: "
                     "its player should recognise it)")
    lines += [f"  note: {note}" for note in report.notes]
    lines.append(f"  head:     {report.head}")
    lines.append("result: all match" if not problems else f"result: {len(problems)} problem(s)")
    return lines
