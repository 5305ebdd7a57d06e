"""Running the board: the record, the listening socket, the MQTT subscriber and uvicorn,
started and stopped together (the subscriber, the record's writer and the verifier process live
as long as the web app, through its lifespan). SIGINT and SIGTERM stop uvicorn, which ends the
lifespan: the subscriber, the writer and the verifier's child process all stop with it."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.board import BoardError
from hardware.board.subscriber import BoardSubscriber
from hardware.board.towers import Towers
from hardware.board.web import create_app
from hardware.network.broker import BrokerURL, Credentials

DEFAULT_LISTEN = "127.0.0.1:8080"
#: How long open event streams may take to end when the board stops.
GRACEFUL_S = 2


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
        raise BoardError("--listen", f"expected HOST:PORT such as 127.0.0.1:8080 (port 0..65535), got {text!r}")
    return Listen(host, int(port_text))


def default_data_dir() -> Path:
    """The board's record when ``--data`` is not given: ``board/`` in the default state
    directory, the same place a tower keeps its state ($DICETOWER_STATE_DIR, $STATE_DIRECTORY
    under systemd, else the XDG state directory)."""
    from hardware.files.state import default_state_dir

    return default_state_dir() / "board"


def data_dir(text: str | None, what: str = "--data") -> Path:
    """``--data DIR`` (or ``[board] data``: ``what`` names it) read as every path a person
    types is (:func:`hardware.files.paths.user_path`: ``~`` and ``~user`` expanded, NUL, an
    over-long path and a missing user refused, one line), or the default."""
    from hardware.files.paths import PathError, user_path

    if text is None:
        return default_data_dir()
    if not text.strip():
        raise BoardError(what, f"expected a directory, got {text!r}")
    try:
        return user_path(text, what)
    except PathError as exc:
        raise BoardError(exc.what, exc.detail) from None


def parse_origin(text: str, what: str = "--allow-origin") -> str:
    """An origin a page may read the board from: ``https://HOST[:PORT]`` (or http://), or ``*``."""
    from urllib.parse import urlsplit

    if text == "*":
        return text
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (a bad port raises here)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or parts.path \
            or parts.query or parts.fragment or parts.username or text != text.strip().rstrip("/"):
        raise BoardError(what, f"expected an origin such as https://vtt.example.com (scheme, host, port; no "
                         f"path) or *, got {text!r}")
    return text


def bind(listen: Listen) -> socket.socket:
    """The listening socket, opened here so that a busy port is one clear line."""
    try:
        infos = socket.getaddrinfo(listen.host, listen.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise BoardError("--listen", f"cannot resolve {listen.host!r}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise BoardError("--listen", f"cannot listen on {listen}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def board_app(url: BrokerURL, *, store: str | None, data: str | os.PathLike[str],
              credentials: Credentials | None = None, log: Callable[[str], None] | None = None,
              allow_origins: Sequence[str] = (), **towers_options: Any) -> tuple[Any, Towers]:
    """The ASGI app with its record and subscriber, which start and stop with the app's
    lifespan (they are made here, so a record in use or a bad CA file is reported before
    anything listens)."""
    towers = Towers(data, store, log=log, **towers_options)
    try:
        subscriber = BoardSubscriber(url, towers, credentials=credentials, log=log)
    except BaseException:
        towers.close()
        raise

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        towers.start()
        app.state.subscriber = subscriber.start()
        try:
            yield
        finally:
            subscriber.close()
            towers.close()

    return create_app(towers, lifespan=lifespan, allow_origins=allow_origins), towers


def serve(app: Any, sock: socket.socket, towers: Towers | None = None) -> None:
    """uvicorn on an already bound socket, until SIGINT or SIGTERM (either one stops the board
    the same way: uvicorn shuts down, the lifespan stops the subscriber, the record's writer and
    the verifier's process). uvicorn raises the signal again once it has shut down; by then the
    board has stopped cleanly, so that second delivery is let go."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False,
                            timeout_graceful_shutdown=GRACEFUL_S)
    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            if towers is not None:
                towers.stop_streams()  # the pages' event streams end now, not at a timeout
            super().handle_exit(sig, frame)

    stops = (signal.SIGINT, signal.SIGTERM)
    before = {sig: signal.signal(sig, _stopped) for sig in stops}
    try:
        Server(config).run(sockets=[sock])
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _stopped(sig: int, frame: Any) -> None:
    """The signal uvicorn raises again after its shutdown: nothing left to do."""
