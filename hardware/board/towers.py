"""The board's state: every tower's ledger, fed by MQTT messages, kept in the record, read by
the web app.

:meth:`Towers.handle` is all the MQTT side calls (from paho's network thread): it only queues
the message (bounded in bytes), so the network loop never waits for the disk or a bad message.
One thread (:meth:`_run`, the record's one writer) takes the queue in batches, one transaction
each: it decodes and checks every message (:mod:`hardware.board.messages`), keeps entries
(:mod:`hardware.board.ledger`), and schedules the verifier (:mod:`hardware.board.worker`),
whose answers come back through the same queue. Nothing a message contains can raise out of
it: a bad message is a finding against its topic's tower, a failure of the board's own code
too (the message is kept as evidence and the tower reloaded from the record).

The webhooks (:mod:`hardware.board.feeds`) are told in the same transactions: the rolls a
check verified and the towers that turned red go into the record's outbox, and each hook's
thread hands back what it delivered through the same queue.

Listeners (the page's event streams) hear which towers changed, and ``""`` when the board's
own state (live / reconnecting / stale) changed. :meth:`Towers.resend_requests` says which
towers to ask for entries again.

Not started (:meth:`start`), it handles each message at once in the caller, and checks inline
when asked (:meth:`check_now`): what the unit tests use.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from hardware.board.feeds import Feeds, Post
from hardware.board.health import VERIFY_STALL_S, WRITER_STALL_S, Health, Link
from hardware.board.ledger import Ledger
from hardware.board.messages import Rejected, clip, decode, log_entry, status_body
from hardware.board.record import Reader, Record, TowerRow, Unstorable, record_trouble, unusable
from hardware.board.stats import Stats
from hardware.board.webhooks import Webhook
from hardware.board.worker import STOPPING, Done, Job, Verifier, run_job
from hardware.network.status import HEARTBEAT_S
from hardware.network.topics import parse_topic

#: A tower that lacks entries and got none for this long is asked to resend.
STALL_S = 1.0
#: The same request again only after this long without progress, doubling up to MAX_ASK_S.
ASK_AGAIN_S = 3.0
MAX_ASK_S = 60.0
#: Messages waiting for the record, in bytes (beyond: dropped, and asked for again as gaps).
INBOX_BYTES = 64 << 20
#: Entries from the future, all towers together (beyond: the biggest waiting set is dropped).
PENDING_TOTAL_BYTES = 32 << 20
#: A tower id whose entries never chained is forgotten after this long without a valid message,
#: and the oldest of them beyond this many.
EVICT_S = 600.0
MAX_UNCHAINED = 1000
#: How often the writer looks at the clock when no message comes (board state, checks, evictions).
TICK_S = 0.25
#: A tower is checked at most this often while entries come in (a reveal is checked at once).
CHECK_EVERY_S = 1.0
#: No message at all for this long while towers are online: the page says "stale".
STALE_S = 2 * HEARTBEAT_S + 5

Listener = Callable[[str], None]
#: In the writer's queue: the webhooks' threads have outcomes to take out of the outbox.
OUTCOMES = object()


class _Inbox:
    """Messages (and the verifier's answers) for the writer thread, bounded in bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.items: deque[tuple[Any, int]] = deque()
        self.bytes = 0
        self.cond = threading.Condition()

    def put(self, item: Any, size: int, *, force: bool = False) -> bool:
        with self.cond:
            if not force and self.bytes + size > self.limit:
                return False
            self.items.append((item, size))
            self.bytes += size
            self.cond.notify()
            return True

    def requeue(self, items: list[Any]) -> None:
        """Put ``items`` back in front, in order (a batch the record could not take: tried again)."""
        with self.cond:
            for item in reversed(items):
                size = _size(item)
                self.items.appendleft((item, size))
                self.bytes += size
            self.cond.notify()

    def take(self, timeout: float, most: int = 100) -> list[Any]:
        with self.cond:
            if not self.items:
                self.cond.wait(timeout)
            out: list[Any] = []
            while self.items and len(out) < most:
                item, size = self.items.popleft()
                self.bytes -= size
                out.append(item)
            return out

    def empty(self) -> bool:
        with self.cond:
            return not self.items


def _size(item: Any) -> int:
    """What an item of the writer's queue counts against its bound (a message: its payload)."""
    return len(item[1]) + 200 if isinstance(item, tuple) else 0


class Towers:
    """All towers of the store(s) the board watches (``store=None``: every store), recorded in
    ``data`` (a directory; see :mod:`hardware.board.record`)."""

    def __init__(self, data: str | os.PathLike[str], store: str | None = None, *, verifier: bool = True,
                 log: Callable[[str], None] | None = None, stale_s: float = STALE_S,
                 clock: Callable[[], float] = time.time, webhooks: Sequence[Webhook] = (),
                 verify_stall_s: float = VERIFY_STALL_S, writer_stall_s: float = WRITER_STALL_S) -> None:
        """``verifier=False`` checks in the calling thread (:meth:`check_now`) instead of the
        verifier process (unit tests); ``webhooks`` are told each verified roll and red verdict;
        the ``*_s`` say when the board calls itself stale or stalled (:mod:`hardware.board.health`)."""
        self.store = store
        self.clock = clock
        self._log = log or (lambda message: None)
        self.health = Health(stale_s=stale_s, verify_stall_s=verify_stall_s, writer_stall_s=writer_stall_s)
        self.record = Record(data)
        self.lock = threading.RLock()
        self.ledgers: dict[str, Ledger] = {}
        try:
            self.record.check()
            for row in self.record.towers():
                self.ledgers[f"{row.store}/{row.tower}"] = Ledger.from_row(row, self.record)
            self.feeds = Feeds(self.record, webhooks, log=self._log)
        except sqlite3.DatabaseError as exc:  # damaged where the quick check does not look
            self.record.close()
            raise unusable(self.record.path, exc) from None
        except BaseException:
            self.record.close()
            raise
        self._listeners: list[Listener] = []
        self._post_listeners: list[Callable[[Post], None]] = []
        self._inbox = _Inbox(INBOX_BYTES)
        self._stop = threading.Event()
        self.stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._watcher: threading.Thread | None = None
        self._verifier = Verifier(self.record.path, self._answer, log=self._log) if verifier else None
        self._reader: Reader | None = None
        self._jobs: list[Job] = []  # checks due, handed over once the batch is committed
        self._cards: dict[str, tuple[int, int, str, str]] = {}
        self._housekept = 0.0
        self._shown_state: dict[str, Any] | None = None  # the state the pages were last told
        self.messages = 0
        self.kept = 0
        self.dropped = 0  # messages not queued (the record fell behind by INBOX_BYTES)
        self.internal_errors = 0

    @property
    def link(self) -> Link:
        return self.health.link

    # --- running ------------------------------------------------------------------------------------

    def start(self) -> Towers:
        if self._verifier is not None:
            self._verifier.start()
        self.feeds.start(self.record.path, lambda: self._inbox.put(OUTCOMES, 0, force=True))
        self._thread = threading.Thread(target=self._run, name="board-record", daemon=True)
        self._thread.start()
        self._watcher = threading.Thread(target=self._watch, name="board-health", daemon=True)
        self._watcher.start()
        return self

    def close(self) -> None:
        """Stop the webhooks' threads (what they delivered is queued), then the writer (what is
        queued is written first, unless the record cannot be written) and the verifier process."""
        self.feeds.close()
        self._stop.set()
        for thread in (self._thread, self._watcher):
            if thread is not None:
                thread.join(10)
        if self._verifier is not None:
            self._verifier.close()
        if self._reader is not None:
            self._reader.close()
        self.record.close()

    def stop_streams(self) -> None:
        """The board is stopping: every page's event stream ends (they wake up and see it)."""
        self.stopping.set()
        self._notify({""})

    @property
    def verifier_pid(self) -> int | None:
        return self._verifier.pid if self._verifier is not None else None

    def _run(self) -> None:
        """The writer: a batch at a time, until stopped and everything queued is written. A
        batch the record cannot take (a full disk, a read-only file) is kept and tried again,
        at growing intervals, with the state ``failing`` meanwhile; stopping then leaves it."""
        while not self._stop.is_set() or not self._inbox.empty():
            items = self._inbox.take(TICK_S)
            self.health.beat()
            if not self._write(items) and not self._stop.is_set():
                self._stop.wait(self.health.retry_wait())

    def _write(self, items: list[Any]) -> bool:
        """Write one batch; False when the record failed (the batch is queued again)."""
        try:
            self._batch(items)
        except Exception as exc:
            reason = record_trouble(exc)
            self._recover()
            if reason is not None:
                self.health.record_failed(reason, clip(str(exc), 160))
                if not self._stop.is_set():
                    self._inbox.requeue(items)  # nothing lost: tried again when the record can be written
                return False
            if len(items) > 1:  # the board's own failure outside one message: each item alone
                return all([self._write([item]) for item in items])
            self.internal_errors += 1
            self._log(f"board: an item the board could not handle ({type(exc).__name__}: {clip(str(exc), 200)}); "
                      "dropped (its tower is asked again for what it lacks)")
            return True
        over = self.health.record_written()
        if over is not None:
            self._log(f"board: its record is written again, after {time.monotonic() - over.since:.0f} s "
                      f"({over.reason}); catching up, the towers are asked for what it lacks")
            self._notify({""})
        return True

    def _watch(self) -> None:
        """Every half second: the board's state; a change is said in the journal and the pages."""
        while not self._stop.wait(0.5):
            state = self.board_state()
            line = self.health.transition(state)
            if line is not None:
                self._log(line)
            if state != self._shown_state:
                self._shown_state = state
                self._notify({""})

    # --- input ----------------------------------------------------------------------------------------

    def handle(self, topic: str, payload: bytes) -> None:
        """One MQTT message (any topic: others are ignored). Never raises, never waits long."""
        self.link.last_message = time.monotonic()
        if self._thread is None:
            self._write([(topic, bytes(payload))])
        elif not self._inbox.put((topic, bytes(payload)), len(payload) + 200):
            self.dropped += 1  # its tower is asked again once the gap shows

    def _answer(self, done: Done) -> None:
        self._inbox.put(done, 0, force=True)

    def _batch(self, items: list[Any]) -> None:
        changed: set[str] = set()
        with self.lock:
            with self.record.batch():
                now = self.clock()
                for item in items:
                    if isinstance(item, Done):
                        self._answered(item, now, changed)
                    elif item is OUTCOMES:
                        self.feeds.take_outcomes()
                    else:
                        topic, payload = item
                        self._message(topic, payload, now, changed)
                for key in changed:
                    if key in self.ledgers:
                        self._save(self.ledgers[key])
                self._housekeeping(now, changed)
                self.feeds.verdicts([self.ledgers[k] for k in sorted(changed) if k in self.ledgers], now)
                self.feeds.housekeeping()
            jobs, self._jobs = self._jobs, []
            live = self.feeds.committed()  # the posts of the batch, now in the record, go to their hooks
        self._notify(changed)
        self._notify_posts(live)
        for job in jobs:  # after the commit: the verifier reads the record, it must see the entries
            self.health.asked(job.tower_id, job.key)
            if self._verifier is not None:
                self._verifier.submit(job)
            else:  # no verifier process: check here
                self._write([run_job(self._read(), job)])

    def _read(self) -> Reader:
        if self._reader is None:
            self._reader = Reader(self.record.path)
        return self._reader

    def _message(self, topic: str, payload: bytes, now: float, changed: set[str]) -> None:
        """One message, in a savepoint of its own: whatever it holds, it is kept, or it is a
        finding against its topic's tower with the message as evidence. Only the record's own
        trouble (a full disk, a read-only file) goes further up: never the message's fault."""
        t = parse_topic(topic)
        if t is None or (self.store is not None and t.store != self.store) or t.kind == "resend":
            return
        self.messages += 1
        ledger = self._ledger(t.store, t.tower, now)
        changed.add(ledger.key)
        self._guarded(ledger, lambda: self._take(ledger, t.kind, payload, now), payload, now,
                      "a message the board could not handle")

    def _take(self, ledger: Ledger, kind: str, payload: bytes, now: float) -> None:
        try:
            body = decode(payload)
            if kind == "status":
                status = status_body(body, ledger.store, ledger.tower)
                ledger.check_status_seq(status["seq"])
                self._status(ledger, status)
            else:
                self.kept += ledger.accept(self.record, log_entry(body, ledger.store, ledger.tower), payload, now)
            ledger.last_heard = now
        except Rejected as exc:
            seq = exc.seq if exc.seq is not None else _seq_of(exc)
            ledger.find(self.record, seq, str(exc), now, evidence=payload, reason="rejected")

    def _guarded(self, ledger: Ledger, step: Callable[[], None], evidence: bytes | None, now: float,
                 what: str) -> Ledger:
        """Run ``step`` for ``ledger``'s tower in a savepoint. A value no column can hold is
        that tower's finding; any other failure of the board's own code too (counted, the tower
        read again from the record); the record's trouble is raised on."""
        conn = self.record.conn
        conn.execute("SAVEPOINT step")
        try:
            step()
        except Exception as exc:
            if record_trouble(exc) is not None:
                raise  # SQLite may have rolled back the whole batch already: the writer handles it
            conn.execute("ROLLBACK TO step")
            ledger = self._reload(ledger)
            if isinstance(exc, Unstorable):
                ledger.find(self.record, None, f"{what.replace('could not handle', 'cannot keep')}: {exc}", now,
                            evidence=evidence, reason="unstorable")
            else:
                self.internal_errors += 1
                self._log(f"board: {what} from {ledger.key} ({type(exc).__name__}: {clip(str(exc), 200)})")
                ledger.find(self.record, None, f"{what} ({type(exc).__name__}: {clip(str(exc), 200)})"
                            + ("; kept as evidence" if evidence is not None else ""), now, evidence=evidence)
        conn.execute("RELEASE step")
        ledger.version += 1
        return ledger

    def _ledger(self, store: str, tower: str, now: float) -> Ledger:
        key = f"{store}/{tower}"
        ledger = self.ledgers.get(key)
        if ledger is None:
            ledger = Ledger(self.record.add_tower(store, tower, now), store, tower, now, now)
            self.ledgers[key] = ledger
        return ledger

    def _recover(self) -> None:
        """After a batch the record rolled back: every tower as the record holds it (what the
        batch brought comes again: the batch is tried again, or its towers are asked)."""
        with self.lock:
            try:
                rows = {r.id: r for r in self.record.towers()}
                for ledger in list(self.ledgers.values()):
                    if ledger.id in rows:
                        self._reload(ledger, rows[ledger.id])
                    else:
                        del self.ledgers[ledger.key]
                        self.health.forget(ledger.id)
            except Exception as exc:  # the record cannot even be read: said; the next batch tries again
                self._log(f"board: cannot read the record {self.record.path}: {clip(str(exc), 200)}")
            self._jobs.clear()
            self._cards.clear()
            self.feeds.rolled_back()

    def _reload(self, ledger: Ledger, row: TowerRow | None = None) -> Ledger:
        """The tower as the record holds it (after a failure halfway through a message or a
        batch): its chain, counts and the verifier's state from the record, whose changes were
        undone together; what waited in memory comes again (the towers are asked). A check
        under way is not used (its answer may be about what was undone): it is asked again."""
        row = row or next(r for r in self.record.towers() if r.id == ledger.id)
        fresh = Ledger.from_row(row, self.record)
        fresh.head_seq, fresh.head_hash = self.record.path_head(ledger.id)
        fresh.duplicates, fresh.status, fresh.claimed = ledger.duplicates, ledger.status, ledger.claimed
        fresh.path_version = ledger.path_version + 1
        fresh.check_due = fresh.head_seq > 0
        fresh.recount(self.record)
        fresh.version = ledger.version + 1
        self.health.forget(ledger.id)
        self.ledgers[ledger.key] = fresh
        return fresh

    def _status(self, ledger: Ledger, status: dict[str, Any]) -> None:
        if status["seq"] is None and ledger.status:  # the last will carries only the state
            status = {**status, "seq": ledger.status.get("seq")}
        if status != ledger.status:
            ledger.status = status
            self.record.save_tower(ledger.id, status=status)

    def _save(self, ledger: Ledger) -> None:
        """The tower's row, once per batch (the entries of the batch are in the same transaction)."""
        self.record.save_tower(ledger.id, last_heard=ledger.last_heard, head_seq=ledger.head_seq,
                               head_hash=ledger.head_hash, rolls=ledger.rolls, sessions=ledger.sessions,
                               duplicates=ledger.duplicates, marked=ledger.marked)

    # --- checks (the verifier) -----------------------------------------------------------------------------

    def _schedule(self, ledger: Ledger, now: float) -> None:
        mono = time.monotonic()
        if not ledger.check_due or ledger.checking or ledger.head_seq == 0 or mono < ledger.check_after:
            return
        ledger.check_due, ledger.checking = False, True
        self._jobs.append(Job(ledger.id, ledger.key, ledger.path_version, ledger.head_seq))

    def _answered(self, done: Done, now: float, changed: set[str]) -> None:
        """The verifier's answer for one tower, applied in a savepoint of its own: if the board
        cannot record it, that is a finding against that tower (not checked again until it
        sends more), never a failure of the batch and the other towers in it."""
        job = done.job
        self.health.answered(job.tower_id, done.error if done.checked is None and done.error != STOPPING else None)
        ledger = self.ledgers.get(job.key)
        if ledger is None or ledger.id != job.tower_id:
            return  # evicted meanwhile
        changed.add(ledger.key)
        kept = self._guarded(ledger, lambda: self._apply(ledger, done, now, changed), None, now,
                             "the board could not record its check of this tower")
        if kept is not ledger:
            kept.check_due = False

    def _apply(self, ledger: Ledger, done: Done, now: float, changed: set[str]) -> None:
        job = done.job
        ledger.checking = False
        ledger.check_after = time.monotonic() + max(CHECK_EVERY_S, 5 * done.seconds)
        checked = done.checked
        if checked is None or ledger.path_version != job.path_version:
            ledger.check_due = True
            if checked is None:
                self._log(f"board: checking {job.key} failed ({done.error}); trying again")
            return
        if ledger.head_seq > job.head:
            ledger.check_due = True
        if checked.restarted:
            ledger.reset_checks(self.record)
            ledger.check_due = ledger.head_seq > job.head
        else:
            self.record.drop_findings(ledger.id, "verifier", pending_only=True)
        for f in checked.findings:
            self.record.add_finding(ledger.id, f.line_no, "verifier", str(f), now)
        for f in checked.pending:
            self.record.add_finding(ledger.id, f.line_no, "verifier", str(f), now, pending=True)
        verified = set(checked.verified)
        announced: list[dict[str, Any]] = []
        for s in checked.settled:  # a conflict or a bad field in a session: none of its rolls counts
            clean = not self.record.conflicts_between(ledger.id, s.first, s.last) \
                and not self.record.findings_between(ledger.id, s.first, s.last, source="board")
            edited = self.record.first_edited(ledger.id, s.first, s.last)
            good = set() if not clean else verified if edited is None else {q for q in verified if q < edited}
            clean = clean and edited is None  # a session with an edited entry: its statistics are not counted
            marked = self.record.mark_rolls(ledger.id, s.first, s.last, s.session, good)
            ledger.marked += len(marked)
            announced += marked
            if clean and s.session in done.tallies:
                self.record.add_stats(ledger.id, done.tallies[s.session])
                ledger.stats.add_plain(done.tallies[s.session])
                ledger.stats_version = time.monotonic_ns()
        ledger.counts = checked.counts
        self.record.save_tower(ledger.id, verifier_state=checked.state, verdict=checked.counts.to_dict(),
                               marked=ledger.marked)
        ledger.refresh(self.record)
        self.feeds.rolls(ledger, announced, now)
        changed.add(ledger.key)

    def check_now(self, timeout: float = 60.0) -> None:
        """Until every check due has run (tests, the bench). With the verifier process, waits
        for it; without, runs them here."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                busy = any(v.check_due or v.checking for v in self.ledgers.values() if v.head_seq)
                for ledger in self.ledgers.values():
                    ledger.check_after = 0.0
            if not busy and self._inbox.empty():
                return
            if self._thread is None:
                self._write(self._inbox.take(0))
            else:
                time.sleep(0.02)
        raise TimeoutError(f"the board's checks did not finish within {timeout} s")

    wait_replays = check_now

    # --- housekeeping ----------------------------------------------------------------------------------

    def _housekeeping(self, now: float, changed: set[str]) -> None:
        for ledger in self.ledgers.values():
            self._schedule(ledger, now)
        total = sum(v.pending_bytes for v in self.ledgers.values())
        while total > PENDING_TOTAL_BYTES:
            total -= max(self.ledgers.values(), key=lambda v: v.pending_bytes).drop_waiting()
        mono = time.monotonic()
        if mono - self._housekept >= 1.0:
            self._housekept = mono
            self._evict(now, changed)

    def _evict(self, now: float, changed: set[str]) -> None:
        """Forget tower ids that never chained an entry: after ``EVICT_S`` without a valid
        message, and the oldest beyond ``MAX_UNCHAINED``."""
        unchained = sorted((v for v in self.ledgers.values() if v.head_seq == 0), key=lambda v: v.last_heard)
        for i, ledger in enumerate(unchained):
            if now - ledger.last_heard > EVICT_S or len(unchained) - i > MAX_UNCHAINED:
                self.record.drop_tower(ledger.id)
                self.feeds.forget(ledger.id)
                del self.ledgers[ledger.key]
                self._cards.pop(ledger.key, None)
                changed.add(ledger.key)

    def counters(self) -> dict[str, int]:
        """How much came, how much was kept, what was dropped (the queue full) or failed
        (read without the writer's lock: a stalled writer must not stall the API)."""
        ledgers = tuple(self.ledgers.values())
        waiting = sum(v.pending_bytes for v in ledgers)
        dropped_waiting = sum(v.dropped for v in ledgers)
        return {"messages": self.messages, "kept": self.kept, "queue_dropped": self.dropped,
                "queue_bytes": self._inbox.bytes, "waiting_bytes": waiting, "waiting_dropped": dropped_waiting,
                "internal_errors": self.internal_errors}

    def webhooks(self) -> list[dict[str, Any]]:
        """Each webhook: its name (never its URL), what it sent, what waits, its state."""
        return self.feeds.summary()

    def board_state(self) -> dict[str, Any]:
        """``{"state", "detail", "restarts"}`` (:mod:`hardware.board.health`: live,
        reconnecting, stale, stalled, failing). Never waits for the writer: a stalled writer
        is one of the things it says."""
        try:
            online = any(v.online for v in tuple(self.ledgers.values()))
        except RuntimeError:  # the writer changed the towers meanwhile: as good as online
            online = True
        return self.health.state(towers_online=online, backlog=not self._inbox.empty())

    def link_changed(self, *, connected: bool | None = None, restarted: bool = False, note: str | None = "") -> None:
        """The subscriber says the connection changed (or its loop was restarted); ``note``:
        why, as the journal says it (None: the note stands)."""
        link = self.link
        if connected is not None and connected != link.connected:
            link.connected = connected
            link.changed_at = time.monotonic()
        if restarted:
            link.restarts += 1
        if note is not None:
            link.note = note
        state = self.board_state()
        if state != self._shown_state:
            self._shown_state = state
            self._notify({""})

    # --- gaps -------------------------------------------------------------------------------------------

    def resend_requests(self, now: float | None = None) -> list[tuple[str, str, int, int]]:
        """(store, tower, first, last) for each tower stalled short of what it has published
        (:meth:`hardware.board.ledger.Ledger.resend_range`)."""
        now = time.monotonic() if now is None else now
        out: list[tuple[str, str, int, int]] = []
        if self.health.trouble is not None:  # what came cannot even be written: asked once it can
            return out
        with self.lock:
            for ledger in self.ledgers.values():
                asked = ledger.resend_range(now, STALL_S, ASK_AGAIN_S, MAX_ASK_S)
                if asked is not None:
                    out.append((ledger.store, ledger.tower, *asked))
        return out

    # --- output -----------------------------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        with self.lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        with self.lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def add_post_listener(self, listener: Callable[[Post], None]) -> None:
        """``listener`` hears each verified roll and red verdict (the webhooks' plain body) once
        its batch is committed (from the record's thread: it must not wait)."""
        with self.lock:
            self._post_listeners.append(listener)

    def remove_post_listener(self, listener: Callable[[Post], None]) -> None:
        with self.lock:
            if listener in self._post_listeners:
                self._post_listeners.remove(listener)

    def _notify_posts(self, posts: list[Post]) -> None:
        if not posts:
            return
        with self.lock:
            listeners = list(self._post_listeners)
        for listener in listeners:
            for post in posts:
                with contextlib.suppress(Exception):
                    listener(post)

    def _notify(self, keys: set[str]) -> None:
        if not keys:
            return
        with self.lock:
            listeners = list(self._listeners)
        for key in sorted(keys):
            for listener in listeners:
                with contextlib.suppress(Exception):
                    listener(key)

    def summaries(self) -> list[dict[str, Any]]:
        with self.lock:
            return [self.ledgers[k].summary() for k in sorted(self.ledgers)]

    def cards(self, keys: list[str] | None = None) -> list[dict[str, Any]]:
        """The cards of ``keys`` (every tower if None)."""
        return [json.loads(text) for text in self.cards_json(keys)]

    def cards_json(self, keys: list[str] | None = None, *, stats_sent: dict[str, int] | None = None) -> list[str]:
        """The cards of ``keys`` (every tower if None) as JSON text, each made once per change
        however many pages watch. With ``stats_sent`` (key -> the statistics version a page
        has, updated here), a card leaves its ``stats`` out when the page has them already."""
        with self.lock:
            chosen = sorted(self.ledgers) if keys is None else [k for k in keys if k in self.ledgers]
            out = []
            for key in chosen:
                ledger = self.ledgers[key]
                cached = self._cards.get(key)
                if cached is None or cached[0] != ledger.version or cached[1] != ledger.stats_version:
                    card = ledger.card()
                    whole = json.dumps(card, separators=(",", ":"), allow_nan=False)
                    del card["stats"]
                    cached = (ledger.version, ledger.stats_version, whole,
                              json.dumps(card, separators=(",", ":"), allow_nan=False))
                    self._cards[key] = cached
                if stats_sent is not None and stats_sent.get(key) == ledger.stats_version:
                    out.append(cached[3])
                else:
                    out.append(cached[2])
                    if stats_sent is not None:
                        stats_sent[key] = ledger.stats_version
            return out

    def find(self, tower: str, store: str | None = None) -> list[Ledger]:
        with self.lock:
            return [v for v in self.ledgers.values() if v.tower == tower and (store is None or v.store == store)]

    def system_stats(self) -> dict[str, Any]:
        """Per-system statistics over every tower (verified rolls only)."""
        total = Stats()
        with self.lock:
            for ledger in self.ledgers.values():
                total.add_plain(ledger.stats.to_plain())
        return total.to_dict()


def _seq_of(exc: Rejected) -> int | None:
    """The seq a rejection names (``entry 12: ...``), so the finding sorts by it."""
    text = str(exc)
    if text.startswith("entry "):
        head = text[6:].split(":", 1)[0]
        if head.isdigit() and len(head) <= 18:  # a seq the record can hold (the rest is said in the text)
            return int(head)
    return None
