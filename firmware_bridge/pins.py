"""A gpiozero pin factory whose pins are the Pico's GP pins, driven over the bridge.

Registered as the ``gpiozero_pin_factories`` entry point ``dicetower-bridge``, so
``GPIOZERO_PIN_FACTORY=dicetower-bridge`` runs any gpiozero program on the Pico; the port
comes from ``DICETOWER_BRIDGE_PORT`` (a path, a pyserial URL, or ``twin`` for the firmware
twin; unset: the first Pico by USB VID:PID). Inputs report debounced edges with the Pico's
time of the first edge; outputs and PWM set levels (never toggle). After the Pico rebooted
every pin's mode and level is sent again; after an event gap the levels come from the state.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

from gpiozero.pins import BoardInfo, Factory, HeaderInfo, PinInfo
from gpiozero.pins.pi import PiPin

from firmware_bridge.errors import BridgeError
from firmware_bridge.firmware import codec
from firmware_bridge.link import Hello, Link, State

PORT_ENV = "DICETOWER_BRIDGE_PORT"
#: GP pins a Pico brings out (GP23, GP24 and GP29 are wired on the Pico itself).
USABLE = (*range(0, 23), 25, 26, 27, 28)
#: Physical pin number of each GP pin on the Pico's 40-pin edge.
PHYSICAL = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16, 13: 17,
            14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34}


def pico_info() -> BoardInfo:
    """gpiozero's description of a Pico: pins named ``GPIOn`` (also ``n``, ``GPn``)."""
    pins = {}
    for gp in USABLE:
        number = PHYSICAL.get(gp, 100 + gp)  # GP25 (the LED) has no edge pin
        pins[number] = PinInfo(
            number=number, name=f"GPIO{gp}", names=frozenset({gp, str(gp), f"GPIO{gp}", f"GP{gp}", f"J1:{number}"}),
            pull="", row=(number + 1) // 2, col=2 - number % 2, interfaces=frozenset({"gpio", "pwm"}))
    header = HeaderInfo(name="J1", rows=20, columns=2, pins=pins)
    return BoardInfo(revision="pico", model="Raspberry Pi Pico (bridge)", pcb_revision="1", released="2021Q1",
                     soc="RP2040", manufacturer="Raspberry Pi", memory=0, storage="flash", usb=1, usb3=0,
                     ethernet=0, eth_speed=0, wifi=False, bluetooth=False, csi=0, dsi=0,
                     headers={"J1": header}, board="")


def open_link(port: str | None = None, *, log: Callable[[str], None] | None = None) -> tuple[Link, Any]:
    """A started link to ``port`` (``twin``: a fresh firmware twin) and the twin (or None)."""
    if port == "twin":
        from firmware_bridge.twin import Twin

        twin = Twin()
        twin.plug()
        return Link(find=twin.find, log=log).start(), twin
    return Link(port or None, log=log).start(), None


class BridgePin(PiPin):
    """One GP pin of the Pico; its mode and level are kept here and re-sent after a reboot."""

    def __init__(self, factory: BridgeFactory, info: PinInfo) -> None:
        super().__init__(factory, info)
        self._function = "input"
        self._pull = "floating"
        self._frequency: int | None = None
        self._value: float = 0.0
        self._level = 0
        self._bounce: float | None = None
        self._edges = "both"
        self._detect = False
        self._configured = False

    @property
    def gp(self) -> int:
        return int(self.info.name[4:])

    # -- what the Pico is told ------------------------------------------------------------
    def _send_mode(self) -> None:
        if self._function == "input":
            pull = {"up": codec.PULL_UP, "down": codec.PULL_DOWN}.get(self._pull, codec.PULL_NONE)
            debounce = 0 if self._bounce is None else max(0, min(255, round(self._bounce * 1000)))
            reply = self.factory.send(codec.PIN_MODE, bytes((self.gp, codec.MODE_INPUT, pull, debounce)))
            if len(reply) >= 2:
                self._level = reply[1]
        else:
            mode = codec.MODE_PWM if self._frequency else codec.MODE_OUTPUT
            self.factory.send(codec.PIN_MODE, bytes((self.gp, mode, 0, 0)))
            self._send_value()
        self._configured = True

    def _send_value(self) -> None:
        duty = round(max(0.0, min(1.0, self._value)) * 65535)
        self.factory.send(codec.PIN_SET, bytes((self.gp,)) + codec.put_u16(duty) + codec.put_u16(self._frequency or 0))

    def resend(self) -> None:
        if self._configured:
            self._send_mode()

    def close(self) -> None:
        self.when_changed = None
        if self._configured:
            self.factory.send(codec.PIN_MODE, bytes((self.gp, codec.MODE_OFF, 0, 0)))
            self._configured = False

    # -- gpiozero's pin interface --------------------------------------------------------------
    def _get_function(self) -> str:
        return self._function

    def _set_function(self, value: str) -> None:
        if value not in ("input", "output"):
            raise ValueError(f"GP{self.gp}: function must be input or output, got {value!r}")
        self._function = value
        if value == "input":
            self._frequency = None
        self._send_mode()

    def _get_state(self) -> float:
        return self._level if self._function == "input" else self._value

    def _set_state(self, value: float) -> None:
        if self._function == "input":
            raise ValueError(f"GP{self.gp} is an input: its state cannot be set")
        self._value = float(value) if self._frequency else float(bool(value))
        self._send_value()

    def _get_pull(self) -> str:
        return self._pull

    def _set_pull(self, value: str) -> None:
        if value not in ("up", "down", "floating"):
            raise ValueError(f"GP{self.gp}: pull must be up, down or floating, got {value!r}")
        self._pull = value
        if self._function == "input":
            self._send_mode()

    def _get_frequency(self) -> int | None:
        return self._frequency

    def _set_frequency(self, value: float | None) -> None:
        was_pwm = bool(self._frequency)
        self._frequency = None if value is None else max(8, min(65535, round(value)))
        if not self._frequency and was_pwm:
            self._value = 0.0
        if self._function == "output":
            if was_pwm != bool(self._frequency):
                self._send_mode()
            else:
                self._send_value()

    def _get_bounce(self) -> float | None:
        return self._bounce

    def _set_bounce(self, value: float | None) -> None:
        self._bounce = None if value is None or value <= 0 else float(value)
        if self._function == "input" and self._configured:
            self._send_mode()

    def _get_edges(self) -> str:
        return self._edges

    def _set_edges(self, value: str) -> None:
        if value not in ("both", "rising", "falling", "none"):
            raise ValueError(f"GP{self.gp}: edges must be both, rising, falling or none, got {value!r}")
        self._edges = value

    def _enable_event_detect(self) -> None:
        self._detect = True

    def _disable_event_detect(self) -> None:
        self._detect = False

    # -- what the Pico reports ------------------------------------------------------------------
    def edge(self, level: int, at: float) -> None:
        self._level = level
        wanted = self._edges == "both" or (self._edges == "rising") == bool(level)
        if self._detect and self._edges != "none" and wanted:
            self._call_when_changed(at, level)


class BridgeFactory(Factory):
    """gpiozero pins on the Pico at ``port`` (or on ``link``, shared with the display and the
    entropy source). Without either, ``DICETOWER_BRIDGE_PORT`` or the first Pico found."""

    def __init__(self, *, link: Link | None = None, port: str | None = None, timeout: float | None = 10.0,
                 log: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self._twin = None
        self._owns_link = link is None
        if link is None:
            link, self._twin = open_link(port or os.environ.get(PORT_ENV), log=log)
        self.link = link
        self.log = log or (lambda message: None)
        self.pins: dict[PinInfo, BridgePin] = {}
        self._info = pico_info()
        self._lock = threading.Lock()
        self._warned = False
        self._connecting = False
        link.on_edge(self._on_edge)
        link.on_state(self._on_state)
        link.on_connect(self._on_connect)
        link.on_restore(self._on_restore)
        if timeout is None:  # the caller waited (or carries on without the Pico): pins are sent when it is up
            return
        try:
            link.wait_up(timeout)
        except BridgeError:
            self.close()
            raise

    def send(self, kind: int, payload: bytes) -> bytes:
        """A request for a pin; while the Pico is away the pin keeps its state for the resend."""
        if not self._connecting and self.link.state not in (State.UP, State.DEGRADED):
            return b""  # not up (yet): kept, and sent with every pin after the handshake
        try:
            reply = self.link.request(kind, payload)
        except BridgeError as exc:
            if not self._warned:
                self.log(f"bridge pins: {exc}; levels are sent again when the Pico is back")
                self._warned = True
            return b""
        self._warned = False
        return reply

    def pin(self, name: Any) -> BridgePin:
        for _header, info in self._info.find_pin(name):
            with self._lock:
                pin = self.pins.get(info)
                if pin is None:
                    pin = self.pins[info] = BridgePin(self, info)
            return pin
        from gpiozero.exc import PinInvalidPin

        raise PinInvalidPin(f"{name!r} is not a pin the Pico brings out (GP0..GP22, GP25..GP28)")

    def _by_gp(self, gp: int) -> BridgePin | None:
        for info, pin in list(self.pins.items()):
            if info.name == f"GPIO{gp}":
                return pin
        return None

    def _on_edge(self, gp: int, level: int, at: float) -> None:
        pin = self._by_gp(gp)
        if pin is not None:
            pin.edge(level, at)

    def _on_state(self, state: dict[int, tuple[int, int]]) -> None:
        now = time.monotonic()
        for gp, (mode, value) in state.items():
            pin = self._by_gp(gp)
            if pin is not None and mode == codec.MODE_INPUT and value != pin._level:
                pin.edge(value, now)  # a change whose edge was lost

    def _on_connect(self, hello: Hello, new_boot: bool) -> None:
        if new_boot:
            self._connecting = True  # the handshake is done: these sends go out before the link says UP
            try:
                for pin in list(self.pins.values()):
                    pin.resend()
            finally:
                self._connecting = False

    def _on_restore(self) -> None:
        # the Pico's safe state turned every output off: the levels the host keeps go back
        for pin in list(self.pins.values()):
            if pin._configured and pin._function == "output":
                pin._send_value()

    def ticks(self) -> float:
        return time.monotonic()

    def ticks_diff(self, later: float, earlier: float) -> float:
        return later - earlier

    def _get_board_info(self) -> BoardInfo:
        return self._info

    def close(self) -> None:
        for pin in list(self.pins.values()):
            pin.close()
        self.pins.clear()
        if self._owns_link:
            self.link.close()
        if self._twin is not None:
            self._twin.close()
            self._twin = None

    @property
    def twin(self) -> Any:
        """The firmware twin this factory started (``DICETOWER_BRIDGE_PORT=twin``), or None."""
        return self._twin
