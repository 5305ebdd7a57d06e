"""``dicetower log verify|show``: check the roll log's hash chain, and read it.

The log is named like ``replay`` names it: a state directory or a log file as the positional
``DIR`` (``--state-dir DIR`` and ``--file LOG`` still work), else the default state directory.
Both read every file of the log (rotated ones first) one line at a time, in constant memory.

``verify`` exits 0 when every entry chains to the one before; 1 naming the first bad entry
(edited, dropped, reordered, or a torn last line); 2 when there is no log to check; 4 when it
cannot be read (docs/roll-log.md).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine.errors import ParameterError
from engine.params import whole_number
from hardware.cli.output import out, say
from hardware.files.rolllog import StoredEntry, chain_files, last_lines, read_entries, verify
from hardware.files.state import LOG_NAME, default_state_dir

EXIT_BAD_LOG = 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("log", help="check and read the roll log (hash chain)")
    actions = p.add_subparsers(dest="log_action", metavar="ACTION")
    actions.required = True
    v = actions.add_parser("verify", help="check that no entry was edited, dropped or reordered")
    _where(v)
    v.add_argument("--json", action="store_true", help="print the result as JSON")
    v.set_defaults(func=cmd_verify, reads_only=True)
    s = actions.add_parser("show", help="print the log's entries, one a line")
    _where(s)
    s.add_argument("--last", metavar="N", help="only the last N entries")
    s.add_argument("--json", action="store_true", help="print the stored JSON lines as they are")
    s.set_defaults(func=cmd_show, reads_only=True)


def _where(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", nargs="?", help="a state directory, or a roll log file (default: "
                        "$DICETOWER_STATE_DIR, $STATE_DIRECTORY or ~/.local/state/dicetower)")
    parser.add_argument("--state-dir", metavar="DIR", help="the state directory holding rolls.jsonl")
    parser.add_argument("--file", metavar="LOG", help="this log file")


def log_path(args: argparse.Namespace) -> Path:
    given = [(name, value) for name, value in (("DIR", args.dir), ("state-dir", args.state_dir),
                                               ("file", args.file)) if value is not None]
    if len(given) > 1:
        raise ParameterError(given[1][0], "give one of DIR, --state-dir DIR or --file LOG")
    option, value = given[0] if given else ("state-dir", None)
    return find_log(value, option, directory=option == "state-dir")


def find_log(value: str | None, option: str, *, directory: bool = False) -> Path:
    """The roll log a command names: a state directory (its ``rolls.jsonl``) or a log file,
    ``value`` read by :func:`hardware.files.paths.user_path` (None: the default state directory,
    named in messages by where it came from: ``$DICETOWER_STATE_DIR``, ...). A log that is not
    there at all is a :class:`ParameterError` naming ``option`` (exit 2); one that is there but
    cannot be read, or a directory that cannot be listed, is the reader's
    :class:`~hardware.files.rolllog.LogError` (exit 4), so a FIFO or a link planted as
    ``rolls.jsonl`` is refused, never read."""
    from hardware.files.paths import option_path
    from hardware.files.rolllog import read_error

    if value is not None and not value.strip():
        raise ParameterError(option, f"is empty ({value!r}); name a directory or a log file")
    if value is None:
        option = default_source()
    path = option_path(value, option) if value is not None else default_state_dir()
    try:
        if directory or path.is_dir():
            path = path / LOG_NAME
        files = chain_files(path)
    except OSError as exc:  # a state directory this user cannot list: the log cannot be read
        raise read_error(exc, path) from None
    if not files:
        raise ParameterError(option, f"no roll log at {path}", flag=value is not None)
    return path


def default_source() -> str:
    """Where the default state directory comes from, as messages name it."""
    import os

    for name in ("DICETOWER_STATE_DIR", "STATE_DIRECTORY"):
        if os.environ.get(name):
            return f"${name}"
    return "the default state directory"


def cmd_verify(args: argparse.Namespace) -> int:
    path = log_path(args)
    report = verify(path)
    if args.json:
        out(json.dumps({
            "log": str(path), "ok": report.ok, "entries": report.entries, "head": report.head,
            "files": [str(p) for p in chain_files(path)],
            "problem": None if report.problem is None else {"entry": report.problem.line_no,
                                                             "message": report.problem.message},
        }))
    elif report.ok:
        files = len(chain_files(path))
        more = f" in {files} files" if files > 1 else ""
        out(f"roll log {path}: {report.entries} entries{more}, chain intact; head {report.head}")
    if report.problem is not None:
        say(f"dicetower: roll log {path}: {report.problem}")
        return EXIT_BAD_LOG
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Every entry, or the last N: a ring of N line offsets, never N entries, is kept
    (:func:`hardware.files.rolllog.last_lines`), so ``--last 1000000`` on a Pi stays small."""
    last = whole_number("last", args.last, 1, 10_000_000) if args.last is not None else None
    path = log_path(args)
    entries: Iterable[StoredEntry] = read_entries(path) if last is None else last_lines(path, last)
    for stored in entries:
        out(stored.raw.decode("utf-8", "replace") if args.json else describe(stored))
    return 0


def describe(stored: StoredEntry) -> str:
    """One line for an entry: its number, time, kind and what it says."""
    e = stored.entry
    if e is None or not stored.complete:
        return f"{stored.line_no:>6}  (not an entry: damaged or torn, {len(stored.raw)} bytes)"
    kind = str(e.get("kind"))
    head = f"{stored.line_no:>6}  {e.get('time', '?')}  {kind:<13}"
    return f"{head} {_SUMMARIES.get(kind, _other)(e)}".rstrip()


def _roll(e: dict[str, Any]) -> str:
    result = e["result"] if isinstance(e.get("result"), dict) else {}
    who = f"P{e['player']} " if e.get("player") is not None else ""
    where = "typed-in faces" if e.get("faces") else f"session {e.get('session')}"
    dice = result.get("dice")
    shown = f" dice {dice}" if dice else ""
    return f"{who}{result.get('system', '?')} {result.get('outcome', '?')}{shown} ({where})"


def _session(e: dict[str, Any]) -> str:
    sources = ", ".join(str(s.get("name")) for s in e.get("sources") or [] if isinstance(s, dict))
    return f"session {e.get('session')} commitment {e.get('commitment')} ({sources or e.get('mode')})"


def _reveal(e: dict[str, Any]) -> str:
    return f"session {e.get('session')} revealed after {e.get('rolls')} roll(s) ({e.get('reason')})"


def _other(e: dict[str, Any]) -> str:
    skip = {"seq", "prev", "hash", "kind", "time"}
    return " ".join(f"{k}={json.dumps(v)}" for k, v in sorted(e.items()) if k not in skip)[:200]


_SUMMARIES = {"roll": _roll, "session": _session, "reveal": _reveal}
