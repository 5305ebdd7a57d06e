"""The board's web side (Starlette): the live page, the OBS overlay, the JSON API and the
server-sent event stream the page and the overlay listen to.

Routes: ``/`` (one card per tower), ``/overlay?store=S&tower=T`` (transparent, latest roll large),
``/fonts/NAME`` (the DejaVu fonts the page draws with, from this machine's fonts-dejavu-core),
``/api/towers``, ``/api/towers/T`` (a card), ``/api/towers/T/rolls`` (roll entries, oldest
first; ``?after=SEQ&limit=N`` pages through them), ``/api/towers/T/evidence`` (findings,
rejected messages and conflicting entries), ``/api/stats`` (per system, all towers, verified
rolls only), ``/api/towers/T/log`` (every entry of the tower's chain, as JSON lines: what the
phone page checks), ``/phone/`` (the phone page, docs/phone.md: ``/phone/?log=../api/towers/T/log``),
``/api/board`` (live / reconnecting / stale, the message counters and each
webhook's counts and state), ``/events[?tower=T][&store=S][&feed=1]`` (SSE: the board's state and a
``snapshot`` of the cards, then a ``tower`` event with the card of each tower that changed,
its ``stats`` left out when they did not, and a ``board`` event when the board's state
changes; with ``feed=1`` also a ``roll`` event for each verified roll and an ``alert`` for
each red verdict, the webhooks' plain JSON). ``allow_origins`` lets pages of those origins
(a virtual tabletop's) read the API and the stream (CORS, GET only).
Every value in a card is of a known type (:mod:`hardware.board.messages`), and the page shows
what a tower sends with ``textContent`` only: nothing it says is HTML.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hardware.board.feeds import Post
from hardware.board.ledger import Ledger
from hardware.board.record import Reader
from hardware.board.towers import Towers

STATIC = Path(__file__).resolve().parent / "static"
#: The fonts the page and the overlay draw with: DejaVu, which Raspberry Pi OS ships
#: (fonts-dejavu-core). The board serves its own machine's copies at ``/fonts/NAME``, so a
#: browser on a machine without them draws the same glyphs (the CSS names them ``local()``
#: first). Every character the page itself writes is one these fonts have
#: (tests/hardware/test_board_fonts.py).
FONTS_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf")
#: Changes are sent at most this often per client: many rolls in a burst make one update.
FLUSH_S = 0.1
#: A comment line this often keeps proxies and the browser from closing a quiet stream.
HEARTBEAT_S = 15.0
#: Roll entries per page of ``/api/towers/T/rolls`` (read from the record a chunk at a time).
ROLLS_CHUNK = 500
#: Posts (``/events?feed=1``) that may wait for one slow client; beyond, the oldest are missed.
FEED_WAITING = 10_000


def create_app(towers: Towers, *, lifespan: Any = None, allow_origins: Sequence[str] = ()) -> Starlette:
    """The board's ASGI app over ``towers`` (fed elsewhere: the MQTT subscriber, a test);
    pages of ``allow_origins`` may read it from their own origin (CORS, GET only)."""

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "board.html")

    async def overlay(request: Request) -> Response:
        return FileResponse(STATIC / "overlay.html")

    async def api_towers(request: Request) -> Response:
        return JSONResponse(towers.summaries())

    def of_one_tower(view: Callable[[Ledger, Request], Awaitable[Response]]
                     ) -> Callable[[Request], Awaitable[Response]]:
        """An endpoint that answers with ``view(ledger, request)`` of the tower the path names (404 if none)."""
        async def endpoint(request: Request) -> Response:
            ledger = _one(towers, request)
            if isinstance(ledger, Response):
                return ledger
            return await view(ledger, request)
        return endpoint

    async def card(ledger: Ledger, request: Request) -> Response:
        return Response(towers.cards_json([ledger.key])[0], media_type="application/json")

    async def rolls(ledger: Ledger, request: Request) -> Response:
        after, limit = _whole(request, "after", 0), _whole(request, "limit", None)
        if after is None or after < 0 or (limit is not None and limit < 1):
            return JSONResponse({"error": "after and limit must be whole numbers (limit at least 1)"}, 400)
        return StreamingResponse(_rolls(towers, ledger.id, after, limit), media_type="application/json")

    async def evidence(ledger: Ledger, request: Request) -> Response:
        def read() -> dict[str, Any]:
            reader = Reader(towers.record.path)
            try:
                return {"tower": ledger.tower, "store": ledger.store, "findings": reader.findings(ledger.id),
                        "rejected": reader.evidence(ledger.id), "conflicting": reader.conflicting(ledger.id)}
            finally:
                reader.close()
        return JSONResponse(await anyio.to_thread.run_sync(read))

    async def log(ledger: Ledger, request: Request) -> Response:
        return StreamingResponse(_log(towers, ledger.id, ledger.head_seq), media_type="application/x-ndjson",
                                 headers={"Cache-Control": "no-store"})

    phone = _Phone()

    async def api_stats(request: Request) -> Response:
        return JSONResponse(towers.system_stats())

    async def api_board(request: Request) -> Response:
        return JSONResponse({**towers.board_state(), **towers.counters(), "webhooks": towers.webhooks()})

    async def events(request: Request) -> Response:
        only = request.query_params.get("tower")
        store = request.query_params.get("store")
        feed = request.query_params.get("feed") == "1"
        return StreamingResponse(_stream(towers, request, only, feed, store), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def font(request: Request) -> Response:
        name = request.path_params["name"]
        path = FONTS_DIR / name
        if name not in FONTS or not path.is_file():
            return Response("no such font here (the page falls back to the browser's own)", 404)
        return FileResponse(path, media_type="font/ttf", headers={"Cache-Control": "max-age=86400"})

    routes = [
        Route("/", page), Route("/overlay", overlay), Route("/fonts/{name}", font), Route("/api/towers", api_towers),
        Route("/api/towers/{tower}", of_one_tower(card)), Route("/api/towers/{tower}/rolls", of_one_tower(rolls)),
        Route("/api/towers/{tower}/evidence", of_one_tower(evidence)),
        Route("/api/towers/{tower}/log", of_one_tower(log)),
        Route("/phone/", phone.page), Route("/phone/verify.html", phone.page), Route("/phone/verify.js", phone.script),
        Route("/phone/engine.zip", phone.engine), Route("/phone/api/hashes", phone.hashes),
        Route("/phone/pyodide/{name}", phone.pyodide),
        Route("/api/stats", api_stats), Route("/api/board", api_board), Route("/events", events),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(CORSMiddleware, allow_origins=list(allow_origins), allow_methods=["GET"])] \
        if allow_origins else []
    return Starlette(routes=routes, lifespan=lifespan, middleware=middleware)


class _Phone:
    """The phone page's files (hardware/web), the same the towers serve, found at the first
    request: a board without Pyodide installed answers 503 with how to install it."""

    def __init__(self) -> None:
        self._assets: Any = None

    def _found(self) -> Any:
        from hardware.web import PageAssets

        if self._assets is None:
            self._assets = PageAssets.find()
        return self._assets

    async def _answer(self, read: Callable[[Any], bytes], kind: str, cache: str = "no-cache") -> Response:
        from hardware.web import PageError

        try:
            data = read(self._found())
        except PageError as exc:
            return Response(str(exc) + "\n", status_code=503, media_type="text/plain")
        except KeyError:
            return Response("not found\n", status_code=404, media_type="text/plain")
        return Response(data, media_type=kind, headers={"Cache-Control": cache, "X-Content-Type-Options": "nosniff"})

    async def page(self, request: Request) -> Response:
        return await self._answer(lambda a: a.page("verify.html"), "text/html; charset=utf-8")

    async def script(self, request: Request) -> Response:
        return await self._answer(lambda a: a.page("verify.js"), "text/javascript; charset=utf-8")

    async def engine(self, request: Request) -> Response:
        return await self._answer(lambda a: a.engine(), "application/zip")

    async def hashes(self, request: Request) -> Response:
        return await self._answer(lambda a: json.dumps(a.hashes()).encode(), "application/json")

    async def pyodide(self, request: Request) -> Response:
        from hardware.web.assets import PYODIDE_FILES

        name = request.path_params["name"]
        return await self._answer(lambda a: a.pyodide_file(name), PYODIDE_FILES.get(name, "text/plain"),
                                  "public, max-age=31536000, immutable")


async def _log(towers: Towers, tower_id: int, head: int) -> AsyncIterator[bytes]:
    """The tower's chain as JSON lines (canonical, as the tower wrote them), a chunk at a time."""
    reader = await anyio.to_thread.run_sync(Reader, towers.record.path)
    try:
        first = 1
        while first <= head:
            last = min(head, first + ROLLS_CHUNK - 1)
            chunk = await anyio.to_thread.run_sync(_entries, reader, tower_id, first, last)
            if not chunk:
                break
            yield "".join(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n" for e in chunk).encode()
            first = last + 1
    finally:
        reader.close()


def _entries(reader: Reader, tower_id: int, first: int, last: int) -> list[dict[str, Any]]:
    return list(reader.path_entries(tower_id, first, last))


def _whole(request: Request, name: str, default: int | None) -> int | None:
    """A whole-number query parameter (``default`` when absent, -1 when not a whole number)."""
    text = request.query_params.get(name)
    if text is None:
        return default
    return int(text) if text.isascii() and text.isdigit() and len(text) < 16 else -1


def _one(towers: Towers, request: Request) -> Ledger | Response:
    tower = request.path_params["tower"]
    store = request.query_params.get("store")
    found = towers.find(tower, store)
    if not found:
        return JSONResponse({"error": f"no tower {tower!r}" + (f" in store {store!r}" if store else "")}, 404)
    if len(found) > 1:
        stores = ", ".join(sorted(f.store for f in found))
        return JSONResponse({"error": f"tower {tower!r} is in several stores ({stores}); add ?store=S"}, 409)
    return found[0]


async def _rolls(towers: Towers, tower_id: int, after: int, limit: int | None) -> AsyncIterator[bytes]:
    """The tower's roll entries as one JSON array, read from the record a chunk at a time."""
    reader = await anyio.to_thread.run_sync(Reader, towers.record.path)
    try:
        yield b"["
        first, left = True, limit
        while left is None or left > 0:
            chunk = await anyio.to_thread.run_sync(reader.rolls, tower_id, after,
                                                   ROLLS_CHUNK if left is None else min(left, ROLLS_CHUNK))
            if not chunk:
                break
            text = ",".join(json.dumps(e, separators=(",", ":")) for e in chunk)
            yield (text if first else "," + text).encode()
            first = False
            after = chunk[-1]["seq"]
            left = None if left is None else left - len(chunk)
        yield b"]"
    finally:
        reader.close()


def _event(name: str, data: str) -> bytes:
    return f"event: {name}\ndata: {data}\n\n".encode()


async def _stream(towers: Towers, request: Request, only: str | None, feed: bool = False,
                  store: str | None = None) -> AsyncIterator[bytes]:
    """One client's event stream: the board's state and a snapshot, then what changed
    (coalesced); with ``feed``, also each verified roll and red verdict (``roll``, ``alert``:
    the webhooks' plain body), each once, in order. ``only`` (a tower id) and ``store`` keep
    the stream to that tower, that store, or both."""

    def wanted(key_store: str, key_tower: str) -> bool:
        return (only is None or key_tower == only) and (store is None or key_store == store)

    loop = asyncio.get_running_loop()
    dirty: set[str] = set()
    wake = asyncio.Event()
    stats_sent: dict[str, int] = {}  # a card's statistics are sent again only when they change
    posts: deque[Post] = deque()
    missed = [0]

    def mark(key: str) -> None:
        dirty.add(key)
        wake.set()

    def listener(key: str) -> None:  # called from the record's and the MQTT threads
        if key == "" or wanted(*key.split("/", 1)):
            loop.call_soon_threadsafe(mark, key)

    def queue_post(post: Post) -> None:
        if len(posts) >= FEED_WAITING:  # a client this far behind misses the oldest (said, counted)
            posts.popleft()
            missed[0] += 1
        posts.append(post)
        wake.set()

    def post_listener(post: Post) -> None:  # called from the record's thread
        if wanted(post.store, post.tower):
            loop.call_soon_threadsafe(queue_post, post)

    def board() -> bytes:
        return _event("board", json.dumps(towers.board_state()))

    def snapshot() -> bytes:
        stats_sent.clear()
        cards = towers.cards_json(stats_sent=stats_sent)
        if only is not None or store is not None:
            cards = [c for c in cards if wanted(json.loads(c)["store"], json.loads(c)["tower"])]
        return _event("snapshot", "[" + ",".join(cards) + "]")

    towers.add_listener(listener)
    if feed:
        towers.add_post_listener(post_listener)
    try:
        yield board()
        yield snapshot()
        while not towers.stopping.is_set() and not await request.is_disconnected():
            try:
                await asyncio.wait_for(wake.wait(), HEARTBEAT_S)
            except TimeoutError:
                yield b": still here\n\n"
                continue
            wake.clear()
            if towers.stopping.is_set():
                break
            keys = sorted(dirty)
            dirty.clear()
            if "" in keys:
                yield board()
            gone = [k for k in keys if k and not towers.find(k.split("/", 1)[1], k.split("/", 1)[0])]
            if gone:  # a tower id forgotten (never chained): the page starts again from a snapshot
                yield snapshot()
            else:
                for text in towers.cards_json([k for k in keys if k], stats_sent=stats_sent):
                    yield _event("tower", text)
            if missed[0]:
                yield _event("missed", json.dumps({"posts": missed[0]}))
                missed[0] = 0
            while posts:
                post = posts.popleft()
                yield _event(post.kind, post.body.decode("ascii"))
            await asyncio.sleep(FLUSH_S)
    finally:
        towers.remove_listener(listener)
        towers.remove_post_listener(post_listener)
