"""The board's web side (Starlette): the live page, the OBS overlay, the JSON API and the
server-sent event stream the page and the overlay listen to.

Routes: ``/`` (one card per tower), ``/overlay?tower=T`` (transparent, latest roll large),
``/api/towers``, ``/api/towers/T`` (a card), ``/api/towers/T/rolls`` (roll entries, oldest
first), ``/api/stats`` (per system, all towers), ``/events[?tower=T]`` (SSE: a ``snapshot``
of the cards, then a ``tower`` event with the card of each tower that changed).
Everything a tower sends is shown with ``textContent`` by the page: nothing it says is HTML.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hardware.board.ledger import TowerLedger
from hardware.board.towers import Towers

STATIC = Path(__file__).resolve().parent / "static"
#: Changes are sent at most this often per client: many rolls in a burst make one update.
FLUSH_S = 0.1
#: A comment line this often keeps proxies and the browser from closing a quiet stream.
HEARTBEAT_S = 15.0


def create_app(towers: Towers, *, lifespan: Any = None) -> Starlette:
    """The board's ASGI app over ``towers`` (fed elsewhere: the MQTT subscriber, a test)."""

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "board.html")

    async def overlay(request: Request) -> Response:
        return FileResponse(STATIC / "overlay.html")

    async def api_towers(request: Request) -> Response:
        return JSONResponse(towers.summaries())

    def of_one_tower(view: Callable[[Any], Any]) -> Callable[[Request], Awaitable[Response]]:
        """An endpoint that answers with ``view(ledger)`` of the tower the path names (404 if none)."""
        async def endpoint(request: Request) -> Response:
            ledger = _one(towers, request)
            if isinstance(ledger, Response):
                return ledger
            with towers.lock:
                return JSONResponse(view(ledger))
        return endpoint

    api_tower = of_one_tower(lambda ledger: ledger.card())
    api_rolls = of_one_tower(lambda ledger: ledger.rolls_list())

    async def api_stats(request: Request) -> Response:
        return JSONResponse(towers.system_stats())

    async def events(request: Request) -> Response:
        only = request.query_params.get("tower")
        return StreamingResponse(_stream(towers, request, only), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    routes = [
        Route("/", page), Route("/overlay", overlay), Route("/api/towers", api_towers),
        Route("/api/towers/{tower}", api_tower), Route("/api/towers/{tower}/rolls", api_rolls),
        Route("/api/stats", api_stats), Route("/events", events),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def _one(towers: Towers, request: Request) -> TowerLedger | Response:
    tower = request.path_params["tower"]
    store = request.query_params.get("store")
    found = towers.find(tower, store)
    if not found:
        return JSONResponse({"error": f"no tower {tower!r}" + (f" in store {store!r}" if store else "")}, 404)
    if len(found) > 1:
        stores = ", ".join(sorted(f.store for f in found))
        return JSONResponse({"error": f"tower {tower!r} is in several stores ({stores}); add ?store=S"}, 409)
    return found[0]


def _event(name: str, data: Any) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


async def _stream(towers: Towers, request: Request, only: str | None) -> AsyncIterator[bytes]:
    """One client's event stream: a snapshot, then the cards that changed (coalesced)."""
    loop = asyncio.get_running_loop()
    dirty: set[str] = set()
    wake = asyncio.Event()

    def mark(key: str) -> None:
        dirty.add(key)
        wake.set()

    def listener(key: str) -> None:  # called from the MQTT and replay threads
        if only is None or key.split("/", 1)[1] == only:
            loop.call_soon_threadsafe(mark, key)

    towers.add_listener(listener)
    try:
        cards = towers.cards()
        if only is not None:
            cards = [c for c in cards if c["tower"] == only]
        yield _event("snapshot", cards)
        while not await request.is_disconnected():
            try:
                await asyncio.wait_for(wake.wait(), HEARTBEAT_S)
            except TimeoutError:
                yield b": still here\n\n"
                continue
            wake.clear()
            keys = sorted(dirty)
            dirty.clear()
            for card in towers.cards(keys):
                yield _event("tower", card)
            await asyncio.sleep(FLUSH_S)
    finally:
        towers.remove_listener(listener)
