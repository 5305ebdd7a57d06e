"""The host side of the bridge protocol over pyserial (docs/bridge.md, sections 2 to 4).

One reader thread decodes frames and dispatches them; one keeper thread finds and opens the
port, shakes hands (HELLO with backoff, never waiting for a banner), keeps the link alive,
asks for the whole state after an event gap and reconnects after an unplug. Callers use
:meth:`Link.request` from any thread (one request outstanding at a time, retried with the
same sequence number) and subscribe to edges, entropy chunks and (re)connections.

Nothing the Pico sends can stop the link: every payload is length-checked before use (a
short reply is a :class:`BadReply`, a short event is counted and dropped), and both threads
are supervised: an unexpected exception is logged once, the link goes DEGRADED and shakes
hands again.
"""

from __future__ import annotations

import collections
import contextlib
import enum
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.errors import escape_controls
from firmware_bridge.errors import BadReply, BridgeError, BridgeTimeout, PicoRefused, SafeMode, VersionMismatch
from firmware_bridge.firmware import codec

PICO_VID_PID = (0x2E8A, 0x0005)  # MicroPython on a Raspberry Pi Pico
BAUDRATE = 115200
TOUCH_BAUD = 1200  # opening a Pico's port at this rate reboots it into its bootloader
HEARTBEAT_LOST_S = 1.0
KEEPALIVE_S = 0.8
FIND_EVERY_S = 0.5
HELLO_BACKOFF = (0.05, 1.0)
RETRY = (0.05, 0.2)
MIN_RTO = 0.004
ALIVE_S = 0.6  # a Pico heard from this recently is alive (its heartbeat comes every 0.25 s)
ALIVE_RTO = 0.01  # the retry time for a live Pico before any round trip was measured
CTRL_C = 0x03
INFO_PART = 16  # INFO is asked for in parts this long: each gets through a noisy line on its own
REHANDSHAKE_S = 0.1  # after an internal error: DEGRADED this long, then a fresh handshake
SAFE_MODE_PREFIX = "dicetower bridge safe mode: "  # how the firmware's ERROR 7 text starts
SAFE_MODE_RETRY_S = 1.0  # a Pico in safe mode is asked again this often (it may have been updated)

NAMES = {
    codec.HELLO: "HELLO", codec.PING: "PING", codec.PIN_MODE: "PIN_MODE", codec.PIN_SET: "PIN_SET",
    codec.DISPLAY_INIT: "DISPLAY_INIT", codec.DISPLAY_PAGES: "DISPLAY_PAGES", codec.DISPLAY_TEXT: "DISPLAY_TEXT",
    codec.DISPLAY_SHOW: "DISPLAY_SHOW", codec.GET_STATE: "GET_STATE", codec.ENTROPY_CREDIT: "ENTROPY_CREDIT",
    codec.EXIT_TO_REPL: "EXIT_TO_REPL", codec.RESET: "RESET", codec.INFO: "INFO",
}
#: The shortest payload a good reply to each request has (docs/bridge.md, section 2).
MIN_REPLY = {codec.HELLO: 13, codec.PIN_MODE: 2, codec.GET_STATE: 9, codec.ENTROPY_CREDIT: 2, codec.INFO: 1}
#: The shortest payload of each event: its fields up to the last one the host reads.
MIN_EVENT = {codec.EV_EDGE: 10, codec.EV_HEARTBEAT: 17, codec.EV_ENTROPY: 4}


class State(enum.Enum):
    DISCONNECTED = "disconnected"
    HANDSHAKE = "handshake"
    UP = "up"
    DEGRADED = "degraded"


@dataclass(frozen=True)
class Hello:
    """What the Pico said about itself in its HELLO reply."""

    major: int
    minor: int
    boot_id: int
    caps: int
    max_payload: int
    uid: bytes
    firmware: str

    @property
    def entropy(self) -> bool:
        """Whether the Pico offers ring-oscillator bits (an RP2040 whose ROSC runs)."""
        return bool(self.caps & codec.CAP_ENTROPY)


@dataclass(frozen=True)
class Heartbeat:
    """The Pico's last heartbeat (docs/bridge.md, section 2)."""

    ev: int
    boot_id: int
    uptime_ms: int
    bad_frames: int
    tx_dropped: int
    flags: int
    safe_count: int | None  # None from a 1.0 Pico

    @property
    def watchdog_reset(self) -> bool:
        return bool(self.flags & codec.FLAG_WDT_RESET)

    @property
    def safe(self) -> bool:
        return bool(self.flags & codec.FLAG_SAFE)


@dataclass
class Stats:
    """Counters for the self-test and the bench."""

    frames_rx: int = 0
    frames_tx: int = 0
    dropped_bad: int = 0
    retransmits: int = 0
    duplicates: int = 0
    event_gaps: int = 0
    state_requests: int = 0
    entropy_discarded: int = 0
    reconnects: int = 0
    edges_recovered: int = 0
    restores: int = 0
    internal_errors: int = 0
    rtts: list[float] = field(default_factory=list)


def find_pico(vid_pid: tuple[int, int] = PICO_VID_PID, serial_number: str | None = None) -> str | None:
    """The device path of the first USB serial port with this VID:PID (and serial number)."""
    from serial.tools import list_ports

    for info in sorted(list_ports.comports(), key=lambda p: p.device):
        if (info.vid, info.pid) == vid_pid and (serial_number is None or info.serial_number == serial_number):
            return str(info.device)  # pyserial ships no types: its ListPortInfo is Any to mypy
    return None


class _Pending:
    def __init__(self, seq: int, kind: int, payload: bytes) -> None:
        self.seq = seq
        self.request = kind
        self.sent = payload
        self.done = threading.Event()
        self.kind = 0
        self.payload = b""
        self.edges: dict[int, int] = {}  # the host's edge counts when a GET_STATE reply came


class Link:
    """A connection to one Pico. ``find()`` returns the port (a path or pyserial URL) to open,
    or None while there is none; by default the first Pico by USB VID:PID (and serial number).
    """

    def __init__(self, port: str | None = None, *, find: Callable[[], str | None] | None = None,
                 serial_number: str | None = None, baudrate: int = BAUDRATE, timeout: float = 1.0,
                 log: Callable[[str], None] | None = None) -> None:
        if baudrate == TOUCH_BAUD:
            raise BridgeError("1200 baud reboots a Pico into its bootloader; use 115200 (the rate is ignored by USB)")
        if find is None:
            find = (lambda: port) if port is not None else (lambda: find_pico(serial_number=serial_number))
        self.find: Callable[[], str | None] = find
        self.baudrate = baudrate
        self.timeout = timeout
        self.log = log or (lambda message: None)
        self.stats = Stats()
        self.state = State.DISCONNECTED
        self.hello: Hello | None = None
        self.refused: BridgeError | None = None  # a VersionMismatch, or SafeMode while the Pico is in it
        self.heartbeat: Heartbeat | None = None  # the last one received
        self.last_error: str | None = None  # the keeper's last failure (for wait_up's message)
        self.port_name: str | None = None
        self._serial: Any = None
        self._decoder = codec.Decoder()
        self._write_lock = threading.Lock()
        self._request_lock = threading.Lock()
        self._changed = threading.Condition()
        self._pending: _Pending | None = None
        self._seq = 0
        self._srtt: float | None = None  # smoothed round trip of requests answered at once
        self._closing = threading.Event()
        self._last_heartbeat = 0.0
        self._last_tx = 0.0
        self._ev = 0  # the last event number received (per boot)
        self._gap = False  # an event was lost; GET_STATE is due
        self._behind = 0  # events or heartbeats numbered at or below the number held since GET_STATE
        self._boot_id: int | None = None
        self._ticks: int | None = None  # the last edge's Pico time, unwrapped (µs)
        self._offset_us: float | None = None  # host monotonic µs minus Pico µs (smallest seen)
        self._edge_listeners: list[Callable[[int, int, float], None]] = []
        self._entropy_listeners: list[Callable[[bytes, bool], None]] = []
        self._connect_listeners: list[Callable[[Hello, bool], None]] = []
        self._state_listeners: list[Callable[[dict[int, tuple[int, int]]], None]] = []
        self._restore_listeners: list[Callable[[], None]] = []
        self._threads: list[threading.Thread] = []
        # when the Pico was last heard: a reply or an event, or a damaged frame (a noisy line's);
        # our own requests coming back (an echoing peer, a loopback) are not a Pico
        self._rx_at = 0.0
        self._silenced = False  # after EXIT_TO_REPL: nothing more is written
        self._edges_rx: dict[int, int] = {}  # per input pin: edges received since its PIN_MODE
        self._levels: dict[int, int] = {}  # per input pin: the level the host last reported
        self._edge_lock = threading.Lock()  # guards the edge counts and levels (never held in a callback)
        self._recovered: collections.deque[tuple[int, int, float]] = collections.deque()  # for the reader
        self._safe_count = 0  # the Pico's safe-state count at the last heartbeat (per boot)
        self._restore_due = False
        self._logged: set[str] = set()
        self._rehandshake = False
        self._last_reply: _Pending = _Pending(0, 0, b"")

    # -- life cycle ----------------------------------------------------------------------------
    def start(self) -> Link:
        if not self._threads:
            for name, target in (("bridge-reader", self._read_loop), ("bridge-keeper", self._keep_loop)):
                thread = threading.Thread(target=target, name=name, daemon=True)
                thread.start()
                self._threads.append(thread)
        return self

    def close(self) -> None:
        self._closing.set()
        with self._changed:
            self._changed.notify_all()
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads.clear()
        self._drop_port("closed")

    def __enter__(self) -> Link:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_up(self, timeout: float = 5.0) -> Hello:
        """Block until the handshake is done; ``BridgeTimeout`` (or the refusal) if it is not."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.state not in (State.UP, State.DEGRADED) or self.hello is None:
                if self.refused is not None:
                    raise self.refused
                left = deadline - time.monotonic()
                if left <= 0:
                    where = self.port_name or "no port found (is the Pico plugged in?)"
                    last = f"; last: {self.last_error}" if self.last_error else ""
                    raise BridgeTimeout(f"bridge at {where}: no handshake within {timeout:g} s "
                                        f"(state {self.state.value}{last})")
                self._changed.wait(left)
            return self.hello

    # -- subscriptions -------------------------------------------------------------------------
    def on_edge(self, fn: Callable[[int, int, float], None]) -> None:
        """``fn(pin, level, host_time_s)``: the host monotonic time of the Pico's first edge."""
        self._edge_listeners.append(fn)

    def on_entropy(self, fn: Callable[[bytes, bool], None]) -> None:
        """``fn(raw, contiguous)``: ``contiguous`` is False for a chunk after an event gap."""
        self._entropy_listeners.append(fn)

    def on_connect(self, fn: Callable[[Hello, bool], None]) -> None:
        """``fn(hello, new_boot)`` after every handshake (keeper thread): re-send configuration."""
        self._connect_listeners.append(fn)

    def on_state(self, fn: Callable[[dict[int, tuple[int, int]]], None]) -> None:
        """``fn({pin: (mode, value)})`` after a GET_STATE (after an event gap)."""
        self._state_listeners.append(fn)

    def on_restore(self, fn: Callable[[], None]) -> None:
        """``fn()`` (keeper thread) after the Pico went through its safe state, which turned
        every output off and does not turn them on again: send the output levels again."""
        self._restore_listeners.append(fn)

    # -- requests ------------------------------------------------------------------------------
    def request(self, kind: int, payload: bytes = b"", *, timeout: float | None = None,
                retry: tuple[float, float] = RETRY) -> bytes:
        """Send one request and return its reply's payload (retried with the same seq).

        The retry time starts at a few smoothed round trips (at most ``retry[0]``) and doubles up
        to ``retry[1]`` only while the Pico sends nothing at all: a Pico whose heartbeats (even
        corrupted ones) arrived within :data:`ALIVE_S` is alive, and a lost frame is sent again
        without backing off."""
        with self._request_lock:
            return self._request(kind, payload, timeout=timeout, retry=retry)

    def _request(self, kind: int, payload: bytes, *, timeout: float | None, retry: tuple[float, float]) -> bytes:
        timeout = self.timeout if timeout is None else timeout
        name = NAMES.get(kind, hex(kind))
        self._seq = self._seq % 0xFFFF + 1
        pending = _Pending(self._seq, kind, payload)
        wire = codec.encode(kind, pending.seq, payload)
        self._pending = pending
        start = time.monotonic()
        deadline = start + timeout
        first, rto_max = retry
        # as TCP: a few smoothed round trips, so a lost frame costs milliseconds on a fast link;
        # a slow request sent again is answered from the Pico's cache
        quick = min(first, max(MIN_RTO, 4 * self._srtt) if self._srtt is not None else ALIVE_RTO)
        rto = quick if retry is RETRY else first
        sends = 0
        try:
            while True:
                self._write(wire)
                sends += 1
                if sends > 1:
                    self.stats.retransmits += 1
                if pending.done.wait(max(0.0, min(rto, deadline - time.monotonic()))):
                    break
                if self._serial is None:
                    raise BridgeError(f"bridge at {self.port_name}: port closed during {name} (unplugged?)")
                if time.monotonic() >= deadline:
                    raise BridgeTimeout(f"bridge at {self.port_name}: no reply to {name} within {timeout:g} s "
                                        f"(sent {sends} times); is the Pico running the dicetower firmware?")
                # silence: back off; a Pico that is there lost the frame: again, at once
                rto = min(rto * 2, rto_max) if time.monotonic() - self._rx_at > ALIVE_S else quick
        finally:
            self._pending = None
        rtt = time.monotonic() - start
        self.stats.rtts.append(rtt)
        if sends == 1:
            self._srtt = rtt if self._srtt is None else 0.875 * self._srtt + 0.125 * rtt
        if pending.kind == codec.ERROR:
            code = pending.payload[0] if pending.payload else 0
            # the Pico's words go into the journal: control bytes are shown escaped, never passed on
            text = escape_controls(bytes(pending.payload[1:]).decode("utf-8", "replace"))
            if code in (codec.E_NO_SESSION, codec.E_SAFE_MODE):
                self._set_state(State.HANDSHAKE)  # the Pico rebooted: shake hands again
            raise PicoRefused(code, f"bridge at {self.port_name}: {name} refused: {text}", text)
        if pending.kind != kind | codec.REPLY:
            raise BadReply(f"bridge at {self.port_name}: {name} answered with type 0x{pending.kind:02x}, "
                           f"0x{kind | codec.REPLY:02x} expected")
        need = MIN_REPLY.get(kind, 0)
        if len(pending.payload) < need:
            raise BadReply(f"bridge at {self.port_name}: {name} reply of {len(pending.payload)} bytes, "
                           f"at least {need} expected")
        self._last_reply = pending
        return pending.payload

    def get_state(self) -> dict[int, tuple[int, int]]:
        """Every configured pin's (mode, value) now, and the event count resynchronised. With a
        1.1 Pico, edges lost on the way (a press and its release both lost leave the level as it
        was) are recovered from the Pico's per-pin edge counts and reported as edges now."""
        self.stats.state_requests += 1
        with self._request_lock:
            reply = self._request(codec.GET_STATE, b"", timeout=None, retry=RETRY)
            seen = self._last_reply.edges
        count = reply[8]
        if len(reply) < 9 + 4 * count:
            raise BadReply(f"bridge at {self.port_name}: GET_STATE reply of {len(reply)} bytes for {count} pins, "
                           f"{9 + 4 * count} expected")
        ev = codec.get_u32(reply, 0)
        pins = {reply[9 + 4 * i]: (reply[10 + 4 * i], codec.get_u16(reply, 11 + 4 * i)) for i in range(count)}
        if len(reply) >= 9 + 6 * count:  # 1.1: the edge counts follow the records
            at = 9 + 4 * count
            counts = {reply[9 + 4 * i]: codec.get_u16(reply, at + 2 * i) for i in range(count)}
            self._recover_edges(pins, counts, seen)
        if ev >= self._ev or self._behind:
            # the Pico's count; lower than ours only once the Pico has shown that ours is
            # false (its events or heartbeat behind it): a reply built before an event it
            # overtook on the line must not undo that event's number
            self._ev = ev
        self._behind = 0
        self._gap = False
        for fn in self._state_listeners:
            self._call(fn, pins)
        return pins

    def _recover_edges(self, pins: dict[int, tuple[int, int]], counts: dict[int, int], seen: dict[int, int]) -> None:
        now = time.monotonic()
        for pin, pico_count in counts.items():
            mode, level = pins[pin]
            if mode != codec.MODE_INPUT or pin not in seen:
                continue
            lost = (pico_count - seen[pin]) & 0xFFFF
            with self._edge_lock:
                if not lost or self._edges_rx.get(pin) != seen[pin]:
                    continue  # nothing lost, or newer edges came since the reply: they carry on
                last = self._levels.get(pin, level)
                steps = [(last + k + 1) & 1 for k in range(lost)]
                if steps[-1] != level:
                    steps.append(level)  # counts and level disagree: end on the level the Pico has
                self._edges_rx[pin] = (seen[pin] + lost) & 0xFFFF
                self._levels[pin] = level
                self.stats.edges_recovered += len(steps)
                # the reader thread delivers them, as every edge: a subscriber that sends a request
                # from its callback never waits on a thread that waits on it
                self._recovered.extend((pin, value, now) for value in steps)

    def exit_to_repl(self, timeout: float = 5.0) -> bool | None:
        """EXIT_TO_REPL, then silence: nothing more is written (no ping, no HELLO whose bytes
        the REPL would take for Ctrl-A or Ctrl-D) and the link is closed. Whether the Pico
        disarms its watchdog (its reply's byte: a chip whose register it knows), None for a
        Pico that does not say (firmware before build 2)."""
        with self._request_lock:
            try:
                reply = self._request(codec.EXIT_TO_REPL, b"", timeout=timeout, retry=RETRY)
            finally:
                with self._write_lock:
                    self._silenced = True
        self.close()
        return bool(reply[0]) if reply else None

    # -- wire ----------------------------------------------------------------------------------
    def _write(self, data: bytes) -> None:
        with self._write_lock:
            if self._silenced:
                raise BridgeError(f"bridge at {self.port_name}: the Pico has left for its REPL; nothing more is sent")
            ser = self._serial
            if ser is None:
                raise BridgeError(f"bridge: not connected ({self.state.value}); is the Pico plugged in?")
            try:
                ser.write(data)
            except Exception as exc:  # pyserial's SerialException, OSError, a closed port
                self._drop_port(f"write failed: {exc}")
                raise BridgeError(f"bridge at {self.port_name}: write failed: {exc}") from None
            self.stats.frames_tx += 1
            self._last_tx = time.monotonic()

    def _open(self, name: str) -> bool:
        import serial

        try:
            ser = serial.serial_for_url(name, do_not_open=True, exclusive=True)
            ser.baudrate = self.baudrate
            ser.timeout = 0.05
            ser.write_timeout = 1.0
            # set before open(), so the lines are set once: DTR on (MicroPython's CDC sends
            # only while DTR is asserted; a native-USB Pico does not reset on it), RTS off
            ser.dtr = True
            ser.rts = False
            ser.open()
            ser.reset_input_buffer()  # stale bytes in the port at open
        except (serial.SerialException, OSError, ValueError) as exc:
            if self.port_name != name:
                self.log(f"bridge: cannot open {name}: {exc}")
            self.port_name = name
            self.last_error = f"cannot open {name}: {exc}"
            return False
        self.port_name = name
        self._decoder.reset()
        self._serial = ser
        with self._changed:
            self._changed.notify_all()
        return True

    def _drop_port(self, why: str) -> None:
        if isinstance(self.refused, SafeMode):
            self.refused = None  # whatever comes on the next port says for itself
        ser, self._serial = self._serial, None
        if ser is not None:
            with contextlib.suppress(Exception):  # the port may be gone already
                ser.close()
            self.log(f"bridge: {self.port_name}: {why}")
        self._set_state(State.DISCONNECTED)

    def _set_state(self, state: State) -> None:
        with self._changed:
            if self.state is not state:
                self.state = state
                self._changed.notify_all()

    # -- reader thread -------------------------------------------------------------------------
    def _read_loop(self) -> None:
        while not self._closing.is_set():
            while self._recovered:
                pin, level, at = self._recovered.popleft()
                for fn in self._edge_listeners:
                    self._call(fn, pin, level, at)
            ser = self._serial
            if ser is None:
                with self._changed:
                    self._changed.wait(0.05)
                continue
            try:
                data = ser.read(max(1, ser.in_waiting))
            except Exception as exc:  # unplugged: SerialException, OSError (EIO), TypeError on close
                if ser is self._serial:
                    self._drop_port(f"read failed: {exc}")
                continue
            if data:
                bad = self._decoder.bad
                for frame in self._decoder.feed(data):
                    try:
                        self._dispatch(*frame)
                    except Exception as exc:  # a bug must not stop the reader: logged once
                        self._internal_error("reader", exc)
                if self._decoder.bad != bad:
                    self._rx_at = time.monotonic()  # damaged frames: something is there, on a noisy line
                self.stats.dropped_bad += self._decoder.bad - bad

    def _dispatch(self, version: int, kind: int, seq: int, payload: bytes) -> None:
        if version != codec.VERSION_MAJOR and kind not in (codec.HELLO | codec.REPLY, codec.ERROR):
            self.stats.dropped_bad += 1
            return
        self.stats.frames_rx += 1
        if kind in (codec.EV_EDGE, codec.EV_HEARTBEAT, codec.EV_ENTROPY):
            self._rx_at = time.monotonic()
            self._event(kind, payload)
            return
        if not kind & codec.REPLY:
            self.stats.dropped_bad += 1  # a request, not a reply: our own echo on a loopback line
            return
        self._rx_at = time.monotonic()
        pending = self._pending
        if pending is None or pending.seq != seq or pending.done.is_set():
            self.stats.duplicates += 1  # a late reply to a retried request
            return
        pending.kind = kind
        pending.payload = payload
        if kind == codec.PIN_MODE | codec.REPLY and len(payload) >= 2 and len(pending.sent) >= 2:
            # here, in order with the edges: the Pico's count for this pin starts again at 0
            with self._edge_lock:
                if pending.sent[1] == codec.MODE_INPUT:
                    self._edges_rx[payload[0]] = 0
                    self._levels[payload[0]] = payload[1]
                else:
                    self._edges_rx.pop(payload[0], None)
                    self._levels.pop(payload[0], None)
        elif kind == codec.GET_STATE | codec.REPLY:
            with self._edge_lock:
                pending.edges = dict(self._edges_rx)
        pending.done.set()

    def _event(self, kind: int, payload: bytes) -> None:
        if len(payload) < MIN_EVENT[kind]:
            self.stats.dropped_bad += 1  # well framed but too short: not used at all
            return
        ev = codec.get_u32(payload, 0)
        if kind == codec.EV_HEARTBEAT:
            self._heartbeat(ev, payload)
            return
        if ev <= self._ev:
            # Not last+1: a repeat, or our number is wrong (a frame with a false number got
            # through, a faulty Pico). Either way the spec's answer is GET_STATE, whose reply
            # sets the number to the Pico's; until then this event is not used.
            self.stats.duplicates += 1
            self._gap = True
            self._behind += 1
            return
        contiguous = ev == self._ev + 1
        if not contiguous:
            self.stats.event_gaps += 1
            self._gap = True
        self._ev = ev
        if kind == codec.EV_EDGE:
            at = self._host_time(codec.get_u32(payload, 6))
            pin, level = payload[4], payload[5]
            with self._edge_lock:
                if pin in self._edges_rx:
                    self._edges_rx[pin] = (self._edges_rx[pin] + 1) & 0xFFFF
                    self._levels[pin] = level
            for fn in self._edge_listeners:
                self._call(fn, pin, level, at)
        elif kind == codec.EV_ENTROPY:
            if not contiguous:
                self.stats.entropy_discarded += 1
            for listener in self._entropy_listeners:
                self._call(listener, bytes(payload[4:]), contiguous)

    def _heartbeat(self, ev: int, payload: bytes) -> None:
        boot_id = codec.get_u32(payload, 4)
        self._last_heartbeat = time.monotonic()
        self.heartbeat = Heartbeat(ev, boot_id, codec.get_u32(payload, 8), codec.get_u16(payload, 12),
                                   codec.get_u16(payload, 14), payload[16],
                                   codec.get_u16(payload, 17) if len(payload) >= 19 else None)
        if self._boot_id is not None and boot_id != self._boot_id:
            self._set_state(State.HANDSHAKE)  # the Pico rebooted under us
            return
        if ev != self._ev:
            # ahead: the last event(s) before this heartbeat were lost; behind: the number we
            # hold is not the Pico's (a false one got through): GET_STATE sets it either way
            self.stats.event_gaps += 1
            self._gap = True
            if ev < self._ev:
                self._behind += 1
        if len(payload) >= 19:  # 1.1: how often the Pico went into its safe state
            safe_count = codec.get_u16(payload, 17)
            if safe_count != self._safe_count:
                self._safe_count = safe_count
                self._restore_due = True
        if self.state is State.DEGRADED:
            self._set_state(State.UP)

    def _call(self, fn: Callable[..., object], *args: object) -> None:
        """A subscriber's callback: its exception is logged once and stops nothing else."""
        try:
            fn(*args)
        except Exception as exc:
            self._log_once(f"bridge: a subscriber failed ({type(exc).__name__}: {exc}); the link carries on")

    def _log_once(self, message: str) -> None:
        if message not in self._logged:
            self._logged.add(message)
            self.log(message)

    def _internal_error(self, where: str, exc: Exception) -> None:
        """An exception the link did not expect: logged once, DEGRADED, then a new handshake."""
        self.stats.internal_errors += 1
        self._log_once(f"bridge: internal error in the {where} ({type(exc).__name__}: {exc}); "
                       "the link shakes hands again")
        if self._serial is not None and self.state is not State.DISCONNECTED:
            self._set_state(State.DEGRADED)
            self._rehandshake = True

    def _host_time(self, ticks: int) -> float:
        """The host monotonic time (s) of a Pico ``ticks_us`` value: unwrapped against the last
        edge, shifted by the smallest host-minus-Pico offset seen (the least delayed event)."""
        pico_us = ticks if self._ticks is None else codec.ticks_unwrap(self._ticks, ticks)
        self._ticks = pico_us
        offset = time.monotonic() * 1e6 - pico_us
        if self._offset_us is None or offset < self._offset_us:
            self._offset_us = offset
        return (pico_us + self._offset_us) / 1e6

    # -- keeper thread -------------------------------------------------------------------------
    def _keep_loop(self) -> None:
        while not self._closing.is_set():
            try:
                self._keep_step()
            except BridgeError as exc:
                self.last_error = str(exc)
                if not self._silenced:
                    self.log(f"bridge: {exc}")
                self._closing.wait(0.05)
            except Exception as exc:  # a bug must not leave the tower with a dead link
                self.last_error = f"internal error: {type(exc).__name__}: {exc}"
                self._internal_error("link keeper", exc)
                self._closing.wait(REHANDSHAKE_S)

    def _keep_step(self) -> None:
        if self._silenced:
            self._closing.wait(0.05)
            return
        if self._rehandshake and self._serial is not None:
            self._rehandshake = False
            self._set_state(State.HANDSHAKE)
        if self._serial is None:
            self._set_state(State.DISCONNECTED)
            name = self.find()
            if name is None or not self._open(name):
                self._closing.wait(FIND_EVERY_S)
                return
            self._set_state(State.HANDSHAKE)
        if self.state is State.HANDSHAKE:
            self._handshake()
            return
        now = time.monotonic()
        if now - self._last_heartbeat > HEARTBEAT_LOST_S and self.state is State.UP:
            self.log(f"bridge: {self.port_name}: no heartbeat for {HEARTBEAT_LOST_S:g} s")
            self._set_state(State.DEGRADED)
        if self._gap:
            self.get_state()
        if self._restore_due:
            self._restore_due = False
            self.stats.restores += 1
            self.log(f"bridge: {self.port_name}: the Pico went through its safe state; outputs sent again")
            for fn in self._restore_listeners:
                self._call(fn)
        if now - self._last_tx > KEEPALIVE_S:
            self.request(codec.PING)
        self._closing.wait(0.05)

    def _handshake(self) -> None:
        self._write(b"\x00")  # ends whatever partial frame the Pico holds
        with self._request_lock:
            payload = self._hello_payload()
        nonce = payload[2:6]
        try:
            # brief: the reply's fixed head only (24 bytes on the wire), the rest asked for in
            # parts, so the handshake gets through a noisy line; a 1.0 Pico sends it whole
            reply = self.request(codec.HELLO, payload, timeout=max(self.timeout, 3.0), retry=HELLO_BACKOFF)
        except PicoRefused as exc:
            if exc.code == codec.E_SAFE_MODE:
                self._safe_mode(exc.text)
                return
            if exc.code == codec.E_VERSION:
                self._refuse(VersionMismatch(
                    f"bridge at {self.port_name}: the Pico refused this host's protocol "
                    f"{codec.VERSION_MAJOR}.{codec.VERSION_MINOR} ({exc}); update the Pico's firmware "
                    "(docs/bridge.md) or dicetower so both speak the same major version"))
            raise
        if len(reply) >= 2 and reply[0] == codec.VERSION_MAJOR and len(reply) == MIN_REPLY[codec.HELLO]:
            reply += self._info()
        hello = _parse_hello(reply)
        if hello.major != codec.VERSION_MAJOR:
            self._refuse(VersionMismatch(
                f"bridge at {self.port_name}: the Pico speaks protocol {hello.major}.{hello.minor}, this host "
                f"{codec.VERSION_MAJOR}.{codec.VERSION_MINOR}; update the Pico's firmware (docs/bridge.md) or "
                "dicetower so both speak the same major version"))
            return
        if reply[2:6] != nonce:
            return  # a reply to an older HELLO: ask again
        new_boot = hello.boot_id != self._boot_id
        if new_boot:
            self._ev = 0
            self._behind = 0
            self._ticks = None
            self._offset_us = None
            if self._boot_id is not None:
                self.stats.reconnects += 1
        self._boot_id = hello.boot_id
        if new_boot:
            self._safe_count = 0
            with self._edge_lock:
                self._edges_rx.clear()
                self._levels.clear()
        self._restore_due = False  # a new boot gets everything again; the same one kept its outputs
        self._gap = False
        self._last_heartbeat = time.monotonic()
        for fn in self._connect_listeners:
            fn(hello, new_boot)
        with self._changed:
            self.hello = hello
            self.refused = None
            self.state = State.UP
            self._changed.notify_all()
        self.log(f"bridge: {self.port_name}: up ({hello.firmware}, boot {hello.boot_id:08x})")

    def _hello_payload(self) -> bytes:
        """HELLO's payload (brief), its nonce chosen so that the frame holds no 0x03 byte: a
        Pico in safe mode has Ctrl-C live (for mpremote), and a 0x03 would drop it into its
        REPL instead of getting its reason back (docs/bridge.md, section 3). A seq with a 0x03
        byte is skipped."""
        while CTRL_C in bytes(((self._seq % 0xFFFF + 1) & 0xFF, (self._seq % 0xFFFF + 1) >> 8)):
            self._seq = self._seq % 0xFFFF + 1
        seq = self._seq % 0xFFFF + 1
        while True:
            payload = bytes((codec.VERSION_MAJOR, codec.VERSION_MINOR)) + os.urandom(4) + b"\x01"
            if CTRL_C not in codec.encode(codec.HELLO, seq, payload):
                return payload

    def _info(self) -> bytes:
        """INFO (uid and description) in parts of :data:`INFO_PART` bytes."""
        info = b""
        total = None
        while total is None or len(info) < total:
            part = self.request(codec.INFO, bytes((len(info), INFO_PART)))
            total = part[0]
            if len(part) == 1 and len(info) < total:
                raise BadReply(f"bridge at {self.port_name}: INFO stopped at byte {len(info)} of {total}")
            info += part[1:]
        return info[:total]

    def _safe_mode(self, text: str) -> None:
        """The Pico is in safe mode: said once in the log, wait_up raises it, and the Pico is
        asked again every :data:`SAFE_MODE_RETRY_S` (an update finished and a reset bring the
        bridge up)."""
        reason = text.removeprefix(SAFE_MODE_PREFIX)
        error = SafeMode(f"bridge at {self.port_name}: the Pico is in safe mode, not running the bridge: {reason}",
                         reason)
        self._log_once(str(error))
        with self._changed:
            self.refused = error
            self._changed.notify_all()
        self._closing.wait(SAFE_MODE_RETRY_S)

    def _refuse(self, error: VersionMismatch) -> None:
        self.log(str(error))
        with self._changed:
            self.refused = error
            self._changed.notify_all()
        self._drop_port("refused: protocol version mismatch")
        self._closing.wait(5.0)  # no point hammering a Pico that cannot talk to us


def _parse_hello(p: bytes) -> Hello:
    if len(p) < 14:
        raise BadReply(f"bridge: HELLO reply of {len(p)} bytes is too short")
    uid_len = p[13]
    return Hello(major=p[0], minor=p[1], boot_id=codec.get_u32(p, 6), caps=codec.get_u16(p, 10),
                 max_payload=p[12], uid=bytes(p[14 : 14 + uid_len]),
                 firmware=bytes(p[14 + uid_len :]).decode("utf-8", "replace"))
