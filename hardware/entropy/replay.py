"""Replay a roll log: recompute every logged roll from its session's revealed seed.

For each session the log holds the commitment (before any roll), the rolls (each with its
mix, the generate calls it used and its kind) and, when the session ends, the revealed seed
material with the number of rolls and the generate call where the session ended. The replay
checks the seed against the commitment, rebuilds the session's DRBG, and for every roll in
order checks that it starts exactly where the previous one ended, recomputes it with the
logged parameters and mix, and compares the whole result and the end (a parameter added by a
later version, absent from an older entry, is accepted at its default); at the reveal it checks
the roll count and the end. The hash chain is checked too (:func:`hardware.rolllog.verify`).

Only ``rolled`` rolls of revealed random sessions count as verified; typed-in rolls
(``entered``), ``--seed`` sessions (``test``) and rolls of sessions still open are counted
apart. The kind is derived from the log's content (a ``--seed`` seed, a typed-in winners
set), not only from the label, and a label that claims more than the content is a problem.

The log is read twice (chain, then rolls), each time as a stream: a session's rolls are held
until its reveal (at most ``SESSION_ROLLS`` of them), then recomputed and dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from engine.results import to_jsonable
from engine.systems import get
from hardware.entropy.seed import BLOCK_BYTES, RollStream, SeedMaterial
from hardware.entropy.session import ROLL_KINDS, SESSION_ROLLS, STREAM_VERSION
from hardware.rolllog import StoredEntry, read_entries, verify_entries

__all__ = ["ENTERED_PARAMS", "Finding", "ReplayReport", "replay_entries", "replay_log"]

#: Parameters that, when given, make a roll's outcome typed in rather than drawn.
ENTERED_PARAMS = ("winners_set",)


@dataclass(frozen=True)
class Finding:
    """A problem found at one log entry (1-based line number)."""

    line_no: int
    message: str

    def __str__(self) -> str:
        return f"entry {self.line_no}: {self.message}"


@dataclass(frozen=True)
class OpenSession:
    """A session with no reveal (yet): its rolls cannot be checked."""

    session: str
    line_no: int
    rolls: int


@dataclass(frozen=True)
class ReplayReport:
    path: Path
    entries: int
    sessions: int
    revealed: int
    rolls_verified: int
    rolls_entered: int
    rolls_test: int
    rolls_open: int
    open_sessions: tuple[OpenSession, ...]
    problems: tuple[Finding, ...]
    notes: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    # the names of the first version of this report (the board reads them)
    @property
    def rolls_checked(self) -> int:
        return self.rolls_verified

    @property
    def rolls_unrevealed(self) -> int:
        return self.rolls_open

    @property
    def rolls_typed(self) -> int:
        return self.rolls_entered

    def to_dict(self) -> dict[str, Any]:
        return {
            "log": str(self.path), "entries": self.entries, "sessions": self.sessions, "revealed": self.revealed,
            "rolls": {"verified": self.rolls_verified, "entered": self.rolls_entered, "test": self.rolls_test,
                      "open": self.rolls_open},
            "rolls_checked": self.rolls_verified, "rolls_unrevealed": self.rolls_open,
            "rolls_typed": self.rolls_entered, "ok": self.ok,
            "open_sessions": [{"session": o.session, "entry": o.line_no, "rolls": o.rolls}
                              for o in self.open_sessions],
            "problems": [{"entry": p.line_no, "message": p.message} for p in self.problems],
            "notes": list(self.notes),
        }


@dataclass
class _Session:
    sid: str
    line_no: int
    commitment: str
    block_bytes: int
    rolls: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    overflow: bool = False


@dataclass
class _Tally:
    verified: int = 0
    entered: int = 0
    test: int = 0
    revealed: int = 0
    problems: list[Finding] = field(default_factory=list)

    def problem(self, line_no: int, message: str) -> None:
        self.problems.append(Finding(line_no, message))


def replay_log(path: str | Path) -> ReplayReport:
    """Check every roll in the log at ``path``; see the module docstring."""
    path = Path(path)
    return replay_entries(lambda: read_entries(path), path)


def replay_entries(entries: Callable[[], Iterable[StoredEntry]], path: str | Path = "-") -> ReplayReport:
    """:func:`replay_log` on entries from anywhere (a file, a broker's stream). ``entries``
    gives a fresh iterable of the log's entries, in order, each time it is called."""
    path = Path(path)
    tally = _Tally()
    chain = verify_entries(entries(), path)
    if chain.problem is not None:
        tally.problem(chain.problem.line_no, "hash chain broken: " + chain.problem.message)
    open_: dict[str, _Session] = {}
    closed: set[str] = set()
    count = 0
    for stored in entries():
        count += 1
        if stored.entry is not None:
            _take(stored.line_no, stored.entry, open_, closed, tally)
    still_open = tuple(OpenSession(s.sid, s.line_no, len(s.rolls)) for s in open_.values())
    notes = [f"session {o.session} (entry {o.line_no}) is still open: its {o.rolls} roll(s) are not checked "
             "until it is revealed" for o in still_open]
    tally.problems.sort(key=lambda f: f.line_no)
    return ReplayReport(path, count, len(open_) + len(closed), tally.revealed, tally.verified, tally.entered,
                        tally.test, sum(o.rolls for o in still_open), still_open, tuple(tally.problems), tuple(notes))


def _take(line_no: int, e: dict[str, Any], open_: dict[str, _Session], closed: set[str], tally: _Tally) -> None:
    """One entry of the log: start, extend or close (and replay) a session."""
    kind, sid = e.get("kind"), e.get("session")
    if kind == "session":
        _start(line_no, e, open_, closed, tally)
        return
    if kind == "roll" and sid is None:
        if e.get("roll_kind") != "entered":
            tally.problem(line_no, "a roll outside any session must be an entered (typed-in) roll, this one is "
                                   f"labelled {e.get('roll_kind')!r}")
        tally.entered += 1
        return
    if kind not in ("roll", "reveal"):
        return
    s = open_.get(str(sid))
    if s is None:
        when = "after that session was revealed" if str(sid) in closed else "for a session that was never started"
        tally.problem(line_no, f"{kind} of session {sid} {when}")
        return
    if kind == "roll":
        if len(s.rolls) >= SESSION_ROLLS:
            if not s.overflow:
                tally.problem(line_no, f"session {sid} has more than {SESSION_ROLLS} rolls; a session is revealed "
                                       f"after {SESSION_ROLLS}")
            s.overflow = True
            return
        s.rolls.append((line_no, e))
        return
    del open_[s.sid]
    closed.add(s.sid)
    _replay_session(s, line_no, e, tally)


def _start(line_no: int, e: dict[str, Any], open_: dict[str, _Session], closed: set[str], tally: _Tally) -> None:
    sid = str(e.get("session"))
    if sid in open_ or sid in closed:
        tally.problem(line_no, f"session {sid} started twice")
        return
    block = e.get("block_bytes", BLOCK_BYTES)
    if isinstance(block, bool) or not isinstance(block, int) or not 1 <= block <= 65536:
        tally.problem(line_no, f"session {sid} has a bad block size {block!r}")
        return
    if e.get("stream") != STREAM_VERSION:
        tally.problem(line_no, f"session {sid} uses stream format {e.get('stream', 1)!r}, not {STREAM_VERSION}: "
                               "written by an older dicetower whose rolls took no player input; not verifiable")
        return
    open_[sid] = _Session(sid, line_no, str(e.get("commitment")), block)


def _replay_session(s: _Session, line_no: int, reveal: dict[str, Any], tally: _Tally) -> None:
    tally.revealed += 1
    try:
        material = SeedMaterial.from_hex(str(reveal.get("seed", "")))
    except ValueError as exc:
        tally.problem(line_no, f"session {s.sid}: the revealed seed cannot be read ({exc})")
        return
    if material.commitment != s.commitment or s.commitment[:16] != s.sid:
        tally.problem(line_no, f"session {s.sid}: the revealed seed does not match the commitment published in "
                               f"entry {s.line_no}")
        return
    if reveal.get("rolls") != len(s.rolls):
        tally.problem(line_no, f"session {s.sid}: the reveal counts {reveal.get('rolls')!r} roll(s), the log "
                               f"holds {len(s.rolls)}")
    stream = RollStream(material, block_bytes=s.block_bytes)
    for i, (roll_line, entry) in enumerate(s.rolls):
        problem = _check_roll(stream, material, entry)
        if problem is not None:
            later = len(s.rolls) - i - 1
            tally.problem(roll_line, problem + (f"; the session's {later} later roll(s) are not checked" if later
                                                else ""))
            return  # the DRBG may no longer be where the log says: later rolls prove nothing
        kind = _kind(material, entry)
        if kind == "rolled":
            tally.verified += 1
        elif kind == "test":
            tally.test += 1
        else:
            tally.entered += 1
    if reveal.get("end") != stream.blocks:
        tally.problem(line_no, f"continuity: session {s.sid} reveal says it ended at generate call "
                               f"{reveal.get('end')!r}, its last roll ended at {stream.blocks}")


def _kind(material: SeedMaterial, entry: dict[str, Any]) -> str:
    """What the roll really is, from its content (the label is checked against this)."""
    params = (entry.get("result") or {}).get("params") or {}
    if any(params.get(p) for p in ENTERED_PARAMS):
        return "entered"
    return "test" if material.is_test else "rolled"


def _check_roll(stream: RollStream, material: SeedMaterial, entry: dict[str, Any]) -> str | None:
    start, end, logged, mix = entry.get("start"), entry.get("end"), entry.get("result"), entry.get("mix")
    if not isinstance(start, int) or not isinstance(end, int) or not isinstance(logged, dict) \
            or not isinstance(mix, str):
        return "roll entry is malformed (start, end, mix or result missing)"
    if start != stream.blocks:
        how = "skipped" if start > stream.blocks else "used twice"
        return (f"continuity: roll starts at generate call {start}, the previous roll ended at {stream.blocks} "
                f"(calls {how}: a dropped, moved or re-drawn roll)")
    system = logged.get("system")
    try:
        spec = get(str(system))
        params = spec.resolve(logged.get("params") or {})
        dice = stream.begin(bytes.fromhex(mix))
        replayed = _as_logged(spec, logged, json.loads(json.dumps(spec.roll(dice, params).to_dict())))
    except (EngineError, ValueError, TypeError, KeyError) as exc:
        return f"cannot replay the {system} roll: {exc}"
    if replayed != logged:
        return f"{system} roll does not match the revealed seed: {_difference(logged, replayed)}"
    if stream.blocks != end:
        return f"continuity: {system} roll used generate calls {start}..{stream.blocks}, the log says {start}..{end}"
    return _check_label(entry.get("roll_kind"), _kind(material, entry))


def _as_logged(spec: Any, logged: dict[str, Any], replayed: dict[str, Any]) -> dict[str, Any]:
    """``replayed`` without the parameters a later dicetower added that the entry's writer did
    not know, where they hold their default: an older entry lacks them, and the default is the
    rule that writer rolled by (a new parameter must default to the old behaviour). A parameter
    the entry has, or one set to anything but its default, is compared as it is."""
    old = logged.get("params")
    new = replayed.get("params")
    if not isinstance(old, dict) or not isinstance(new, dict):
        return replayed
    known = {p.name: p for p in spec.params}
    added = [name for name, value in new.items()
             if name not in old and name in known and not known[name].required
             and value == json.loads(json.dumps(to_jsonable(known[name].default)))]
    if not added:
        return replayed
    return {**replayed, "params": {k: v for k, v in new.items() if k not in added}}


def _check_label(label: Any, kind: str) -> str | None:
    if label not in ROLL_KINDS:
        return f"roll kind {label!r} is not one of {', '.join(ROLL_KINDS)}"
    if label == kind:
        return None
    why = {"test": " (the session's seed is a --seed test seed)", "entered": " (its winners were typed in)"}
    return f"labelled {label} but it is {kind}{why.get(kind, '')}"


def _difference(logged: dict[str, Any], replayed: dict[str, Any]) -> str:
    for key in ("dice", *logged.keys(), *replayed.keys()):
        if logged.get(key) != replayed.get(key):
            return f"{key} logged {json.dumps(logged.get(key))}, replay gives {json.dumps(replayed.get(key))}"
    return "results differ"
