"""The tower's read-only page server (``[web]``, off by default): the phone page, its assets,
the roll log and a stream of its new entries, over plain HTTP on the table's network.

Built on the standard library's ``http.server`` (a tower needs no web stack of the store's:
docs/phone.md, "Served by the tower"). What it serves is public already: the roll log holds no
open session's seed (that stays in ``open-sessions/``, which nothing here reads), only revealed
sessions' seeds and the open session's commitment, code, rolls and fingerprints, as the OLED
shows them. It never writes anything and changes nothing on the tower: GET and HEAD on a fixed
list of paths, requests and headers bounded by ``http.server``'s own limits, at most
:data:`MAX_STREAMS` streams at once, and each other request answered within
:data:`REQUEST_SECONDS`.

Paths: ``/`` (the page), ``/verify.js``, ``/engine.zip``, ``/pyodide/NAME``, ``/api/log`` (the
whole log, every rotated file in chain order, as JSON lines) and ``/api/events`` (server-sent
events: each entry appended from the line after ``?from=N`` or the ``Last-Event-ID`` on, one
event a line, with a comment every :data:`KEEPALIVE_SECONDS`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from hardware.web.assets import PAGE_FILES, PYODIDE_FILES, PageAssets, PageError

__all__ = ["KEEPALIVE_SECONDS", "MAX_STREAMS", "REQUEST_SECONDS", "PageServer", "parse_listen"]

MAX_STREAMS = 16
REQUEST_SECONDS = 30.0
KEEPALIVE_SECONDS = 10.0
#: How often a stream looks for new entries.
POLL_SECONDS = 0.2
#: Pyodide's files never change under their version: a phone keeps them.
_IMMUTABLE = "public, max-age=31536000, immutable"


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``0.0.0.0:80``, ``[::]:8080``; port 0: any free one); ``ValueError`` saying what is
    allowed."""
    host, sep, port = str(text).rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"expected HOST:PORT (0.0.0.0:80, 127.0.0.1:8080), got {text!r}")
    return host, int(port)


class PageServer:
    """Serves the page for the roll log in ``state_dir`` on ``listen`` (``HOST:PORT``; port 0
    picks a free one), in a thread of its own: :meth:`start`, :meth:`stop`, :attr:`url`."""

    def __init__(self, state_dir: Path, *, listen: str = "127.0.0.1:0", assets: PageAssets | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        self.state_dir = Path(state_dir)
        self.host, port = parse_listen(listen)
        self.assets = assets if assets is not None else PageAssets.find()
        self.log = log or (lambda message: None)
        self._streams = threading.BoundedSemaphore(MAX_STREAMS)
        self._stopping = threading.Event()
        handler = _handler_for(self)
        try:
            self._httpd = ThreadingHTTPServer((self.host, port), handler)
        except OSError as exc:
            raise PageError(f"[web] cannot listen on {listen}: {exc.strerror or exc}") from None
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}/"

    def start(self) -> PageServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="dicetower-web", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> PageServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- the log ------------------------------------------------------------------------------

    def log_files(self) -> list[Path]:
        from hardware.files.rolllog import chain_files
        from hardware.files.state import LOG_NAME

        return [p for p in chain_files(self.state_dir / LOG_NAME) if p.is_file()]

    def log_chunks(self) -> Iterator[bytes]:
        """The whole chain's bytes, file after file, a chunk at a time."""
        for path in self.log_files():
            with contextlib.suppress(FileNotFoundError), path.open("rb") as f:
                while chunk := f.read(1 << 16):
                    yield chunk

    def lines_after(self, count: int) -> Iterator[tuple[int, bytes]]:
        """Every whole line of the chain after the first ``count``, numbered from 1, then the
        ones appended while the stream is open (until the server stops)."""
        from hardware.files.state import LOG_NAME

        current = self.state_dir / LOG_NAME
        number, seen = 0, b""
        for path in self.log_files():
            if path == current:
                break
            with contextlib.suppress(FileNotFoundError):
                for line in path.read_bytes().splitlines():
                    number += 1
                    if number > count:
                        yield number, line
        inode, offset = None, 0
        while not self._stopping.is_set():
            try:
                st = os.stat(current)
            except FileNotFoundError:
                time.sleep(POLL_SECONDS)
                continue
            if inode is not None and (st.st_ino != inode or st.st_size < offset):
                return  # rotated under us: the page reconnects and goes on from its count
            inode = st.st_ino
            if st.st_size > offset:
                with current.open("rb") as f:
                    f.seek(offset)
                    data = f.read(st.st_size - offset)
                offset += len(data)
                seen += data
                *whole, seen = seen.split(b"\n")
                for line in whole:
                    number += 1
                    if number > count:
                        yield number, line
            else:
                yield 0, b""  # nothing new: the stream may send its keep-alive
                time.sleep(POLL_SECONDS)


def _handler_for(server: PageServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        page_server = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    page_server: PageServer
    server_version = "dicetower"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    timeout = REQUEST_SECONDS

    def log_message(self, format: str, *args: Any) -> None:
        return  # a phone's every request is not the journal's business

    def do_GET(self) -> None:
        self._serve(body=True)

    def do_HEAD(self) -> None:
        self._serve(body=False)

    def _refuse(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"read-only: GET and HEAD only\n", "text/plain", body=True,
                   extra={"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse

    def _serve(self, *, body: bool) -> None:
        url = urlsplit(self.path)
        path = url.path
        assets = self.page_server.assets
        try:
            if path in ("/", "/verify.html"):
                self._send_file(assets.page("verify.html"), PAGE_FILES["verify.html"], body=body)
            elif path == "/verify.js":
                self._send_file(assets.page("verify.js"), PAGE_FILES["verify.js"], body=body)
            elif path == "/engine.zip":
                self._send_file(assets.engine(), "application/zip", body=body)
            elif path == "/api/hashes":
                import json

                self._send(HTTPStatus.OK, json.dumps(assets.hashes()).encode(), "application/json", body=body)
            elif path.startswith("/pyodide/") and path.removeprefix("/pyodide/") in PYODIDE_FILES:
                name = path.removeprefix("/pyodide/")
                self._send(HTTPStatus.OK, assets.pyodide_file(name), PYODIDE_FILES[name], body=body,
                           extra={"Cache-Control": _IMMUTABLE})
            elif path == "/api/log":
                self._send_log(body=body)
            elif path == "/api/events":
                self._send_events(parse_qs(url.query))
            else:
                self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain", body=body)
        except PageError as exc:
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, (str(exc) + "\n").encode(), "text/plain", body=body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send(self, status: HTTPStatus, data: bytes, kind: str, *, body: bool,
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Content-Type-Options", "nosniff")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _send_file(self, data: bytes, kind: str, *, body: bool) -> None:
        """A file that may change with the tower's software: a phone asks again each visit,
        and gets a 304 while it is the same."""
        tag = '"' + hashlib.sha256(data).hexdigest()[:32] + '"'
        if self.headers.get("If-None-Match") == tag:
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("ETag", tag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._send(HTTPStatus.OK, data, kind, body=body, extra={"ETag": tag, "Cache-Control": "no-cache"})

    def _send_log(self, *, body: bool) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if body:
            for chunk in self.page_server.log_chunks():
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.write(b"0\r\n\r\n")

    def _send_events(self, query: dict[str, list[str]]) -> None:
        server = self.page_server
        given = (query.get("from") or [self.headers.get("Last-Event-ID") or "0"])[0]
        count = int(given) if given.isdigit() else 0
        if not server._streams.acquire(blocking=False):
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, b"too many streams\n", "text/plain", body=True)
            return
        try:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(b"retry: 1000\n\n")
            self.wfile.flush()
            quiet_since = time.monotonic()
            for number, line in server.lines_after(count):
                if number:
                    self.wfile.write(b"id: %d\ndata: %s\n\n" % (number, line))
                    self.wfile.flush()
                    quiet_since = time.monotonic()
                elif time.monotonic() - quiet_since >= KEEPALIVE_SECONDS:
                    self.wfile.write(b": still here\n\n")
                    self.wfile.flush()
                    quiet_since = time.monotonic()
            self.close_connection = True
        finally:
            server._streams.release()
