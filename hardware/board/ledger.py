"""One tower as the board sees it: its chain in the record, what waits, what is missing.

Entries arrive over MQTT at least once and, after a broker restart or a late start, out of
order. :meth:`Ledger.accept` keeps the chain: an entry whose content does not match its own
hash is rejected (a red finding, the message kept as evidence); a duplicate (same seq and
hash) is dropped and counted; an entry from the future waits (bounded in bytes) until the gap
before it is filled (the board asks the tower to resend); an entry whose ``prev`` is the hash
of a kept entry one seq before chains and is kept.

**Conflicts are evidence, not data.** Two different entries for one seq (a forgery published
before the tower's own entry, or a rewritten log) turn the tower red with "conflicting entries
at seq N"; both are kept (marked, and never shown as the tower's roll), and the chain goes on
from whichever of them the tower's later entries name as their ``prev``, so an honest tower's
later entries still arrive, chain and show. The *path* is the chain from the first entry to
the head through those ``prev`` links: what the verifier replays and the API lists.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from hardware.board.messages import (
    AHEAD_MARK,
    MARKS,
    MAX_AHEAD,
    Rejected,
    ahead,
    entry_problems,
    params_view,
    result_of,
    roll_view,
    shown,
    text,
)
from hardware.board.record import Record, TowerRow, canonical, session_column
from hardware.board.stats import Stats
from hardware.board.verdict import Counts
from hardware.files.rolllog import GENESIS

#: Rolls a card shows.
LAST_ROLLS = 8
#: Sessions whose last roll number a tower's ledger remembers (a tower rolls in one at a time).
NUMBERED_SESSIONS = 8
#: Bytes of entries from the future one tower may have waiting (at least one entry always fits).
PENDING_BYTES = 1 << 20
#: Seqs with conflicting entries kept per tower; beyond, a further conflict is counted only
#: (the tower is red already, and a tower could make a conflict of every entry).
MAX_CONFLICTS = 1000
ENTERED = MARKS.index("entered")

Entry = dict[str, Any]


@dataclass
class Waiting:
    entry: Entry
    canon: bytes  # what its hash is over (hardware.board.record.canonical)
    size: int
    edited: bool = False  # its content does not match its own hash


@dataclass
class Ledger:
    """One tower: what the page shows of it (in memory, small) and its chain (in the record)."""

    id: int
    store: str
    tower: str
    first_seen: float
    last_heard: float
    head_seq: int = 0
    head_hash: str = GENESIS
    rolls: int = 0
    sessions: int = 0
    duplicates: int = 0
    status: dict[str, Any] | None = None
    problem: str | None = None
    problems: int = 0
    counts: Counts = field(default_factory=Counts)
    marked: int = 0  # rolls marked verified on the path (what the card counts: never more than its rolls)
    numbers: OrderedDict[str, tuple[int, int]] = field(default_factory=OrderedDict)  # session -> (number, seq)
    stats: Stats = field(default_factory=Stats)
    last: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=LAST_ROLLS))
    setting: tuple[str | None, dict[str, Any]] = (None, {})
    open_session: dict[str, str | None] | None = None
    pending: dict[int, list[Waiting]] = field(default_factory=dict)
    pending_bytes: int = 0
    dropped: int = 0  # entries from the future not kept (over the byte cap): asked for again later
    conflicts: int = 0
    alt: dict[int, set[str]] = field(default_factory=dict)  # seq -> kept entries off the path (conflicts)
    mismatched: set[int] = field(default_factory=set)  # seqs whose waiting entry does not continue the head
    ahead_from: int = 0  # the lowest seq of a finding "too far ahead" (0: none), taken back as the chain grows
    claimed: int = 0  # the seq the last status said, believed or not: what the board asks for, in steps
    progress_at: float = field(default_factory=time.monotonic)
    asked_from: int = 0
    asked_at: float = 0.0
    asked_times: int = 0
    path_version: int = 0
    check_due: bool = False
    checking: bool = False
    check_after: float = 0.0
    version: int = 0  # bumped at every change the page can see
    stats_version: int = field(default_factory=time.monotonic_ns)  # new when the statistics change

    @property
    def key(self) -> str:
        return f"{self.store}/{self.tower}"

    @property
    def online(self) -> bool:
        return self.status is not None and self.status.get("state") == "online"

    @property
    def wanted(self) -> int:
        """The highest seq the board knows exists (the tower's status, entries that wait)."""
        top = max(self.pending) if self.pending else 0
        seq = (self.status or {}).get("seq") or 0
        return max(top, seq, self.head_seq)

    @property
    def missing(self) -> int:
        return max(0, self.wanted - self.head_seq - sum(1 for s in self.pending if s > self.head_seq))

    @classmethod
    def from_row(cls, row: TowerRow, record: Record) -> Ledger:
        ledger = cls(row.id, row.store, row.tower, row.first_seen, row.last_heard, row.head_seq, row.head_hash,
                     row.rolls, row.sessions, row.duplicates)
        status = row.status or {}
        ledger.status = {"state": "offline", "seq": status.get("seq")} if status else None  # until it says
        if row.verdict:
            with contextlib.suppress(TypeError, ValueError, AttributeError):
                kept = dict(row.verdict)
                flags = kept.pop("flags", {})
                ledger.counts = Counts(**{k: int(v) for k, v in kept.items()},
                                       flags=tuple(sorted((str(k), int(v)) for k, v in flags.items())))
        ledger.marked = row.marked if row.marked is not None else record.count_marked(row.id)
        ledger.ahead_from = record.claims_ahead(row.id, AHEAD_MARK)
        ledger.stats = Stats.from_plain(record.stats(row.id))
        for seq in _conflict_seqs(record, row.id):
            ledger.conflicts += 1
            ledger.alt[seq] = {h for h, _, on in record.hashes_at(row.id, seq) if not on}
        ledger.refresh(record)
        ledger.check_due = row.head_seq > 0
        return ledger

    # --- what the page shows, from the record ---------------------------------------------------------

    def refresh(self, record: Record) -> None:
        """The card's parts that come from the record: the headline problem, the last rolls."""
        first = record.findings(self.id, 1)
        self.problem = _headline(first[0]) if first else None
        self.problems = record.count_findings(self.id)
        self.last.clear()
        self.numbers.clear()
        for entry, mark, number in reversed(record.last_rolls(self.id, LAST_ROLLS)):
            self._show(entry, mark, number)
            self._numbered(entry, number)
        session = record.last_of_kind(self.id, "session")
        reveal = record.last_of_kind(self.id, "reveal")
        self.open_session = None
        if session is not None and (reveal is None or reveal.get("session") != session.get("session")
                                    or reveal["seq"] < session["seq"]):
            self.open_session = {"session": text(session.get("session"), 40),
                                 "commitment": text(session.get("commitment"), 80)}
        self.version += 1

    def _show(self, entry: Entry, mark: int, number: int | None = None) -> None:
        self.last.appendleft(roll_view(entry, mark, number))
        result = result_of(entry)
        self.setting = (text(result.get("system"), 40), params_view(result.get("params"), result.get("system")))

    def card(self) -> dict[str, Any]:
        """Everything one card on the page shows (every value of a known type)."""
        system, params = self.setting
        c = self.counts
        return {
            **self.summary(), "key": self.key, "problems": self.problems, "system": system, "params": params,
            "commitment": (self.open_session or {}).get("commitment"), "session": (self.open_session or {}).get(
                "session"), "seq": self.head_seq, "missing": self.missing, "duplicates": self.duplicates,
            "conflicts": self.conflicts, "revealed": c.revealed, "replay_pending": self.check_due or self.checking,
            "open_sessions": max(0, c.sessions - c.revealed),
            "checked": {"verified": self.marked, "unchecked": c.unchecked, "entered": c.entered, "test": c.test,
                        "flags": dict(c.flags)},
            "last": list(self.last), "stats": self.stats.to_dict(),
        }

    def summary(self) -> dict[str, Any]:
        """The ``/api/towers`` item. ``verified`` is true only for a tower with at least one
        verified roll and no problem; ``state`` says which of ``red`` (a problem),
        ``verified``, ``unchecked`` (rolls, none verified yet: their sessions are open),
        ``unverified`` (rolls none of which can be verified: typed in, or a ``--seed`` test) or
        ``empty`` (no roll) it is."""
        c = self.counts
        never = c.entered + c.test  # rolls that can never be verified (typed in, --seed tests)
        state = "red" if self.problem is not None else "verified" if self.marked else \
            "empty" if not self.rolls else "unverified" if never >= self.rolls else "unchecked"
        return {"tower": self.tower, "store": self.store, "online": self.online, "rolls": self.rolls,
                "sessions": self.sessions, "verified": state == "verified", "state": state,
                "unchecked": max(0, self.rolls - self.marked - never), "problem": self.problem}

    # --- findings ------------------------------------------------------------------------------------

    def find(self, record: Record, seq: int | None, message: str, now: float, *, evidence: bytes | None = None,
             reason: str = "") -> None:
        """A board finding against this tower: about an entry of its chain, or (with
        ``evidence``, the message kept) about a message that is not data."""
        digest = None
        if evidence is not None:  # a message: the same bytes are one finding (retained, redelivered at each start)
            digest = hashlib.sha256(evidence).hexdigest()
            if record.knows_message(self.id, digest):
                return
        record.add_finding(self.id, seq, "board" if evidence is None else "message", message, now, digest=digest)
        if evidence is not None:
            record.add_evidence(self.id, seq, reason or message, evidence, now)
        self._headline(record)

    def _headline(self, record: Record) -> None:
        first = record.findings(self.id, 1)
        problem = _headline(first[0]) if first else None
        problems = record.count_findings(self.id)
        if (problem, problems) != (self.problem, self.problems):
            self.problem, self.problems = problem, problems
            self.version += 1

    # --- entries ---------------------------------------------------------------------------------------

    def accept(self, record: Record, entry: Entry, raw: bytes, now: float) -> int:
        """One entry from the tower's log topic (already schema-checked for the chain's fields);
        returns how many entries were newly kept on the path.

        An entry whose content does not match its own hash (an edited entry) is a finding. It
        still waits in its place where no entry holds its seq, and is kept there, marked
        edited, once the tower's next entry names its hash as ``prev``: the chain goes on
        through it, and the verifier reads the log as ``dicetower replay`` does (the rolls
        before it verified, its session's rolls from it on never). An entry whose content
        matches its hash always wins over an edited one: at the same seq it replaces it, kept
        or waiting (a forged edited copy published first changes nothing)."""
        seq, digest = entry["seq"], entry["hash"]
        canon = canonical(entry)
        edited = hashlib.sha256(canon).hexdigest() != digest
        if edited:
            self.find(record, seq, f"entry {seq}: its content does not match its own hash: the entry was edited",
                      now, evidence=raw, reason="edited")
        if seq > self.head_seq + MAX_AHEAD:
            if not edited:
                self.find(record, seq, ahead(f"entry {seq}: its seq is", seq, self.head_seq), now, evidence=raw,
                          reason="too far ahead")
                self.claimed_ahead(seq)
            return 0
        w = Waiting(entry, canon, len(raw), edited)
        if edited:
            held = self.pending.get(seq, [])
            if seq <= self.head_seq or any(not h.edited or h.entry["hash"] == digest for h in held):
                return 0  # its place is taken (or it waits already): evidence only
            self._wait(w)
            return self._adopt(record, now)
        if seq <= self.head_seq:
            return self._behind(record, w, raw, now)
        for h in [h for h in self.pending.get(seq, []) if h.edited]:
            self._unwait(seq, h)  # an entry as written takes the place of the edited ones waiting there
        held = self.pending.get(seq, [])
        if any(w.entry["hash"] == digest for w in held):
            self.duplicates += 1
            return 0
        if held:
            self._conflict(record, seq, [w.entry["hash"] for w in held], entry, raw, now)
        if seq == self.head_seq + 1 and self._parent_kept(record, seq, entry["prev"]):
            return self._extend(record, w, now)
        self._wait(w)
        if seq == self.head_seq + 1 and not held:
            self._mismatch(record, seq, now)
        return self._adopt(record, now)

    def _edited_next(self) -> Waiting | None:
        """An edited entry waiting right after the head that continues it, and that the tower's
        next entry (waiting too) names as its ``prev``."""
        seq = self.head_seq + 1
        parents = {self.head_hash, *self.alt.get(self.head_seq, ())} if self.head_seq else {GENESIS}
        after = {n.entry["prev"] for n in self.pending.get(seq + 1, ())}
        for w in self.pending.get(seq, ()):
            if w.edited and w.entry["prev"] in parents and w.entry["hash"] in after:
                return w
        return None

    def _adopt(self, record: Record, now: float) -> int:
        w = self._edited_next()
        if w is None:
            return 0
        self._unwait(w.entry["seq"], w)
        return self._extend(record, w, now)

    def check_status_seq(self, seq: int | None) -> None:
        """:class:`Rejected` if a status says the tower's log reached a seq no tower can be at
        (more than :data:`MAX_AHEAD` past what the board holds): it is not believed."""
        if seq is not None:
            self.claimed = seq
        if seq is not None and seq > self.head_seq + MAX_AHEAD:
            self.claimed_ahead(seq)
            raise Rejected(ahead("a status message whose seq is", seq, self.head_seq), seq)

    def claimed_ahead(self, seq: int) -> None:
        self.ahead_from = min(self.ahead_from or seq, seq)

    def _caught_up(self, record: Record) -> None:
        """The chain grew to within :data:`MAX_AHEAD` of a seq once too far ahead: that finding
        is taken back (the seq is plausible now; what the message said is checked as any other)."""
        if self.ahead_from and self.head_seq + MAX_AHEAD >= self.ahead_from:
            record.drop_claims_ahead(self.id, AHEAD_MARK, self.head_seq + MAX_AHEAD)
            self.ahead_from = record.claims_ahead(self.id, AHEAD_MARK)
            self._headline(record)

    def _mismatch(self, record: Record, seq: int, now: float) -> None:
        """An entry waits right after the head but does not continue it (a finding, taken back
        if the entry it names arrives: a conflicting entry at the head's seq)."""
        if seq not in self.mismatched:
            self.mismatched.add(seq)
            self.find(record, seq, _prev_mismatch(seq) + f": entry {seq - 1} was edited and re-hashed, or this "
                                                          "entry replaced", now)

    def _matched(self, record: Record, seq: int) -> None:
        if seq in self.mismatched:
            self.mismatched.discard(seq)
            record.drop_findings(self.id, "board", seq=seq, starting=_prev_mismatch(seq))
            self._headline(record)

    def _behind(self, record: Record, w: Waiting, raw: bytes, now: float) -> int:
        """An entry at a seq the chain already holds: a duplicate, or a conflict."""
        entry = w.entry
        seq, digest = entry["seq"], entry["hash"]
        kept = record.hashes_at(self.id, seq)
        if any(h == digest for h, _, _ in kept):
            if record.unedit(self.id, entry, w.canon):  # the kept one was an edited copy of this entry
                self.reset_checks(record)
                self.recount(record)
            else:
                self.duplicates += 1
            return 0
        if any(w.entry["hash"] == digest for w in self.pending.get(seq, [])):
            self.duplicates += 1  # a conflicting entry already waiting for its parent
            return 0
        if len(self.alt) >= MAX_CONFLICTS and seq not in self.alt:
            self.dropped += 1
            return 0
        self._conflict(record, seq, [h for h, _, _ in kept], entry, raw, now)
        if self._parent_kept(record, seq, entry["prev"]):
            record.add_entry(self.id, entry, w.canon, path=False, conflict=True, now=now)
            self.alt.setdefault(seq, set()).add(digest)
            return self._children(record, seq, digest, now)
        self._wait(w)
        return 0

    def _conflict(self, record: Record, seq: int, others: list[str], entry: Entry, raw: bytes, now: float) -> None:
        first = seq not in self.alt and not record.conflicts_between(self.id, seq, seq)
        record.mark_conflict(self.id, seq)
        record.add_evidence(self.id, seq, "conflicting entry", raw, now)
        self.alt.setdefault(seq, set())
        if first:
            self.conflicts += 1
            shown = " and ".join(f"{h[:12]}…" for h in [*others[:1], entry["hash"]])
            self.find(record, seq, f"entry {seq}: conflicting entries at seq {seq} ({shown}): both kept as "
                                   "evidence, neither adopted", now)
            self.reset_checks(record)
            self.recount(record)

    def _parent_kept(self, record: Record, seq: int, prev: object) -> bool:
        if seq == 1:
            return prev == GENESIS
        if seq - 1 == self.head_seq and prev == self.head_hash:
            return True
        if prev in self.alt.get(seq - 1, ()):
            return True
        return seq - 1 < self.head_seq and any(h == prev for h, _, _ in record.hashes_at(self.id, seq - 1))

    def _extend(self, record: Record, w: Waiting, now: float) -> int:
        """Keep ``w`` as the new head (its parent is a kept entry at the old head's seq),
        then whatever waited for it."""
        kept = 0
        nxt: Waiting | None = w
        while nxt is not None:
            entry = nxt.entry
            seq = entry["seq"]
            if self.head_seq and entry["prev"] != self.head_hash:
                self._switch_path(record, seq - 1, entry["prev"])
            conflict = seq in self.alt
            record.add_entry(self.id, entry, nxt.canon, path=True, conflict=conflict, now=now,
                             mark=ENTERED if _entered(entry) else 0, edited=nxt.edited)
            self._kept(record, entry, conflict, now)
            kept += 1
            nxt = self._next_waiting(record, now)
        if any(not w.edited for w in self.pending.get(self.head_seq + 1, ())):
            self._mismatch(record, self.head_seq + 1, now)
        return kept

    def _next_waiting(self, record: Record, now: float) -> Waiting | None:
        """The waiting entry that continues the new head; other entries waiting at that seq
        chain off the path (conflicts) or stay waiting for their parent."""
        seq = self.head_seq + 1
        waiting = self.pending.get(seq)
        if not waiting:
            return None
        parents = {self.head_hash, *self.alt.get(self.head_seq, ())}
        for w in waiting:
            if not w.edited and w.entry["prev"] in parents:
                self._unwait(seq, w)
                self._matched(record, seq)
                return w
        edited = self._edited_next()
        if edited is not None:
            self._unwait(seq, edited)
            self._matched(record, seq)
        return edited

    def _children(self, record: Record, seq: int, digest: str, now: float) -> int:
        """Entries that waited for the entry ``digest`` at ``seq`` (kept off the path)."""
        kept = 0
        for w in list(self.pending.get(seq + 1, [])):
            if w.entry["prev"] != digest:
                continue
            self._unwait(seq + 1, w)
            self._matched(record, seq + 1)
            if seq + 1 == self.head_seq + 1:
                kept += self._extend(record, w, now)
            else:
                self._conflict(record, seq + 1, [], w.entry, w.canon, now)
                record.add_entry(self.id, w.entry, w.canon, path=False, conflict=True, now=now, edited=w.edited)
                self.alt.setdefault(seq + 1, set()).add(w.entry["hash"])
                kept += self._children(record, seq + 1, w.entry["hash"], now)
        return kept

    def _switch_path(self, record: Record, seq: int, digest: str) -> None:
        """Make the kept entry ``digest`` at ``seq`` (and its ancestors) the path."""
        while seq >= 1:
            on = record.path_entry(self.id, seq)
            if on is not None and on[0] == digest:
                break
            record.set_path(self.id, seq, digest)
            self.alt.setdefault(seq, set()).discard(digest)
            if on is not None:
                self.alt[seq].add(on[0])
            parent = next((p for h, p, _ in record.hashes_at(self.id, seq) if h == digest), None)
            if parent is None:
                break
            seq, digest = seq - 1, parent
        self.reset_checks(record)
        self.recount(record)

    def _kept(self, record: Record, entry: Entry, conflict: bool, now: float) -> None:
        self.head_seq, self.head_hash = entry["seq"], entry["hash"]
        if self.ahead_from:
            self._caught_up(record)
        self.progress_at = time.monotonic()
        self.asked_times = 0
        self.check_due = True
        self.version += 1
        for problem in entry_problems(entry):
            self.find(record, entry["seq"], problem, now)
        kind = entry["kind"]
        if kind == "roll" and not conflict:
            self.rolls += 1
            number = self._number(record, entry)
            self._show(entry, ENTERED if _entered(entry) else 0, number)
            self._numbered(entry, number)
        elif kind == "session":
            self.sessions += 1
            self.open_session = {"session": text(entry.get("session"), 40),
                                 "commitment": text(entry.get("commitment"), 80)}
        elif kind in ("reveal", "session_damaged") and self.open_session is not None \
                and self.open_session.get("session") == text(entry.get("session"), 40):
            self.open_session = None

    def _number(self, record: Record, entry: Entry) -> int | None:
        """A roll's number in its session: one more than the last roll of its session kept
        (the path grows in order), else read from the record (a session seen again)."""
        sid = session_column(entry)
        if sid is None:
            return None
        known = self.numbers.get(sid)
        if known is not None and known[1] < entry["seq"]:
            return known[0] + 1
        return record.roll_numbers(self.id, [entry]).get(entry["seq"])

    def _numbered(self, entry: Entry, number: int | None) -> None:
        sid = session_column(entry)
        if sid is None or number is None:
            return
        self.numbers[sid] = (number, entry["seq"])
        self.numbers.move_to_end(sid)
        while len(self.numbers) > NUMBERED_SESSIONS:
            self.numbers.popitem(last=False)

    def recount(self, record: Record) -> None:
        """Rolls and sessions on the path, counted in the record (after the path changed)."""
        self.rolls = record.count_path(self.id, "roll") - _count_conflicting_rolls(record, self.id)
        self.sessions = record.count_path(self.id, "session")
        self.refresh(record)

    def reset_checks(self, record: Record) -> None:
        """The verifier starts again from the first entry (the path changed under it)."""
        record.save_tower(self.id, verifier_state=None)  # the verifier's state lives in the record only
        self.path_version += 1
        self.check_due = True
        record.drop_findings(self.id, "verifier")
        record.reset_stats(self.id)
        record.reset_marks(self.id)
        self.stats = Stats()
        self.stats_version = time.monotonic_ns()
        self.counts = Counts()
        self.marked = 0

    # --- entries from the future --------------------------------------------------------------------------

    def _wait(self, w: Waiting) -> None:
        if self.pending and self.pending_bytes + w.size > PENDING_BYTES:
            self.dropped += 1  # asked for again once the gap before it is filled
            return
        self.pending.setdefault(w.entry["seq"], []).append(w)
        self.pending_bytes += w.size

    def _unwait(self, seq: int, w: Waiting) -> None:
        waiting = self.pending.get(seq, [])
        if w in waiting:
            waiting.remove(w)
            self.pending_bytes -= w.size
        if not waiting:
            self.pending.pop(seq, None)

    def drop_waiting(self) -> int:
        """Forget every entry waiting (bytes freed); they are asked for again."""
        freed = self.pending_bytes
        self.pending.clear()
        self.pending_bytes = 0
        return freed

    # --- asking for what is missing ---------------------------------------------------------------------

    def resend_range(self, now: float, stall_s: float, ask_again_s: float, max_wait_s: float) -> tuple[int, int] | None:
        """The entries to ask the tower for, if it is stalled short of what it has published:
        the gap before the first entry waiting (or up to the tower's head); an entry waiting
        right after the head that does not chain means the board holds a different entry
        there (a forgery sent first), so that one is asked for too. The same request is
        repeated at growing intervals (the answer may be on its way, or never come)."""
        ahead = sorted(s for s in self.pending if s > self.head_seq)
        # a seq too far ahead to believe is still asked for, MAX_AHEAD entries at a time: a
        # board started empty beside an old tower catches up; a liar is asked, and has nothing
        wanted = max(self.wanted, min(self.claimed, self.head_seq + MAX_AHEAD))
        if wanted <= self.head_seq and not ahead:
            return None
        if now - self.progress_at < stall_s:
            return None
        if ahead and ahead[0] == self.head_seq + 1:
            first, last = max(1, self.head_seq), self.head_seq + 1
        elif ahead:
            first, last = self.head_seq + 1, ahead[0] - 1
        else:
            first, last = self.head_seq + 1, wanted
        wait = min(max_wait_s, ask_again_s * (2 ** max(0, self.asked_times - 1)))
        if self.asked_from == first and now - self.asked_at < wait:
            return None
        self.asked_times = self.asked_times + 1 if self.asked_from == first else 1
        self.asked_from, self.asked_at = first, now
        return first, last


def _entered(entry: Entry) -> bool:
    return entry.get("kind") == "roll" and entry.get("session") is None and entry.get("roll_kind") == "entered"


def _prev_mismatch(seq: int) -> str:
    return f"entry {seq}: its prev hash does not match entry {seq - 1}'s hash"


def _headline(finding: tuple[int | None, str, str]) -> str:
    """A finding as the card's headline: a tower's text quoted in it shown escaped (bidi and
    format characters, lone surrogates), never as itself."""
    _, source, message = finding
    return shown(f"replay: {message}" if source == "verifier" else message)


def _conflict_seqs(record: Record, tower_id: int) -> list[int]:
    rows = record.conn.execute("SELECT DISTINCT seq FROM entries WHERE tower_id = ? AND conflict = 1",
                               (tower_id,)).fetchall()
    return [s for (s,) in rows]


def _count_conflicting_rolls(record: Record, tower_id: int) -> int:
    (n,) = record.conn.execute("SELECT count(*) FROM entries WHERE tower_id = ? AND path = 1 AND kind = 'roll' "
                               "AND conflict = 1", (tower_id,)).fetchone()
    return int(n)
