"""The incremental roll-log verifier (:class:`Verifier`): entries and notes in, findings out.

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

- the hash chain (:func:`hardware.files.rolllog.chain_problem`);
- one session at a time, and one table seed per session: a ``session`` entry while another is
  unrevealed, a roll, table seed or reveal naming any session but the open one, and a table
  seed text that an earlier session carried already are problems;
- at a reveal: the seed against the commitment; for a session seeded from entropy, the seed
  against what its session entry claimed (:mod:`engine.seedcheck`); the table seed
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.chain import GENESIS, StoredEntry, chain_problem
from engine.errors import EngineError
from engine.fingerprints import FINGERPRINT_HEX, Noted, card_table_seed
from engine.rng import MIN_ENTROPY_BYTES
from engine.seedcheck import block_digests, seed_problems
from engine.seeds import (
    BLOCK_BYTES,
    SESSION_ROLLS,
    STREAMS,
    RollStream,
    SeedMaterial,
    TableSeedError,
    check_table_seed,
    mix_problem,
)
from engine.systems import get, typed_in
from engine.systems.panel import value_at
from engine.verify.endings import Endings
from engine.verify.report import (
    DamagedSession,
    Finding,
    Flag,
    NotedRoll,
    Notes,
    OpenSession,
    ReplayReport,
    SessionFacts,
    Step,
)
from engine.verify.rolls import check_roll, never_rolled, roll_kind, screen_line

__all__ = ["CHAIN_FINDING", "DAMAGED_CODE", "DAMAGED_KIND", "NOTED_KINDS", "Verifier"]

#: How every hash-chain finding starts (the board checks the chain itself and skips these).
CHAIN_FINDING = "hash chain broken: "
_STATE_VERSION = 4
#: The entry kinds a noted value may be the hash of (docs/fairness.md, rule 14).
NOTED_KINDS = ("session", "table_seed", "roll", "reveal")
#: The reveal ``reason`` of a session that reached its roll limit: every other reason ended it
#: early (engine.verify.endings).
LIMIT_REASON = "rolls"
#: The entry that ends a session whose seed was lost with its kept file (docs/fairness.md,
#: "Cached facts"), and the code that names it.
DAMAGED_KIND = "session_damaged"
DAMAGED_CODE = "damaged-session"
#: The flags a verifier keeps whole (the latest); all are counted by code.
FLAGS_KEPT = 50


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
    endings: dict[str, Any] = field(default_factory=dict)  # sessions ended early (Endings, as JSON)
    last_facts: dict[str, Any] = field(default_factory=dict)  # the latest revealed session's facts
    problems: list[list[Any]] = field(default_factory=list)  # [line, message, code]
    damaged: list[list[Any]] = field(default_factory=list)  # sessions ended as damaged: [session, line, rolls, why]
    # player mode only (a one-off check of a whole log, never the board's long-lived state):
    notes: dict[str, Any] = field(default_factory=dict)  # what the players noted (Notes, as JSON)
    noted: list[list[Any]] = field(default_factory=list)  # [prefix, number, found, session, line]
    night: list[dict[str, Any]] = field(default_factory=list)  # every revealed session's facts, in log order
    entered_lines: list[int] = field(default_factory=list)
    noted_rolls: list[list[Any]] = field(default_factory=list)  # [line, number, hash, system, outcome, dice, mix,
    #                                                               shown]
    seen: dict[str, list[int]] = field(default_factory=dict)  # session -> the numbers of its noted results


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
                         notes=n.to_json() if n.player_mode else {})

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
            notes = Notes.from_json(tuple(Noted(str(x[0]), x[1]) for x in restored.noted), restored.notes)
        except (TypeError, AttributeError, IndexError, ValueError) as exc:
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
            self._carried(line, e, found)
            if e.get("roll_kind") != "entered":
                found.append(Finding(line, "a roll outside any session must be an entered (typed-in) roll, this one "
                                           f"is labelled {e.get('roll_kind')!r}", "outside-session"))
            self._s.entered += 1  # counted apart (nothing in it can be checked), not a flag: players type them
            self._match(line, e, None, None)
            if self.notes.player_mode:
                self._s.entered_lines.append(line)
        elif kind in ("roll", "reveal", "table_seed", DAMAGED_KIND):
            session = self._open_one(line, str(kind), str(sid), found)
            number = len(session["rolls"]) + 1 if session is not None and kind == "roll" else None
            self._match(line, e, str(sid) if session is not None else None, number)
            if session is None:
                return
            if kind == "table_seed":
                self._table_seed(line, e, session, found)
            elif kind == "roll":
                self._carried(line, e, found)
                self._roll(line, e, session, found)
            elif kind == DAMAGED_KIND:
                self._damaged(line, e, session, found)
            else:
                self._reveal(line, e, session, found, verified)

    def _carried(self, line: int, e: dict[str, Any], found: list[Finding]) -> None:
        """What a system carries from roll to roll for its player (fingers' karma, horizons'
        Stability: ``PanelSpec.carried``), recomputed: the state a roll entry logs after it must
        hold what its result gives (the result itself is recomputed from the seed at the
        reveal). A device that logs a state the rules do not give (karma a player never earned,
        a track wiped) would feed it to that player's next roll. Values the roll does not touch
        are not compared: a player may edit them on the panel between rolls."""
        result, player, state = e.get("result"), e.get("player"), e.get("player_state")
        if not isinstance(result, dict) or isinstance(player, bool) or not isinstance(player, int) \
                or not isinstance(state, dict):
            return
        system = str(result.get("system"))
        try:
            spec = get(system)
        except EngineError:
            return  # said by the roll's own check
        mine = state.get(system)
        logged: dict[str, Any] = mine if isinstance(mine, dict) else {}
        for c in spec.panel.carried_for("roller"):
            gives = value_at(result, c.field)
            if gives is None:
                continue
            want, got = json.loads(json.dumps(gives)), logged.get(c.param)
            if got != want:
                found.append(Finding(line, f"player {player}'s {system} {c.param} after this roll is logged as "
                                           f"{json.dumps(got)}, its result gives {json.dumps(want)}: a state the "
                                           "rules do not carry, fed to the player's next roll", "player-state"))

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
                if sid is not None and number is not None:
                    s.seen.setdefault(sid, []).append(number)
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
                                    str(result.get("system")), str(result.get("outcome")), [str(d) for d in dice], mix,
                                    screen_line(result)])

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
        session["seed_source"] = e.get("source")
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
        if isinstance(e.get("result"), dict) and typed_in(e["result"]):
            found.append(Finding(line, f"roll #{number} of session {sid} is typed in (its outcome was given, not "
                                       "drawn) inside a session: typed-in rolls are logged outside every session, "
                                       "where the players count them (--allow-entered)", "roll-kind"))
        if e.get("source") == "panel":
            session["panel"] = True
            where = session.get("seed_source")
            if where is not None and where != "panel" and not session.get("foreign_code"):
                session["foreign_code"] = True
                found.append(Finding(line, f"roll #{number} of session {sid} is the panel's, but the session's code "
                                           f"was set by {where!r} (entry {session['table_seed'][1]}), not on the "
                                           "panel's keys: the panel rolls only under a code the table typed on it",
                                     "table-seed-source"))
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
                session["mixes"].append([line, text])  # counted, and named in player mode; not a flag
        session["rolls"].append([line, e])

    def _reveal(self, line: int, e: dict[str, Any], session: dict[str, Any], found: list[Finding],
                verified: list[int]) -> None:
        s = self._s
        sid = str(e.get("session"))
        del s.open[sid]
        s.closed.append(sid)
        s.revealed += 1
        rolls = session["rolls"]
        facts = self._facts(sid, session, head=str(e.get("hash", "")), end=line)
        s.last_facts = {k: v for k, v in facts.items() if k not in ("mixes", "not_panel", "roll_lines")}
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
            problem = check_roll(stream, material, entry)
            if problem is not None:
                later = len(rolls) - i - 1
                found.append(Finding(roll_line, problem[1] + (f"; the session's {later} later roll(s) are not checked"
                                                              if later else ""), problem[0]))
                return  # the DRBG may no longer be where the log says: later rolls prove nothing
            kind = roll_kind(material, entry)
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
            return
        if rolls and e.get("reason") != LIMIT_REASON and not material.is_test and found == []:
            self._ended_early(line, sid, e, stream, rolls[-1][1], found)

    def _damaged(self, line: int, e: dict[str, Any], session: dict[str, Any], found: list[Finding]) -> None:
        """A ``session_damaged`` entry: the tower found the session's kept file damaged, its seed
        unusable, so no reveal can follow. The session is ended (not open: a next one may
        start), with the reason the entry gives; none of its rolls can be checked. A witness
        flags it; in player mode a damaged session of the night that holds rolls is a problem
        (the results the players saw in it cannot be checked, though nothing says they are false)."""
        s = self._s
        sid = str(e.get("session"))
        del s.open[sid]
        s.closed.append(sid)
        rolls = session["rolls"]
        why = str(e.get("why") or e.get("reason") or "no reason given")
        s.damaged.append([sid, line, len(rolls), why])
        if e.get("rolls") != len(rolls):
            found.append(Finding(line, f"session {sid}: the session_damaged entry counts {e.get('rolls')!r} roll(s), "
                                       f"the log holds {len(rolls)}", "reveal-count"))
        self._flag(line, DAMAGED_CODE, f"session {sid} ended as damaged: {why}; its {len(rolls)} roll(s) cannot be "
                                       "checked")
        facts = self._facts(sid, session, end=line)
        self._keep_night({**facts, "damaged": why}, None)

    def _ended_early(self, line: int, sid: str, e: dict[str, Any], stream: RollStream, last: dict[str, Any],
                     found: list[Finding]) -> None:
        """A session ended before its roll limit, all its rolls checked: its next roll, never
        rolled, computed from the revealed seed with the last roll's setting, and counted with
        its odds (:mod:`engine.verify.endings`); a flag, then a problem, once endings fail far
        more often than those odds allow."""
        next_fails = never_rolled(stream, last)
        if next_fails is None:
            return
        fails, chance = next_fails
        endings = Endings.from_json(self._s.endings)
        endings.add(chance, fails)
        level = endings.news()
        self._s.endings = endings.to_json()
        who = e.get("by") or e.get("reason") or "?"
        if level == 1:
            self._flag(line, "early-endings", f"session {sid} ended early ({who}) before a roll that would have "
                                              f"failed; {endings.summary()}")
        elif level == 2:
            found.append(Finding(line, f"session {sid} ended early ({who}) before a roll that would have failed; "
                                       f"{endings.summary()}: whoever ends the sessions knows their next roll",
                                 "early-endings"))

    def _facts(self, sid: str, session: dict[str, Any], head: str = "", end: int = 0) -> dict[str, Any]:
        """A session's reveal-card facts and what player mode needs of it (``end``: its reveal's
        line, 0 while open)."""
        seed = session["table_seed"][0] if session["table_seed"] is not None else None
        return {"session": sid, "line": session["line"], "commitment": session["commitment"], "table_seed": seed,
                "rolls": len(session["rolls"]), "head": head, "end": end,
                "commitment_noted": bool(session["commitment_noted"]), "mixes": list(session["mixes"]),
                "panel": bool(session["panel"]), "not_panel": list(session["not_panel"]) if session["panel"] else [],
                "test": None, "roll_lines": [r[0] for r in session["rolls"]] if self.notes.player_mode else []}

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
        if session["table_seed"] is None and session["rolls"]:  # an empty session chose nothing
            s.no_table_seed.append([sid, session["line"], len(session["rolls"])])
            self._flag(session["line"], "no-table-seed", f"session {sid} has no table seed: its owner could have "
                                                         "chosen its seed")

    # --- the verdict --------------------------------------------------------------------------------

    def report(self, path: object = "-") -> ReplayReport:
        """The verdict on everything fed so far, with the checks that need the whole log: what
        the players noted (player mode)."""
        s = self._s
        problems = [Finding(int(p[0]), str(p[1]), str(p[2])) for p in s.problems]
        facts: tuple[SessionFacts, ...] = ()
        outside = 0
        night_rolls: int | None = None
        if self.notes.player_mode:
            night, outside, found, night_rolls = self._night_checks()
            problems += found
            facts = night
        elif s.last_facts:
            facts = (_session_facts(s.last_facts, night=False),)
        problems.sort(key=lambda f: f.line_no)
        still_open = tuple(OpenSession(sid, o["line"], len(o["rolls"])) for sid, o in s.open.items())
        left = tuple(OpenSession(sid, o["line"], o["rolls"]) for sid, o in s.left.items())
        notes = [f"session {o.session} (entry {o.line_no}) is still open: its {o.rolls} roll(s) are not checked "
                 "until it is revealed" for o in still_open]
        damaged = tuple(DamagedSession(str(a), int(b), int(c), str(d)) for a, b, c, d in s.damaged)
        notes += [f"session {d.session} ended as damaged (entry {d.line_no}): {d.why}; its {d.rolls} roll(s) cannot "
                  "be checked (no seed is known)" for d in damaged]
        without = tuple(OpenSession(str(a), int(b), int(c)) for a, b, c in s.no_table_seed)
        if without:
            notes.append(f"{len(without)} session(s) without a table seed: the owner could have chosen their seed "
                         f"({', '.join(o.session for o in without[:5])}{', ...' if len(without) > 5 else ''})")
        if outside:
            notes.append(f"{outside} session(s) with rolls before or after what you noted: not checked against your "
                         "notes, and none of their rolls is one you saw")
        endings = Endings.from_json(s.endings)
        if endings.count:
            notes.append(endings.summary())
        flags = tuple(Flag(int(a), str(b), str(c)) for a, b, c in s.flags)
        noted = tuple(NotedRoll(int(r[0]), int(r[1]), str(r[2]), str(r[3]), str(r[4]), tuple(r[5]), str(r[6]),
                                str(r[7]) if len(r) > 7 else "") for r in s.noted_rolls)
        return ReplayReport(str(path), s.entries, s.sessions, s.revealed, s.verified, s.entered, s.test,
                            sum(o.rolls for o in still_open) + sum(o.rolls for o in left), still_open + left,
                            tuple(problems), tuple(notes), without, s.mixed, s.prev, flags, dict(s.flag_counts), facts,
                            outside, noted, {"count": endings.count, "failed": endings.failed,
                                             "expected": endings.expected, "p_value": endings.p_value}
                            if endings.count else {}, night_rolls, damaged)

    def _night_checks(self) -> tuple[tuple[SessionFacts, ...], int, list[Finding], int | None]:
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
            return (), sum(1 for x in sessions if x["rolls"]), found, None
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
            if x.get("damaged") is not None:
                if x["rolls"]:
                    found.append(Finding(x["end"], f"session {x['session']} of your night ended as damaged: "
                                                   f"{x['damaged']}; its {x['rolls']} roll(s) cannot be checked (no "
                                                   "seed is known to reveal)", DAMAGED_CODE))
            elif x["rolls"] or x["session"] in touched:
                found += self._night_session(x, codes)
        found += self._named_mixes(inside)
        found += self._named_command_line(inside)
        found += self._unseen(inside)
        typed = [line for line in s.entered_lines if first <= line <= last]
        if len(typed) > n.allow_entered:
            shown = ", ".join(map(str, typed[:8])) + (", ..." if len(typed) > 8 else "")
            found.append(Finding(typed[0], f"{len(typed)} typed-in roll(s) in your night (entries {shown}), you named "
                                           f"{n.allow_entered} (--allow-entered N): their faces were typed, not rolled",
                                 "entered-not-named"))
        return tuple(night), outside, found, sum(x["rolls"] for x in inside)

    def _unseen(self, night: list[dict[str, Any]]) -> list[Finding]:
        """The table's night is every roll: each roll of a session of the night must be one the
        players saw, whoever logged it and whatever its ``source`` says. Seen means noted (its
        ``N:HEX``) or, when they give ``--count N``, counted: the night then holds exactly N
        rolls. A roll made in between by whoever knows the seed (the stock simulator or command
        line run by root on the tower's state directory) skips the table's next one."""
        count = self.notes.count
        with_rolls = [x for x in night if x["rolls"]]
        total = sum(x["rolls"] for x in with_rolls)
        if count is not None:
            return self._counted(with_rolls, total, count)
        found: list[Finding] = []
        for x in with_rolls:
            seen = set(self._s.seen.get(x["session"], ()))
            unseen = [n for n in range(1, x["rolls"] + 1) if n not in seen]
            if not unseen:
                continue
            lines = x["roll_lines"]
            at = lines[unseen[0] - 1] if len(lines) >= unseen[0] else x["line"]
            noted = _numbers(sorted(seen)) or "none of them"
            found.append(Finding(at, f"roll(s) {_numbers(unseen)} of session {x['session']} are in your night but "
                                     f"not among the results you noted ({noted}): a roll you did not see can skip "
                                     "one of yours; note every result, or count them and give --count N",
                                 "unseen-roll"))
        return found

    def _counted(self, night: list[dict[str, Any]], total: int, count: int) -> list[Finding]:
        """``--count N``: the players' own tally of the rolls they saw, all sessions together."""
        held = ", ".join(f"{x['rolls']} in session {x['session']}" for x in night) or "none"
        if total > count:
            x = night[-1]
            lines = x["roll_lines"]
            return [Finding(lines[-1] if lines else x["line"],
                            f"your night holds {total} roll(s) ({held}), you counted {count} (--count): "
                            f"{total - count} roll(s) you did not see, made between, before or after yours",
                            "unseen-roll")]
        if total < count:
            return [Finding(0, f"you counted {count} roll(s) (--count), your night holds {total} ({held}): a result "
                               "you saw is not in the log", "missing-roll")]
        return []

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


def _numbers(numbers: Sequence[int]) -> str:
    """``#1..#3, #6, #7``: roll numbers, runs of three or more joined (at most 12 shown)."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    parts = [f"#{r[0]}..#{r[-1]}" if len(r) >= 3 else ", ".join(f"#{n}" for n in r) for r in runs]
    shown = ", ".join(parts[:12])
    return shown + (", ..." if len(parts) > 12 else "")
