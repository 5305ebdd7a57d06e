"""Replay a roll log: recompute every logged roll from its session's revealed seed.

The core is :class:`Verifier`, which takes the log's entries one at a time (:meth:`Verifier.
feed`), reports each problem as soon as it is decided, and keeps between entries a small
JSON-serialisable state (:meth:`Verifier.state`, :meth:`Verifier.resume`): the chain's last
hash, the open session with its rolls (held until its reveal: at most ``SESSION_ROLLS``), and
one short digest per session seen (for "started twice" and reused entropy). ``dicetower
replay``, :func:`replay_log` and :func:`replay_entries` stream through it; the store's board
feeds it entries as they arrive, so every checker reaches the same verdict.

What it checks (docs/fairness.md, "Verify it yourself"):

- the hash chain (:func:`hardware.rolllog.chain_problem`);
- one session at a time: a ``session`` entry while another is unrevealed, and a roll, table
  seed or reveal naming any session but the open one, are problems;
- at a reveal: the seed against the commitment; for a session seeded from entropy, the seed
  against what its session entry claimed (:mod:`hardware.entropy.seedcheck`: layout, credit,
  weak or reused entropy); the table seed (stream 3: at most one, before the first roll); the
  continuity of the rolls (each starts where the previous ended), each roll recomputed with its
  logged parameters and mix and compared whole (a parameter a later version added, absent
  from an older entry, is accepted at its default), the roll count and the end;
- a stream 3 roll's mix is text a player typed, never a device's measurement;
- what the players noted: each ``--expect`` prefix must start an entry's hash (a session, table
  seed, roll or reveal entry: the reveal's is the head the reveal shows) or a commitment; with
  ``--table-seed``, the sessions they noted (or every random session) must carry one of the
  table seeds given.

Only ``rolled`` rolls of revealed random sessions count as verified; typed-in rolls
(``entered``), ``--seed`` sessions (``test``) and rolls of sessions still open are counted
apart, and random sessions without a table seed are listed apart (their owner could have
chosen their seed). The kind is derived from the log's content, and a label claiming more is a
problem.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from engine.params import typed_in
from engine.results import to_jsonable
from engine.rng import MIN_ENTROPY_BYTES
from engine.systems import get
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

__all__ = ["CHAIN_FINDING", "Finding", "ReplayReport", "Step", "Verifier", "replay_entries",
           "replay_log"]

#: How every hash-chain finding starts (the board checks the chain itself and skips these).
CHAIN_FINDING = "hash chain broken: "
_STATE_VERSION = 1


@dataclass(frozen=True)
class Finding:
    """A problem found at one log entry (1-based line number; 0: the log as a whole)."""

    line_no: int
    message: str

    def __str__(self) -> str:
        return f"entry {self.line_no}: {self.message}" if self.line_no else f"log: {self.message}"


@dataclass(frozen=True)
class OpenSession:
    """A session with no reveal (yet): its rolls cannot be checked."""

    session: str
    line_no: int
    rolls: int


@dataclass(frozen=True)
class Step:
    """What one entry decided: problems found, and the rolls (line numbers) verified by it."""

    findings: tuple[Finding, ...] = ()
    verified: tuple[int, ...] = ()


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
            "rolls_mixed": self.rolls_mixed,
            "rolls_checked": self.rolls_verified, "rolls_unrevealed": self.rolls_open,
            "rolls_typed": self.rolls_entered, "ok": self.ok, "head": self.head,
            "open_sessions": [{"session": o.session, "entry": o.line_no, "rolls": o.rolls}
                              for o in self.open_sessions],
            "without_table_seed": [{"session": o.session, "entry": o.line_no, "rolls": o.rolls}
                                   for o in self.without_table_seed],
            "problems": [{"entry": p.line_no, "message": p.message} for p in self.problems],
            "notes": list(self.notes),
        }


def replay_log(path: str | Path, *, expect: Sequence[str] = (), table_seeds: Sequence[str] = ()) -> ReplayReport:
    """Check every roll in the log at ``path``; see the module docstring."""
    path = Path(path)
    return replay_entries(lambda: read_entries(path), path, expect=expect, table_seeds=table_seeds)


def replay_entries(entries: Callable[[], Iterable[StoredEntry]], path: str | Path = "-", *,
                   expect: Sequence[str] = (), table_seeds: Sequence[str] = ()) -> ReplayReport:
    """:func:`replay_log` on entries from anywhere (a file, a broker's stream). ``entries``
    gives an iterable of the log's entries, in order (it is called once)."""
    verifier = Verifier(expect=expect, table_seeds=table_seeds)
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
    expect: dict[str, bool] = field(default_factory=dict)  # prefix -> found
    table_seeds: list[str] = field(default_factory=list)
    no_table_seed: list[list[Any]] = field(default_factory=list)  # [session, line, rolls]
    problems: list[list[Any]] = field(default_factory=list)  # [line, message]


class Verifier:
    """The incremental roll-log verifier (see the module docstring).

    ``expect`` are fingerprint prefixes the players noted (at least 8 hex digits each);
    ``table_seeds`` the table seeds they set. :meth:`feed` one entry at a time, in log order;
    :meth:`report` at any time gives the verdict on what was fed (the end-of-log checks
    included); :meth:`state` / :meth:`resume` carry a verifier across processes or restarts.
    """

    def __init__(self, *, expect: Sequence[str] = (), table_seeds: Sequence[str] = ()) -> None:
        self._s = _State(expect={str(p).lower(): False for p in expect}, table_seeds=list(table_seeds))

    # --- carrying it over ---------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """Everything needed to go on from here, as plain JSON values."""
        s = self._s
        return {"version": _STATE_VERSION, **copy.deepcopy(s.__dict__)}

    @classmethod
    def resume(cls, state: dict[str, Any]) -> Verifier:
        """The verifier :meth:`state` described; ``ValueError`` if it is not such a state."""
        if not isinstance(state, dict) or state.get("version") != _STATE_VERSION:
            raise ValueError(f"not a version {_STATE_VERSION} verifier state")
        fields = {k: v for k, v in state.items() if k != "version"}
        try:
            restored = _State(**copy.deepcopy(fields))
        except TypeError as exc:
            raise ValueError(f"not a verifier state: {exc}") from None
        verifier = cls()
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
            s.problems.append([f.line_no, f.message])
        return Step(tuple(found), tuple(verified))

    def _chain(self, stored: StoredEntry, found: list[Finding]) -> None:
        s = self._s
        if s.chain_broken:
            return
        problem = chain_problem(stored, s.prev, s.seq)
        if problem is not None:
            s.chain_broken = True
            found.append(Finding(stored.line_no, CHAIN_FINDING + problem))
            return
        s.prev, s.seq = (stored.entry or {})["hash"], s.seq + 1

    def _entry(self, line: int, e: dict[str, Any], found: list[Finding], verified: list[int]) -> None:
        kind, sid = e.get("kind"), e.get("session")
        noted = self._match(e)
        if kind == "session":
            self._start(line, e, found, noted)
        elif kind == "roll" and sid is None:
            if e.get("roll_kind") != "entered":
                found.append(Finding(line, "a roll outside any session must be an entered (typed-in) roll, this one "
                                           f"is labelled {e.get('roll_kind')!r}"))
            self._s.entered += 1
        elif kind in ("roll", "reveal", "table_seed"):
            session = self._open_one(line, str(kind), str(sid), found)
            if session is None:
                return
            session["noted"] = session["noted"] or noted
            if kind == "table_seed":
                self._table_seed(line, e, session, found)
            elif kind == "roll":
                self._roll(line, e, session, found)
            else:
                self._reveal(line, e, session, found, verified)

    def _match(self, e: dict[str, Any]) -> bool:
        """Mark the noted fingerprints this entry carries (its hash; a session entry's
        commitment); True if it carries one."""
        s = self._s
        if not s.expect:
            return False
        values = [str(e.get("hash", ""))]
        if e.get("kind") == "session":
            values.append(str(e.get("commitment", "")))
        hit = False
        for prefix in s.expect:
            if any(v.startswith(prefix) for v in values):
                s.expect[prefix] = True
                hit = True
        return hit

    def _start(self, line: int, e: dict[str, Any], found: list[Finding], noted: bool) -> None:
        s = self._s
        sid = str(e.get("session"))
        if sid in s.open or sid in s.closed or sid in s.left:
            found.append(Finding(line, f"session {sid} started twice"))
            return
        for other, o in list(s.open.items()):
            found.append(Finding(line, f"session {sid} opened while session {other} (entry {o['line']}) is still "
                                       "open: one session at a time (a hidden session beside the one the players "
                                       "saw?); the earlier one's rolls are not checked"))
            s.left[other] = {"line": o["line"], "rolls": len(o["rolls"])}
            del s.open[other]
        stream = e.get("stream", 1)
        if stream not in STREAMS:
            found.append(Finding(line, f"session {sid} uses stream format {stream!r}, not one of "
                                       f"{', '.join(map(str, STREAMS))}: written by an older dicetower whose rolls "
                                       "took no player input; not verifiable"))
            return
        block = e.get("block_bytes", BLOCK_BYTES)
        if isinstance(block, bool) or not isinstance(block, int) or not 1 <= block <= 65536 \
                or (stream == 3 and block != BLOCK_BYTES):
            want = f"{BLOCK_BYTES}" if stream == 3 else "1..65536"
            found.append(Finding(line, f"session {sid} has a bad block size {block!r} (stream {stream}: {want})"))
            return
        s.sessions += 1
        s.open[sid] = {"line": line, "commitment": str(e.get("commitment")), "block": block, "stream": stream,
                       "entry": {k: e.get(k) for k in ("sources", "credited_bits")}, "table_seed": None,
                       "rolls": [], "overflow": False, "spoiled": False, "noted": noted}

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
        found.append(Finding(line, f"{what} of session {sid} {why}"))
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
            found.append(Finding(line, problem + "; the session's rolls are not checked"))
            session["spoiled"] = True
            return
        session["table_seed"] = [e.get("table_seed"), line]

    def _roll(self, line: int, e: dict[str, Any], session: dict[str, Any], found: list[Finding]) -> None:
        sid = str(e.get("session"))
        if len(session["rolls"]) >= SESSION_ROLLS:
            if not session["overflow"]:
                found.append(Finding(line, f"session {sid} has more than {SESSION_ROLLS} rolls; a session is "
                                           f"revealed after {SESSION_ROLLS}"))
            session["overflow"] = True
            return
        if session["stream"] == 3:
            mix = e.get("mix")
            try:
                why = mix_problem(bytes.fromhex(mix)) if isinstance(mix, str) else "missing"
            except ValueError:
                why = "not hexadecimal"
            if why is not None:
                found.append(Finding(line, f"the mix of a stream 3 roll must be text a player typed (--mix), never "
                                           f"a device's measurement: this one is {why}"))
            elif mix:
                self._s.mixed += 1
        session["rolls"].append([line, e])

    def _reveal(self, line: int, e: dict[str, Any], session: dict[str, Any], found: list[Finding],
                verified: list[int]) -> None:
        s = self._s
        sid = str(e.get("session"))
        del s.open[sid]
        s.closed.append(sid)
        s.revealed += 1
        try:
            material = SeedMaterial.from_hex(str(e.get("seed", "")))
        except ValueError as exc:
            found.append(Finding(line, f"session {sid}: the revealed seed cannot be read ({exc})"))
            return
        if material.commitment != session["commitment"] or session["commitment"][:16] != sid:
            found.append(Finding(line, f"session {sid}: the revealed seed does not match the commitment published "
                                       f"in entry {session['line']}"))
            return
        if not material.is_test:
            self._seed_checks(line, sid, material, session, found)
        self._table_seed_noted(line, sid, session, material, found)
        rolls = session["rolls"]
        if e.get("rolls") != len(rolls):
            found.append(Finding(line, f"session {sid}: the reveal counts {e.get('rolls')!r} roll(s), the log holds "
                                       f"{len(rolls)}"))
        if session["spoiled"] or len(material.entropy) < MIN_ENTROPY_BYTES:
            return  # not a DRBG the rolls could have come from (said above)
        stream = RollStream(material, block_bytes=session["block"])
        if session["table_seed"] is not None:
            stream.set_table_seed(session["table_seed"][0])
        for i, (roll_line, entry) in enumerate(rolls):
            problem = _check_roll(stream, material, entry)
            if problem is not None:
                later = len(rolls) - i - 1
                found.append(Finding(roll_line, problem + (f"; the session's {later} later roll(s) are not checked"
                                                           if later else "")))
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
            found.append(Finding(line, f"continuity: session {sid} reveal says it ended at generate call "
                                       f"{e.get('end')!r}, its last roll ended at {stream.blocks}"))

    def _seed_checks(self, line: int, sid: str, material: SeedMaterial, session: dict[str, Any],
                     found: list[Finding]) -> None:
        s = self._s
        for problem in seed_problems(material, session["entry"]):
            found.append(Finding(line, f"session {sid}: {problem}"))
        for i, digest in enumerate(block_digests(material)):
            earlier = s.entropy.get(digest)
            if earlier is not None and earlier[0] != sid:
                found.append(Finding(line, f"session {sid}: entropy block {i + 1} was already used by session "
                                           f"{earlier[0]} (entry {earlier[1]}): a reused seed"))
            s.entropy.setdefault(digest, [sid, line])
        if session["table_seed"] is None:
            s.no_table_seed.append([sid, session["line"], len(session["rolls"])])

    def _table_seed_noted(self, line: int, sid: str, session: dict[str, Any], material: SeedMaterial | None,
                          found: list[Finding]) -> None:
        """With ``--table-seed``: the sessions the players noted (or, with no ``--expect``, every
        random session) must carry one of the table seeds they set."""
        s = self._s
        if not s.table_seeds:
            return
        if s.expect and not session.get("noted"):
            return
        if not s.expect and material is not None and material.is_test:
            return
        logged = session["table_seed"][0] if session["table_seed"] is not None else None
        given = ", ".join(repr(t) for t in s.table_seeds)
        if logged is None:
            found.append(Finding(line, f"session {sid} has no table seed, but the players set {given}"))
        elif logged not in s.table_seeds:
            found.append(Finding(line, f"session {sid}: its table seed is {logged!r}, not one the players set "
                                       f"({given})"))

    # --- the verdict --------------------------------------------------------------------------------

    def report(self, path: str | Path = "-") -> ReplayReport:
        """The verdict on everything fed so far, with the checks that need the whole log: the
        noted fingerprints that never appeared, the table seeds of sessions still open."""
        s = self._s
        problems = [Finding(int(line), str(message)) for line, message in s.problems]
        for sid, session in s.open.items():
            end: list[Finding] = []
            self._table_seed_noted(s.entries, sid, session, None, end)
            problems += end
        for prefix, found in s.expect.items():
            if not found:
                problems.append(Finding(0, f"expected fingerprint {prefix} is not in the log: no entry's hash and no "
                                           "commitment starts with it (a roll or session the players noted was "
                                           "changed, dropped or cut)"))
        problems.sort(key=lambda f: f.line_no)
        still_open = tuple(OpenSession(sid, o["line"], len(o["rolls"])) for sid, o in s.open.items())
        left = tuple(OpenSession(sid, o["line"], o["rolls"]) for sid, o in s.left.items())
        notes = [f"session {o.session} (entry {o.line_no}) is still open: its {o.rolls} roll(s) are not checked "
                 "until it is revealed" for o in still_open]
        without = tuple(OpenSession(str(a), int(b), int(c)) for a, b, c in s.no_table_seed)
        if without:
            notes.append(f"{len(without)} session(s) without a table seed: the owner could have chosen their seed "
                         f"({', '.join(o.session for o in without[:5])}{', ...' if len(without) > 5 else ''})")
        return ReplayReport(Path(path), s.entries, s.sessions, s.revealed, s.verified, s.entered, s.test,
                            sum(o.rolls for o in still_open) + sum(o.rolls for o in left), still_open + left,
                            tuple(problems), tuple(notes), without, s.mixed, s.prev)


def _kind(material: SeedMaterial, entry: dict[str, Any]) -> str:
    """What the roll really is, from its content (the label is checked against this)."""
    params = (entry.get("result") or {}).get("params") or {}
    if typed_in(params):
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
