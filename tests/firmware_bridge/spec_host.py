"""A host for the bridge written from docs/bridge.md alone (sections 1 to 4), as a stranger would:
only the standard library and pyserial, nothing of dicetower's host (its link, its codec).
tests/firmware_bridge/test_spec_host.py runs it against the twin, and checks that this file
imports nothing else.
"""

from __future__ import annotations

import os
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import serial

# Section 2's table.
HELLO, PING, PIN_MODE, PIN_SET = 0x01, 0x02, 0x03, 0x04
DISPLAY_INIT, DISPLAY_PAGES, DISPLAY_TEXT, DISPLAY_SHOW = 0x05, 0x06, 0x07, 0x08
GET_STATE, ENTROPY_CREDIT, EXIT_TO_REPL, RESET, INFO = 0x09, 0x0A, 0x0B, 0x0C, 0x0D
ERROR, EV_EDGE, EV_HEARTBEAT, EV_ENTROPY = 0xFF, 0xC0, 0xC1, 0xC2
MAJOR, MINOR = 1, 2


def cobs_encode(data: bytes) -> bytes:
    """Section 1: a code byte n (1..255) and n-1 non-zero bytes, an implied zero unless n is 255
    or the block ends the data; no empty block after a full 254-byte one at the end."""
    out = bytearray()
    block = bytearray()
    ended_full = False
    for b in data:
        ended_full = False
        if b == 0:
            out += bytes((len(block) + 1,)) + block
            block = bytearray()
            continue
        block.append(b)
        if len(block) == 254:
            out += b"\xff" + block
            block = bytearray()
            ended_full = True
    if not ended_full:
        out += bytes((len(block) + 1,)) + block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    out = bytearray()
    i = 0
    while i < len(data):
        n = data[i]
        if n == 0 or i + n > len(data):
            return None
        out += data[i + 1 : i + n]
        i += n
        if n != 255 and i < len(data):
            out.append(0)
    return bytes(out)


def u16(v: int) -> bytes:
    return v.to_bytes(2, "little")


def get16(b: bytes, at: int) -> int:
    return int.from_bytes(b[at : at + 2], "little")


def get32(b: bytes, at: int) -> int:
    return int.from_bytes(b[at : at + 4], "little")


def frame(kind: int, seq: int, payload: bytes = b"") -> bytes:
    """Section 1: COBS(version type seq payload crc) then 0x00; the CRC is zlib.crc32 of the rest."""
    body = bytes((MAJOR, kind)) + u16(seq) + payload
    return cobs_encode(body + zlib.crc32(body).to_bytes(4, "little")) + b"\x00"


def parse(chunk: bytes) -> tuple[int, int, int, bytes] | None:
    body = cobs_decode(chunk)
    if body is None or not 8 <= len(body) <= 208:
        return None
    if zlib.crc32(body[:-4]) != get32(body, len(body) - 4):
        return None
    return body[0], body[1], get16(body, 2), body[4:-4]


class Refused(Exception):
    """The Pico answered ERROR: ``code`` and its message (section 2)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"ERROR {code}: {message}")
        self.code = code


@dataclass
class Events:
    edges: list[tuple[int, int, int, int]] = field(default_factory=list)  # ev, pin, level, ticks_us
    entropy: list[tuple[int, bytes]] = field(default_factory=list)  # ev, raw bits
    beats: list[dict[str, int]] = field(default_factory=list)
    bad_chunks: int = 0


class SpecHost:
    """One request outstanding at a time, retried with the same seq (section 2, 4)."""

    def __init__(self, port: str) -> None:
        self.port = serial.serial_for_url(port, baudrate=115200, timeout=0.01, do_not_open=True)
        self.port.dtr = True  # section 4: MicroPython's USB CDC only sends while DTR is on
        self.port.rts = False
        self.port.open()
        self.seq = 0
        self.buf = bytearray()
        self.events = Events()
        self.replies: dict[int, tuple[int, bytes]] = {}
        self.sends = 0

    def close(self) -> None:
        self.port.close()

    # -- the wire ----------------------------------------------------------------------------------
    def poll(self) -> None:
        """Read what came, decode every frame ended by a 0x00, file replies and events."""
        data = self.port.read(max(1, self.port.in_waiting))
        for b in data:
            if b:
                self.buf.append(b)
                continue
            chunk, self.buf = bytes(self.buf), bytearray()
            if not chunk:
                continue  # an empty frame is ignored
            got = parse(chunk)
            if got is None:
                self.events.bad_chunks += 1
                continue
            version, kind, seq, payload = got
            if version != MAJOR and kind not in (HELLO | 0x80, ERROR):
                continue
            if kind == EV_EDGE and len(payload) >= 10:
                self.events.edges.append((get32(payload, 0), payload[4], payload[5], get32(payload, 6)))
            elif kind == EV_ENTROPY and len(payload) >= 4:
                self.events.entropy.append((get32(payload, 0), payload[4:]))
            elif kind == EV_HEARTBEAT and len(payload) >= 17:
                beat = {"ev": get32(payload, 0), "boot_id": get32(payload, 4), "uptime_ms": get32(payload, 8),
                        "bad_frames": get16(payload, 12), "tx_dropped": get16(payload, 14), "flags": payload[16]}
                if len(payload) >= 19:
                    beat["safe_count"] = get16(payload, 17)
                self.events.beats.append(beat)
            elif kind & 0x80 and seq:
                self.replies[seq] = (kind, payload)

    def next_seq(self, hello: bool = False) -> int:
        while True:
            self.seq = self.seq % 65535 + 1  # 1..65535, then 1 again; 0 is for events
            if not hello or 3 not in u16(self.seq):
                return self.seq

    def send(self, kind: int, payload: bytes = b"", seq: int | None = None) -> int:
        seq = self.next_seq() if seq is None else seq
        self.port.write(frame(kind, seq, payload))
        return seq

    def request(self, kind: int, payload: bytes = b"", timeout: float = 5.0, seq: int | None = None) -> bytes:
        """The reply's payload; :class:`Refused` for ERROR. Sent again with the same seq after
        50 ms, doubling up to 200 ms (section 4's timing for a quiet line)."""
        seq = self.next_seq() if seq is None else seq
        wire = frame(kind, seq, payload)
        deadline = time.monotonic() + timeout
        retry = 0.05
        while True:
            self.port.write(wire)
            self.sends += 1
            again = time.monotonic() + retry
            while time.monotonic() < min(again, deadline):
                self.poll()
                if seq in self.replies:
                    got, reply = self.replies.pop(seq)
                    if got == ERROR:
                        raise Refused(reply[0], reply[1:].decode("utf-8", "replace"))
                    if got != kind | 0x80:
                        raise AssertionError(f"request 0x{kind:02x} answered with 0x{got:02x}")
                    return reply
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no reply to 0x{kind:02x} (seq {seq}) within {timeout:g} s")
            retry = min(retry * 2, 0.2)

    def wait(self, what: str, condition: Callable[[], object], timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {what} within {timeout:g} s")
            self.poll()

    # -- section 3 ---------------------------------------------------------------------------------
    def hello(self) -> dict[str, object]:
        """A lone 0x00, then a brief HELLO whose frame holds no 0x03 byte; the tail by INFO in
        parts of 16 bytes."""
        self.port.write(b"\x00")
        seq = self.next_seq(hello=True)
        while True:
            nonce = os.urandom(4)
            payload = bytes((MAJOR, MINOR)) + nonce + b"\x01"
            if 3 not in frame(HELLO, seq, payload):
                break
        head = self.request(HELLO, payload, seq=seq)
        assert head[2:6] == nonce, "the reply carries the request's nonce"
        info = {"major": head[0], "minor": head[1], "boot_id": get32(head, 6), "caps": get16(head, 10),
                "max_payload": head[12]}
        tail = head[13:]  # a 1.0 Pico sends it whole
        if not tail:
            total = None
            while total is None or len(tail) < total:
                part = self.request(INFO, bytes((len(tail), 16)))
                total = part[0]
                tail += part[1:]
        info["uid"] = tail[1 : 1 + tail[0]]
        info["firmware"] = tail[1 + tail[0] :].decode()
        info["tail"] = tail
        return info

    # -- section 2 ---------------------------------------------------------------------------------
    def state(self) -> dict[str, object]:
        p = self.request(GET_STATE)
        count = p[8]
        pins = {p[9 + 4 * i]: (p[10 + 4 * i], get16(p, 11 + 4 * i)) for i in range(count)}
        at = 9 + 4 * count
        edges = {p[9 + 4 * i]: get16(p, at + 2 * i) for i in range(count)} if len(p) >= at + 2 * count else {}
        return {"ev": get32(p, 0), "boot_id": get32(p, 4), "pins": pins, "edges": edges}
