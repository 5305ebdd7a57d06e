"""A log and the players' notes as plain data in, the verdict and each roll as the OLED showed it
out: what the phone page (Pyodide) and any other reader of text call.

:class:`Night` wraps the :class:`~engine.verify.Verifier` for a caller that holds the log as
text, a line at a time (a file picked on the phone, the tower's event stream): :meth:`Night.add`
takes lines as they come, :meth:`Night.view` gives everything a page shows as JSON-ready
values: each roll (its number, fingerprint, the result screen's first line, dice, outcome,
and ``ok`` or the first problem at it in the verifier's words), every problem, the flags, the
sessions as their cards show them, and the verdict (``pass`` or ``fail: CODE``). Notes come as
the mapping :func:`notes_from` reads (the keys are the checkers' options).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from engine.chain import StoredEntry, parse_line
from engine.fingerprints import FINGERPRINT_HEX
from engine.verify.report import Finding, Notes, ReplayReport
from engine.verify.rolls import screen_line
from engine.verify.verifier import Verifier

__all__ = ["NOTE_KEYS", "Night", "check_text", "notes_from", "verdict"]

#: The keys :func:`notes_from` reads, as the checkers' options name them.
NOTE_KEYS = ("expect", "table_seed", "allow_mix", "allow_entered", "allow_command_line", "card", "count")


def notes_from(data: Mapping[str, Any] | None) -> Notes:
    """What the players noted, from plain data: ``expect``, ``table_seed``, ``allow_mix`` and
    ``card`` are lists of text, ``allow_entered`` and ``allow_command_line`` whole numbers,
    ``count`` a whole number or absent. ``ValueError`` naming the key for anything else."""
    data = dict(data or {})
    unknown = sorted(set(data) - set(NOTE_KEYS))
    if unknown:
        raise ValueError(f"notes: unknown key {unknown[0]!r}; the keys are {', '.join(NOTE_KEYS)}")

    def texts(key: str) -> list[str]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"notes: {key} must be a list of text, got {value!r}")
        return [v for v in value if v.strip()]

    def whole(key: str, default: int | None) -> int | None:
        value = data.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"notes: {key} must be a whole number from 0, got {value!r}")
        return value

    return Notes.of(texts("expect"), texts("table_seed"), texts("allow_mix"), whole("allow_entered", 0) or 0,
                    allow_command_line=whole("allow_command_line", 0) or 0, cards=texts("card"),
                    count=whole("count", None))


def verdict(problems: Iterable[Finding]) -> str:
    """``pass``, or ``fail: CODE`` naming the first problem's code."""
    first = next(iter(problems), None)
    return "pass" if first is None else f"fail: {first.code}"


class Night:
    """A log being checked as it arrives, with what the players noted."""

    def __init__(self, notes: Notes | None = None, *, all_revealed: bool = False) -> None:
        self.notes = notes if notes is not None else Notes()
        self.all_revealed = all_revealed
        self._verifier = Verifier(notes=self.notes)
        self._line = 0
        self._rolls: list[dict[str, Any]] = []  # each roll entry as a row, in log order
        self._numbers: dict[str, int] = {}  # session -> rolls so far
        self._verified: set[int] = set()  # the entries of the rolls verified so far

    def add(self, lines: Iterable[str]) -> None:
        """The log's next lines (a last line without its newline is a torn one, as on disk)."""
        for raw in lines:
            self._line += 1
            data = raw.encode("utf-8", "replace")
            entry = parse_line(data)
            step = self._verifier.feed(StoredEntry(self._line, data, entry, True))
            self._verified.update(step.verified)
            if entry is not None and entry.get("kind") == "roll":
                self._rolls.append(self._row(entry))

    def _row(self, e: dict[str, Any]) -> dict[str, Any]:
        raw = e.get("result")
        result: dict[str, Any] = raw if isinstance(raw, dict) else {}
        sid = e.get("session")
        number = None
        if isinstance(sid, str):
            number = self._numbers[sid] = self._numbers.get(sid, 0) + 1
        dice = result.get("dice")
        return {"entry": self._line, "session": sid if isinstance(sid, str) else None, "number": number,
                "fingerprint": str(e.get("hash", ""))[:FINGERPRINT_HEX], "screen": screen_line(result),
                "system": str(result.get("system", "")), "outcome": str(result.get("outcome", "")),
                "dice": [str(d) for d in dice] if isinstance(dice, list) else [],
                "source": str(e.get("source") or "command line"), "kind": str(e.get("roll_kind", ""))}

    def report(self) -> tuple[ReplayReport, list[Finding]]:
        report = self._verifier.report("-")
        problems = list(report.problems)
        if self.all_revealed:
            problems += [Finding(o.line_no, f"session {o.session} is still open ({o.rolls} roll(s) unchecked)",
                                 "open-session") for o in report.open_sessions]
            problems.sort(key=lambda f: f.line_no)
        return report, problems

    def view(self) -> dict[str, Any]:
        """Everything the page shows, as JSON values (see the module docstring)."""
        report, problems = self.report()
        at = {p.line_no: p for p in reversed(problems)}  # the first problem at each entry
        verified = self._verified
        rows = []
        for row in self._rolls:
            problem = at.get(row["entry"])
            state = "problem" if problem else "verified" if row["entry"] in verified else \
                "typed in" if row["session"] is None else "unchecked"
            rows.append({**row, "state": state, "problem": str(problem) if problem else ""})
        return {"verdict": verdict(problems), "entries": report.entries, "head": report.head,
                "rolls": rows, "problems": [{"entry": p.line_no, "code": p.code, "message": p.message, "text": str(p)}
                                            for p in problems],
                "flags": [{"entry": f.line_no, "code": f.code, "message": f.message} for f in report.flags],
                "sessions": [{"session": f.session, "commitment": f.commitment, "table_seed": f.table_seed,
                              "rolls": f.rolls, "head": f.head, "night": f.night} for f in report.facts],
                "noted": [str(r) for r in report.noted_rolls], "notes": list(report.notes),
                "counts": {"verified": report.rolls_verified, "open": report.rolls_open,
                           "entered": report.rolls_entered, "test": report.rolls_test},
                "night_rolls": report.night_rolls, "player_mode": self.notes.player_mode}


def check_text(text: str, notes: Mapping[str, Any] | None = None, *, all_revealed: bool = False) -> str:
    """A whole log (its text) and notes (plain data) in, :meth:`Night.view` out as JSON text:
    the one call the phone page makes for a log it holds whole."""
    night = Night(notes_from(notes), all_revealed=all_revealed)
    night.add(text.splitlines())
    return json.dumps(night.view())
