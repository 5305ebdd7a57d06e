"""``dicetower replay LOG``: recompute every logged roll from its session's revealed seed.

Exit 0 when every revealed roll matches (sessions not yet revealed are listed, not failed);
1 when a roll, a commitment or the hash chain does not check out, one line per problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.errors import ParameterError
from hardware.entropy.replay import replay_log
from hardware.state import LOG_NAME

EXIT_MISMATCH = 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="recompute logged rolls from the revealed seeds")
    p.add_argument("log", metavar="LOG", help="a roll log (rolls.jsonl) or the state directory holding it")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    path = Path(args.log)
    if path.is_dir():
        path = path / LOG_NAME
    if not path.is_file():
        raise ParameterError("LOG", f"no roll log at {path}")
    report = replay_log(path)
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        verdict = "all match" if report.ok else f"{len(report.problems)} problem(s)"
        print(f"replay {path}: {report.entries} entries, {report.sessions} session(s) "
              f"({report.revealed} revealed), {report.rolls_checked} roll(s) recomputed: {verdict}")
        for note in report.notes:
            print(f"  note: {note}")
        if report.rolls_typed:
            print(f"  note: {report.rolls_typed} roll(s) with typed-in faces (not from the tower's dice)")
    for problem in report.problems:
        print(f"dicetower: {path}: {problem}", file=sys.stderr)
    return 0 if report.ok else EXIT_MISMATCH
