"""Replay a roll log: recompute every logged roll from its session's revealed seed.

For each session the log holds the commitment (before any roll), the additional input of
each DRBG block, the rolls with the stream offsets where each started and ended, and the
revealed seed material. The replay checks the seed against the commitment, rebuilds the
session's byte stream, rolls each logged system with the logged parameters from the logged
start offset, and compares the whole result (and the end offset) with the log. The hash
chain is checked too (:func:`hardware.rolllog.verify`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from engine.rng import DrbgDice
from engine.systems import get
from hardware.entropy.seed import BLOCK_BYTES, SeedMaterial, SessionStream
from hardware.rolllog import StoredEntry, read_entries, verify_entries

__all__ = ["Finding", "ReplayReport", "replay_entries", "replay_log"]


@dataclass(frozen=True)
class Finding:
    """A problem found at one log entry (1-based line number)."""

    line_no: int
    message: str

    def __str__(self) -> str:
        return f"entry {self.line_no}: {self.message}"


@dataclass(frozen=True)
class ReplayReport:
    path: Path
    entries: int
    sessions: int
    revealed: int
    rolls_checked: int
    rolls_unrevealed: int
    rolls_typed: int
    problems: tuple[Finding, ...]
    notes: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "log": str(self.path), "entries": self.entries, "sessions": self.sessions, "revealed": self.revealed,
            "rolls_checked": self.rolls_checked, "rolls_unrevealed": self.rolls_unrevealed,
            "rolls_typed": self.rolls_typed, "ok": self.ok,
            "problems": [{"entry": p.line_no, "message": p.message} for p in self.problems],
            "notes": list(self.notes),
        }


@dataclass
class _Session:
    line_no: int
    commitment: str
    block_bytes: int
    additional: dict[int, bytes] = field(default_factory=dict)
    rolls: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    reveal: tuple[int, dict[str, Any]] | None = None


def replay_log(path: str | Path) -> ReplayReport:
    """Check every roll in the log at ``path``; see the module docstring."""
    path = Path(path)
    return replay_entries(lambda: read_entries(path), path)


def replay_entries(entries: Callable[[], Iterable[StoredEntry]], path: str | Path = "-") -> ReplayReport:
    """:func:`replay_log` on entries from anywhere (a file, a broker's stream). ``entries``
    gives a fresh iterable of the log's entries, in order, each time it is called."""
    path = Path(path)
    problems: list[Finding] = []
    notes: list[str] = []
    chain = verify_entries(entries(), path)
    if chain.problem is not None:
        problems.append(Finding(chain.problem.line_no, "hash chain broken: " + chain.problem.message))
    sessions: dict[str, _Session] = {}
    typed = entries_seen = 0
    for stored in entries():
        entries_seen += 1
        e = stored.entry
        if e is None:
            continue
        kind, sid = e.get("kind"), e.get("session")
        if kind == "session":
            if sid in sessions:
                problems.append(Finding(stored.line_no, f"session {sid} started twice"))
                continue
            block = e.get("block_bytes", BLOCK_BYTES)
            if not isinstance(block, int) or block < 1:
                problems.append(Finding(stored.line_no, f"session {sid} has a bad block size {block!r}"))
                continue
            sessions[str(sid)] = _Session(stored.line_no, str(e.get("commitment")), block)
            continue
        if kind == "roll" and sid is None and e.get("faces"):
            typed += 1
            continue
        if kind not in ("roll", "additional", "reveal"):
            continue
        s = sessions.get(str(sid))
        if s is None:
            problems.append(Finding(stored.line_no, f"{kind} for session {sid}, which was never started"))
            continue
        if kind == "roll":
            s.rolls.append((stored.line_no, e))
        elif kind == "additional":
            try:
                s.additional[int(e["block"])] = bytes.fromhex(e["data"])
            except (KeyError, TypeError, ValueError):
                problems.append(Finding(stored.line_no, "additional input entry is malformed"))
        elif s.reveal is not None:
            problems.append(Finding(stored.line_no, f"session {sid} revealed twice"))
        else:
            s.reveal = (stored.line_no, e)
    checked = unrevealed = revealed = 0
    for sid, s in sessions.items():
        if s.reveal is None:
            unrevealed += len(s.rolls)
            notes.append(f"session {sid} (entry {s.line_no}) is not revealed yet: {len(s.rolls)} roll(s) unchecked")
            continue
        revealed += 1
        checked += _replay_session(sid, s, *s.reveal, problems)
    problems.sort(key=lambda f: f.line_no)
    return ReplayReport(path, entries_seen, len(sessions), revealed, checked, unrevealed, typed, tuple(problems),
                        tuple(notes))


def _replay_session(sid: str, s: _Session, line_no: int, reveal: dict[str, Any], problems: list[Finding]) -> int:
    try:
        material = SeedMaterial.from_hex(str(reveal.get("seed", "")))
    except ValueError as exc:
        problems.append(Finding(line_no, f"session {sid}: the revealed seed cannot be read ({exc})"))
        return 0
    if material.commitment != s.commitment:
        problems.append(Finding(
            line_no, f"session {sid}: the revealed seed does not match the commitment published in entry {s.line_no}"
        ))
        return 0
    if reveal.get("rolls") != len(s.rolls):
        problems.append(Finding(
            line_no, f"session {sid}: the reveal counts {reveal.get('rolls')} roll(s), the log holds {len(s.rolls)}"
        ))
    stream = SessionStream(material, block_bytes=s.block_bytes, additional=lambda j: s.additional.get(j, b""),
                           keep=True)
    last_end = 0
    checked = 0
    for roll_line, entry in s.rolls:
        checked += 1
        problem = _replay_roll(stream, s.block_bytes, entry, last_end)
        if problem is not None:
            problems.append(Finding(roll_line, problem))
        end = entry.get("end")
        last_end = end if isinstance(end, int) else last_end
    return checked


def _replay_roll(stream: SessionStream, block_bytes: int, entry: dict[str, Any], last_end: int) -> str | None:
    start, end, logged = entry.get("start"), entry.get("end"), entry.get("result")
    if not isinstance(start, int) or not isinstance(end, int) or not isinstance(logged, dict):
        return "roll entry is malformed (start, end or result missing)"
    if start < last_end:
        return f"roll starts at byte {start}, inside the previous roll (which ended at {last_end})"
    system = logged.get("system")
    try:
        spec = get(str(system))
        params = spec.resolve(logged.get("params") or {})
        stream.seek(start)
        dice = DrbgDice(stream, buffer_bytes=block_bytes)  # type: ignore[arg-type]  # a stream serves generate()
        replayed = json.loads(json.dumps(spec.roll(dice, params).to_dict()))
        used_to = stream.position - dice.buffered
    except (EngineError, ValueError, TypeError, KeyError) as exc:
        return f"cannot replay the {system} roll: {exc}"
    if replayed != logged:
        return f"{system} roll does not match the revealed seed: {_difference(logged, replayed)}"
    if used_to != end:
        return f"{system} roll used stream bytes {start}..{used_to}, the log says {start}..{end}"
    return None


def _difference(logged: dict[str, Any], replayed: dict[str, Any]) -> str:
    for key in ("dice", *logged.keys(), *replayed.keys()):
        if logged.get(key) != replayed.get(key):
            return f"{key} logged {json.dumps(logged.get(key))}, replay gives {json.dumps(replayed.get(key))}"
    return "results differ"
