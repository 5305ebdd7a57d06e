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
import multiprocessing
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, wait
from typing import Any

from hardware.board.ledger import TowerLedger
from hardware.board.stats import Stats, SystemTally
from hardware.network.topics import parse_topic

#: How the verifier's hash-chain findings start (the board checks the chain itself).
CHAIN_FINDING = "hash chain broken"
#: A tower that lacks entries and got none for this long is asked to resend.
STALL_S = 1.0
#: The same request again only after this long without progress (the answer may be on its way).
ASK_AGAIN_S = 3.0

Listener = Callable[[str], None]


class Towers:
    """All towers of the store(s) the board watches (``store=None``: every store)."""

    def __init__(self, store: str | None = None, *, replay_in_thread: bool = True) -> None:
        """``replay_in_thread=False`` replays at once in the caller (unit tests); otherwise in
        one worker process, so the replays use another core than the messages and the page."""
        self.store = store
        self.lock = threading.RLock()
        self.ledgers: dict[str, TowerLedger] = {}
        self._listeners: list[Listener] = []
        self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) \
            if replay_in_thread else None
        self._running: set[Future[Any]] = set()
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
            due, ledger.replay.due = ledger.replay.due, []
            # the kept entries never change: a copy of each session's own entries goes to the worker
            work = [(sid, ledger.session_entries(sid, start, end)) for sid, start, end in due]
        if self._pool is None:
            self._replayed(ledger, replay_sessions(ledger.key, work))
            return
        try:
            future = self._pool.submit(replay_sessions, ledger.key, work)
        except RuntimeError:  # shutting down
            return
        with self.lock:
            self._running.add(future)
        future.add_done_callback(lambda f: self._done(ledger, f))

    def _done(self, ledger: TowerLedger, future: Future[Any]) -> None:
        with self.lock:
            self._running.discard(future)
        if future.cancelled():
            return
        try:
            result = future.result()
        except Exception as exc:  # the worker died: say so rather than show the tower as checked
            result = (0, f"the replay could not run: {exc}")
        self._replayed(ledger, result)

    def _replayed(self, ledger: TowerLedger, result: tuple[int, str | None]) -> None:
        replayed, problem = result
        with self.lock:
            ledger.replay.running = False
            ledger.replay.replayed += replayed
            if problem is not None:
                ledger.fail(f"replay: {problem}")
        self._notify(ledger.key)
        self._replay_if_due(ledger)

    def wait_replays(self, timeout: float = 30.0) -> None:
        """Until every replay asked for so far has run (tests, the bench)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                running = set(self._running)
            if not running:
                return
            wait(running, timeout=max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    # --- gaps -------------------------------------------------------------------------------------------

    def resend_requests(self, now: float | None = None) -> list[tuple[str, str, int, int]]:
        """(store, tower, first, last) for each tower stalled short of what it has published:
        the entries between what the board holds and the first one waiting (or the tower's
        head). Asked again only after ``ASK_AGAIN_S`` without progress."""
        now = time.monotonic() if now is None else now
        out = []
        with self.lock:
            for ledger in self.ledgers.values():
                if ledger.wanted <= len(ledger.entries) or now - ledger.progress_at < STALL_S:
                    continue
                if ledger.asked_from == ledger.next_seq and now - ledger.asked_at < ASK_AGAIN_S:
                    continue
                last = min(ledger.pending) - 1 if ledger.pending else ledger.wanted
                ledger.asked_from, ledger.asked_at = ledger.next_seq, now
                out.append((ledger.store, ledger.tower, ledger.next_seq, last))
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


def replay_sessions(key: str, sessions: list[tuple[str, list[dict[str, Any]]]]) -> tuple[int, str | None]:
    """Replay each revealed session from its own entries (in the worker process): how many
    replayed clean, and the first problem. The chain itself was checked entry by entry as it
    was kept; the verifier's chain finding on one session's entries (which do not start at
    seq 1) is therefore not the board's verdict, everything else it finds is."""
    from hardware.entropy.replay import replay_entries
    from hardware.network.topics import dumps
    from hardware.rolllog import StoredEntry

    replayed = 0
    for sid, entries in sessions:
        stored = [StoredEntry(e["seq"], dumps(e), e, True) for e in entries]
        try:
            report = replay_entries(lambda s=stored: iter(s), key)
        except Exception as exc:  # an auditor reports what it could not check, and carries on
            return replayed, f"session {sid}: the replay could not run: {exc}"
        findings = [f for f in report.problems if not f.message.startswith(CHAIN_FINDING)]
        if findings:
            return replayed, str(findings[0])
        replayed += 1
    return replayed, None
