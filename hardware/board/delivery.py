"""Posting to one webhook: its queue, its thread, HTTP (stdlib ``http.client``) and retries.

Each hook has a :class:`HookQueue` (the posts waiting, by outbox id, bounded) and a
:class:`Deliverer` thread that takes the oldest post (a Discord hook up to 10 at once, one
embed each), reads its body from the record, posts it and hands the outcome back to the
record's writer, which takes the post out of the outbox in its next transaction. Nothing here
writes the record or holds a lock the writer waits for: a slow or dead receiver never slows
verification or the MQTT side.

What an answer means (:func:`decide`): 2xx delivered; 429 waits as long as the receiver says
(Discord's ``retry_after``, else ``Retry-After``) and tries again; 5xx, 408 and no answer at
all (refused, reset, timed out) try again after a backoff that doubles from 0.5 s to 60 s
(a 429 between them starts it again from 0.5 s: the receiver is there); any other status
(400, 401, 404, a redirect) gives that post up, with one logged line. The journal counts
every try again from the first failure to the post that went through.

Discord keeps no idempotency key: a post it saved whose answer the board never got (the
board killed mid-request) would simply be posted twice. So before each Discord request the
posts in it are marked ``tried`` in the record (committed before the request goes out); a
post found ``tried`` when it is taken again (after a restart) goes out as a repeat, its
footer saying it may be in the channel already.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import random
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from hardware.board import posts
from hardware.board.record import Reader
from hardware.board.webhooks import Target, Webhook

#: One request's timeout (connect, send, answer).
TIMEOUT_S = 10.0
#: Backoff after a failure without a wait given: doubling from the first to the most.
BACKOFF_FIRST_S = 0.5
BACKOFF_MOST_S = 60.0
#: The longest wait a receiver's Retry-After is followed for (beyond: this long, then try again).
RETRY_AFTER_MOST_S = 600.0
#: Bytes of an answer read (the rest is not wanted; the connection is closed instead).
ANSWER_BYTES = 64 << 10
#: Given-up posts with the same status within this long are said in one line.
GIVE_UP_QUIET_S = 60.0
#: How long :meth:`Deliverer.close` waits for a post in flight before it cuts the connection.
CLOSE_WAIT_S = 3.0
#: Posts a hook's thread takes from its queue at once (their bodies read in one query; sent in
#: order, as many requests as its format makes of them).
CLAIM = 50


@functools.cache
def user_agent() -> str:
    """Ours (some receivers, Discord's front among them, refuse Python's default)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"dicetower-board/{version('dicetower')}"
    except PackageNotFoundError:
        return "dicetower-board"


# --- answers and what they mean --------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """A receiver's answer (``status`` None: none came: ``error`` says why)."""

    status: int | None
    reason: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)  # names in lower case
    body: bytes = b""
    error: str | None = None

    def said(self) -> str:
        """The answer in a few words, for a log line or the page."""
        if self.status is None:
            return self.error or "no answer"
        return f"{self.status} {self.reason}".strip()


@dataclass(frozen=True)
class Decision:
    action: str  # "sent", "retry" (a failure: backoff), "wait" (429: as long as asked), "give_up"
    wait: float = 0.0
    why: str = ""


def backoff(attempt: int, rng: random.Random) -> float:
    """The wait before try ``attempt + 1`` (0, 1, 2, ... failed so far), with ±20 % jitter so
    boards do not knock in step."""
    return min(BACKOFF_MOST_S, BACKOFF_FIRST_S * 2.0 ** min(attempt, 16)) * rng.uniform(0.8, 1.2)


def retry_after(answer: Answer, now: float) -> float | None:
    """The wait a receiver asked for: Discord's JSON ``retry_after`` (seconds), else the
    ``Retry-After`` header (seconds or an HTTP date); None if it said nothing usable."""
    wait: float | None = None
    if answer.headers.get("content-type", "").startswith("application/json") and answer.body:
        with contextlib.suppress(ValueError, TypeError, AttributeError, RecursionError):
            value = json.loads(answer.body).get("retry_after")
            if isinstance(value, int | float) and not isinstance(value, bool):
                wait = float(value)
    header = answer.headers.get("retry-after", "").strip()
    if wait is None and header:
        try:
            wait = float(header)
        except ValueError:
            with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
                wait = parsedate_to_datetime(header).timestamp() - now
    if wait is None or wait != wait:  # NaN
        return None
    return min(RETRY_AFTER_MOST_S, max(0.0, wait))


def decide(answer: Answer, attempt: int, *, rng: random.Random, now: float) -> Decision:
    """What to do after ``answer``, the ``attempt``-th answer in a row of its class (``wait``:
    429; ``retry``: 5xx, 408, no answer). The caller counts each class's run on its own
    (:class:`Streaks`): a 429 is the receiver saying when to come back, not a failure, so the
    5xx backoff after one starts again from its first step."""
    status = answer.status
    if status is not None and 200 <= status < 300:
        return Decision("sent")
    if status == 429:
        asked = retry_after(answer, now)
        return Decision("wait", backoff(attempt, rng) if asked is None else asked, answer.said())
    if status is None or status >= 500 or status == 408:
        asked = retry_after(answer, now) if status is not None else None
        return Decision("retry", backoff(attempt, rng) if asked is None else asked, answer.said())
    return Decision("give_up", 0.0, answer.said())


class Streaks:
    """How many answers in a row of each class (``wait``, ``retry``) one post has had: an
    answer of one class ends the other's run (its backoff starts again from the first step)."""

    def __init__(self) -> None:
        self.runs = {"wait": 0, "retry": 0}

    def attempt(self, answer: Answer) -> int:
        """The run the answer continues (before counting it)."""
        return self.runs["wait" if answer.status == 429 else "retry"]

    def count(self, decision: Decision) -> None:
        if decision.action in self.runs:
            other = "retry" if decision.action == "wait" else "wait"
            self.runs[decision.action] += 1
            self.runs[other] = 0


def pause_after(answer: Answer) -> float:
    """After a post that went through: how long Discord asks the next one to wait (its
    ``X-RateLimit-Remaining`` is 0: wait ``X-RateLimit-Reset-After``), else 0."""
    if answer.headers.get("x-ratelimit-remaining", "").strip() != "0":
        return 0.0
    try:
        wait = float(answer.headers.get("x-ratelimit-reset-after", "0"))
    except ValueError:
        return 0.0
    return min(RETRY_AFTER_MOST_S, max(0.0, wait)) if wait == wait else 0.0


# --- HTTP -------------------------------------------------------------------------------------------------


class HttpTransport:
    """POSTs to one target over one kept-alive connection (made again after any failure)."""

    def __init__(self, target: Target, *, timeout: float = TIMEOUT_S) -> None:
        self.target = target
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None
        self._context = ssl.create_default_context() if target.tls else None

    def _connect(self) -> http.client.HTTPConnection:
        t = self.target
        if t.tls:
            return http.client.HTTPSConnection(t.host, t.port, timeout=self.timeout, context=self._context)
        return http.client.HTTPConnection(t.host, t.port, timeout=self.timeout)

    def post(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        """One POST; a kept connection the receiver closed meanwhile is made again once."""
        for fresh in (self._conn is None, True):
            if self._conn is None:
                self._conn = self._connect()
            try:
                return self._request(self._conn, body, headers)
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self.close()
                if fresh:
                    return Answer(None, error=_describe(exc))
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                return Answer(None, error=_describe(exc))
        return Answer(None, error="no answer")

    def _request(self, conn: http.client.HTTPConnection, body: bytes, headers: Mapping[str, str]) -> Answer:
        t = self.target
        conn.request("POST", t.path, body=body, headers={
            **headers, "Content-Type": "application/json", "Content-Length": str(len(body)),
            "User-Agent": user_agent(), **({"Authorization": t.authorization} if t.authorization else {})})
        resp = conn.getresponse()
        data = resp.read(ANSWER_BYTES)
        if not resp.isclosed() or resp.will_close:  # more than we read, or a close asked for: afresh next time
            self.close()
        return Answer(resp.status, resp.reason, {k.lower(): v for k, v in resp.getheaders()}, data)

    def abort(self) -> None:
        """Cut a request in flight (from another thread: the board is stopping)."""
        conn = self._conn
        sock = conn.sock if conn is not None else None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError | socket.timeout):
        return "no answer within the timeout"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"its TLS certificate is not trusted ({exc.verify_message})"
    if isinstance(exc, socket.gaierror):
        return f"its host cannot be resolved ({exc.strerror})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower() if exc.strerror[:1].isupper() and exc.strerror[1:2].islower() else exc.strerror
    return type(exc).__name__ + (f": {exc}" if str(exc) else "")


# --- the queue ------------------------------------------------------------------------------------------


class HookQueue:
    """The posts waiting for one hook (outbox ids, oldest first), at most ``cap`` with those in
    hand. Full, it drops the oldest rolls first (alerts are few and matter more), then the
    oldest alerts; never a post in hand."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.rolls: deque[int] = deque()
        self.alerts: deque[int] = deque()
        self.in_hand: set[tuple[int, str]] = set()
        self.cond = threading.Condition()

    def __len__(self) -> int:
        with self.cond:
            return len(self.rolls) + len(self.alerts) + len(self.in_hand)

    def extend(self, items: list[tuple[int, str]]) -> list[int]:
        """Add posts (id, kind) in id order; returns the ids dropped to stay within the cap."""
        dropped: list[int] = []
        with self.cond:
            for post_id, kind in items:
                (self.alerts if kind == "alert" else self.rolls).append(post_id)
            excess = len(self.rolls) + len(self.alerts) + len(self.in_hand) - self.cap
            while excess > 0 and (self.rolls or self.alerts):
                dropped.append((self.rolls or self.alerts).popleft())
                excess -= 1
            self.cond.notify_all()
        return dropped

    def claim(self, most: int, timeout: float) -> list[tuple[int, str]]:
        """Up to ``most`` of the oldest posts, now in hand (waits up to ``timeout`` for one)."""
        with self.cond:
            if not self.rolls and not self.alerts:
                self.cond.wait(timeout)
            out: list[tuple[int, str]] = []
            while len(out) < most and (self.rolls or self.alerts):
                if self.alerts and (not self.rolls or self.alerts[0] < self.rolls[0]):
                    out.append((self.alerts.popleft(), "alert"))
                else:
                    out.append((self.rolls.popleft(), "roll"))
            self.in_hand.update(out)
            return out

    def unclaim(self, items: list[tuple[int, str]]) -> None:
        """Put back posts claimed but not sent (they go first again)."""
        with self.cond:
            for post_id, kind in reversed(items):
                (self.alerts if kind == "alert" else self.rolls).appendleft(post_id)
                self.in_hand.discard((post_id, kind))

    def release(self, items: list[tuple[int, str]]) -> None:
        """Posts done with (sent or given up): no longer in hand."""
        with self.cond:
            self.in_hand.difference_update(items)

    def wake(self) -> None:
        with self.cond:
            self.cond.notify_all()


# --- the thread -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Delivered:
    """A post's outcome, for the record's writer: ``sent`` (acknowledged), else given up."""

    hook_id: int
    items: tuple[tuple[int, str], ...]  # (outbox id, kind)
    sent: bool
    at: float

    @property
    def ids(self) -> list[int]:
        return [i for i, _ in self.items]


@dataclass
class HookStatus:
    """What the page and /api/board show of a hook (written by its thread, read by the web side)."""

    sent: int = 0
    failed: int = 0
    dropped: int = 0
    last_ok: float | None = None
    state: str = "idle"  # idle, sending, retrying
    detail: str = ""
    retry_at: float | None = None


class Deliverer:
    """One hook's thread: takes posts from its queue, posts them, reports each outcome."""

    def __init__(self, hook: Webhook, hook_id: int, queue: HookQueue, db_path: str | Path,
                 report: Callable[[Delivered], None], status: HookStatus, *,
                 log: Callable[[str], None] | None = None, transport: HttpTransport | None = None,
                 rng: random.Random | None = None,
                 before_post: Callable[[list[int], threading.Event], bool] | None = None) -> None:
        """``before_post(ids, stop)``: the posts of a request are about to go out (for Discord:
        marked tried in the record); False if the board stops first."""
        self.hook = hook
        self.hook_id = hook_id
        self.queue = queue
        self.db_path = str(db_path)
        self.report = report
        self.status = status
        self._log = log or (lambda message: None)
        self.transport = transport or HttpTransport(hook.target)
        self.rng = rng or random.Random()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"board-webhook-{hook_id}", daemon=True)
        self.before_post = before_post
        self._failing_since: float | None = None
        self._retries = 0  # tries again since the first failure, over every post
        self._quiet: tuple[str, float, int] | None = None  # (answer, first logged, given up since)

    def start(self) -> Deliverer:
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop: a post in flight gets :data:`CLOSE_WAIT_S` to finish, then is cut (it stays in
        the outbox and goes out after the next start)."""
        self._stop.set()
        self.queue.wake()
        self._thread.join(CLOSE_WAIT_S)
        if self._thread.is_alive():
            self.transport.abort()
            self._thread.join(CLOSE_WAIT_S)
        self.transport.close()

    def _run(self) -> None:
        reader: Reader | None = None
        try:
            reader = Reader(self.db_path)
            while not self._stop.is_set():
                items = self.queue.claim(max(CLAIM, self.hook.batch), 0.5)
                if items:
                    self._deliver(reader, items)
        except Exception as exc:  # a bug of ours: said, and the hook stops (its posts stay in the outbox)
            self.status.state, self.status.detail = "stopped", f"{type(exc).__name__}: {exc}"
            self._log(f"board: webhook {self.hook.name} stopped ({type(exc).__name__}: {exc}); its posts wait in "
                      "the record for the next start")
        finally:
            if reader is not None:
                reader.close()

    def _deliver(self, reader: Reader, items: list[tuple[int, str]]) -> None:
        """Post ``items`` (claimed, oldest first; their bodies read in one go), as many requests
        as the hook's format makes of them, in order."""
        found = reader.outbox_posts(i for i, _ in items)
        gone = [it for it in items if it[0] not in found]
        if gone:  # not in the outbox any more (cannot happen while we hold them): nothing to post
            self.queue.release(gone)
            items = [it for it in items if it[0] in found]
        while items:
            fit, payload, key = self._request(items, found)
            encoded = found[items[0][0]][2]
            sent, rest = items[:fit], items[fit:]
            given_back = False

            def give_back(rest: list[tuple[int, str]] = rest) -> None:
                # A receiver that fails keeps only this request's posts in hand: the rest wait
                # in the queue again, where a full queue may drop the oldest of them.
                nonlocal given_back
                if rest and not given_back:
                    self.queue.unclaim(rest)
                    given_back = True

            if self.before_post is not None and not self.before_post([i for i, _ in sent], self._stop):
                self.queue.release(items)
                return
            outcome = self._post(payload, {"Idempotency-Key": key}, functools.partial(json.loads, encoded),
                                 on_retry=give_back)
            if outcome is None:  # stopping: they stay in the outbox
                self.queue.release(items)
                return
            if outcome:
                self.status.sent += len(sent)
            else:
                self.status.failed += len(sent)
            # still in hand (counted as waiting) until the writer has committed them out of the outbox
            self.report(Delivered(self.hook_id, tuple(sent), outcome, time.time()))
            if given_back:
                return
            items = rest

    def _request(self, items: list[tuple[int, str]], found: dict[int, tuple[str, str, bytes, bool]]) -> tuple[
            int, bytes, str]:
        """(how many of ``items`` from the first, the body, the Idempotency-Key) of the next request."""
        keys = [found[i][1] for i, _ in items]
        encoded = [found[i][2] for i, _ in items]  # each post's plain body as the outbox keeps it
        if self.hook.format == "discord":
            bodies = [{**json.loads(b), **({"repeat": True} if found[i][3] else {})}
                      for (i, _), b in zip(items[:posts.EMBEDS], encoded[:posts.EMBEDS], strict=False)]
            fit = posts.discord_fit(bodies)
            return fit, posts.encode(posts.discord_post(bodies[:fit])), ", ".join(keys[:fit])
        if self.hook.batch > 1:
            fit = posts.batch_fit([len(b) for b in encoded[:self.hook.batch]])
            return fit, posts.batch(encoded[:fit]), posts.batch_key(keys[:fit])
        return 1, encoded[0], keys[0]

    def _post(self, payload: bytes, headers: dict[str, str], what: Callable[[], Any],
              on_retry: Callable[[], None] = lambda: None) -> bool | None:
        """Post until it is delivered (True) or given up (False); None if the board stops first.
        ``on_retry`` is called before each wait to try again."""
        streaks = Streaks()
        self.status.state = "sending"
        while not self._stop.is_set():
            answer = self.transport.post(payload, headers)
            decision = decide(answer, streaks.attempt(answer), rng=self.rng, now=time.time())
            if decision.action == "sent":
                self._recovered()
                self.status.last_ok = time.time()
                self.status.state, self.status.detail, self.status.retry_at = "idle", "", None
                pause = pause_after(answer)
                if pause:
                    self._stop.wait(pause)
                return True
            if decision.action == "give_up":
                self._given_up(answer, what())
                self.status.state, self.status.detail, self.status.retry_at = "idle", f"gave up: {answer.said()}", None
                return False
            self._retrying(decision)
            on_retry()
            if self._stop.wait(decision.wait):
                return None
            streaks.count(decision)
        return None

    def _retrying(self, decision: Decision) -> None:
        self.status.state = "retrying"
        self.status.detail = decision.why
        self.status.retry_at = time.time() + decision.wait
        self._retries += 1
        if self._failing_since is None:
            self._failing_since = time.monotonic()
            self._log(f"board: webhook {self.hook.name}: {decision.why}; trying again in {decision.wait:.1f} s "
                      f"and on, with backoff ({len(self.queue)} posts waiting)")

    def _recovered(self) -> None:
        if self._failing_since is not None:
            retries = f"{self._retries} {'retry' if self._retries == 1 else 'retries'}"
            self._log(f"board: webhook {self.hook.name}: delivering again, after {retries} in "
                      f"{time.monotonic() - self._failing_since:.0f} s")
            self._failing_since = None
        self._retries = 0

    def _given_up(self, answer: Answer, body: Any) -> None:
        """One line per post given up, or, for the same answer again within a minute, one line
        saying how many (a deleted Discord webhook refuses every post)."""
        now = time.monotonic()
        said = answer.said()
        if self._quiet is not None and self._quiet[0] == said and now - self._quiet[1] < GIVE_UP_QUIET_S:
            self._quiet = (said, self._quiet[1], self._quiet[2] + 1)
            return
        more = f" (and {self._quiet[2]} more posts given up with {self._quiet[0]})" if self._quiet and \
            self._quiet[2] else ""
        self._quiet = (said, now, 0)
        what = _what(body) if isinstance(body, dict) else "post"
        if self.hook.batch > 1 or self.hook.format == "discord":
            what = f"request whose first post is the {what}"
        text = answer.body[:200].decode("utf-8", "replace").replace("\n", " ").strip()
        self._log(f"board: webhook {self.hook.name}: {said} for the {what}" + (f": {text}" if text else "")
                  + f"; this post is given up, not sent again{more}")


def _what(body: dict[str, Any]) -> str:
    """What a plain body is about, for a log line: ``roll shop1/table3 seq 12``."""
    entry = body.get("entry")
    return f"{body.get('type')} {body.get('store')}/{body.get('tower')}" + (
        f" seq {entry.get('seq')}" if isinstance(entry, dict) else "")
