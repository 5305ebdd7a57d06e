"""One tower as the board sees it: its verified chain, what is missing, and the first problem.

Entries arrive over MQTT at least once and, after a broker restart or a late start, out of
order. :meth:`TowerLedger.accept` keeps the chain: a duplicate (same seq and hash) is dropped
and counted, an entry from the future waits until the gap before it is filled (the board asks
the tower to resend), and the entry that continues the chain is checked like ``log verify``
does (its own hash, its seq, its ``prev``) before it is kept. Anything that fails to check
(an edited or forged entry, one that conflicts with an entry already kept, a message whose
claimed tower is not its topic's) sets :attr:`problem` (the first one wins, the badge turns
red) and is never kept as data.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from hardware.board.stats import Stats
from hardware.rolllog import GENESIS, entry_hash

#: Entries from the future kept while waiting for a gap to fill (a flood is not kept).
MAX_PENDING = 50_000
#: Rolls a card shows.
LAST_ROLLS = 8

Entry = dict[str, Any]


@dataclass
class ReplayState:
    """The tower's revealed sessions waiting for their replay, and how many replayed."""

    due: list[tuple[str, int, int]] = field(default_factory=list)  # (session, its entry's index, reveal's index)
    started_at: dict[str, int] = field(default_factory=dict)  # session id -> index of its session entry
    replayed: int = 0
    running: bool = False


@dataclass
class TowerLedger:
    store: str
    tower: str
    entries: list[Entry] = field(default_factory=list)
    pending: dict[int, Entry] = field(default_factory=dict)
    problem: str | None = None
    duplicates: int = 0
    status: dict[str, Any] = field(default_factory=dict)
    rolls: int = 0
    sessions: int = 0
    stats: Stats = field(default_factory=Stats)
    replay: ReplayState = field(default_factory=ReplayState)
    arrived: dict[int, float] = field(default_factory=dict)  # seq -> when it was kept (monotonic)
    progress_at: float = field(default_factory=time.monotonic)
    asked_from: int = 0
    asked_at: float = 0.0
    last_roll: Entry | None = None
    open_session: Entry | None = None  # the session entry not yet revealed

    @property
    def key(self) -> str:
        return f"{self.store}/{self.tower}"

    @property
    def head(self) -> str:
        return self.entries[-1]["hash"] if self.entries else GENESIS

    @property
    def next_seq(self) -> int:
        return len(self.entries) + 1

    @property
    def online(self) -> bool:
        return self.status.get("state") == "online"

    @property
    def wanted(self) -> int:
        """The highest seq the board knows exists (from the status or entries that wait)."""
        top = max(self.pending) if self.pending else 0
        seq = self.status.get("seq")
        return max(top, seq if isinstance(seq, int) else 0, len(self.entries))

    @property
    def missing(self) -> int:
        return self.wanted - len(self.entries) - len(self.pending)

    def fail(self, message: str) -> None:
        if self.problem is None:
            self.problem = message

    # --- entries ------------------------------------------------------------------------------------

    def accept(self, entry: Any) -> list[Entry]:
        """Take one entry from the tower's log topic; returns the entries newly kept, in order."""
        if not isinstance(entry, dict) or isinstance(entry.get("seq"), bool) or not isinstance(entry.get("seq"), int):
            self.fail("a log message without a log entry (no whole-number seq)")
            return []
        seq = entry["seq"]
        if seq < 1:
            self.fail(f"an entry with seq {seq}")
            return []
        if seq < self.next_seq:
            self._compare(self.entries[seq - 1], entry)
            return []
        if seq > self.next_seq:
            held = self.pending.get(seq)
            if held is not None:
                self._compare(held, entry)
            elif len(self.pending) < MAX_PENDING:
                self.pending[seq] = entry
            return []
        kept: list[Entry] = []
        nxt: Entry | None = entry
        while nxt is not None and self._chains(nxt):
            self._keep(nxt)
            kept.append(nxt)
            nxt = self.pending.pop(self.next_seq, None)
        return kept

    def _compare(self, kept: Entry, entry: Entry) -> None:
        if entry.get("hash") == kept.get("hash") and entry_hash(entry) == kept.get("hash"):
            self.duplicates += 1
        else:
            self.fail(f"entry {entry['seq']}: a second, different entry {entry['seq']} arrived "
                      f"(hash {str(entry.get('hash'))[:12]}…, kept {str(kept.get('hash'))[:12]}…): "
                      "forged, or a different log")

    def _chains(self, entry: Entry) -> bool:
        """Whether ``entry`` continues the chain (the checks of ``log verify``); if not, the
        tower's problem names it."""
        seq = entry["seq"]
        missing = [k for k in ("prev", "hash", "kind") if k not in entry]
        if missing:
            self.fail(f"entry {seq}: missing field(s) {', '.join(missing)}")
        elif entry["hash"] != entry_hash(entry):
            self.fail(f"entry {seq}: its content does not match its own hash: the entry was edited")
        elif entry["prev"] != self.head:
            self.fail(f"entry {seq}: its prev hash does not match entry {seq - 1}'s hash: "
                      f"entry {seq - 1} was edited and re-hashed, or this entry replaced")
        else:
            return True
        return False

    def _keep(self, entry: Entry) -> None:
        self.entries.append(entry)
        self.arrived[entry["seq"]] = time.monotonic()
        self.progress_at = time.monotonic()
        kind = entry.get("kind")
        if kind == "roll":
            self.rolls += 1
            self.last_roll = entry
            self.stats.add(entry)
        elif kind == "session":
            self.sessions += 1
            self.open_session = entry
            sid = str(entry.get("session"))
            if sid in self.replay.started_at:
                self.fail(f"entry {entry['seq']}: session {sid} started twice")
            self.replay.started_at[sid] = len(self.entries) - 1
        elif kind == "reveal":
            sid = str(entry.get("session"))
            start = self.replay.started_at.get(sid)
            if start is None:
                self.fail(f"entry {entry['seq']}: reveal of session {sid}, which was never started")
            else:
                self.replay.due.append((sid, start, len(self.entries) - 1))
            if self.open_session is not None and str(self.open_session.get("session")) == sid:
                self.open_session = None

    def session_entries(self, sid: str, start: int, end: int) -> list[Entry]:
        """One session's entries, from its session entry to its reveal."""
        return [e for e in self.entries[start:end + 1] if str(e.get("session")) == sid]

    @property
    def replay_due(self) -> bool:
        return bool(self.replay.due) and not self.replay.running

    # --- what the page and the API show -------------------------------------------------------------

    def rolls_list(self) -> list[Entry]:
        return [e for e in self.entries if e.get("kind") == "roll"]

    def summary(self) -> dict[str, Any]:
        """The ``/api/towers`` item."""
        return {"tower": self.tower, "store": self.store, "online": self.online, "rolls": self.rolls,
                "sessions": self.sessions, "verified": self.problem is None, "problem": self.problem}

    def card(self) -> dict[str, Any]:
        """Everything one card on the page shows."""
        last = []
        for entry in reversed(self.entries):
            if len(last) >= LAST_ROLLS:
                break
            if entry.get("kind") == "roll":
                last.append(roll_view(entry))
        result = (self.last_roll or {}).get("result")
        result = result if isinstance(result, dict) else {}
        session = self.open_session or {}
        return {
            **self.summary(), "key": self.key, "system": result.get("system"), "params": result.get("params") or {},
            "commitment": session.get("commitment"), "session": session.get("session"), "seq": len(self.entries),
            "missing": max(0, self.missing), "duplicates": self.duplicates,
            "revealed": self.replay.replayed,
            "replay_pending": bool(self.replay.due) or self.replay.running,
            "open_sessions": 1 if self.open_session is not None else 0,
            "last": last, "stats": self.stats.to_dict(),
        }


def roll_view(entry: Entry) -> dict[str, Any]:
    """The part of a roll entry a card or the overlay shows."""
    result = entry.get("result") if isinstance(entry.get("result"), dict) else {}
    return {
        "seq": entry.get("seq"), "time": entry.get("time"), "system": result.get("system"),
        "dice": result.get("dice"), "outcome": result.get("outcome"), "total": result.get("total"),
        "success": result.get("success"), "player": entry.get("player"), "kind": entry.get("roll_kind", "rolled"),
    }
