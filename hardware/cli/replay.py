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
    from engine.verify import ReplayReport

EXIT_MISMATCH = 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="recompute logged rolls from the revealed seeds")
    p.add_argument("log", metavar="LOG", help="a roll log (rolls.jsonl) or the state directory holding it")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--all-revealed", action="store_true",
                   help="fail when a session is still open (at the end of a night, every session should be)")
    p.add_argument("--expect", metavar="NOTE", action="append", default=[],
                   help="what the players noted: a commitment or the reveal's head (16 to 64 hex digits), or a "
                        "result as N:HEX (its roll number, then its 16 hex digits: 12:a1b2c3d4e5f6a7b8); repeatable")
    p.add_argument("--table-seed", metavar="CODE", action="append", default=[],
                   help="a table seed the players set; every session of their night must carry one, and each "
                        "only one session; repeatable")
    p.add_argument("--allow-mix", metavar="TEXT", action="append", default=[],
                   help="a --mix the players typed themselves, once for each roll it went into (any other mix in "
                        "their night is a problem); repeatable")
    p.add_argument("--allow-entered", metavar="N", default="0",
                   help="how many rolls the players typed in (--faces, a hand typed in) during their night (default 0)")
    p.add_argument("--allow-command-line", metavar="N", default="0",
                   help="how many rolls the players made on the command line in sessions the panel rolled in "
                        "(default 0)")
    p.add_argument("--count", metavar="N", default=None,
                   help="the rolls the players counted at the table, every session of their night together (a "
                        "tally: then not every result needs noting; without it, every roll of the night must be "
                        "noted as N:HEX)")
    p.add_argument("--card", metavar="TEXT", action="append", default=[],
                   help="a reveal card the players photographed: the text of its QR code ('commitment HEX table seed "
                        "CODE rolls N head HEX', its lines or one line); repeatable")
    p.set_defaults(func=cmd_replay, reads_only=True)


def cmd_replay(args: argparse.Namespace) -> int:
    from engine.fingerprints import parse_expect, read_reveal_card
    from engine.params import whole_number
    from engine.seeds import TableSeedError, check_table_seed
    from engine.verify import Finding, Notes
    from hardware.entropy.replay import replay_log

    path = find_log(args.log, "LOG")
    try:
        expect = [parse_expect(text) for text in args.expect]
    except ValueError as exc:
        raise ParameterError("expect", str(exc)) from None
    try:
        seeds = [check_table_seed(text) for text in args.table_seed]
    except TableSeedError as exc:
        raise ParameterError("table-seed", exc.detail) from None
    entered = whole_number("allow-entered", args.allow_entered, 0, 1_000_000)
    command_line = whole_number("allow-command-line", args.allow_command_line, 0, 1_000_000)
    try:
        cards = tuple(read_reveal_card(text) for text in args.card)
    except ValueError as exc:
        raise ParameterError("card", str(exc)) from None
    count = whole_number("count", args.count, 0, 1_000_000) if args.count is not None else None
    notes = Notes(tuple(expect), tuple(seeds), tuple(args.allow_mix), entered, command_line, cards, count)
    if count is not None and not notes.player_mode:
        raise ParameterError("count", "counts the rolls of your night: give it with what you noted (--expect, "
                                      "--table-seed or --card), which says where the night is")
    report = replay_log(path, notes=notes)
    problems = list(report.problems)
    if args.all_revealed:
        problems += [Finding(o.line_no, f"session {o.session} is still open ({o.rolls} roll(s) unchecked)",
                             "open-session") for o in report.open_sessions]
        problems.sort(key=lambda f: f.line_no)
    if args.json:
        shown = report.to_dict()
        shown["problems"] = [{"entry": p.line_no, "code": p.code, "message": p.message} for p in problems]
        out(json.dumps({**shown, "ok": not problems}))
    else:
        out("\n".join(_summary(path, report, [str(p) for p in problems])))
    for problem in problems:
        say(f"dicetower: {path}: {problem}")
    return 0 if not problems else EXIT_MISMATCH


def _summary(path: Path, report: ReplayReport, problems: list[str]) -> list[str]:
    opened = len(report.open_sessions)
    lines = [f"replay {path}: {report.entries} entries, {report.sessions} session(s) "
             f"({report.revealed} revealed, {opened} open)",
             f"  verified: {report.rolls_verified} roll(s) recomputed from revealed seeds"]
    if report.rolls_entered:
        lines.append(f"  entered:  {report.rolls_entered} roll(s) typed in (--faces, a hand typed in): entered, "
                     "not rolled; nothing to check")
    if report.rolls_test:
        lines.append(f"  test:     {report.rolls_test} test roll(s) from --seed sessions: recomputed, but a test "
                     "session, not fair")
    if report.rolls_open:
        lines.append(f"  open:     {report.rolls_open} roll(s) in sessions not revealed yet: not checked")
    if report.damaged:
        lines.append(f"  damaged:  {sum(d.rolls for d in report.damaged)} roll(s) in {len(report.damaged)} session(s) "
                     "the tower ended as damaged (their seed was lost with their kept file): not checkable")
    if report.rolls_mixed:
        lines.append(f"  mixed:    {report.rolls_mixed} roll(s) carry a typed --mix (each entry's mix is the text: "
                     "its player should recognise it)")
    lines += [f"  note: {note}" for note in report.notes]
    if report.noted_rolls:  # what no checker can see: the photo of each noted result's screen
        lines.append("  your noted results as the log holds them (compare each with its photo):")
        lines += [f"    {roll}" for roll in report.noted_rolls]
    if report.night_rolls is not None:
        lines.append(f"  your night: {report.night_rolls} roll(s) (compare with the rolls you counted)")
    for facts in report.facts:  # as each reveal card showed them
        seed = facts.table_seed if facts.table_seed is not None else "(none)"
        lines.append(f"  session {facts.session[:8]}: commitment {facts.commitment}")
        lines.append(f"    table seed {seed}, rolls {facts.rolls}, head {facts.head or '(still open)'}")
    lines.append(f"  head:     {report.head}")
    lines.append("result: all match" if not problems else f"result: {len(problems)} problem(s)")
    return lines
