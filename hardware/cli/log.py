"""``dicetower log verify``: check the roll log's hash chain.

Exit 0 when every entry chains to the one before; 1 naming the first bad entry (edited,
dropped, reordered, or a torn last line); 2 when there is no log to check.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.errors import ParameterError
from hardware.rolllog import verify
from hardware.state import LOG_NAME, default_state_dir

EXIT_BAD_LOG = 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("log", help="check the roll log (hash chain)")
    actions = p.add_subparsers(dest="log_action", metavar="ACTION")
    actions.required = True
    v = actions.add_parser("verify", help="check that no entry was edited, dropped or reordered")
    v.add_argument("--state-dir", metavar="DIR", help="state directory holding rolls.jsonl (default: "
                   "$DICETOWER_STATE_DIR or ~/.local/state/dicetower)")
    v.add_argument("--file", metavar="LOG", help="check this log file instead")
    v.add_argument("--json", action="store_true", help="print the result as JSON")
    v.set_defaults(func=cmd_verify)


def log_path(args: argparse.Namespace) -> Path:
    if args.file is not None and args.state_dir is not None:
        raise ParameterError("file", "give either --file LOG or --state-dir DIR, not both")
    path = Path(args.file) if args.file is not None else Path(args.state_dir or default_state_dir()) / LOG_NAME
    if not path.is_file():
        raise ParameterError("file" if args.file is not None else "state-dir", f"no roll log at {path}")
    return path


def cmd_verify(args: argparse.Namespace) -> int:
    path = log_path(args)
    report = verify(path)
    if args.json:
        print(json.dumps({
            "log": str(path), "ok": report.ok, "entries": report.entries, "head": report.head,
            "problem": None if report.problem is None else {"entry": report.problem.line_no,
                                                             "message": report.problem.message},
        }))
    elif report.ok:
        print(f"roll log {path}: {report.entries} entries, chain intact; head {report.head}")
    if report.problem is not None:
        print(f"dicetower: roll log {path}: {report.problem}", file=sys.stderr)
        return EXIT_BAD_LOG
    return 0
