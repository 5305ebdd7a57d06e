"""Running the board: the listening socket, the MQTT subscriber and uvicorn, started and
stopped together (the subscriber lives as long as the web app, through its lifespan)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from hardware.board import BoardError
from hardware.board.subscriber import BoardSubscriber
from hardware.board.towers import Towers
from hardware.board.web import create_app
from hardware.network.broker import BrokerURL, Credentials

DEFAULT_LISTEN = "127.0.0.1:8080"


@dataclass(frozen=True)
class Listen:
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_listen(text: str) -> Listen:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6); the board binds only where it is told."""
    host, sep, port_text = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise BoardError(f"--listen: expected HOST:PORT such as 127.0.0.1:8080 (port 0..65535), got {text!r}")
    return Listen(host, int(port_text))


def bind(listen: Listen) -> socket.socket:
    """The listening socket, opened here so that a busy port is one clear line."""
    try:
        infos = socket.getaddrinfo(listen.host, listen.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise BoardError(f"--listen: cannot resolve {listen.host!r}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise BoardError(f"--listen: cannot listen on {listen}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def board_app(url: BrokerURL, *, store: str | None, credentials: Credentials | None = None,
              log: Callable[[str], None] | None = None) -> tuple[Any, Towers]:
    """The ASGI app with its subscriber, which starts and stops with the app's lifespan (it is
    made here, so a bad CA file is reported before anything listens)."""
    towers = Towers(store)
    subscriber = BoardSubscriber(url, towers, credentials=credentials, log=log)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        app.state.subscriber = subscriber.start()
        try:
            yield
        finally:
            subscriber.close()
            towers.close()

    return create_app(towers, lifespan=lifespan), towers


def serve(app: Any, sock: socket.socket) -> None:
    """uvicorn on an already bound socket, until SIGINT or SIGTERM."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
