"""``dicetower session open|seed|show|close [DIR]``: the state directory's one open session.

``open`` gathers entropy, commits (the ``session`` entry goes into DIR's roll log) and prints
the commitment, in hex and as a QR code, for the players to note before anyone rolls.
``seed DIR TEXT`` sets the session's table seed, text the players choose after seeing the
commitment and before the first roll: every roll of the session depends on it, and nothing
the device measures after the commitment does. Every ``dicetower roll --state-dir DIR`` (and a
tower running on DIR) rolls in this session, each roll starting where the last ended. ``show``
prints the commitment, the table seed, the roll count and the age; ``close`` reveals the seed
into the log and prints what the players should note (commitment, table seed, roll count and
the log's head hash, with a QR code of them), after which ``dicetower replay DIR`` recomputes
every roll. The session's secret waits in ``DIR/open-sessions/ID.json``, mode 0600.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.errors import ParameterError
from engine.fingerprints import SHORT_DIGITS, reveal_card
from engine.seeds import check_table_seed
from hardware.cli.dice_source import add_dice_options
from hardware.cli.output import out, say
from hardware.display.qr import terminal_qr, terminal_qr_text
from hardware.entropy import SessionDice, open_dice
from hardware.files.locking import state_lock
from hardware.files.rolllog import RollLog
from hardware.files.state import LOG_NAME, check_state_dir, default_state_dir
from hardware.session.open_sessions import Joined, OpenSessions

EXIT_NO_SESSION = 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("session", help="open, seed, show or close the session rolls commit to (commit and reveal)")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    for name, helptext, func in (
        ("open", "commit to a new session and print its commitment (hex and QR code)", cmd_open),
        ("seed", "set the open session's table seed (before its first roll)", cmd_seed),
        ("show", "print the open session's commitment, table seed, roll count and age", cmd_show),
        ("close", "reveal the open session's seed into the roll log", cmd_close),
    ):
        a = actions.add_parser(name, help=helptext)
        a.add_argument("dir", metavar="DIR", nargs=None if name == "seed" else "?", default=None,
                       help="the state directory" + ("" if name == "seed" else " (default: the tower's)"))
        if name == "seed":
            a.add_argument("text", metavar="TEXT",
                           help="the table seed: 1 to 64 printable ASCII characters the players choose, e.g. 417302")
        a.add_argument("--json", action="store_true", help="print JSON")
        if name == "open":
            add_dice_options(a)
        a.set_defaults(func=func, reads_only=name == "show")  # show reads only: never "cannot record"


def _dir(args: argparse.Namespace) -> Path:
    if args.dir is None:
        return default_state_dir()
    return check_state_dir(args.dir, "DIR")


def _age(opened_ns: int, now_ns: int) -> str:
    minutes = max(0, now_ns - opened_ns) // 60_000_000_000
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _opened(opened_ns: int) -> str:
    return datetime.fromtimestamp(opened_ns / 1e9, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _note(message: str) -> None:
    say(f"dicetower: note: {message}")


def _joined(directory: Path, owner: str = "command") -> tuple[SessionDice | None, OpenSessions]:
    """Dice in the directory's open session (None when none is open: the keeper says whether
    one was ended as damaged on the way); the caller holds the lock."""
    log = RollLog(directory / LOG_NAME)
    keeper = OpenSessions(directory, owner=owner, log=_note)
    joined = keeper.joinable(log)
    if joined is None:
        return None, keeper
    dice = open_dice(log=log, keeper=keeper)
    dice.commitment  # noqa: B018  # joins it (nothing is gathered for a session that is open)
    return dice, keeper


def cmd_open(args: argparse.Namespace) -> int:
    if args.seed is not None:
        raise ParameterError("seed", "a session a player can trust is seeded from entropy, not from --seed")
    if args.mix is not None:
        raise ParameterError("mix", "--mix goes with each roll (dicetower roll --mix TEXT), not with the session")
    directory = _dir(args)
    with state_lock(directory):
        log = RollLog(directory / LOG_NAME)
        keeper = OpenSessions(directory, owner="open", log=_note)
        joined = keeper.joinable(log)
        if joined is not None:
            s = joined.stored
            raise ParameterError("DIR", f"a session is already open in {directory} (#{s.id[:8]}, opened by "
                                        f"{_who(s.owner.kind)}, {joined.progress.rolls} roll(s)); one session at a "
                                        f"time: roll in it, or close it first: dicetower session close {directory}")
        dice = open_dice(args.entropy or "auto", log=log, keeper=keeper)
        dice.commitment  # noqa: B018  # opens the session: entropy read, kept, session entry logged
        info = _describe(directory, dice.describe())
    if args.json:
        out(json.dumps(info))
        return 0
    out(f"session #{info['session'][:8]} open in {directory} (seeded from {', '.join(info['sources'])})")
    out(f"commitment {info['commitment']}")
    out(terminal_qr(info["commitment"]), end="")
    out("Note or photograph the commitment now, before the code: a session counts only if its commitment was "
        f"noted first. Then the players choose a new code (dicetower session seed {directory} CODE; one code, one "
        f"session) before the first roll; roll with dicetower roll SYSTEM ... --state-dir {directory}; "
        f"dicetower session close {directory} reveals the seed.")
    return 0


def _who(kind: str) -> str:
    return {"tower": "the tower", "open": "dicetower session open", "command": "a roll command"}.get(kind, kind)


def _describe(directory: Path, info: Mapping[str, Any], now_ns: int | None = None) -> dict[str, Any]:
    """What ``show``, ``seed``, ``open`` and ``close`` print of a session (``info``: the
    dice's :meth:`~hardware.entropy.SessionDice.describe`, or :func:`_kept_info`)."""
    now_ns = time.time_ns() if now_ns is None else now_ns
    opened = int(info.get("opened_ns", now_ns))
    return {"state_dir": str(directory), "session": info["session"], "commitment": info["commitment"],
            "table_seed": info.get("table_seed"), "rolls": info["rolls"], "opened": _opened(opened),
            "age_seconds": max(0, now_ns - opened) // 1_000_000_000, "sources": list(info["sources"]),
            "credited_bits": info.get("credited_bits"), "opened_by": info.get("opened_by")}


def _kept_info(joined: Joined) -> dict[str, Any]:
    """:func:`_describe`'s ``info`` of a kept session read without joining it (``show``)."""
    stored, progress = joined.stored, joined.progress
    return {"session": stored.id, "commitment": stored.commitment, "rolls": progress.rolls,
            "sources": list(stored.sources), "credited_bits": stored.credited_bits,
            "table_seed": progress.table_seed, "opened_ns": stored.opened_ns, "opened_by": stored.owner.kind}


def _no_session(directory: Path, as_json: bool) -> int:
    if as_json:
        out(json.dumps({"state_dir": str(directory), "session": None}))
    say(f"dicetower: no session open in {directory} (dicetower session open {directory} opens one)")
    return EXIT_NO_SESSION


def cmd_seed(args: argparse.Namespace) -> int:
    directory = _dir(args)
    text = check_table_seed(args.text)  # a mistake is one line before anything is touched
    with state_lock(directory):
        dice, _ = _joined(directory)
        if dice is None:
            raise ParameterError("DIR", f"no session open in {directory}: open one first (dicetower session open "
                                        f"{directory}), note its commitment, then set its table seed")
        entry = dice.set_table_seed(text)
        info = _describe(directory, dice.describe())
        dice.close()  # joined: stays open
    if args.json:
        out(json.dumps({**info, "entry": str(entry.get("hash", ""))[:SHORT_DIGITS]}))
        return 0
    out(f"table seed {text!r} set for session #{info['session'][:8]} in {directory} "
        f"(entry {str(entry.get('hash', ''))[:SHORT_DIGITS]})")
    out(f"commitment {info['commitment']}")
    out("Every roll of this session now depends on it. Note it beside the commitment; the check: "
        f"dicetower replay {directory} --expect {info['commitment'][:SHORT_DIGITS]} --table-seed {_quoted(text)}")
    return 0


def _quoted(text: str) -> str:
    import shlex

    return shlex.quote(text)


def cmd_show(args: argparse.Namespace) -> int:
    """Showing never writes: no lock is taken and nothing is created, moved or revealed (the
    kept files are replaced atomically, so each is read whole, old or new; the log is only
    appended to), so it works on a read-only card. An earlier version's ``session.json`` is
    shown where it is (the next writer moves it in)."""
    directory = _dir(args)
    joined = OpenSessions(directory, owner="command", log=_note).showable()
    if joined is None:
        return _no_session(directory, args.json)
    info = _describe(directory, _kept_info(joined))
    now = time.time_ns()
    if args.json:
        out(json.dumps(info))
        return 0
    out(f"session #{info['session'][:8]} open in {directory} (opened by {_who(str(info['opened_by']))})")
    out(f"commitment {info['commitment']}")
    out(f"table seed {info['table_seed'] if info['table_seed'] is not None else '(none yet)'}")
    out(f"rolls      {info['rolls']}")
    out(f"opened     {info['opened']} ({_age(now - info['age_seconds'] * 1_000_000_000, now)} ago), "
        f"seeded from {', '.join(info['sources'])}")
    out(terminal_qr(info["commitment"]), end="")
    return 0


def cmd_close(args: argparse.Namespace) -> int:
    directory = _dir(args)
    with state_lock(directory):
        dice, keeper = _joined(directory)
        if dice is None and keeper.damaged:  # ended as damaged (said): no seed to reveal, no card
            if args.json:
                out(json.dumps({"state_dir": str(directory), "session": keeper.damaged[-1].session,
                                "damaged": keeper.damaged[-1].why, "rolls": keeper.damaged[-1].rolls}))
            return EXIT_NO_SESSION
        if dice is None:
            return _no_session(directory, args.json)
        info = _describe(directory, dice.describe())
        seed = dice.reveal()  # with the rolls the log holds: the dice followed the log first
        reveal = dice.last_reveal_entry or {}
    head = str(reveal.get("hash", ""))
    rolls = reveal.get("rolls", info["rolls"])
    card = reveal_card(info["commitment"], info["table_seed"], rolls, head)
    if args.json:
        out(json.dumps({**info, "rolls": rolls, "head": head, "seed": seed}))
        return 0
    out(f"session #{info['session'][:8]} revealed after {rolls} roll(s); its seed is in {directory / LOG_NAME}")
    out("\n".join(card.splitlines()[1:]))
    out(f"seed       {seed}")
    out(terminal_qr_text(card), end="")
    out(f"Note or photograph these. Check every roll: dicetower replay {directory} --expect "
        f"{info['commitment'][:SHORT_DIGITS]} --expect {head}"
        + (f" --table-seed {_quoted(info['table_seed'])}" if info["table_seed"] is not None else "")
        + " --all-revealed (the commitment as you noted it before the code; "
        + f"or tools/verify_rolls.py {directory / LOG_NAME} with the same options)")
    return 0
