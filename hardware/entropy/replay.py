"""Replay a roll log: recompute every logged roll from its session's revealed seed.

The core is :class:`Verifier`, which takes the log's entries one at a time (:meth:`Verifier.
feed`), reports each problem as soon as it is decided, and keeps between entries a small
JSON-serialisable state (:meth:`Verifier.state`, :meth:`Verifier.resume`): the chain's last
hash, the open session with its rolls (held until its reveal: at most ``SESSION_ROLLS``), and
one short digest per session seen (for "started twice", reused entropy and reused table
seeds). ``dicetower replay``, :func:`replay_log` and :func:`replay_entries` stream through it;
the store's board feeds it entries as they arrive, so every checker reaches the same verdict.

Every problem carries a stable code (:data:`CODES`) that ``tools/verify_rolls.py`` and the
phone page print the same way, so "the same first problem" can be checked over the forgery
corpus. What it checks (docs/fairness.md, "Verify it yourself"):

- the hash chain (:func:`hardware.rolllog.chain_problem`);
- one session at a time, and one table seed per session: a ``session`` entry while another is
  unrevealed, a roll, table seed or reveal naming any session but the open one, and a table
  seed text that an earlier session carried already are problems;
- at a reveal: the seed against the commitment; for a session seeded from entropy, the seed
  against what its session entry claimed (:mod:`hardware.entropy.seedcheck`); the table seed
  (stream 3: at most one, before the first roll); the continuity of the rolls, each roll
  recomputed with its logged parameters and mix and compared whole, the roll count and the end;
- a stream 3 roll's mix is printable text a player typed, and a panel roll has none;
- *player mode* (what the players noted: ``--expect``, ``--table-seed``; :class:`Notes`): every
  noted value must be in the log (a result's number with its hash); the players' night is the
  sessions from the first to the last one a noted value belongs to, and in it every session
  that holds a roll (or was noted) must have its commitment noted, one of the players' table
  seeds, no ``--seed`` test seed, and no mix or typed-in roll the players did not name.

Only ``rolled`` rolls of revealed random sessions count as verified; typed-in rolls
(``entered``), ``--seed`` sessions (``test``) and rolls of sessions still open are counted
apart, and what a witness without photos should look at twice is flagged (:data:`FLAGS`):
sessions without a table seed, rolls with a mix, typed-in rolls, a session revealed with at
most one roll and followed within a minute by another.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from engine.fingerprints import FINGERPRINT_HEX, NO_TABLE_SEED, RevealFacts, card_table_seed, read_reveal_card
from engine.params import typed_in
from engine.results import to_jsonable
from engine.rng import MIN_ENTROPY_BYTES
from engine.systems import get
from hardware.entropy.fingerprint import Noted, parse_expect
from hardware.entropy.seed import (
    BLOCK_BYTES,
    STREAMS,
    RollStream,
    SeedMaterial,
    TableSeedError,
    check_table_seed,
    mix_problem,
)
from hardware.entropy.seedcheck import block_digests, seed_problems
from hardware.entropy.session_dice import ROLL_KINDS, SESSION_ROLLS
from hardware.rolllog import GENESIS, StoredEntry, chain_problem, read_entries

__all__ = ["CHAIN_FINDING", "CODES", "FLAGS", "Finding", "Flag", "Notes", "ReplayReport", "SessionFacts", "Step",
           "Verifier", "replay_entries", "replay_log"]

#: How every hash-chain finding starts (the board checks the chain itself and skips these).
CHAIN_FINDING = "hash chain broken: "
_STATE_VERSION = 3
#: The entry kinds a noted value may be the hash of (docs/fairness.md, rule 14).
NOTED_KINDS = ("session", "table_seed", "roll", "reveal")
#: A session revealed with at most this many rolls and followed by another within
#: :data:`EARLY_SECONDS` is flagged (``early-reveal``): whoever ended it knew its next roll.
EARLY_ROLLS = 1
EARLY_SECONDS = 60
#: The flags a verifier keeps whole (the latest); all are counted by code.
FLAGS_KEPT = 50

#: Every problem's code, with what it means (docs/fairness.md, "Problem codes").
CODES: dict[str, str] = {
    "chain": "the hash chain is broken (an entry edited, dropped, moved or damaged)",
    "session-twice": "a session id seen twice",
    "overlap": "a session opened while another was open (one session at a time)",
    "stream": "a session in a stream format no replay knows",
    "block-size": "a session's block size is not the stream's",
    "not-open": "a table seed, roll or reveal naming a session that is not the open one",
    "outside-session": "a roll outside any session that is not a typed-in (entered) roll",
    "table-seed": "a table seed that is malformed, second, after a roll, or in a stream 2 session",
    "table-seed-reused": "a table seed an earlier session carried already (one code, one session)",
    "too-many-rolls": "a session with more rolls than a session may hold",
    "mix": "a roll's mix that is not printable text a player typed (or any mix on a panel roll)",
    "seed-unreadable": "a revealed seed that cannot be read",
    "commitment": "a revealed seed that does not match its commitment",
    "seed-claim": "a seed that is not what its session entry claimed (sources, credit, weak entropy)",
    "reused-entropy": "entropy an earlier session used",
    "reveal-count": "a reveal whose roll count is not the log's",
    "continuity": "a roll that does not start where the previous one ended, or a reveal's end that is wrong",
    "roll-malformed": "a roll entry without its start, end, mix or result",
    "roll-mismatch": "a roll whose result is not what the revealed seed gives",
    "roll-kind": "a roll labelled as another kind than it is",
    "unverifiable": "an entry the verifier could not check",
    "open-session": "a session not revealed (with --all-revealed)",
    "not-in-log": "a value the players noted that is in no entry it may be",
    "roll-number": "a noted result whose number is not its number in its session",
    "unnoted-commitment": "a session of the players' night whose commitment they did not note",
    "no-table-seed": "a session of the players' night without a table seed",
    "unnoted-table-seed": "a session of the players' night whose table seed is not one they set",
    "table-seed-not-found": "a table seed the players set that no session carries",
    "test-session": "a --seed test session in the players' night",
    "mix-not-named": "a roll of the players' night with a mix they did not name, once per roll (--allow-mix)",
    "entered-not-named": "more typed-in rolls in the players' night than they named (--allow-entered)",
    "command-line-roll": "a roll not made on the panel in a session of the players' night the panel rolled in, "
                         "beyond what they named (--allow-command-line)",
    "card": "a reveal card the players noted (--card) that is not a session of the log as the card says it",
}
#: What the checkers flag without calling it a problem (a witness without photos shows it).
FLAGS: dict[str, str] = {
    "no-table-seed": "a session without a table seed: its owner could have chosen its seed",
    "mixed": "a roll with a typed mix: its player should recognise the text",
    "entered": "a typed-in roll: nothing in it can be checked",
    "early-reveal": "a session revealed with at most one roll after its code was set, and followed within a minute "
                    "by another",
}


@dataclass(frozen=True)
class Finding:
    """A problem found at one log entry (1-based line number; 0: the log as a whole), with its
    code (:data:`CODES`)."""

    line_no: int
    message: str
    code: str = "unverifiable"

    def __str__(self) -> str:
        where = f"entry {self.line_no}" if self.line_no else "log"
        return f"{where}: {self.code}: {self.message}"


@dataclass(frozen=True)
class Flag:
    """Something to look at twice (:data:`FLAGS`), at one entry."""

    line_no: int
    code: str
    message: str

    def __str__(self) -> str:
        return f"entry {self.line_no}: {self.code}: {self.message}"


@dataclass(frozen=True)
class OpenSession:
    """A session with no reveal (yet): its rolls cannot be checked."""

    session: str
    line_no: int
    rolls: int


@dataclass(frozen=True)
class SessionFacts:
    """A session as its reveal card shows it (commitment, table seed, rolls, head: the reveal
    entry's hash, empty while open), where it starts in the log, and what player mode made of
    it (``night``: in the players' night)."""

    session: str
    line_no: int
    commitment: str
    table_seed: str | None
    rolls: int
    head: str
    night: bool = False


@dataclass(frozen=True)
class NotedRoll:
    """A result the players noted, as the log holds it: compare it with the photo of its
    screen (the outcome and the dice), which no checker can see."""

    line_no: int
    number: int  # 0: a typed-in roll, outside every session
    fingerprint: str
    system: str
    outcome: str
    dice: tuple[str, ...]
    mix: str = ""

    def __str__(self) -> str:
        name = f"roll #{self.number}" if self.number else "typed-in roll"
        mix = f", mix {self.mix!r}" if self.mix else ""
        return f"{name} {self.fingerprint}: {self.system} {self.outcome}, dice {' '.join(self.dice) or '-'}{mix}"


@dataclass(frozen=True)
class Step:
    """What one entry decided: problems found, and the rolls (line numbers) verified by it."""

    findings: tuple[Finding, ...] = ()
    verified: tuple[int, ...] = ()


@dataclass(frozen=True)
class Notes:
    """What the players noted at the table (docs/fairness.md, "What a player can verify"):
    ``expect`` (commitments, results as ``N:HEX``, the reveal's head), ``table_seeds`` (the
    codes they set), ``allow_mix`` (each ``--mix`` text they typed, once per roll it went
    into), ``allow_entered`` (how many rolls they typed in), ``allow_command_line`` (how many
    rolls they made from the command line in sessions the panel rolled in) and ``cards`` (the
    reveal cards they photographed, read back: :func:`~engine.fingerprints.read_reveal_card`).
    Any of ``expect``, ``table_seeds`` or ``cards`` puts the checkers in player mode."""

    expect: tuple[Noted, ...] = ()
    table_seeds: tuple[str, ...] = ()
    allow_mix: tuple[str, ...] = ()
    allow_entered: int = 0
    allow_command_line: int = 0
    cards: tuple[RevealFacts, ...] = ()

    @classmethod
    def of(cls, expect: Sequence[str | Noted] = (), table_seeds: Sequence[str] = (), allow_mix: Sequence[str] = (),
           allow_entered: int = 0, *, allow_command_line: int = 0, cards: Sequence[str | RevealFacts] = ()) -> Notes:
        """From what was typed (``ValueError`` for a noted value or a card that is not one)."""
        noted = tuple(e if isinstance(e, Noted) else parse_expect(e) for e in expect)
        read = tuple(c if isinstance(c, RevealFacts) else read_reveal_card(c) for c in cards)
        return cls(noted, tuple(table_seeds), tuple(allow_mix), int(allow_entered), int(allow_command_line), read)

    @property
    def player_mode(self) -> bool:
        return bool(self.expect or self.table_seeds or self.cards)

    @property
    def codes(self) -> frozenset[str]:
        """The table seeds the players set: those given, and those on the cards they noted."""
        return frozenset(self.table_seeds) | {c.table_seed for c in self.cards if c.table_seed != NO_TABLE_SEED}


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
    without_table_seed: tuple[OpenSession, ...] = ()
    rolls_mixed: int = 0
    head: str = GENESIS
    flags: tuple[Flag, ...] = ()  # the latest FLAGS_KEPT
    flag_counts: dict[str, int] = field(default_factory=dict)  # every flag, by code
    facts: tuple[SessionFacts, ...] = ()  # the players' night in player mode, else the last session
    outside: int = 0  # player mode: sessions with rolls outside the players' night (not checked against notes)
    noted_rolls: tuple[NotedRoll, ...] = ()  # player mode: each noted result as the log holds it

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first_problem(self) -> Finding | None:
        return self.problems[0] if self.problems else None

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
            "rolls_mixed": self.rolls_mixed,
            "rolls_checked": self.rolls_verified, "rolls_unrevealed": self.rolls_open,
            "rolls_typed": self.rolls_entered, "ok": self.ok, "head": self.head,
            "open_sessions": [{"session": o.session, "entry": o.line_no, "rolls": o.rolls}
                              for o in self.open_sessions],
            "without_table_seed": [{"session": o.session, "entry": o.line_no, "rolls": o.rolls}
                                   for o in self.without_table_seed],
            "problems": [{"entry": p.line_no, "code": p.code, "message": p.message} for p in self.problems],
            "flags": [{"entry": f.line_no, "code": f.code, "message": f.message} for f in self.flags],
            "flag_counts": dict(self.flag_counts),
            "sessions_shown": [{"session": f.session, "entry": f.line_no, "commitment": f.commitment,
                                "table_seed": f.table_seed, "rolls": f.rolls, "head": f.head, "night": f.night}
                               for f in self.facts],
            "outside_night": self.outside,
            "noted_rolls": [{"entry": r.line_no, "number": r.number, "fingerprint": r.fingerprint, "system": r.system,
                             "outcome": r.outcome, "dice": list(r.dice), "mix": r.mix} for r in self.noted_rolls],
            "notes": list(self.notes),
        }


def replay_log(path: str | Path, *, expect: Sequence[str | Noted] = (), table_seeds: Sequence[str] = (),
               notes: Notes | None = None) -> ReplayReport:
    """Check every roll in the log at ``path``; see the module docstring."""
    path = Path(path)
    return replay_entries(lambda: read_entries(path), path, expect=expect, table_seeds=table_seeds, notes=notes)


def replay_entries(entries: Callable[[], Iterable[StoredEntry]], path: str | Path = "-", *,
                   expect: Sequence[str | Noted] = (), table_seeds: Sequence[str] = (),
                   notes: Notes | None = None) -> ReplayReport:
    """:func:`replay_log` on entries from anywhere (a file, a broker's stream). ``entries``
    gives an iterable of the log's entries, in order (it is called once)."""
    verifier = Verifier(notes=notes if notes is not None else Notes.of(expect, table_seeds))
    for stored in entries():
        verifier.feed(stored)
    return verifier.report(path)


@dataclass
class _State:
    """Everything the verifier keeps between entries (see :meth:`Verifier.state`)."""

    entries: int = 0
    seq: int = 0
    prev: str = GENESIS
    chain_broken: bool = False
    sessions: int = 0
    revealed: int = 0
    verified: int = 0
    entered: int = 0
    test: int = 0
    mixed: int = 0
    open: dict[str, dict[str, Any]] = field(default_factory=dict)  # at most one in an honest log
    left: dict[str, dict[str, Any]] = field(default_factory=dict)  # sessions a later one pushed aside
    closed: list[str] = field(default_factory=list)
    entropy: dict[str, list[Any]] = field(default_factory=dict)  # block digest -> [session, line]
    codes: dict[str, list[Any]] = field(default_factory=dict)  # digest of a table seed -> [session, line]
    no_table_seed: list[list[Any]] = field(default_factory=list)  # [session, line, rolls]
    flags: list[list[Any]] = field(default_factory=list)  # [line, code, message]: the latest FLAGS_KEPT
    flag_counts: dict[str, int] = field(default_factory=dict)  # every flag, by code
    last_reveal: list[Any] = field(default_factory=list)  # [session, rolls, time] of the latest reveal
    last_facts: dict[str, Any] = field(default_factory=dict)  # the latest revealed session's facts
    problems: list[list[Any]] = field(default_factory=list)  # [line, message, code]
    # player mode only (a one-off check of a whole log, never the board's long-lived state):
    notes: dict[str, Any] = field(default_factory=dict)  # what the players noted (Notes, as JSON)
    noted: list[list[Any]] = field(default_factory=list)  # [prefix, number, found, session, line]
    night: list[dict[str, Any]] = field(default_factory=list)  # every revealed session's facts, in log order
    entered_lines: list[int] = field(default_factory=list)
    noted_rolls: list[list[Any]] = field(default_factory=list)  # [line, number, hash, system, outcome, dice, mix]


class Verifier:
    """The incremental roll-log verifier (see the module docstring).

    ``notes`` are what the players noted (:class:`Notes`; none: a witness without photos, such
    as the board). :meth:`feed` one entry at a time, in log order; :meth:`report` at any time
    gives the verdict on what was fed (the end-of-log checks included); :meth:`state` /
    :meth:`resume` carry a verifier across processes or restarts.
    """

    def __init__(self, *, notes: Notes | None = None, expect: Sequence[str | Noted] = (),
                 table_seeds: Sequence[str] = ()) -> None:
        self.notes = notes if notes is not None else Notes.of(expect, table_seeds)
        n = self.notes
        self._s = _State(noted=[[x.prefix, x.number, False, None, 0] for x in n.expect],
                         notes={"table_seeds": list(n.table_seeds), "allow_mix": list(n.allow_mix),
                                "allow_entered": n.allow_entered, "allow_command_line": n.allow_command_line,
                                "cards": [list(c) for c in n.cards]} if n.player_mode else {})

    # --- carrying it over ---------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """Everything needed to go on from here, as plain JSON values."""
        return {"version": _STATE_VERSION, **copy.deepcopy(self._s.__dict__)}

    @classmethod
    def resume(cls, state: dict[str, Any]) -> Verifier:
        """The verifier :meth:`state` described (what the players noted included);
        ``ValueError`` if it is not such a state."""
        if not isinstance(state, dict) or state.get("version") != _STATE_VERSION:
            raise ValueError(f"not a version {_STATE_VERSION} verifier state")
        fields = {k: v for k, v in state.items() if k != "version"}
        try:
            restored = _State(**copy.deepcopy(fields))
            kept = restored.notes
            notes = Notes(tuple(Noted(str(x[0]), x[1]) for x in restored.noted),
                          tuple(kept.get("table_seeds", ())), tuple(kept.get("allow_mix", ())),
                          int(kept.get("allow_entered", 0)), int(kept.get("allow_command_line", 0)),
                          tuple(RevealFacts(str(c[0]), str(c[1]), int(c[2]), str(c[3])) for c in kept.get("cards", ())))
        except (TypeError, AttributeError, IndexError) as exc:
            raise ValueError(f"not a verifier state: {exc}") from None
        verifier = cls(notes=notes)
        verifier._s = restored
        return verifier

    # --- one entry ----------------------------------------------------------------------------------

    def feed(self, stored: StoredEntry) -> Step:
        """Take the next entry of the log; returns what it decided."""
        s = self._s
        s.entries += 1
        found: list[Finding] = []
        verified: list[int] = []
        self._chain(stored, found)
        e = stored.entry
        if e is not None:
            self._entry(stored.line_no, e, found, verified)
        for f in found:
            s.problems.append([f.line_no, f.message, f.code])
        return Step(tuple(found), tuple(verified))

    def _chain(self, stored: StoredEntry, found: list[Finding]) -> None:
        s = self._s
        if s.chain_broken:
            return
        problem = chain_problem(stored, s.prev, s.seq)
        if problem is not None:
            s.chain_broken = True
            found.append(Finding(stored.line_no, CHAIN_FINDING + problem, "chain"))
            return
        s.prev, s.seq = (stored.entry or {})["hash"], s.seq + 1

    def _entry(self, line: int, e: dict[str, Any], found: list[Finding], verified: list[int]) -> None:
        kind, sid = e.get("kind"), e.get("session")
        if kind == "session":
            self._start(line, e, found)
        elif kind == "roll" and sid is None:
            if e.get("roll_kind") != "entered":
                found.append(Finding(line, "a roll outside any session must be an entered (typed-in) roll, this one "
                                           f"is labelled {e.get('roll_kind')!r}", "outside-session"))
            self._s.entered += 1
            self._flag(line, "entered", "a typed-in roll (entered): nothing in it can be checked")
            self._match(line, e, None, None)
            if self.notes.player_mode:
                self._s.entered_lines.append(line)
        elif kind in ("roll", "reveal", "table_seed"):
            session = self._open_one(line, str(kind), str(sid), found)
            number = len(session["rolls"]) + 1 if session is not None and kind == "roll" else None
            self._match(line, e, str(sid) if session is not None else None, number)
            if session is None:
                return
            if kind == "table_seed":
                self._table_seed(line, e, session, found)
            elif kind == "roll":
                self._roll(line, e, session, found)
            else:
                self._reveal(line, e, session, found, verified)

    def _flag(self, line: int, code: str, message: str) -> None:
        s = self._s
        s.flags.append([line, code, message])
        del s.flags[:-FLAGS_KEPT]  # a witness that runs for years keeps the latest, and counts them all
        s.flag_counts[code] = s.flag_counts.get(code, 0) + 1

    def _match(self, line: int, e: dict[str, Any], sid: str | None, number: int | None) -> None:
        """Mark the noted values this entry carries (its hash; a session entry's commitment),
        noting which session they belong to; a result noted with another number is a problem
        at the end (:meth:`report`)."""
        s = self._s
        if not s.noted or e.get("kind") not in NOTED_KINDS:
            return
        digest = str(e.get("hash", ""))
        commitment = str(e.get("commitment", "")) if e.get("kind") == "session" else ""
        for n in s.noted:
            prefix, want = n[0], n[1]
            hit_hash, hit_commitment = digest.startswith(prefix), bool(commitment) and commitment.startswith(prefix)
            if not (hit_hash or hit_commitment) or n[2] is True:
                continue
            if want is not None and (not hit_hash or e.get("kind") != "roll" or number != want):
                what = f"roll #{number}" if e.get("kind") == "roll" and number else f"a {e.get('kind')} entry"
                n[2], n[3], n[4] = f"{what} (entry {line})", sid, line
                continue
            n[2], n[3], n[4] = True, sid, line
            if e.get("kind") == "roll" and hit_hash:
                self._noted_roll(line, e, number)
            if hit_commitment and sid is not None and sid in s.open:
                s.open[sid]["commitment_noted"] = True

    def _noted_roll(self, line: int, e: dict[str, Any], number: int | None) -> None:
        """Keep a noted result as the log holds it, to be set beside the photo of its screen: a
        modified device could show one outcome and log another with the fingerprint shown."""
        raw = e.get("result")
        result: dict[str, Any] = raw if isinstance(raw, dict) else {}
        dice: list[Any] = result["dice"] if isinstance(result.get("dice"), list) else []
        try:
            mix = bytes.fromhex(str(e.get("mix") or "")).decode("ascii", "replace")
        except ValueError:
            mix = "(not hex)"
        self._s.noted_rolls.append([line, number or 0, str(e.get("hash", ""))[:FINGERPRINT_HEX],
                                    str(result.get("system")), str(result.get("outcome")), [str(d) for d in dice], mix])

    def _start(self, line: int, e: dict[str, Any], found: list[Finding]) -> None:
        s = self._s
        sid = str(e.get("session"))
        if sid in s.open or sid in s.closed or sid in s.left:
            found.append(Finding(line, f"session {sid} started twice", "session-twice"))
            return
        for other, o in list(s.open.items()):
            found.append(Finding(line, f"session {sid} opened while session {other} (entry {o['line']}) is still "
                                       "open: one session at a time (a hidden session beside the one the players "
                                       "saw?); the earlier one's rolls are not checked", "overlap"))
            s.left[other] = {"line": o["line"], "rolls": len(o["rolls"])}
            del s.open[other]
        self._early(line, e)
        stream = e.get("stream", 1)
        if stream not in STREAMS:
            found.append(Finding(line, f"session {sid} uses stream format {stream!r}, not one of "
                                       f"{', '.join(map(str, STREAMS))}: written by an older dicetower whose rolls "
                                       "took no player input; not verifiable", "stream"))
            return
        block = e.get("block_bytes", BLOCK_BYTES)
        if isinstance(block, bool) or not isinstance(block, int) or not 1 <= block <= 65536 \
                or (stream == 3 and block != BLOCK_BYTES):
            want = f"{BLOCK_BYTES}" if stream == 3 else "1..65536"
            found.append(Finding(line, f"session {sid} has a bad block size {block!r} (stream {stream}: {want})",
                                 "block-size"))
            return
        s.sessions += 1
        s.open[sid] = {"line": line, "commitment": str(e.get("commitment")), "block": block, "stream": stream,
                       "entry": {k: e.get(k) for k in ("sources", "credited_bits")}, "table_seed": None,
                       "rolls": [], "overflow": False, "spoiled": False, "commitment_noted": False, "mixes": [],
                       "panel": False, "not_panel": []}
        self._match(line, e, sid, None)

    def _early(self, line: int, e: dict[str, Any]) -> None:
        """Flag a session that follows, within a minute, one revealed with at most one roll after
        the table set its code (a session that never had a code, such as the empty one a quit
        leaves, chose nothing: not flagged)."""
        last = self._s.last_reveal
        if len(last) < 4 or last[1] > EARLY_ROLLS or not last[3]:
            return
        gap = _seconds_between(last[2], e.get("time"))
        if gap is not None and 0 <= gap <= EARLY_SECONDS:
            self._flag(line, "early-reveal", f"session {last[0]} was revealed with {last[1]} roll(s) and this "
                                             f"session opened {gap:.0f} s later: whoever ended it knew its next "
                                             "roll")

    def _open_one(self, line: int, kind: str, sid: str, found: list[Finding]) -> dict[str, Any] | None:
        """The open session a roll, table seed or reveal names; None (and a finding) if it is not."""
        s = self._s
        session = s.open.get(sid)
        if session is not None:
            return session
        what = "roll" if kind == "roll" else kind.replace("_", " ")
        if sid in s.closed:
            why = "after that session was revealed"
        elif sid in s.left:
            why = "which is not the open session (a later session was opened while it was open)"
        else:
            why = "for a session that was never started"
        found.append(Finding(line, f"{what} of session {sid} {why}", "not-open"))
        return None

    def _table_seed(self, line: int, e: dict[str, Any], session: dict[str, Any], found: list[Finding]) -> None:
        sid = str(e.get("session"))
        problem = None
        if session["stream"] != 3:
            problem = f"a table seed in session {sid}, a stream {session['stream']} session (which has none)"
        elif session["table_seed"] is not None:
            problem = f"session {sid} has a second table seed (its first at entry {session['table_seed'][1]})"
        elif session["rolls"]:
            problem = (f"the table seed of session {sid} comes after its first roll (entry {session['rolls'][0][0]}): "
                       "a table seed chosen after the rolls began")
        else:
            try:
                check_table_seed(e.get("table_seed"))
            except TableSeedError as exc:
                problem = f"session {sid}: {exc}"
        if problem is not None:
            found.append(Finding(line, problem + "; the session's rolls are not checked", "table-seed"))
            session["spoiled"] = True
            return
        text = str(e.get("table_seed"))
        session["table_seed"] = [text, line]
        key = hashlib.sha256(text.encode("ascii")).hexdigest()[:32]
        earlier = self._s.codes.get(key)
        if earlier is not None:
            found.append(Finding(line, f"session {sid}'s table seed {text!r} was already session {earlier[0]}'s "
                                       f"(entry {earlier[1]}): one code, one session (a session reopened under the "
                                       "players' code?)", "table-seed-reused"))
        else:
            self._s.codes[key] = [sid, line]

    def _roll(self, line: int, e: dict[str, Any], session: dict[str, Any], found: list[Finding]) -> None:
        sid = str(e.get("session"))
        if len(session["rolls"]) >= SESSION_ROLLS:
            if not session["overflow"]:
                found.append(Finding(line, f"session {sid} has more than {SESSION_ROLLS} rolls; a session is "
                                           f"revealed after {SESSION_ROLLS}", "too-many-rolls"))
            session["overflow"] = True
            return
        number = len(session["rolls"]) + 1
        params = (e.get("result") or {}).get("params") if isinstance(e.get("result"), dict) else None
        if isinstance(params, dict) and typed_in(params):
            found.append(Finding(line, f"roll #{number} of session {sid} is typed in (its outcome was given, not "
                                       "drawn) inside a session: typed-in rolls are logged outside every session, "
                                       "where the players count them (--allow-entered)", "roll-kind"))
        if e.get("source") == "panel":
            session["panel"] = True
        else:  # a command line's roll (or anything else that is not the panel's)
            session["not_panel"].append([line, number])
        if session["stream"] == 3:
            mix = e.get("mix")
            try:
                why = mix_problem(bytes.fromhex(mix)) if isinstance(mix, str) else "missing"
            except ValueError:
                why = "not hexadecimal"
            if why is None and mix and e.get("source") == "panel":
                why = "on a panel roll (the panel takes no mix)"
            if why is not None:
                found.append(Finding(line, f"the mix of a stream 3 roll must be printable text a player typed "
                                           f"(--mix), never a device's measurement: this one is {why}", "mix"))
            elif mix:
                self._s.mixed += 1
                text = bytes.fromhex(mix).decode("ascii")
                session["mixes"].append([line, text])
                self._flag(line, "mixed", f"roll #{number} of session {sid} carries the mix {text!r}")
        session["rolls"].append([line, e])

    def _reveal(self, line: int, e: dict[str, Any], session: dict[str, Any], found: list[Finding],
                verified: list[int]) -> None:
        s = self._s
        sid = str(e.get("session"))
        del s.open[sid]
        s.closed.append(sid)
        s.revealed += 1
        rolls = session["rolls"]
        s.last_reveal = [sid, len(rolls), e.get("time"), session["table_seed"] is not None]
        facts = self._facts(sid, session, head=str(e.get("hash", "")), end=line)
        s.last_facts = {k: v for k, v in facts.items() if k not in ("mixes", "not_panel")}
        try:
            material = SeedMaterial.from_hex(str(e.get("seed", "")))
        except ValueError as exc:
            found.append(Finding(line, f"session {sid}: the revealed seed cannot be read ({exc})", "seed-unreadable"))
            self._keep_night(facts, None)
            return
        if material.commitment != session["commitment"] or session["commitment"][:16] != sid:
            found.append(Finding(line, f"session {sid}: the revealed seed does not match the commitment published "
                                       f"in entry {session['line']}", "commitment"))
            self._keep_night(facts, None)
            return
        self._keep_night(facts, material.is_test)
        if not material.is_test:
            self._seed_checks(line, sid, material, session, found)
        if e.get("rolls") != len(rolls):
            found.append(Finding(line, f"session {sid}: the reveal counts {e.get('rolls')!r} roll(s), the log holds "
                                       f"{len(rolls)}", "reveal-count"))
        if session["spoiled"] or len(material.entropy) < MIN_ENTROPY_BYTES:
            return  # not a DRBG the rolls could have come from (said above)
        stream = RollStream(material, block_bytes=session["block"])
        if session["table_seed"] is not None:
            stream.set_table_seed(session["table_seed"][0])
        for i, (roll_line, entry) in enumerate(rolls):
            problem = _check_roll(stream, material, entry)
            if problem is not None:
                later = len(rolls) - i - 1
                found.append(Finding(roll_line, problem[1] + (f"; the session's {later} later roll(s) are not checked"
                                                              if later else ""), problem[0]))
                return  # the DRBG may no longer be where the log says: later rolls prove nothing
            kind = _kind(material, entry)
            if kind == "rolled":
                s.verified += 1
                verified.append(roll_line)
            elif kind == "test":
                s.test += 1
            else:
                s.entered += 1
        if e.get("end") != stream.blocks:
            found.append(Finding(line, f"session {sid} reveal says it ended at generate call {e.get('end')!r}, its "
                                       f"last roll ended at {stream.blocks}", "continuity"))

    def _facts(self, sid: str, session: dict[str, Any], head: str = "", end: int = 0) -> dict[str, Any]:
        """A session's reveal-card facts and what player mode needs of it (``end``: its reveal's
        line, 0 while open)."""
        seed = session["table_seed"][0] if session["table_seed"] is not None else None
        return {"session": sid, "line": session["line"], "commitment": session["commitment"], "table_seed": seed,
                "rolls": len(session["rolls"]), "head": head, "end": end,
                "commitment_noted": bool(session["commitment_noted"]), "mixes": list(session["mixes"]),
                "panel": bool(session["panel"]), "not_panel": list(session["not_panel"]) if session["panel"] else [],
                "test": None}

    def _keep_night(self, facts: dict[str, Any], test: bool | None) -> None:
        if self.notes.player_mode:
            self._s.night.append({**facts, "test": test})

    def _seed_checks(self, line: int, sid: str, material: SeedMaterial, session: dict[str, Any],
                     found: list[Finding]) -> None:
        s = self._s
        for problem in seed_problems(material, session["entry"]):
            found.append(Finding(line, f"session {sid}: {problem}", "seed-claim"))
        for i, digest in enumerate(block_digests(material)):
            earlier = s.entropy.get(digest)
            if earlier is not None and earlier[0] != sid:
                found.append(Finding(line, f"session {sid}: entropy block {i + 1} was already used by session "
                                           f"{earlier[0]} (entry {earlier[1]}): a reused seed", "reused-entropy"))
            s.entropy.setdefault(digest, [sid, line])
        if session["table_seed"] is None:
            s.no_table_seed.append([sid, session["line"], len(session["rolls"])])
            self._flag(session["line"], "no-table-seed", f"session {sid} has no table seed: its owner could have "
                                                         "chosen its seed")

    # --- the verdict --------------------------------------------------------------------------------

    def report(self, path: str | Path = "-") -> ReplayReport:
        """The verdict on everything fed so far, with the checks that need the whole log: what
        the players noted (player mode)."""
        s = self._s
        problems = [Finding(int(p[0]), str(p[1]), str(p[2])) for p in s.problems]
        facts: tuple[SessionFacts, ...] = ()
        outside = 0
        if self.notes.player_mode:
            night, outside, found = self._night_checks()
            problems += found
            facts = night
        elif s.last_facts:
            facts = (_session_facts(s.last_facts, night=False),)
        problems.sort(key=lambda f: f.line_no)
        still_open = tuple(OpenSession(sid, o["line"], len(o["rolls"])) for sid, o in s.open.items())
        left = tuple(OpenSession(sid, o["line"], o["rolls"]) for sid, o in s.left.items())
        notes = [f"session {o.session} (entry {o.line_no}) is still open: its {o.rolls} roll(s) are not checked "
                 "until it is revealed" for o in still_open]
        without = tuple(OpenSession(str(a), int(b), int(c)) for a, b, c in s.no_table_seed)
        if without:
            notes.append(f"{len(without)} session(s) without a table seed: the owner could have chosen their seed "
                         f"({', '.join(o.session for o in without[:5])}{', ...' if len(without) > 5 else ''})")
        if outside:
            notes.append(f"{outside} session(s) with rolls before or after what you noted: not checked against your "
                         "notes, and none of their rolls is one you saw")
        flags = tuple(Flag(int(a), str(b), str(c)) for a, b, c in s.flags)
        noted = tuple(NotedRoll(int(r[0]), int(r[1]), str(r[2]), str(r[3]), str(r[4]), tuple(r[5]), str(r[6]))
                      for r in s.noted_rolls)
        return ReplayReport(Path(path), s.entries, s.sessions, s.revealed, s.verified, s.entered, s.test,
                            sum(o.rolls for o in still_open) + sum(o.rolls for o in left), still_open + left,
                            tuple(problems), tuple(notes), without, s.mixed, s.prev, flags, dict(s.flag_counts), facts,
                            outside, noted)

    def _night_checks(self) -> tuple[tuple[SessionFacts, ...], int, list[Finding]]:
        """Player mode: every noted value found (with its number), every card noted is a session
        of the log as it says, then the players' night held to docs/fairness.md's rule 14. The
        night runs from the first session (or typed-in roll) a noted value, a card or one of the
        players' table seeds belongs to, to the end of the last such session (its reveal; the
        end of the log while it is open); a session is in it when any of its entries is.
        Returns the night's sessions, the count of sessions with rolls outside it, and the
        problems."""
        s, n = self._s, self.notes
        found = self._noted_found()
        sessions = [*s.night, *(self._facts(sid, o) for sid, o in s.open.items())]
        carried = {x["table_seed"] for x in sessions}
        for text in n.table_seeds:
            if text not in carried:
                found.append(Finding(0, f"no session carries the table seed {text!r} the players set",
                                     "table-seed-not-found"))
        touched = {str(x[3]) for x in s.noted if x[3] is not None}
        touched |= self._cards(sessions, found)
        codes = n.codes
        touched |= {x["session"] for x in sessions if x["table_seed"] is not None and x["table_seed"] in codes}
        marked = [x for x in sessions if x["session"] in touched]
        typed_noted = [int(x[4]) for x in s.noted if x[3] is None and x[2] is True]
        starts = [x["line"] for x in marked] + typed_noted
        if not starts:
            return (), sum(1 for x in sessions if x["rolls"]), found
        ends = [x["end"] or s.entries for x in marked] + typed_noted
        first, last = min(starts), max(ends)
        night: list[SessionFacts] = []
        inside: list[dict[str, Any]] = []
        outside = 0
        for x in sessions:
            if x["line"] > last or (x["end"] or s.entries) < first:
                outside += 1 if x["rolls"] else 0
                continue
            night.append(_session_facts(x, night=True))
            inside.append(x)
            if x["rolls"] or x["session"] in touched:
                found += self._night_session(x, codes)
        found += self._named_mixes(inside)
        found += self._named_command_line(inside)
        typed = [line for line in s.entered_lines if first <= line <= last]
        if len(typed) > n.allow_entered:
            shown = ", ".join(map(str, typed[:8])) + (", ..." if len(typed) > 8 else "")
            found.append(Finding(typed[0], f"{len(typed)} typed-in roll(s) in your night (entries {shown}), you named "
                                           f"{n.allow_entered} (--allow-entered N): their faces were typed, not rolled",
                                 "entered-not-named"))
        return tuple(night), outside, found

    def _cards(self, sessions: list[dict[str, Any]], found: list[Finding]) -> set[str]:
        """Each reveal card the players noted must be a revealed session of the log as the card
        says it: its commitment, its table seed, its roll count and its reveal's hash (the
        head). Returns the sessions the cards name. A card alone does not say the commitment
        was noted before the code: that takes the commitment noted at the question."""
        named: set[str] = set()
        for card in self.notes.cards:
            shown = f"the card #{card.commitment[:16]} (head {card.head[:16]}…)"
            x = next((x for x in sessions if x["commitment"] == card.commitment), None)
            if x is None:
                found.append(Finding(0, f"{shown}: no session of the log has its commitment (a session the players "
                                        "saw was changed, dropped or never logged)", "card"))
                continue
            named.add(x["session"])
            facts = (("head", x["head"] or "(not revealed)", card.head),
                     ("table seed", card_table_seed(x["table_seed"]), card.table_seed),
                     ("rolls", str(x["rolls"]), str(card.rolls)))
            differs = "; ".join(f"{what} {logged!r} in the log, {said!r} on the card"
                                for what, logged, said in facts if logged != said)
            if differs:
                found.append(Finding(x["end"] or x["line"], f"{shown} is not session {x['session']} as the log holds "
                                                            f"it: {differs}", "card"))
        return named

    def _named_mixes(self, night: list[dict[str, Any]]) -> list[Finding]:
        """Each ``--allow-mix TEXT`` names one roll of the night that carries TEXT (a text typed
        on five rolls is named five times): a device that could put a named mix on any roll it
        liked would choose, roll by roll, whether it goes in."""
        budget = Counter(self.notes.allow_mix)
        found: list[Finding] = []
        for mix_line, text, sid in sorted((int(m[0]), str(m[1]), x["session"]) for x in night for m in x["mixes"]):
            if budget[text] > 0:
                budget[text] -= 1
                continue
            named = self.notes.allow_mix.count(text)
            found.append(Finding(mix_line, f"a roll of session {sid} carries the mix {text!r}, which you named "
                                           f"{named} time(s) (--allow-mix TEXT names one roll: give it once for each "
                                           "roll you typed it on)", "mix-not-named"))
        return found

    def _named_command_line(self, night: list[dict[str, Any]]) -> list[Finding]:
        """In a session of the night the panel rolled in, a roll made elsewhere (the command
        line, sharing the state directory) is one the table did not make: whoever knows the
        session's seed (root reads it in ``open-sessions/``) could roll it to skip a roll they
        dislike. Each is a problem beyond the ``--allow-command-line N`` the players made."""
        rolls = sorted((int(r[0]), int(r[1]), x["session"]) for x in night if x["panel"] for r in x["not_panel"])
        allowed = self.notes.allow_command_line
        if len(rolls) <= allowed:
            return []
        shown = ", ".join(f"#{number}" for _, number, _ in rolls[:8]) + (", ..." if len(rolls) > 8 else "")
        line, _, sid = rolls[allowed]
        return [Finding(line, f"{len(rolls)} roll(s) of your night ({shown}, session {sid}) were not made on the panel "
                              f"in a session it rolled in, you named {allowed} (--allow-command-line N): a roll made "
                              "in between by whoever knows the seed skips the table's next one", "command-line-roll")]

    def _noted_found(self) -> list[Finding]:
        """A noted value in no entry it may be, or a result noted under another number."""
        found: list[Finding] = []
        for prefix, number, hit, _sid, line in self._s.noted:
            shown = f"{number}:{prefix}" if number is not None else prefix
            if hit is False:
                found.append(Finding(0, f"the noted value {shown} is in no session, table seed, roll or reveal entry "
                                        "and no commitment (a roll or session the players noted was changed, dropped "
                                        "or cut)", "not-in-log"))
            elif hit is not True:
                found.append(Finding(int(line), f"the noted result roll #{number} {prefix} is {hit} in the log",
                                     "roll-number"))
        return found

    def _night_session(self, x: dict[str, Any], codes: frozenset[str]) -> list[Finding]:
        """What rule 14 asks of one session of the players' night (its mixes and its rolls made
        off the panel are counted over the whole night)."""
        sid, line, seed = x["session"], x["line"], x["table_seed"]
        found: list[Finding] = []
        if not x["commitment_noted"]:
            found.append(Finding(line, f"session {sid} is in your night ({x['rolls']} roll(s)) but its commitment "
                                       f"{x['commitment'][:16]}… is not among what you noted: a session counts only "
                                       "if you noted its commitment before you set its code", "unnoted-commitment"))
        if x["test"]:
            found.append(Finding(line, f"session {sid} is a --seed test session: whoever knows its seed text knows "
                                       "its rolls", "test-session"))
        if seed is None:
            found.append(Finding(line, f"session {sid} has no table seed: its owner could have chosen its seed",
                                 "no-table-seed"))
        elif seed not in codes:
            given = ", ".join(repr(t) for t in sorted(codes)) or "none: give --table-seed CODE"
            found.append(Finding(line, f"session {sid}'s table seed is {seed!r}, not one you set ({given})",
                                 "unnoted-table-seed"))
        return found


def _session_facts(x: dict[str, Any], *, night: bool) -> SessionFacts:
    return SessionFacts(x["session"], x["line"], x["commitment"], x["table_seed"], x["rolls"], x["head"], night)


def _seconds_between(earlier: Any, later: Any) -> float | None:
    """Seconds from one entry's ``time`` to another's (None when either is not a time)."""
    try:
        a = datetime.fromisoformat(str(earlier).replace("Z", "+00:00"))
        b = datetime.fromisoformat(str(later).replace("Z", "+00:00"))
        return (b - a).total_seconds()
    except (ValueError, TypeError):
        return None


def _kind(material: SeedMaterial, entry: dict[str, Any]) -> str:
    """What the roll really is, from its content (the label is checked against this)."""
    params = (entry.get("result") or {}).get("params") or {}
    if typed_in(params):
        return "entered"
    return "test" if material.is_test else "rolled"


def _check_roll(stream: RollStream, material: SeedMaterial, entry: dict[str, Any]) -> tuple[str, str] | None:
    """The roll recomputed and compared: None, or (code, why)."""
    start, end, logged, mix = entry.get("start"), entry.get("end"), entry.get("result"), entry.get("mix")
    if not isinstance(start, int) or not isinstance(end, int) or not isinstance(logged, dict) \
            or not isinstance(mix, str):
        return "roll-malformed", "roll entry is malformed (start, end, mix or result missing)"
    if start != stream.blocks:
        how = "skipped" if start > stream.blocks else "used twice"
        return "continuity", (f"roll starts at generate call {start}, the previous roll ended at {stream.blocks} "
                              f"(calls {how}: a dropped, moved or re-drawn roll)")
    system = logged.get("system")
    try:
        spec = get(str(system))
        params = spec.resolve(logged.get("params") or {})
        dice = stream.begin(bytes.fromhex(mix))
        replayed = _as_logged(spec, logged, json.loads(json.dumps(spec.roll(dice, params).to_dict())))
    except (EngineError, ValueError, TypeError, KeyError) as exc:
        return "roll-mismatch", f"cannot replay the {system} roll: {exc}"
    if replayed != logged:
        return "roll-mismatch", f"{system} roll does not match the revealed seed: {_difference(logged, replayed)}"
    if stream.blocks != end:
        return "continuity", f"{system} roll used generate calls {start}..{stream.blocks}, the log says {start}..{end}"
    label = _check_label(entry.get("roll_kind"), _kind(material, entry))
    return ("roll-kind", label) if label is not None else None


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
