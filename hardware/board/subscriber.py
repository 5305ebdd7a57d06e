"""The board's MQTT side: subscribe to the store's log and status topics, feed
:class:`~hardware.board.towers.Towers`, and ask stalled towers to resend what is missing."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

from hardware.board.towers import Towers
from hardware.network import topics
from hardware.network.broker import KEEPALIVE_S, BrokerURL, Credentials, make_client, release

#: How often the board looks for towers that lack entries.
CHECK_S = 0.25


class BoardSubscriber:
    """Connects (and reconnects) to ``url`` and keeps ``towers`` fed until :meth:`close`."""

    def __init__(self, url: BrokerURL, towers: Towers, *, credentials: Credentials | None = None,
                 log: Callable[[str], None] | None = None, ca_what: str = "--ca-file") -> None:
        self.url = url
        self.towers = towers
        self._log = log or (lambda message: None)
        self._client = make_client(url, f"dicetower-board-{uuid.uuid4().hex[:12]}", credentials or Credentials(),
                                   ca_what=ca_what)
        self._client.on_connect = self._on_connect
        self._client.on_connect_fail = lambda client, userdata: self._say(
            f"board: cannot reach {self.url} (broker down, wrong address, or a TLS certificate that --ca-file "
            "does not trust); retrying")
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._stop = threading.Event()
        self.connected = threading.Event()
        self.resends = 0
        self._said = ""
        self._thread = threading.Thread(target=self._check_gaps, name="board-gaps", daemon=True)

    def start(self) -> BoardSubscriber:
        self._client.connect_async(self.url.host, self.url.port, keepalive=KEEPALIVE_S)
        self._client.loop_start()
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        release(self._client)
        self._thread.join(2)

    def _say(self, message: str) -> None:
        if message != self._said:
            self._said = message
            self._log(message)

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self._say(f"board: {self.url} refused the connection: {reason}; retrying")
            return
        store = self.towers.store
        client.subscribe([(topics.subscription(store, "log"), 1), (topics.subscription(store, "status"), 1)])
        self.connected.set()
        self._say(f"board: connected to {self.url}, watching {'store ' + store if store else 'every store'}")

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        if was and not self._stop.is_set():
            self._say(f"board: lost {self.url} ({reason}); reconnecting")

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self.towers.handle(message.topic, message.payload)

    def _check_gaps(self) -> None:
        while not self._stop.wait(CHECK_S):
            if not self.connected.is_set():
                continue
            for store, tower, first, last in self.towers.resend_requests():
                body = topics.dumps({"from": first, "to": last})
                self._client.publish(topics.topic(store, tower, "resend"), body, qos=1)
                self.resends += 1
