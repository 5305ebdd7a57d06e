"""Real parts for the network tests: a Mosquitto broker: started on a free localhost port with a
generated config, killed and restarted on demand, always stopped; the board served on a free port.

Also a small subscriber that collects what arrives, for checking what the towers publish.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

START_TIMEOUT_S = 15.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition: Callable[[], Any], timeout: float = 15.0, what: str = "condition") -> Any:
    """Poll ``condition`` until it is truthy (returned) or ``timeout`` seconds pass (fail)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


class Mosquitto:
    """One ``mosquitto`` process; ``extra`` lines go into its config after the listener."""

    def __init__(self, binary: str, workdir: Path, *, extra: str = "", port: int | None = None,
                 listener_extra: str = "") -> None:
        self.binary = binary
        self.workdir = workdir
        self.port = port or free_port()
        self.conf = workdir / "mosquitto.conf"
        # as root, mosquitto would switch to the `mosquitto` user, who cannot read pytest's
        # private temporary directory: stay the user that runs the tests
        self.conf.write_text(
            f"user {pwd.getpwuid(os.geteuid()).pw_name}\n"
            f"listener {self.port} 127.0.0.1\n{listener_extra}\n"
            f"persistence false\nlog_dest file {workdir / 'mosquitto.log'}\n"
            "log_type error\nlog_type warning\nlog_type notice\nlog_type subscribe\n"
            f"{extra or 'allow_anonymous true'}\n",
            encoding="utf-8",
        )
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        self.proc = subprocess.Popen([self.binary, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        wait_for(self._listening, START_TIMEOUT_S, f"mosquitto on port {self.port}")
        return self

    def _listening(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            err = self.proc.stderr.read().decode() if self.proc.stderr else ""
            log = (self.workdir / "mosquitto.log")
            raise AssertionError(f"mosquitto exited ({self.proc.returncode}): {err} "
                                 f"{log.read_text() if log.exists() else ''}")
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: no goodbye to anybody, whatever was in flight is lost with it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()


@contextlib.contextmanager
def running_broker(binary: str, workdir: Path, **kwargs: Any) -> Iterator[Mosquitto]:
    broker = Mosquitto(binary, workdir, **kwargs)
    try:
        yield broker.start()
    finally:
        broker.stop()


class Collector:
    """A subscriber (paho-mqtt, reconnecting) keeping every message that arrives, in order."""

    def __init__(self, port: int, topic: str = "dicetower/#", *, username: str | None = None,
                 password: str | None = None, tls: Any = None) -> None:
        from paho.mqtt.client import CallbackAPIVersion, Client

        self.topic = topic
        self.messages: list[tuple[str, Any, bool]] = []
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        self.client = Client(CallbackAPIVersion.VERSION2, client_id=f"collector-{id(self)}")
        if username:
            self.client.username_pw_set(username, password)
        if tls is not None:
            tls(self.client)
        self.client.reconnect_delay_set(0.1, 1)
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(topic, qos=1)
        self.client.on_subscribe = lambda c, u, mid, rcs, p: self.subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect_async("127.0.0.1", port)
        self.client.loop_start()
        wait_for(self.subscribed.is_set, what=f"subscription to {topic}")

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            body = json.loads(msg.payload)
        except ValueError:
            body = msg.payload
        with self.lock:
            self.messages.append((msg.topic, body, bool(msg.retain)))

    def entries(self, topic_kind: str = "log") -> list[dict[str, Any]]:
        with self.lock:
            return [b["entry"] for t, b, _ in self.messages if t.endswith("/" + topic_kind)]

    def seqs(self) -> list[int]:
        return [e["seq"] for e in self.entries()]

    def unique(self) -> dict[int, dict[str, Any]]:
        """seq -> entry, duplicates (same seq and hash) dropped; a conflicting duplicate fails."""
        out: dict[int, dict[str, Any]] = {}
        for e in self.entries():
            if e["seq"] in out and out[e["seq"]]["hash"] != e["hash"]:
                raise AssertionError(f"two different entries {e['seq']}")
            out[e["seq"]] = e
        return out

    def last(self, kind: str) -> Any:
        with self.lock:
            found = [b for t, b, _ in self.messages if t.endswith("/" + kind)]
        return found[-1] if found else None

    def publish(self, topic: str, body: dict[str, Any]) -> None:
        self.client.publish(topic, json.dumps(body), qos=1)

    def close(self) -> None:
        from hardware.network.broker import release

        release(self.client)


class RunningBoard:
    """The board (record, subscriber and web app) served by uvicorn in a thread on a free port.
    ``data`` is its record's directory (default: a new temporary one, removed at the end)."""

    def __init__(self, url: str, store: str | None = None, *, data: str | os.PathLike[str] | None = None,
                 connected: bool = True, **kwargs: Any) -> None:
        """``connected=False``: :meth:`start` does not wait for the broker to take the board
        (a broker that refuses it)."""
        import tempfile

        from hardware.board.serve import Listen, bind, board_app
        from hardware.network.broker import parse_url

        self._made = None if data is not None else tempfile.mkdtemp(prefix="board-record-")
        self.data = Path(data if data is not None else self._made)
        self.app, self.towers = board_app(parse_url(url), store=store, data=self.data, **kwargs)
        self.sock = bind(Listen("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server: Any = None
        self.thread: threading.Thread | None = None
        self.connected = connected

    def start(self) -> RunningBoard:
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on",
                                                    timeout_graceful_shutdown=2))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        wait_for(lambda: self.server.started, what="the board's web server")
        if self.connected:
            wait_for(lambda: self.subscriber.connected.is_set(), what="the board's subscription")
        return self

    @property
    def subscriber(self) -> Any:
        return self.app.state.subscriber

    def get(self, path: str) -> Any:
        import urllib.request

        with urllib.request.urlopen(self.base + path, timeout=10) as r:
            return json.loads(r.read())

    def card(self, tower: str) -> Any:
        """``/api/towers/TOWER``, or None while the board has not heard of the tower (404: its
        first message is still on its way)."""
        import urllib.error

        try:
            return self.get(f"/api/towers/{tower}")
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            raise

    def stop(self) -> None:
        self.towers.stop_streams()
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(10)
        if self.server is None or not self.server.started:
            self.towers.close()  # the lifespan never ran: close the record here
        self.sock.close()
        if self._made is not None:
            import shutil

            shutil.rmtree(self._made, ignore_errors=True)


@contextlib.contextmanager
def running_board(url: str, store: str | None = None, **kwargs: Any) -> Iterator[RunningBoard]:
    board = RunningBoard(url, store, **kwargs)
    try:
        yield board.start()
    finally:
        board.stop()


@contextlib.contextmanager
def sim_towers(url: str, store: str, where: Path) -> Iterator[Callable[..., Any]]:
    """``make(name, **kwargs)``: simulated towers of ``store`` on the broker at ``url``, each
    in its own directory under ``where``, closed when the block ends (a test's fixture)."""
    from bench.sim_towers import SimTower

    made: list[SimTower] = []

    def make(name: str, **kwargs: Any) -> SimTower:
        tower = SimTower(where / name, url, store, name, **kwargs)
        made.append(tower)
        return tower

    try:
        yield make
    finally:
        for tower in made:
            tower.close(timeout=1.0)


def all_verified(board: RunningBoard, tower: Any, store: str) -> bool:
    """The board holds every entry ``tower`` logged and has verified every roll of it (its
    sessions all revealed: the caller closed it)."""
    from tests.hardware.forgeries import read

    with contextlib.suppress(TimeoutError):
        board.towers.check_now(1)
    if not board.towers.find(tower.tower, store):
        return False
    card = board.get(f"/api/towers/{tower.tower}?store={store}")
    logged = read(tower.log_path)
    rolls = sum(1 for e in logged if e["kind"] == "roll")
    return (card["seq"] == len(logged) and card["checked"]["verified"] == rolls and card["verified"]
            and not card["missing"] and not card["replay_pending"])


def finish(tower: Any) -> None:
    """Reveal the tower's open session and wait until what it published is acknowledged."""
    from tests.hardware.forgeries import read

    tower.dice.close()
    tower.publisher.wake()
    wait_for(lambda: tower.publisher.cursor.seq == len(read(tower.log_path)), what=f"{tower.tower} published")
