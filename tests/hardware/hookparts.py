"""A real HTTP receiver for the webhook tests: a stdlib ``ThreadingHTTPServer`` on a free
localhost port that keeps every POST it gets (path, headers, JSON body, when) and answers from
a script (429, 500, 400... then 204), can be stopped (connection refused) and started again
on the same port, and can hold its answer (a board killed while a post is in flight)."""

from __future__ import annotations

import collections
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.hardware.netparts import free_port, wait_for

#: (status, headers, body) of one scripted answer.
Reply = tuple[int, dict[str, str], bytes]
OK: Reply = (204, {}, b"")


def too_many(retry_after: float, *, discord: bool = False) -> Reply:
    """A 429: Discord's JSON ``retry_after``, or the ``Retry-After`` header."""
    if discord:
        body = json.dumps({"message": "You are being rate limited.", "retry_after": retry_after, "global": False})
        return 429, {"Content-Type": "application/json"}, body.encode()
    return 429, {"Retry-After": str(retry_after)}, b"slow down"


@dataclass
class Post:
    path: str
    headers: dict[str, str]
    body: Any
    at: float  # time.time() when it arrived
    status: int  # what the receiver answered


@dataclass
class Receiver:
    """Start with :meth:`start`; ``script`` answers the first requests in order, then
    ``answer`` (204 if None)."""

    script: list[Reply] = field(default_factory=list)
    port: int = field(default_factory=free_port)
    answer: Callable[[], Reply] | None = None  # once the script is done (default: 204)
    posts: list[Post] = field(default_factory=list)  # every request, answered or not, in order
    hold: threading.Event | None = None  # while set, requests are kept (status 0) and never answered
    on_post: Callable[[Any], None] | None = None  # called with each body kept, before it is answered
    lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _release: threading.Event = field(default_factory=threading.Event)
    _connections: set[socket.socket] = field(default_factory=set)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/dice?token=s3cret"

    def start(self) -> Receiver:
        receiver = self
        self._release.clear()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                with receiver.lock:
                    receiver._connections.add(self.connection)

            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    body = json.loads(data)
                except ValueError:
                    body = data
                with receiver.lock:
                    holding = receiver.hold is not None and receiver.hold.is_set()
                    if holding:
                        status, headers, payload = OK
                    elif receiver.script:
                        status, headers, payload = receiver.script.pop(0)
                    else:
                        status, headers, payload = receiver.answer() if receiver.answer else OK
                    post = Post(self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.time(),
                                0 if holding else status)
                    receiver.posts.append(post)
                if receiver.on_post is not None and not holding:
                    receiver.on_post(body)
                if holding:  # never answered: the request waits while held, then its connection is closed
                    while receiver.hold.is_set() and not receiver._release.wait(0.05):
                        pass
                    self.close_connection = True
                    return
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Down: the port refuses connections until :meth:`start` again, and the connections
        kept alive are cut."""
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with self.lock:
            connections, self._connections = self._connections, set()
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(5)

    def answered(self, status: int | None = None) -> list[Post]:
        """The posts answered with 2xx (or with ``status``; 0: held, never answered)."""
        with self.lock:
            return [p for p in self.posts if (200 <= p.status < 300 if status is None else p.status == status)]

    def bodies(self, kind: str | None = None) -> list[dict[str, Any]]:
        """The JSON bodies answered 2xx (of ``type`` kind), in order of arrival."""
        return [p.body for p in self.answered() if kind is None or p.body.get("type") == kind]

    def keys(self) -> list[str]:
        return [p.headers["idempotency-key"] for p in self.answered()]


def receiving(*receivers: Receiver) -> Iterator[None]:
    """Start every receiver, stop them at the end (for fixtures)."""
    for r in receivers:
        r.start()
    try:
        yield
    finally:
        for r in receivers:
            r.stop()


def wait_posts(receiver: Receiver, n: int, kind: str = "roll", timeout: float = 30.0) -> list[dict[str, Any]]:
    return wait_for(lambda: (b := receiver.bodies(kind)) and len(b) >= n and b, timeout, f"{n} {kind} posts")


class DiscordLimit:
    """Answers like Discord's limits on a webhook: a bucket of ``per`` requests each ``window``
    seconds, announced in ``X-RateLimit-Remaining`` and ``X-RateLimit-Reset-After``, and the
    channel's own limit of ``per_minute`` messages a minute, which no header announces (both
    answered 429 with Discord's JSON ``retry_after``)."""

    def __init__(self, per: int = 5, window: float = 2.0, per_minute: int = 30) -> None:
        self.per, self.window, self.per_minute = per, window, per_minute
        self.started = 0.0
        self.used = 0
        self.minute: collections.deque[float] = collections.deque()
        self.refused = 0

    def __call__(self) -> Reply:
        now = time.monotonic()
        if now - self.started >= self.window:
            self.started, self.used = now, 0
        while self.minute and now - self.minute[0] >= 60.0:
            self.minute.popleft()
        left = self.window - (now - self.started)
        if self.used >= self.per:
            return self._refuse(left, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": f"{left:.3f}"})
        if len(self.minute) >= self.per_minute:
            return self._refuse(60.0 - (now - self.minute[0]), {"X-RateLimit-Scope": "shared"})
        self.used += 1
        self.minute.append(now)
        return 204, {"X-RateLimit-Remaining": str(self.per - self.used), "X-RateLimit-Reset-After": f"{left:.3f}"}, b""

    def _refuse(self, wait: float, headers: dict[str, str]) -> Reply:
        self.refused += 1
        body = json.dumps({"message": "You are being rate limited.", "retry_after": round(wait, 3), "global": False})
        return 429, {"Content-Type": "application/json", "Retry-After": str(int(wait) + 1), **headers}, body.encode()
