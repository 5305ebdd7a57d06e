"""The tower's side: every roll-log entry to the broker, QoS 1, in order, resumable.

:class:`Publisher` runs in its own thread, so the panel never waits for the network. It tails
the log (:class:`~hardware.network.tail.LogTail`), keeps at most ``window`` entries
unacknowledged, and moves the cursor (:mod:`hardware.network.cursor`) over the entries the
broker has acknowledged, in order. While the broker is away, paho-mqtt keeps the unacknowledged
messages and sends them again on reconnecting, and nothing new is sent; after a crash or a
reboot the cursor says where to start. A consumer that missed entries (it started late, or a
broker restart lost them) asks on ``.../resend`` and the publisher sends the log again from
there. :meth:`Publisher.close` waits a bounded time for outstanding acknowledgements.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from hardware.files.rolllog import LogError, read_entries
from hardware.network import topics
from hardware.network.broker import KEEPALIVE_S, BrokerURL, Credentials, make_client, release
from hardware.network.cursor import Cursor, load_cursor, save_cursor
from hardware.network.status import HEARTBEAT_S, OFFLINE, ONLINE, LogSummary
from hardware.network.tail import LogTail
from hardware.once import Once

#: Unacknowledged entries at most (paho's own in-flight limit is set to match).
WINDOW = 32
#: How often the log file is looked at when nobody calls :meth:`Publisher.wake`.
POLL_S = 0.05
#: The cursor is written at most this often (and at the end): it may lag, never lead.
CURSOR_EVERY_S = 0.5
#: The status is republished at most this often while rolls come in (and, unchanged, every
#: ``HEARTBEAT_S``: a consumer that hears nothing for much longer knows its link is down).
STATUS_EVERY_S = 1.0
#: How long :meth:`Publisher.close` waits for the broker by default.
CLOSE_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class _Sent:
    mid: int
    seq: int
    hash: str


class Publisher:
    """Publishes the log at ``log_path`` as ``store``/``tower`` to the broker at ``url``.

    ``cursor_path`` is where the last acknowledged entry is remembered. ``log`` gets one line
    per connection change (the journal on a kiosk). :meth:`start` it, :meth:`close` it.
    """

    def __init__(self, url: BrokerURL, *, store: str, tower: str, log_path: str | Path, cursor_path: str | Path,
                 credentials: Credentials | None = None, window: int = WINDOW, poll_s: float = POLL_S,
                 log: Callable[[str], None] | None = None, ca_what: str = "ca_file",
                 heartbeat_s: float = HEARTBEAT_S) -> None:
        self.url = url
        self.store = topics.check_id("store", store)
        self.tower = topics.check_id("tower", tower)
        self.log_path = Path(log_path)
        self.cursor_path = Path(cursor_path)
        self.window = window
        self.poll_s = poll_s
        self.heartbeat_s = heartbeat_s
        self._log = log or (lambda message: None)
        self._topic = topics.topic(store, tower, "log")
        self._status_topic = topics.topic(store, tower, "status")
        self._resend_topic = topics.topic(store, tower, "resend")
        self._client = make_client(url, f"dicetower-{store}-{tower}", credentials or Credentials(), ca_what=ca_what)
        self._client.max_inflight_messages_set(window)
        self._client.will_set(self._status_topic, topics.dumps({"state": OFFLINE, "store": store, "tower": tower}),
                              qos=1, retain=True)
        self._client.on_connect = self._on_connect
        self._client.on_connect_fail = self._on_connect_fail
        self._client.on_disconnect = self._on_disconnect
        self._client.on_publish = self._on_publish
        self._client.on_message = self._on_message
        cursor, note = load_cursor(self.cursor_path, store, tower)
        if note:
            self._log(f"mqtt: {note}")
        self.cursor = cursor
        self._saved = cursor
        self._tail = LogTail(self.log_path, cursor.seq, cursor.hash, on_note=self._note, on_restart=self._restart)
        self._summary = LogSummary()
        self._inflight: deque[_Sent] = deque()
        self._acks: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._acked: set[int] = set()
        self._rewinds: queue.SimpleQueue[tuple[int, int | None]] = queue.SimpleQueue()
        self._resend: Iterator[dict[str, Any]] | None = None  # the range being sent again
        self._ranges: deque[tuple[int, int]] = deque()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._close_timeout = CLOSE_TIMEOUT_S  # close() sets its own before it stops the thread
        self._connected = threading.Event()
        self._announce = False
        self._status_sent: dict[str, Any] | None = None
        self._status_at = 0.0
        self._cursor_at = 0.0
        self._said = Once(self._log)  # a connection problem is said once, not at every retry
        self._left = 0
        self.published = 0  # messages handed to the client (entries, resends included)
        self._thread = threading.Thread(target=self._run, name=f"mqtt-{store}-{tower}", daemon=True)

    # --- the tower's side -----------------------------------------------------------------------

    def start(self) -> Publisher:
        self._client.connect_async(self.url.host, self.url.port, keepalive=KEEPALIVE_S)
        self._client.loop_start()
        self._thread.start()
        return self

    def wake(self) -> None:
        """An entry was just written: look at the log now rather than at the next poll."""
        self._wake.set()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> int:
        """Publish what is left, wait up to ``timeout`` seconds for the broker to acknowledge
        it, say offline, disconnect. Returns how many entries stayed unacknowledged (they go
        out at the next start, from the cursor)."""
        self._close_timeout = timeout
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout + 2.0)
        return self._left

    # --- paho's network thread --------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self._say(f"mqtt: {self.url} refused the connection: {reason}; rolls go on, retrying")
            return
        client.subscribe(self._resend_topic, qos=1)
        self._announce = True
        self._connected.set()
        self._wake.set()
        self._say(f"mqtt: connected to {self.url} as {self.store}/{self.tower}")

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        self._say(f"mqtt: cannot reach {self.url} (broker down, wrong address, or a TLS certificate that "
                  "ca_file does not trust); rolls go on, retrying")

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        was = self._connected.is_set()
        self._connected.clear()
        if was and not self._stop.is_set():  # a refused login was said by _on_connect
            self._say(f"mqtt: lost {self.url} ({reason}); rolls go on, publishing resumes on reconnect")

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        if not reason.is_failure:
            self._acks.put(mid)
            self._wake.set()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        """A consumer asks for entries again: ``{"from": SEQ}`` or ``{"from": SEQ, "to": SEQ}``."""
        try:
            body = json.loads(message.payload)
            first, last = body.get("from"), body.get("to")
        except (ValueError, AttributeError, UnicodeDecodeError):
            return
        if not _whole(first) or first < 1 or (last is not None and not (_whole(last) and last >= first)):
            return
        self._rewinds.put((first, last))
        self._wake.set()

    def _say(self, message: str) -> None:
        self._said.say(message)

    # --- the publisher's thread -------------------------------------------------------------------

    def _run(self) -> None:
        self._summarise()
        while not self._stop.is_set():
            self._step()
            self._wake.wait(self.poll_s)
            self._wake.clear()
        self._finish(self._close_timeout)

    def _step(self) -> None:
        self._take_acks()
        self._take_rewinds()
        if self._connected.is_set():
            if self._announce:  # online first: a consumer sees the tower before its entries
                self._send_status()
            room = self.window - len(self._inflight)
            if room > 0:
                for entry in self._resent(room):
                    self._send(entry)
            room = self.window - len(self._inflight)
            if room > 0:
                for entry in self._tail.read(room):
                    self._send(entry)
            self._send_status()
        self._save_cursor(force=False)

    def _summarise(self) -> None:
        """The status summary from the log as it is (once, in this thread: start-up never waits)."""
        try:
            for stored in read_entries(self.log_path):
                if stored.entry is not None and stored.complete:
                    self._summary.add(stored.entry)
        except (LogError, OSError):
            pass  # no log yet: the summary fills as entries are published

    def _send(self, entry: dict[str, Any]) -> None:
        info = self._client.publish(self._topic, topics.log_message(self.store, self.tower, entry), qos=1)
        self._inflight.append(_Sent(info.mid, entry["seq"], str(entry.get("hash", ""))))
        self._summary.add(entry)
        self.published += 1

    def _take_acks(self) -> None:
        with contextlib.suppress(queue.Empty):
            while True:
                self._acked.add(self._acks.get_nowait())
        while self._inflight and self._inflight[0].mid in self._acked:
            sent = self._inflight.popleft()
            self._acked.discard(sent.mid)
            if sent.seq > self.cursor.seq:
                self.cursor = Cursor(self.store, self.tower, sent.seq, sent.hash)
        if len(self._acked) > 4 * self.window:  # acknowledgements of messages resent by paho
            self._acked &= {s.mid for s in self._inflight}

    def _take_rewinds(self) -> None:
        """Queue the ranges asked for again; a range already queued is not queued twice."""
        with contextlib.suppress(queue.Empty):
            while True:
                first, last = self._rewinds.get_nowait()
                last = min(last if last is not None else self._tail.last_seq, self._tail.last_seq)
                if last >= first and (first, last) not in self._ranges:
                    self._ranges.append((first, last))

    def _resent(self, room: int) -> list[dict[str, Any]]:
        """Up to ``room`` entries of the ranges asked for again, read from the log (the
        entries after them go on from the tail, undisturbed)."""
        out: list[dict[str, Any]] = []
        while len(out) < room and (self._resend is not None or self._ranges):
            if self._resend is None:
                first, last = self._ranges.popleft()
                self._resend = _range(self.log_path, first, last)
            entry = next(self._resend, None)
            if entry is None:
                self._resend = None
            else:
                out.append(entry)
        return out

    def _note(self, note: str) -> None:
        self._log(f"mqtt: {note}")

    def _restart(self) -> None:
        """A new log under the old cursor: the cursor starts again with it."""
        self.cursor = Cursor(self.store, self.tower)

    def _send_status(self, state: str = ONLINE, *, force: bool = False) -> Any:
        body = self._summary.body(state, self.store, self.tower)
        now = time.monotonic()
        changed = body != self._status_sent and now - self._status_at >= STATUS_EVERY_S
        if not (force or self._announce or changed or now - self._status_at >= self.heartbeat_s):
            return None
        self._announce = False
        self._status_sent, self._status_at = body, now
        return self._client.publish(self._status_topic, topics.dumps(body), qos=1, retain=True)

    def _save_cursor(self, *, force: bool) -> None:
        now = time.monotonic()
        if self.cursor == self._saved or not (force or now - self._cursor_at >= CURSOR_EVERY_S):
            return
        try:
            save_cursor(self.cursor_path, self.cursor)
        except OSError as exc:
            self._say(f"mqtt: cannot write the cursor {self.cursor_path}: {exc.strerror or exc}; "
                      "entries may be published again after a restart")
            return
        self._saved, self._cursor_at = self.cursor, now

    def _finish(self, timeout: float) -> None:
        """Shutting down: what the log holds now goes out, within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._step()
            if not self._inflight and not self._tail.pending():
                break
            self._wake.wait(min(self.poll_s, max(0.0, deadline - time.monotonic())))
            self._wake.clear()
        if self._connected.is_set():
            info = self._send_status(OFFLINE, force=True)
            with contextlib.suppress(Exception):
                info.wait_for_publish(max(0.1, min(1.0, deadline - time.monotonic())))
        self._save_cursor(force=True)
        self._left = len(self._inflight) + len(self._tail.read(1 << 30))
        release(self._client)


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _range(path: Path, first: int, last: int) -> Iterator[dict[str, Any]]:
    """The log's entries ``first``..``last`` (rotated files included), read lazily."""
    try:
        for stored in read_entries(path):
            entry = stored.entry
            if entry is None or not stored.complete:
                continue
            seq = entry.get("seq")
            if not _whole(seq):
                continue
            if seq > last:
                return
            if seq >= first:
                yield entry
    except (LogError, OSError):
        return


@contextlib.contextmanager
def publishing(config: Any, *, log: Callable[[str], None] | None = None) -> Iterator[Publisher | None]:
    """A started :class:`Publisher` for a tower config's ``[network]`` (None when it is off),
    closed (bounded wait for the broker) when the block ends. ``config`` is a
    :class:`hardware.config.schema.TowerConfig`, already checked."""
    publisher = publisher_for(config, log=log)
    if publisher is None:
        yield None
        return
    publisher.start()
    try:
        yield publisher
    finally:
        left = publisher.close()
        if left and log is not None:
            log(f"mqtt: {left} entr{'y' if left == 1 else 'ies'} not acknowledged yet; "
                "they are published at the next start")


def login_name(store: str, tower: str) -> str:
    """A tower's broker login unless its config names one: ``STORE/TOWER``, what the shipped
    ACL's ``%u`` patterns bind to that store's tower's topics."""
    return f"{store}/{tower}"


def publisher_for(config: Any, *, log: Callable[[str], None] | None = None) -> Publisher | None:
    """The publisher a tower config asks for, or None when ``[network]`` is off."""
    from hardware.files.state import LOG_NAME
    from hardware.network.broker import parse_url, read_password
    from hardware.network.cursor import CURSOR_NAME

    net = config.network
    if not net.enabled:
        return None
    from hardware.files.paths import user_path

    state_dir = user_path(config.kiosk.state_dir, "kiosk.state_dir")
    password = read_password(net.password_file, what="network.password_file") if net.password_file else None
    # the broker's ACL binds a login to one store and one tower (deploy/mosquitto/dicetower.acl)
    username = net.username or login_name(net.store, net.tower)
    credentials = Credentials(username=username, password=password, ca_file=net.ca_file or None)
    return Publisher(parse_url(net.mqtt, what="network.mqtt"), store=net.store, tower=net.tower,
                     log_path=state_dir / LOG_NAME, cursor_path=state_dir / CURSOR_NAME,
                     credentials=credentials, log=log, ca_what="network.ca_file")
