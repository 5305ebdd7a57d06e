"""The board's state: every tower's ledger, fed by MQTT messages, read by the web app.

:meth:`Towers.handle` takes one message (from paho's network thread); the web app reads under
the same lock. Replays run in one worker thread, one tower at a time, after a reveal is kept,
so a message never waits for a replay. Listeners (the page's event streams) hear which towers
changed. :meth:`Towers.resend_requests` says which towers to ask for entries again: those the
board knows it lacks (from the tower's retained status or entries waiting after a gap) and
that made no progress for ``STALL_S``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hardware.board.ledger import TowerLedger
from hardware.board.stats import Stats, SystemTally
from hardware.network.topics import parse_topic

#: A tower that lacks entries and got none for this long is asked to resend.
STALL_S = 1.0

Listener = Callable[[str], None]


class Towers:
    """All towers of the store(s) the board watches (``store=None``: every store)."""

    def __init__(self, store: str | None = None, *, replay_in_thread: bool = True) -> None:
        self.store = store
        self.lock = threading.RLock()
        self.ledgers: dict[str, TowerLedger] = {}
        self._listeners: list[Listener] = []
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="replay") if replay_in_thread else None
        self.messages = 0
        self.kept = 0

    # --- input --------------------------------------------------------------------------------------

    def handle(self, topic: str, payload: bytes) -> None:
        """One MQTT message on a ``log`` or ``status`` topic."""
        t = parse_topic(topic)
        if t is None or (self.store is not None and t.store != self.store) or t.kind == "resend":
            return
        with self.lock:
            self.messages += 1
            ledger = self._ledger(t.store, t.tower)
            body = _json(payload)
            if t.kind == "status":
                self._status(ledger, body)
            else:
                self._log(ledger, body)
        self._notify(ledger.key)
        self._replay_if_due(ledger)

    def _ledger(self, store: str, tower: str) -> TowerLedger:
        key = f"{store}/{tower}"
        ledger = self.ledgers.get(key)
        if ledger is None:
            ledger = self.ledgers[key] = TowerLedger(store, tower)
        return ledger

    def _status(self, ledger: TowerLedger, body: Any) -> None:
        if not isinstance(body, dict):
            ledger.fail("a status message that is not a JSON object")
            return
        if not _same_tower(ledger, body):
            ledger.fail(f"a status message on {ledger.key}'s topic says it is from {body.get('store')}/"
                        f"{body.get('tower')}")
            return
        if body.get("state") == "offline" and ledger.status:
            ledger.status = {**ledger.status, "state": "offline"}  # the last will carries only that
        else:
            ledger.status = body

    def _log(self, ledger: TowerLedger, body: Any) -> None:
        if not isinstance(body, dict) or "entry" not in body:
            ledger.fail("a log message that is not {store, tower, entry}")
            return
        if not _same_tower(ledger, body):
            seq = body["entry"].get("seq") if isinstance(body["entry"], dict) else None
            ledger.fail(f"entry {seq}: published on {ledger.key}'s topic but says it is from "
                        f"{body.get('store')}/{body.get('tower')}")
            return
        self.kept += len(ledger.accept(body["entry"]))

    # --- replays --------------------------------------------------------------------------------------

    def _replay_if_due(self, ledger: TowerLedger) -> None:
        with self.lock:
            if not ledger.replay_due:
                return
            ledger.replay.running = True
            upto, reveals = len(ledger.entries), ledger.replay.reveals_seen
        if self._pool is None:
            self._replay(ledger, upto, reveals)
        else:
            self._pool.submit(self._replay, ledger, upto, reveals)

    def _replay(self, ledger: TowerLedger, upto: int, reveals: int) -> None:
        """Replay the chain prefix ``entries[:upto]`` (entries are only ever appended, so the
        prefix is stable while the lock is not held)."""
        from hardware.entropy.replay import replay_entries

        try:
            report = replay_entries(lambda: ledger.stored(upto), ledger.key)
            problem = str(report.problems[0]) if report.problems else None
        except Exception as exc:  # an auditor reports what it could not check, and carries on
            report, problem = None, f"the replay could not run: {exc}"
        with self.lock:
            ledger.replay.running = False
            ledger.replay.replayed_reveals = reveals
            ledger.replay.upto = upto
            if report is not None:
                ledger.replay.sessions, ledger.replay.revealed = report.sessions, report.revealed
            if problem is not None:
                ledger.fail(f"replay: {problem}")
        self._notify(ledger.key)
        self._replay_if_due(ledger)

    def wait_replays(self) -> None:
        """Until every replay asked for so far has run (tests, the bench)."""
        if self._pool is not None:
            self._pool.submit(lambda: None).result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    # --- gaps -------------------------------------------------------------------------------------------

    def resend_requests(self, now: float | None = None) -> list[tuple[str, str, int]]:
        """(store, tower, from_seq) for each tower stalled short of what it has published."""
        now = time.monotonic() if now is None else now
        out = []
        with self.lock:
            for ledger in self.ledgers.values():
                if ledger.wanted > len(ledger.entries) and now - ledger.progress_at >= STALL_S:
                    ledger.progress_at = now  # ask again only after another stall
                    ledger.asked_from = ledger.next_seq
                    out.append((ledger.store, ledger.tower, ledger.next_seq))
        return out

    # --- output -----------------------------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        with self.lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        with self.lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def _notify(self, key: str) -> None:
        with self.lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(key)

    def summaries(self) -> list[dict[str, Any]]:
        with self.lock:
            return [self.ledgers[k].summary() for k in sorted(self.ledgers)]

    def cards(self, keys: list[str] | None = None) -> list[dict[str, Any]]:
        with self.lock:
            chosen = sorted(self.ledgers) if keys is None else [k for k in keys if k in self.ledgers]
            return [self.ledgers[k].card() for k in chosen]

    def find(self, tower: str, store: str | None = None) -> list[TowerLedger]:
        with self.lock:
            return [v for v in self.ledgers.values() if v.tower == tower and (store is None or v.store == store)]

    def system_stats(self) -> dict[str, Any]:
        """Per-system statistics over every tower."""
        total = Stats()
        with self.lock:
            for ledger in self.ledgers.values():
                for system, tally in ledger.stats.systems.items():
                    into = total.systems.setdefault(system, SystemTally())
                    into.rolls += tally.rolls
                    into.unpriced += tally.unpriced
                    for name, t in tally.outcomes.items():
                        o = into.outcomes.setdefault(name, type(t)())
                        o.observed += t.observed
                        o.expected += t.expected
                        o.variance += t.variance
        return total.to_dict()


def _same_tower(ledger: TowerLedger, body: dict[str, Any]) -> bool:
    return (body.get("store"), body.get("tower")) == (ledger.store, ledger.tower)


def _json(payload: bytes) -> Any:
    try:
        return json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
