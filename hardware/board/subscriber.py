"""The board's MQTT side: subscribe to the store's log and status topics, feed
:class:`~hardware.board.towers.Towers`, and ask stalled towers to resend what is missing.

The network loop is supervised: it runs in a thread of ours (paho's ``loop_forever``), and if
it ever stops (an exception in a callback, anything) it is started again on the same client,
the restart is counted and said, and the page shows it. ``on_message`` only hands the
message to :meth:`Towers.handle`, which queues it. The connection state goes to the towers'
:class:`~hardware.board.towers.Link`, from which the page says live / reconnecting / stale.
"""

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
#: How long the supervisor waits before starting a stopped loop again (doubling up to 5 s).
RESTART_S = 0.2
#: The board tries its broker again at most this long after the last try (from 0.2 s,
#: doubling): one connection attempt a second is nothing for a broker, and the page says live
#: within about a second of the broker coming back (a tower's publisher waits up to 5 s).
RECONNECT_MAX_S = 1


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
        self._client.on_connect_fail = self._on_connect_fail
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        # paho annotates whole seconds, but its back-off is plain arithmetic (hardware.network.broker)
        self._client.reconnect_delay_set(0.2, RECONNECT_MAX_S)  # type: ignore[arg-type]
        self._stop = threading.Event()
        self.connected = threading.Event()
        self.resends = 0
        self.restarts = 0
        self.failed_connects = 0  # connection attempts that failed or were refused
        self._said = ""
        self._loop = threading.Thread(target=self._supervise, name="board-mqtt", daemon=True)
        self._gaps = threading.Thread(target=self._check_gaps, name="board-gaps", daemon=True)

    def start(self) -> BoardSubscriber:
        self._client.connect_async(self.url.host, self.url.port, keepalive=KEEPALIVE_S)
        self._loop.start()
        self._gaps.start()
        return self

    def close(self) -> None:
        self._stop.set()
        self._client.disconnect()
        self._loop.join(5)
        self._gaps.join(2)
        release(self._client)

    def _say(self, message: str) -> None:
        if message != self._said:
            self._said = message
            self._log(message)

    # --- the supervised network loop -------------------------------------------------------------------

    def _supervise(self) -> None:
        delay = RESTART_S
        while not self._stop.is_set():
            try:
                self._client.loop_forever(retry_first_connection=True)
            except Exception as exc:
                why = f"{type(exc).__name__}: {exc}"
            else:
                why = "it returned"
            if self._stop.is_set():
                return
            self.restarts += 1
            self._say(f"board: the MQTT loop stopped ({why}); starting it again")
            self.towers.link_changed(connected=self._client.is_connected(), restarted=True, note=why)
            self._stop.wait(delay)
            delay = min(delay * 2, 5.0)

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:  # the page says what the journal says (paho's disconnect after it says less)
            self.failed_connects += 1
            note = f"{self.url} refused the connection: {reason}"
            self._say(f"board: {note}; retrying")
            self.towers.link_changed(connected=False, note=note)
            return
        store = self.towers.store
        client.subscribe([(topics.subscription(store, "log"), 1), (topics.subscription(store, "status"), 1)])
        self.connected.set()
        self.towers.link_changed(connected=True)
        self._say(f"board: connected to {self.url}, watching {'store ' + store if store else 'every store'}")

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        self.failed_connects += 1
        note = (f"cannot reach {self.url} (broker down, wrong address, or a TLS certificate that --ca-file does not "
                "trust)")
        self._say(f"board: {note}; retrying")
        self.towers.link_changed(connected=False, note=note)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        if not self._stop.is_set():
            if was:
                self.towers.link_changed(connected=False, note=f"lost {self.url} ({reason})")
                self._say(f"board: lost {self.url} ({reason}); reconnecting")
            else:  # the end of an attempt that failed: why it failed is said already, in better words
                self.towers.link_changed(connected=False, note=None)

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
