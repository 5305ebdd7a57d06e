# The bridge's wire format, shared unchanged by the host (CPython) and the board (MicroPython).
#
# A frame is COBS(version | type | seq_lo | seq_hi | payload | crc32 little-endian) + 0x00.
# The spec is docs/bridge.md. This module must stay importable by MicroPython: no
# dataclasses, no typing, no f-strings, no bytes.hex(sep), only struct and a CRC-32.
try:
    from binascii import crc32
except ImportError:  # pragma: no cover - some MicroPython ports lack binascii.crc32
    from zlib import crc32

VERSION_MAJOR = 1
VERSION_MINOR = 0
MAX_PAYLOAD = 200
HEADER = 4  # version, type, seq (2 bytes, little-endian)
TRAILER = 4  # crc32, little-endian
MAX_FRAME = HEADER + MAX_PAYLOAD + TRAILER
# COBS adds one byte per 254 bytes (plus one); the delimiter is one more.
MAX_WIRE = MAX_FRAME + MAX_FRAME // 254 + 2

# Host -> board requests (the board replies with type | 0x80 and the same seq).
HELLO = 0x01  # major, minor, nonce[4]
PING = 0x02  # anything (echoed)
PIN_MODE = 0x03  # pin, mode, pull, debounce_ms
PIN_SET = 0x04  # (pin, duty_u16_lo, duty_u16_hi, freq_u16_lo, freq_u16_hi) * n
DISPLAY_INIT = 0x05  # width, height, contrast
DISPLAY_PAGES = 0x06  # page, column, bytes...
DISPLAY_TEXT = 0x07  # row, utf-8 text (8x8 font, row = 8 pixels)
DISPLAY_SHOW = 0x08  # contrast (0..255), on (0/1)
GET_STATE = 0x09  # -> event number, input levels, output levels
ENTROPY_CREDIT = 0x0A  # bytes_u16: raw bytes the board may send now (replaces earlier credit)
EXIT_TO_REPL = 0x0B  # leave the bridge loop (mpremote works again)
RESET = 0x0C  # machine.reset() after the reply

REPLY = 0x80  # bit set on every board -> host frame
ERROR = 0xFF  # reply: code, utf-8 message

# Board -> host unsolicited events (seq 0; the payload starts with the event number u32).
EV_EDGE = 0xC0  # ev, pin, level, ticks_us (u32, wraps at 2**30)
EV_HEARTBEAT = 0xC1  # ev, boot_id u32, uptime_ms u32, bad_frames u16, dropped_tx u16, wdt_ok u8
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

# HELLO reply capability bits.
CAP_PINS = 1
CAP_PWM = 2
CAP_DISPLAY = 4
CAP_ENTROPY = 8

TICKS_PERIOD = 1 << 30  # MicroPython's ticks_us wraps here


def cobs_encode(data):
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


def cobs_decode(data):
    """The bytes ``data`` encodes, or None if it is not valid COBS."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            return None
        for j in range(i + 1, end):
            if data[j] == 0:
                return None
        out.extend(data[i + 1 : end])
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def _u32(value):
    value &= 0xFFFFFFFF
    return bytes((value & 0xFF, (value >> 8) & 0xFF, (value >> 16) & 0xFF, value >> 24))


def get_u16(data, at):
    return data[at] | (data[at + 1] << 8)


def get_u32(data, at):
    return data[at] | (data[at + 1] << 8) | (data[at + 2] << 16) | (data[at + 3] << 24)


def put_u16(value):
    return bytes((value & 0xFF, (value >> 8) & 0xFF))


def put_u32(value):
    return _u32(value)


def encode(kind, seq, payload=b"", version=VERSION_MAJOR):
    """One frame on the wire: COBS(version|type|seq|payload|crc32) + 0x00."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload of " + str(len(payload)) + " bytes; at most 200 fit a frame")
    if not 0 <= kind <= 255 or not 0 <= seq <= 0xFFFF:
        raise ValueError("type " + str(kind) + " or seq " + str(seq) + " out of range")
    body = bytes((version & 0xFF, kind, seq & 0xFF, seq >> 8)) + bytes(payload)
    return cobs_encode(body + _u32(crc32(body))) + b"\x00"


def parse(frame):
    """``(version, type, seq, payload)`` of one COBS-encoded frame (no delimiter), or None if
    its COBS, length or CRC is wrong."""
    body = cobs_decode(frame)
    if body is None or len(body) < HEADER + TRAILER or len(body) > MAX_FRAME:
        return None
    data = body[:-TRAILER]
    if crc32(data) & 0xFFFFFFFF != get_u32(body, len(body) - TRAILER):
        return None
    return (data[0], data[1], data[2] | (data[3] << 8), data[HEADER:])


def _chain_to_end(buf, start):
    """True when COBS code bytes walked from ``start`` land exactly on the end of ``buf``."""
    i = start
    n = len(buf)
    while i < n:
        i += buf[i]
    return i == n


def salvage(buf):
    """The good frames in a bad chunk: a fault that lost the delimiter between two frames
    leaves them run together, and a fault that cut a frame short joins its head to the next
    frame. The first frame ends where its COBS chain ends; the last starts where a chain
    reaches the end exactly. At most two frames, so one fault costs at most the frame it hit."""
    frames = []
    n = len(buf)
    i = 0
    while i < n:
        i += buf[i]
        if i < n:
            frame = parse(buf[:i])
            if frame is not None:
                frames.append(frame)
                buf = buf[i:]
                break
    start = 0 if frames else 1
    for j in range(start, len(buf)):
        if _chain_to_end(buf, j):
            frame = parse(buf[j:])
            if frame is not None:
                frames.append(frame)
                break
    return frames


class Decoder:
    """Byte-at-a-time frame decoder: never raises on any input, resynchronises at the next 0x00.

    ``feed(data)`` returns the list of good frames as ``(version, type, seq, payload)``;
    ``bad`` counts chunks dropped for a wrong COBS, length or CRC (after :func:`salvage` found
    what it could in them), or for running past two frames' length without a delimiter (the
    rest of such a chunk is skipped up to its delimiter).
    """

    def __init__(self):
        self.buf = bytearray()
        self.bad = 0
        self.good = 0
        self.skipping = False

    def feed(self, data):
        frames = []
        for b in data:
            if b == 0:
                if self.skipping:
                    self.skipping = False
                elif self.buf:
                    self._frame(frames)
                self.buf = bytearray()
            elif not self.skipping:
                if len(self.buf) >= 2 * MAX_WIRE:
                    self.bad += 1
                    self.skipping = True
                    self.buf = bytearray()
                else:
                    self.buf.append(b)
        return frames

    def _frame(self, frames):
        frame = parse(self.buf)
        if frame is not None:
            self.good += 1
            frames.append(frame)
            return
        self.bad += 1
        for frame in salvage(bytes(self.buf)):
            self.good += 1
            frames.append(frame)

    def reset(self):
        """Forget a partial frame (stale bytes at open)."""
        self.buf = bytearray()
        self.skipping = False


def ticks_unwrap(last, ticks):
    """The unwrapped count for a 30-bit ``ticks`` value that follows ``last`` (unwrapped),
    assuming less than half a period (about 9 minutes) between the two."""
    delta = (ticks - last) % TICKS_PERIOD
    if delta >= TICKS_PERIOD // 2:
        delta -= TICKS_PERIOD
    return last + delta
