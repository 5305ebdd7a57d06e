# The bridge's wire format, shared unchanged by the host (CPython) and the Pico (MicroPython).
#
# A frame is COBS(version | type | seq_lo | seq_hi | payload | crc32 little-endian) + 0x00.
# The spec is docs/bridge.md. This module must stay importable by MicroPython: no
# dataclasses, no typing, no f-strings, no bytes.hex(sep), only struct and a CRC-32. Its types
# are in type comments (MicroPython reads none of them): the host holds its calls to them with
# mypy --strict; a frame is (version, type, seq, payload), tuple[int, int, int, bytes].

try:
    from binascii import crc32
except ImportError:  # pragma: no cover - some MicroPython ports lack binascii.crc32
    from zlib import crc32

VERSION_MAJOR = 1
VERSION_MINOR = 2
MAX_PAYLOAD = 200
HEADER = 4  # version, type, seq (2 bytes, little-endian)
TRAILER = 4  # crc32, little-endian
MAX_FRAME = HEADER + MAX_PAYLOAD + TRAILER
# COBS adds one byte per 254 bytes (plus one); the delimiter is one more: 210 bytes.
MAX_WIRE = MAX_FRAME + MAX_FRAME // 254 + 2
# The decoder keeps at most this many bytes without a delimiter (two frames run together,
# for the salvage); more are dropped up to the next 0x00.
BUFFER = 2 * MAX_WIRE

# Host -> Pico requests (the Pico replies with type | 0x80 and the same seq).
HELLO = 0x01  # major, minor, nonce[4], [1.1] brief u8 (1: the reply's fixed head only)
PING = 0x02  # anything (echoed)
PIN_MODE = 0x03  # pin, mode, pull, debounce_ms
PIN_SET = 0x04  # (pin, duty_u16_lo, duty_u16_hi, freq_u16_lo, freq_u16_hi) * n
DISPLAY_INIT = 0x05  # width, height, i2c address
DISPLAY_PAGES = 0x06  # page, column, bytes...
DISPLAY_TEXT = 0x07  # row (8-pixel page), column (pixels), utf-8 text (8x8 font, one cell per byte)
DISPLAY_SHOW = 0x08  # contrast (0..255), on (0/1)
GET_STATE = 0x09  # -> event number, input levels, output levels
ENTROPY_CREDIT = 0x0A  # bytes_u16, [chunk u8 1..192, default 64]: replaces the earlier credit
EXIT_TO_REPL = 0x0B  # leave the bridge loop, watchdog disarmed (mpremote works again)
RESET = 0x0C  # machine.reset() after the reply
INFO = 0x0D  # [1.1] offset u8, length u8 -> total u8, that part of (uid_len, uid, description)

REPLY = 0x80  # bit set on every Pico -> host frame
ERROR = 0xFF  # reply: code, utf-8 message

# Pico -> host unsolicited events (seq 0; the payload starts with the event number u32).
EV_EDGE = 0xC0  # ev, pin, level, ticks_us (u32, wraps at 2**30)
EV_HEARTBEAT = 0xC1  # ev, boot_id, uptime_ms u32, bad_frames, dropped_tx u16, flags u8, [1.1] safe_count u16
EV_ENTROPY = 0xC2  # ev, raw ROSC bits packed MSB first

# PIN_MODE modes and pulls.
MODE_OFF = 0
MODE_INPUT = 1
MODE_OUTPUT = 2
MODE_PWM = 3
PULL_NONE = 0
PULL_UP = 1
PULL_DOWN = 2

# ERROR codes.
E_UNKNOWN_TYPE = 1
E_BAD_PAYLOAD = 2
E_BAD_PIN = 3
E_VERSION = 4
E_NO_DEVICE = 5
E_NO_SESSION = 6
E_SAFE_MODE = 7  # [1.2] the bridge is not running: the message says why (main.py's safe mode)

# Heartbeat flags.
FLAG_WDT_RESET = 1  # the last reset was the watchdog's (on rp2 also machine.reset())
FLAG_SAFE = 2  # the Pico is in its safe state (the host was silent for 3 s)

# Chunk sizes of ENTROPY_CREDIT.
CHUNK_DEFAULT = 64
CHUNK_MAX = 192

# HELLO reply capability bits.
CAP_PINS = 1
CAP_PWM = 2
CAP_DISPLAY = 4
CAP_ENTROPY = 8
CAP_DISARM = 16  # [1.2] EXIT_TO_REPL disarms the watchdog (a chip whose register the firmware knows)

TICKS_PERIOD = 1 << 30  # MicroPython's ticks_us wraps here


def cobs_encode(data):  # type: (bytes) -> bytes
    """COBS-encode ``data`` (no zero in the result; the delimiter is not added)."""
    out = bytearray()
    block = bytearray()
    full = False  # the last block was a full 254 bytes (code 255, no implied zero)
    for b in data:
        full = False
        if b == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
                full = True
    if not full:  # as the reference encoder: no empty block after a full one at the end
        out.append(len(block) + 1)
        out.extend(block)
    return bytes(out)


def cobs_decode(data):  # type: (bytes | bytearray) -> bytes | None
    """The bytes ``data`` encodes, or None if it is not valid COBS. One step per code byte
    (slices do the copying), so a frame costs the Pico little however it is made up."""
    data = bytes(data)
    if data.find(b"\x00") >= 0:
        return None
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if end > n:
            return None
        out.extend(data[i + 1 : end])
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def _u32(value):  # type: (int) -> bytes
    value &= 0xFFFFFFFF
    return bytes((value & 0xFF, (value >> 8) & 0xFF, (value >> 16) & 0xFF, value >> 24))


def get_u16(data, at):  # type: (bytes | bytearray, int) -> int
    return data[at] | (data[at + 1] << 8)


def get_u32(data, at):  # type: (bytes | bytearray, int) -> int
    return data[at] | (data[at + 1] << 8) | (data[at + 2] << 16) | (data[at + 3] << 24)


def put_u16(value):  # type: (int) -> bytes
    return bytes((value & 0xFF, (value >> 8) & 0xFF))


def put_u32(value):  # type: (int) -> bytes
    return _u32(value)


def encode(kind, seq, payload=b"", version=VERSION_MAJOR):  # type: (int, int, bytes, int) -> bytes
    """One frame on the wire: COBS(version|type|seq|payload|crc32) + 0x00."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload of " + str(len(payload)) + " bytes; at most 200 fit a frame")
    if not 0 <= kind <= 255 or not 0 <= seq <= 0xFFFF:
        raise ValueError("type " + str(kind) + " or seq " + str(seq) + " out of range")
    body = bytes((version & 0xFF, kind, seq & 0xFF, seq >> 8)) + bytes(payload)
    return cobs_encode(body + _u32(crc32(body))) + b"\x00"


def parse(frame):  # type: (bytes | bytearray) -> tuple[int, int, int, bytes] | None
    """``(version, type, seq, payload)`` of one COBS-encoded frame (no delimiter), or None if
    its COBS, length or CRC is wrong."""
    body = cobs_decode(frame)
    if body is None or len(body) < HEADER + TRAILER or len(body) > MAX_FRAME:
        return None
    data = body[:-TRAILER]
    if crc32(data) & 0xFFFFFFFF != get_u32(body, len(body) - TRAILER):
        return None
    return (data[0], data[1], data[2] | (data[3] << 8), data[HEADER:])


# A frame's body (8..208 bytes) is under 254 bytes, so its COBS form is one byte longer:
# 9..209 bytes. Salvage candidates outside that range are rejected before any decoding.
MIN_ENCODED = HEADER + TRAILER + 1
MAX_ENCODED = MAX_FRAME + 1
# CRC-32 over a body *including* its little-endian CRC is this constant when the CRC is right,
# so a candidate's CRC can be checked as its bytes are decoded, without knowing where it ends.
CRC_RESIDUE = 0x2144DF1C


ZERO = b"\x00"


def _frame_of(body):  # type: (bytes) -> tuple[int, int, int, bytes]
    return (body[0], body[1], body[2] | (body[3] << 8), bytes(body[HEADER : len(body) - TRAILER]))


def _head(buf):  # type: (bytes) -> tuple[int, tuple[int, int, int, bytes] | None]
    """``(end, frame)`` for the first frame of ``buf`` that ends where its COBS chain of code
    bytes ends, before the end of ``buf``; ``(0, None)`` if there is none. One pass: the CRC is
    carried along the chain (an empty block, code 1, costs one CRC step for its zero), and only
    the frame found is decoded, so the cost is one step per code byte up to 209 bytes."""
    last = min(len(buf) - 1, MAX_ENCODED)  # a head frame leaves a tail and is at most 209 bytes
    if last < MIN_ENCODED:
        return 0, None
    view = memoryview(buf)
    crc = 0
    i = 0
    while True:
        code = buf[i]
        end = i + code
        if code == 255 or end > last:
            return 0, None  # no frame holds a 254-byte run
        if code > 1:
            crc = crc32(view[i + 1 : end], crc)
        if end >= MIN_ENCODED and crc == CRC_RESIDUE:
            body = cobs_decode(buf[:end])  # never None: the chain just walked is valid COBS
            return (end, _frame_of(body)) if body is not None else (0, None)
        crc = crc32(ZERO, crc)
        i = end


def _tail(buf, first):  # type: (bytes, int) -> tuple[int, int, int, bytes] | None
    """The longest frame that ends ``buf``, starting at ``first`` or later, or None. Only
    starts 9..209 bytes from the end count. Walking back from the end, each position whose
    chain of code bytes lands exactly on the end gets its body: its block, a zero, and the body
    already made for where its chain goes next (one step per position, the copying native),
    and each such body long enough for a frame gets one CRC check."""
    n = len(buf)
    lo = max(first, n - MAX_ENCODED)
    if n - lo < MIN_ENCODED:
        return None
    bodies = [None] * (n - lo + 1)  # type: list[bytes | None]  # decoded body from each position to the end, or None
    bodies[n - lo] = b""
    found = None
    top = n - MIN_ENCODED  # the last start a frame can have
    for p in range(n - 1, lo - 1, -1):
        code = buf[p]
        q = p + code
        if code == 255 or q > n:
            continue
        rest = bodies[q - lo]
        if rest is None:
            continue
        if q == n:
            body = buf[p + 1 : q]
        elif code == 1:
            body = ZERO + rest
        else:
            body = buf[p + 1 : q] + ZERO + rest
        bodies[p - lo] = body
        if p <= top and crc32(body) == CRC_RESIDUE:
            found = body  # keep going: a longer candidate further left wins
    return None if found is None else _frame_of(found)


def salvage(buf):  # type: (bytes | bytearray) -> list[tuple[int, int, int, bytes]]
    """The good frames in a bad chunk: a fault that lost the delimiter between two frames
    leaves them run together, and a fault that cut a frame short joins its head to the next
    frame. The first frame ends where its COBS chain ends; the last starts where a chain
    reaches the end exactly. At most two frames, so one fault costs at most the frame it hit.

    The work is bounded whatever the bytes: candidates are only those 9..209 encoded bytes
    long, each side is one pass over at most 209 positions, and each candidate costs one CRC
    of at most 208 bytes (docs/bridge.md, section 1)."""
    buf = bytes(buf)
    frames = []
    end, frame = _head(buf)
    if frame is not None:
        frames.append(frame)
        buf = buf[end:]
    frame = _tail(buf, 0 if frames else 1)
    if frame is not None:
        frames.append(frame)
    return frames


class Decoder:
    """Byte-at-a-time frame decoder: never raises on any input, resynchronises at the next 0x00.

    ``feed(data)`` returns the list of good frames as ``(version, type, seq, payload)``;
    ``bad`` counts chunks dropped for a wrong COBS, length or CRC (after :func:`salvage` found
    what it could in them), or for running past :data:`BUFFER` bytes without a delimiter (the
    rest of such a chunk is skipped up to its delimiter).
    """

    def __init__(self):  # type: () -> None
        self.buf = bytearray()
        self.bad = 0
        self.good = 0
        self.skipping = False

    def feed(self, data):  # type: (bytes) -> list[tuple[int, int, int, bytes]]
        frames = []  # type: list[tuple[int, int, int, bytes]]
        data = bytes(data)
        start = 0
        n = len(data)
        while start < n:
            end = data.find(b"\x00", start)  # the delimiters are found natively, not byte by byte
            if end < 0:
                self._more(data, start, n)
                break
            self._more(data, start, end)
            if self.skipping:
                self.skipping = False
            elif self.buf:
                self._frame(frames)
            self.buf = bytearray()
            start = end + 1
        return frames

    def _more(self, data, start, end):  # type: (bytes, int, int) -> None
        if self.skipping or start == end:
            return
        if len(self.buf) + end - start > BUFFER:
            self.bad += 1
            self.skipping = True
            self.buf = bytearray()
        else:
            self.buf.extend(data[start:end])

    def _frame(self, frames):  # type: (list[tuple[int, int, int, bytes]]) -> None
        frame = parse(self.buf)
        if frame is not None:
            self.good += 1
            frames.append(frame)
            return
        self.bad += 1
        for frame in salvage(bytes(self.buf)):
            self.good += 1
            frames.append(frame)

    def reset(self):  # type: () -> None
        """Forget a partial frame (stale bytes at open)."""
        self.buf = bytearray()
        self.skipping = False


def ticks_unwrap(last, ticks):  # type: (int, int) -> int
    """The unwrapped count for a 30-bit ``ticks`` value that follows ``last`` (unwrapped),
    assuming less than half a period (about 9 minutes) between the two."""
    delta = (ticks - last) % TICKS_PERIOD
    if delta >= TICKS_PERIOD // 2:
        delta -= TICKS_PERIOD
    return last + delta


# This file's build, its last line (a file cut short has none): main.py starts the bridge only
# when every file carries its own (docs/bridge.md, "An interrupted update").
BUILD = 4
