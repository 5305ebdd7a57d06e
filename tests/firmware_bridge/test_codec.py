"""The shared codec against the ``cobs`` package and ``zlib.crc32`` as oracles."""

from __future__ import annotations

import zlib

import cobs.cobs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.firmware import codec

payloads = st.binary(max_size=codec.MAX_PAYLOAD)
frames = st.tuples(st.integers(0, 255), st.integers(0, 0xFFFF), payloads)


@given(st.binary(max_size=1200))
def test_cobs_matches_the_reference_package(data: bytes) -> None:
    assert codec.cobs_encode(data) == cobs.cobs.encode(data)
    assert codec.cobs_decode(cobs.cobs.encode(data)) == data


@given(st.integers(0, 255), st.integers(0, 0xFFFF), payloads)
def test_frame_layout_against_the_oracles(kind: int, seq: int, payload: bytes) -> None:
    wire = codec.encode(kind, seq, payload)
    assert wire.endswith(b"\x00") and b"\x00" not in wire[:-1]
    body = cobs.cobs.decode(wire[:-1])
    head = bytes((codec.VERSION_MAJOR, kind, seq & 0xFF, seq >> 8)) + payload
    assert body == head + zlib.crc32(head).to_bytes(4, "little")
    assert len(wire) <= codec.MAX_WIRE + 1 <= 256  # fits MicroPython's 256-byte CDC FIFO


@given(st.lists(frames, max_size=8), st.lists(st.integers(1, 300), max_size=20))
def test_round_trip_with_random_splits(items: list[tuple[int, int, bytes]], cuts: list[int]) -> None:
    stream = b"".join(codec.encode(k, s, p) for k, s, p in items)
    decoder = codec.Decoder()
    got = []
    at = 0
    for cut in cuts:
        got += decoder.feed(stream[at : at + cut])
        at += cut
    got += decoder.feed(stream[at:])
    assert got == [(codec.VERSION_MAJOR, k, s, p) for k, s, p in items]
    assert decoder.bad == 0


def test_payload_of_ctrl_c_bytes_survives() -> None:
    payload = b"\x03" * codec.MAX_PAYLOAD
    assert codec.Decoder().feed(codec.encode(codec.PING, 3, payload)) == [(1, codec.PING, 3, payload)]
    assert b"\x03" in codec.encode(codec.PING, 3, payload)  # 0x03 really is on the wire


@settings(max_examples=40)
@given(st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=40))
def test_every_single_bit_flip_is_detected(kind: int, seq: int, payload: bytes) -> None:
    wire = codec.encode(kind, seq, payload)
    for i in range(len(wire) * 8):
        bad = bytearray(wire)
        bad[i // 8] ^= 1 << (i % 8)
        got = codec.Decoder().feed(bytes(bad) + b"\x00")
        if i // 8 < len(wire) - 1:
            assert got == [], f"flip of bit {i} accepted"
        else:  # the delimiter was hit, not the frame: the frame is still found, intact
            assert got == [(codec.VERSION_MAJOR, kind, seq, payload)]


@given(st.binary(max_size=2000))
def test_random_bytes_never_raise_and_the_next_frame_is_found(noise: bytes) -> None:
    decoder = codec.Decoder()
    decoder.feed(noise)
    frame = codec.encode(codec.PING, 7, b"after the noise")
    assert decoder.feed(b"\x00" + frame) == [(1, codec.PING, 7, b"after the noise")]


def test_an_overlong_frame_is_skipped_to_its_delimiter() -> None:
    decoder = codec.Decoder()
    got = decoder.feed(b"\x55" * 1000 + b"\x00" + codec.encode(codec.PING, 1))
    assert got == [(1, codec.PING, 1, b"")]
    assert decoder.bad == 1


def test_payload_limit_is_enforced() -> None:
    with pytest.raises(ValueError, match="201 bytes"):
        codec.encode(codec.PING, 1, bytes(201))


@given(st.integers(0, 2**40), st.integers(-(2**28), 2**28))
def test_ticks_unwrap(start: int, step: int) -> None:
    later = start + step
    assert codec.ticks_unwrap(start, later % codec.TICKS_PERIOD) == later


def _fault(stream: bytes, bounds: list[tuple[int, int]], kind: str, at: int, value: int) -> bytes:
    """``stream`` with one fault at byte ``at``; ``bounds`` are the frames' (start, delimiter)."""
    if kind == "drop":
        return stream[:at] + stream[at + 1 :]
    if kind == "flip":
        return stream[:at] + bytes((stream[at] ^ (1 << (value % 8)),)) + stream[at + 1 :]
    if kind == "duplicate":
        return stream[: at + 1] + stream[at:]
    if kind == "insert":
        return stream[:at] + bytes((value,)) + stream[at:]
    # truncate: the frame holding ``at`` loses everything from there up to its delimiter
    end = next(d for s, d in bounds if s <= at <= d)
    return stream[:at] + stream[end:]


@settings(max_examples=300)
@given(
    st.lists(frames, min_size=1, max_size=6),
    st.sampled_from(["drop", "flip", "duplicate", "insert", "truncate"]),
    st.floats(0, 1, exclude_max=True),
    st.integers(0, 255),
)
def test_one_fault_loses_at_most_one_frame(items, kind: str, where: float, value: int) -> None:
    wires = [codec.encode(k, s, p) for k, s, p in items]
    bounds, at = [], 0
    for w in wires:
        bounds.append((at, at + len(w) - 1))
        at += len(w)
    stream = b"".join(wires)
    faulty = _fault(stream, bounds, kind, int(where * len(stream)), value)
    got = codec.Decoder().feed(faulty)
    sent = [(codec.VERSION_MAJOR, k, s, p) for k, s, p in items]
    assert len(got) >= len(sent) - 1
    it = iter(sent)
    assert all(frame in it for frame in got), "a frame came out changed or out of order"


def _reference_salvage(buf: bytes) -> list[tuple[int, int, int, bytes]]:
    """The salvage rule written plainly (every chain position tried, every start decoded in
    full): what :func:`codec.salvage` must find, in far fewer steps."""

    def chain_to_end(start: int, data: bytes) -> bool:
        i = start
        while i < len(data):
            i += data[i]
        return i == len(data)

    frames = []
    i = 0
    while i < len(buf):
        i += buf[i]
        if i < len(buf) and (frame := codec.parse(buf[:i])) is not None:
            frames.append(frame)
            buf = buf[i:]
            break
    for j in range(0 if frames else 1, len(buf)):
        if chain_to_end(j, buf) and (frame := codec.parse(buf[j:])) is not None:
            frames.append(frame)
            break
    return frames


@settings(max_examples=300)
@given(st.lists(frames, min_size=1, max_size=3), st.integers(0, 2000), st.binary(max_size=6),
       st.sampled_from(["join", "cut", "garbage"]))
def test_salvage_finds_what_the_plain_rule_finds(items, where: int, extra: bytes, how: str) -> None:
    wires = [codec.encode(k, s, p)[:-1] for k, s, p in items]
    if how == "join":  # the delimiters between the frames lost
        chunk = b"".join(wires)
    elif how == "cut":  # the first frame cut short, its head joined to the next
        chunk = wires[0][: where % len(wires[0])] + b"".join(wires[1:])
    else:
        chunk = extra.replace(b"\x00", b"\x01") + b"".join(wires)
    chunk = chunk[: codec.BUFFER]
    assert codec.salvage(chunk) == _reference_salvage(chunk)


@given(st.binary(min_size=1, max_size=codec.BUFFER).map(lambda b: b.replace(b"\x00", b"\x01")))
def test_salvage_of_any_chunk_matches_the_plain_rule(chunk: bytes) -> None:
    assert codec.salvage(chunk) == _reference_salvage(chunk)


@pytest.mark.parametrize("chunk", [b"\x01" * codec.BUFFER, b"\x02" * codec.BUFFER, bytes([1, 2, 3] * 140),
                                   bytes([1] * 209 + [2] * 211)], ids=["ones", "twos", "mixed", "halves"])
def test_salvage_work_is_bounded(chunk: bytes, monkeypatch) -> None:
    """A bad 420-byte chunk costs at most one CRC per candidate, and candidates are only the
    starts and ends 9..209 bytes apart: about 400 CRCs of at most 208 bytes, never n^2 decodes."""
    calls: list[int] = []
    real = codec.crc32

    def counting(data: bytes, value: int = 0) -> int:
        calls.append(len(data))
        return real(data, value)

    monkeypatch.setattr(codec, "crc32", counting)
    decoder = codec.Decoder()
    assert decoder.feed(chunk + b"\x00") == []
    assert decoder.bad == 1
    assert len(calls) <= 2 * 2 * codec.MAX_ENCODED  # head: a block and its zero per step; tail: one each
    assert max(calls) <= codec.MAX_FRAME


def test_the_decoder_keeps_at_most_two_frames_of_bytes() -> None:
    decoder = codec.Decoder()
    assert decoder.feed(b"\x01" * codec.BUFFER) == [] and decoder.bad == 0
    decoder.feed(b"\x01")  # the 421st byte without a delimiter
    assert decoder.bad == 1
    assert decoder.feed(b"\x01" * 5000 + b"\x00" + codec.encode(codec.PING, 2, b"ok")) == [(1, codec.PING, 2, b"ok")]
    assert codec.MAX_WIRE == 210 and codec.BUFFER == 420  # the figures docs/bridge.md gives
