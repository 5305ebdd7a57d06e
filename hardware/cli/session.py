"""``dicetower session open|show|close [DIR]``: a commitment that binds rolls across commands.

``open`` gathers entropy, commits (the ``session`` entry goes into DIR's roll log) and prints
the commitment, in hex and as a QR code, for the players to note before anyone rolls. Every
``dicetower roll --state-dir DIR`` after that rolls in this session, each roll starting where
the last ended. ``show`` prints the commitment, the roll count and the age; ``close`` reveals
the seed into the log, after which ``dicetower replay DIR`` recomputes every roll. The
session's secret (seed material and DRBG state) waits in ``DIR/session.json``, mode 0600.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import UTC, datetime
from pathlib import Path

from engine.errors import ParameterError
from hardware.cli.dice_source import add_dice_options
from hardware.cli.output import out, say
from hardware.entropy import open_dice, session_file
from hardware.locking import state_lock
from hardware.qr import terminal_qr
from hardware.rolllog import RollLog
from hardware.state import LOG_NAME, check_state_dir, default_state_dir

EXIT_NO_SESSION = 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("session", help="open, show or close the session rolls commit to (commit and reveal)")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    for name, helptext, func in (
        ("open", "commit to a new session and print its commitment (hex and QR code)", cmd_open),
        ("show", "print the open session's commitment, roll count and age", cmd_show),
        ("close", "reveal the open session's seed into the roll log", cmd_close),
    ):
        a = actions.add_parser(name, help=helptext)
        a.add_argument("dir", metavar="DIR", nargs="?", default=None,
                       help="the state directory (default: the tower's state directory)")
        a.add_argument("--json", action="store_true", help="print JSON")
        if name == "open":
            add_dice_options(a)
        a.set_defaults(func=func)


def _dir(args: argparse.Namespace) -> Path:
    if args.dir is None:
        return default_state_dir()
    return check_state_dir(args.dir, "DIR")


def _age(opened_ns: int, now_ns: int) -> str:
    minutes = max(0, now_ns - opened_ns) // 60_000_000_000
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _opened(opened_ns: int) -> str:
    return datetime.fromtimestamp(opened_ns / 1e9, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def cmd_open(args: argparse.Namespace) -> int:
    if args.seed is not None:
        raise ParameterError("seed", "a session a player can trust is seeded from entropy, not from --seed")
    if args.mix is not None:
        raise ParameterError("mix", "--mix goes with each roll (dicetower roll --mix TEXT), not with the session")
    directory = _dir(args)
    with state_lock(directory):
        stored = session_file.load(directory)
        if stored is not None:
            raise ParameterError("DIR", f"a session is already open in {directory} (#{stored.id[:8]}, "
                                        f"{stored.rolls} roll(s)); close it first: dicetower session close {directory}")
        dice = open_dice(args.entropy or "auto", log=RollLog(directory / LOG_NAME))
        dice.commitment  # noqa: B018  # opens the session: entropy read, session entry logged
        opened = dice.export()
        if opened is None:  # cannot happen: a session was just opened
            raise ParameterError("DIR", "no session could be opened")
        session_file.save(directory, opened)
    if args.json:
        out(json.dumps(_describe(directory, opened)))
        return 0
    out(f"session #{opened.id[:8]} open in {directory} (seeded from {', '.join(opened.sources)})")
    out(f"commitment {opened.commitment}")
    out(terminal_qr(opened.commitment), end="")
    out("Note or photograph the commitment now, before the first roll. Roll with "
          f"dicetower roll SYSTEM ... --state-dir {directory}; dicetower session close {directory} reveals the seed.")
    return 0


def _describe(directory: Path, stored: session_file.StoredSession, now_ns: int | None = None) -> dict:
    now_ns = time.time_ns() if now_ns is None else now_ns
    return {"state_dir": str(directory), "session": stored.id, "commitment": stored.commitment,
            "rolls": stored.rolls, "opened": _opened(stored.opened_ns),
            "age_seconds": max(0, now_ns - stored.opened_ns) // 1_000_000_000, "sources": list(stored.sources),
            "credited_bits": stored.credited_bits}


def _no_session(directory: Path, as_json: bool) -> int:
    if as_json:
        out(json.dumps({"state_dir": str(directory), "session": None}))
    say(f"dicetower: no session open in {directory} (dicetower session open {directory} opens one)")
    return EXIT_NO_SESSION


def cmd_show(args: argparse.Namespace) -> int:
    """Showing never writes: no lock is taken (the session file is replaced atomically, so it
    is read whole, old or new) and nothing is created, so it works on a read-only card."""
    directory = _dir(args)
    stored = session_file.load(directory)
    if stored is None:
        return _no_session(directory, args.json)
    now = time.time_ns()
    if args.json:
        out(json.dumps(_describe(directory, stored, now)))
        return 0
    out(f"session #{stored.id[:8]} open in {directory}")
    out(f"commitment {stored.commitment}")
    out(f"rolls      {stored.rolls}")
    out(f"opened     {_opened(stored.opened_ns)} ({_age(stored.opened_ns, now)} ago), "
          f"seeded from {', '.join(stored.sources)}")
    out(terminal_qr(stored.commitment), end="")
    return 0


def cmd_close(args: argparse.Namespace) -> int:
    directory = _dir(args)
    with state_lock(directory):
        stored = session_file.load(directory)
        if stored is None:
            return _no_session(directory, args.json)
        dice = open_dice(log=RollLog(directory / LOG_NAME), resume=stored)
        seed = dice.reveal()
        session_file.remove(directory)
    if args.json:
        out(json.dumps({**_describe(directory, stored), "seed": seed}))
        return 0
    out(f"session #{stored.id[:8]} revealed after {stored.rolls} roll(s); its seed is in {directory / LOG_NAME}")
    out(f"commitment {stored.commitment}")
    out(f"seed       {seed}")
    out(f"check every roll: dicetower replay {directory} (or tools/verify_rolls.py {directory / LOG_NAME})")
    return 0
