"""Roll feeds: what the webhooks are told, decided in the record's writer, in its transactions.

The outbox. When a check marks rolls verified, :meth:`Feeds.rolls` writes one post per roll
and hook into the record's ``outbox`` table, in the same transaction as the marks; when a
tower's verdict turns red, :meth:`Feeds.verdicts` writes an alert the same way. Only once that
transaction is committed (:meth:`Feeds.committed`) are the posts handed to each hook's queue
and thread (:mod:`hardware.board.delivery`), which posts them and reports back; the writer then
deletes what was delivered (or given up) in its next transaction. So the outbox holds exactly
the posts not acknowledged yet, and after a restart (a crash, ``kill -9``, a reboot) each hook
goes on with them, oldest first; nothing acknowledged is posted again, except a post whose
acknowledgement was not committed yet when the board died (the idempotency key lets a receiver
drop that one).

Once per roll. ``feed_towers`` keeps, per tower, the seq of the last roll announced: a roll is
posted when it is first verified, never again (a conflict makes the board check a tower's
sessions again, and they are verified again). Alerts go out when a tower turns red (not for
each further finding: one tower's rubbish cannot flood a channel), once per red spell.

A tower the record held before feeds were kept (an older record) starts from where it is: its
verified rolls and red verdict are taken as announced. A hook added later starts from the
rolls verified after it was added; a hook no longer configured is forgotten with what waited
for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.board import posts
from hardware.board.delivery import Delivered, Deliverer, HookQueue, HookStatus
from hardware.board.record import Record
from hardware.board.webhooks import Webhook

#: A full queue is said at most this often per hook.
FULL_SAID_EVERY_S = 60.0


@dataclass(frozen=True)
class Post:
    """A roll or alert decided in a committed batch: its plain body (for ``/events?feed=1``)."""

    kind: str
    store: str
    tower: str
    body: bytes


class FeedTower:
    """What a tower's feeds said so far: the last roll announced, whether it is red."""

    __slots__ = ("announced", "red")

    def __init__(self, announced: int = 0, red: bool = False) -> None:
        self.announced = announced
        self.red = red


@dataclass
class Hook:
    """A configured hook as the writer sees it."""

    hook: Webhook
    id: int
    queue: HookQueue
    status: HookStatus
    deliverer: Deliverer | None = None
    full_said: float = 0.0


class Feeds:
    """Every hook's outbox and thread (none configured: it still keeps ``feed_towers``, so a
    hook added later starts from then)."""

    def __init__(self, record: Record, hooks: Sequence[Webhook], *, log: Callable[[str], None] | None = None) -> None:
        self.record = record
        self._log = log or (lambda message: None)
        self.hooks: list[Hook] = []
        self._new: list[tuple[Hook, int, str]] = []  # posts written in the batch under way
        self._dropped: list[tuple[Hook, list[int]]] = []  # dropped from a queue, to delete from the outbox
        self._done: list[Delivered] = []  # delivered or given up in the batch under way
        self._live: list[Post] = []  # the batch's posts, for the live stream (/events?feed=1)
        self._outcomes: list[Delivered] = []  # reported by the hooks' threads, not taken yet
        self._trying: list[tuple[list[int], threading.Event]] = []  # Discord posts to mark tried, not taken yet
        self._tried: list[tuple[list[int], threading.Event]] = []  # taken into the batch under way
        self._outcomes_lock = threading.Lock()
        self._wake: Callable[[], object] = lambda: None
        with record.batch():
            for hook in hooks:
                hook_id, sent, dropped, failed, last_ok = record.hook(hook.ident, hook.name)
                status = HookStatus(sent=sent, failed=failed, dropped=dropped, last_ok=last_ok)
                self.hooks.append(Hook(hook, hook_id, HookQueue(hook.queue), status))
            forgotten = record.forget_hooks(h.id for h in self.hooks)
            self.towers = self._load_towers()
            for h in self.hooks:
                self._queue(h, record.outbox_waiting(h.id))
        if forgotten:
            self._log(f"board: {forgotten} posts waited for webhooks no longer configured; forgotten")
        for h in self.hooks:
            waiting = len(h.queue)
            self._log(f"board: webhook {h.hook.name} ({h.hook.format}, sends {', '.join(sorted(h.hook.send))})"
                      + (f": {waiting} posts waiting from before" if waiting else ""))

    def _load_towers(self) -> dict[int, FeedTower]:
        """Every tower's feed state; a tower without one (an older record) starts as it is now."""
        kept = self.record.feed_towers()
        out = {}
        for row in self.record.towers():
            if row.id in kept:
                out[row.id] = FeedTower(*kept[row.id])
            else:
                out[row.id] = FeedTower(self.record.last_verified(row.id), bool(self.record.findings(row.id, 1)))
                self.record.save_feed_tower(row.id, out[row.id].announced, out[row.id].red)
        return out

    # --- running ------------------------------------------------------------------------------------------

    def start(self, db_path: str | Path, wake: Callable[[], object]) -> None:
        """Each hook's thread (posts read from the record at ``db_path``). Their outcomes wait in
        one box, and ``wake`` asks the writer to take them (:meth:`take_outcomes`) when the box
        was empty: while the writer is busy, outcomes pile up and are taken in one transaction."""
        self._wake = wake
        for h in self.hooks:
            before = self._mark_tried if h.hook.format == "discord" else None
            h.deliverer = Deliverer(h.hook, h.id, h.queue, db_path, self._report, h.status, log=self._log,
                                    before_post=before).start()

    def _report(self, done: Delivered) -> None:
        with self._outcomes_lock:
            self._outcomes.append(done)
            first = len(self._outcomes) == 1
        if first:
            self._wake()

    def _mark_tried(self, ids: list[int], stop: threading.Event) -> bool:
        """A Discord hook's thread, before a request: wait until its posts are marked tried in
        a committed transaction (False: the hook stops first; they stay untried)."""
        done = threading.Event()
        with self._outcomes_lock:
            self._trying.append((ids, done))
            first = len(self._trying) + len(self._outcomes) == 1
        if first:
            self._wake()
        while not done.wait(0.2):
            if stop.is_set():
                return False
        return True

    def take_outcomes(self) -> None:
        """In the writer's transaction: every outcome reported since the last time, and the
        posts to mark tried."""
        with self._outcomes_lock:
            outcomes, self._outcomes = self._outcomes, []
            trying, self._trying = self._trying, []
        self._done += outcomes
        for ids, _ in trying:
            self.record.outbox_tried(ids)
        self._tried += trying

    def close(self) -> None:
        """Stop every hook's thread (what it was posting stays in the outbox if not answered)."""
        for h in self.hooks:
            if h.deliverer is not None:
                h.deliverer.close()

    # --- in the writer's transaction --------------------------------------------------------------------------

    def _tower(self, tower_id: int) -> FeedTower:
        state = self.towers.get(tower_id)
        if state is None:  # a tower new since the start
            state = self.towers[tower_id] = FeedTower()
        return state

    def rolls(self, ledger: Any, entries: list[dict[str, Any]], now: float) -> None:
        """Rolls of ``ledger`` (a :class:`~hardware.board.ledger.Ledger`) just marked verified."""
        state = self._tower(ledger.id)
        fresh = [e for e in entries if e["seq"] > state.announced]
        if not fresh:
            return
        wanting = [h for h in self.hooks if h.hook.wants("roll")]
        numbers = self.record.roll_numbers(ledger.id, fresh)
        for entry in fresh:
            body = posts.roll_body(ledger.store, ledger.tower, entry, problem=ledger.problem,
                                   problems=ledger.problems, decided_at=now, number=numbers.get(entry["seq"]))
            self._write(wanting, "roll", body, now)
        state.announced = max(e["seq"] for e in fresh)
        self.record.save_feed_tower(ledger.id, state.announced, state.red)

    def verdicts(self, ledgers: Sequence[Any], now: float) -> None:
        """An alert for each tower among ``ledgers`` whose verdict turned red."""
        for ledger in ledgers:
            red = ledger.problem is not None
            state = self._tower(ledger.id)
            if red == state.red:
                continue
            if red:
                first = self.record.findings(ledger.id, 1)
                body = posts.alert_body(ledger.store, ledger.tower, seq=first[0][0] if first else None,
                                        problem=ledger.problem, problems=ledger.problems, decided_at=now)
                self._write([h for h in self.hooks if h.hook.wants("alert")], "alert", body, now)
            state.red = red
            self.record.save_feed_tower(ledger.id, state.announced, red)

    def _write(self, hooks: list[Hook], kind: str, body: dict[str, Any], now: float) -> None:
        data = posts.encode(body)
        self._live.append(Post(kind, body["store"], body["tower"], data))
        for h in hooks:
            self._new.append((h, self.record.outbox_add(h.id, kind, body["id"], now, data), kind))

    def housekeeping(self) -> None:
        """At the end of a batch: the posts delivered, given up or dropped from a full queue since
        the last one go out of the outbox, counted (one statement per hook and kind)."""
        dropped = self._dropped  # kept until the batch is committed (a batch rolled back writes them again)
        for h, ids in dropped:
            self.record.outbox_done(h.id, ids, dropped=len(ids))
        by_hook: dict[tuple[int, bool], tuple[list[int], float]] = {}
        for d in self._done:
            ids, at = by_hook.get((d.hook_id, d.sent), ([], 0.0))
            by_hook[d.hook_id, d.sent] = ([*ids, *d.ids], max(at, d.at))
        for (hook_id, sent), (ids, at) in by_hook.items():
            self.record.outbox_done(hook_id, ids, sent=len(ids) if sent else 0, failed=0 if sent else len(ids),
                                    ok_at=at if sent else None)

    def forget(self, tower_id: int) -> None:
        """A tower the board forgot (its row in ``feed_towers`` goes with the tower's)."""
        self.towers.pop(tower_id, None)

    # --- after the transaction ---------------------------------------------------------------------------------

    def committed(self) -> list[Post]:
        """The batch is committed: its posts go to their hooks' queues; returns them (one per
        roll or alert, whatever the hooks) for the live stream."""
        live, self._live = self._live, []
        new, self._new = self._new, []
        done, self._done = self._done, []
        self._dropped = []
        tried, self._tried = self._tried, []
        for _, marked in tried:  # committed: the hook's thread may post them now
            marked.set()
        for d in done:  # out of the outbox for good: no longer waiting
            h = next((h for h in self.hooks if h.id == d.hook_id), None)
            if h is not None:
                h.queue.release(list(d.items))
        by_hook: dict[int, tuple[Hook, list[tuple[int, str]]]] = {}
        for h, post_id, kind in new:
            by_hook.setdefault(h.id, (h, []))[1].append((post_id, kind))
        for h, items in by_hook.values():
            self._queue(h, items)
        return live

    def rolled_back(self) -> None:
        """The batch was rolled back: its posts never existed; the outcomes it took (posts
        delivered or given up) and the posts dropped from a full queue are taken again by the
        next batch (a delivered post is never posted again for a batch that failed); the feed
        state as the record has it."""
        self._new.clear()
        self._live.clear()
        with self._outcomes_lock:
            self._outcomes[:0] = self._done
            self._trying[:0] = self._tried
        self._done, self._tried = [], []
        self.towers = {t: FeedTower(*s) for t, s in self.record.feed_towers().items()}

    def _queue(self, h: Hook, items: list[tuple[int, str]]) -> None:
        dropped = h.queue.extend(items)
        if not dropped:
            return
        self._dropped.append((h, dropped))
        h.status.dropped += len(dropped)
        now = time.monotonic()
        if now - h.full_said >= FULL_SAID_EVERY_S:
            h.full_said = now
            self._log(f"board: webhook {h.hook.name}: {h.hook.queue} posts waiting, its queue is full: the oldest "
                      f"rolls are dropped ({h.status.dropped} so far)")

    # --- what the page shows --------------------------------------------------------------------------------

    def summary(self) -> list[dict[str, Any]]:
        """Each hook: name, format, counts, and whether it is delivering, waiting to retry, idle."""
        out = []
        for h in self.hooks:
            s = h.status
            out.append({"name": h.hook.name, "format": h.hook.format, "sends": sorted(h.hook.send),
                        "waiting": len(h.queue), "sent": s.sent, "dropped": s.dropped, "failed": s.failed,
                        "state": s.state, "detail": s.detail,
                        "retry_in": round(max(0.0, s.retry_at - time.time()), 1) if s.retry_at else None,
                        "last_ok": s.last_ok})
        return out
