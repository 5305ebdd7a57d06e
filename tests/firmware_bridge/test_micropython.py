"""The shared codec and the firmware under real MicroPython (its WebAssembly port, with node),
against CPython: the same frames both ways, the same replies to the same requests, and the
twin's framebuf drawing text exactly as MicroPython's does.

``./run-tests`` installs the pinned npm package (.ci/micropython-wasm.sh); without node or the
package these tests are skipped, except under CI=true, where they fail.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge import mpy_wasm
from firmware_bridge.firmware import codec
from firmware_bridge.simframebuf import FrameBuffer

HERE = Path(__file__).resolve().parent / "mpy"
ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ("codec", "main", "bridge", "chip", "pins", "oled", "rosc", "usbport")


@pytest.fixture(scope="module")
def micropython() -> str:
    try:
        mpy_wasm.entry()
    except mpy_wasm.MicroPythonUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"real MicroPython is not available: {exc}")
        pytest.skip(str(exc))
    return mpy_wasm.version()


def _frames(seed: int) -> list[tuple[int, int, bytes]]:
    rng = random.Random(seed)
    items = [(codec.PING, 1, b""), (codec.PING, 0xFFFF, b"\x03" * 200), (codec.DISPLAY_PAGES, 7, bytes(200)),
             (codec.EV_ENTROPY, 0, b"\xff" * 200), (codec.EV_HEARTBEAT, 0, bytes(range(19)))]
    for _ in range(60):
        n = rng.choice((0, 1, 5, 40, 199, 200, rng.randrange(201)))
        payload = bytes(rng.choice((0, 1, 3, 255, rng.randrange(256))) for _ in range(n))
        items.append((rng.randrange(256), rng.randrange(0x10000), payload))
    return items


CODEC_SCRIPT = """
import codec
import json
cases = json.loads(open("cases.json").read())
out = {"encoded": [], "decoded": [], "noisy": []}
for kind, seq, payload in cases["frames"]:
    out["encoded"].append(codec.encode(kind, seq, bytes.fromhex(payload)).hex())
decoder = codec.Decoder()
stream = bytes.fromhex(cases["stream"])
for at in range(0, len(stream), 97):
    for v, k, s, p in decoder.feed(stream[at:at + 97]):
        out["decoded"].append([v, k, s, bytes(p).hex()])
for chunk in cases["noisy"]:
    d = codec.Decoder()
    got = [[v, k, s, bytes(p).hex()] for v, k, s, p in d.feed(bytes.fromhex(chunk))]
    out["noisy"].append([got, d.bad])
print(json.dumps(out))
"""


def _noisy_streams(frames: list[tuple[int, int, bytes]], seed: int) -> list[bytes]:
    """Streams with faults: delimiters lost, bytes flipped, dropped and inserted."""
    rng = random.Random(seed)
    out = []
    for _ in range(40):
        wires = [codec.encode(k, s, p) for k, s, p in rng.sample(frames, 3)]
        stream = bytearray(b"".join(wires))
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(stream))
            fault = rng.randrange(3)
            if fault == 0:
                stream[at] ^= 1 << rng.randrange(8)
            elif fault == 1:
                del stream[at]
            else:
                stream.insert(at, rng.randrange(256))
        out.append(bytes(stream))
    out.append(b"\x01" * codec.BUFFER + b"\x00")  # the worst chunk for the salvage
    return out


def test_codec_round_trips_against_cpython(micropython: str) -> None:
    frames = _frames(1)
    noisy = _noisy_streams(frames, 2)
    stream = b"".join(codec.encode(k, s, p) for k, s, p in frames)
    cases = {"frames": [[k, s, p.hex()] for k, s, p in frames], "stream": stream.hex(),
             "noisy": [n.hex() for n in noisy]}
    out = json.loads(mpy_wasm.run(CODEC_SCRIPT, {**mpy_wasm.firmware_files("codec"),
                                                 "cases.json": json.dumps(cases)}))
    assert out["encoded"] == [codec.encode(k, s, p).hex() for k, s, p in frames]
    assert out["decoded"] == [[1, k, s, p.hex()] for k, s, p in frames]
    for (got, bad), chunk in zip(out["noisy"], noisy, strict=True):
        decoder = codec.Decoder()
        expected = [[v, k, s, bytes(p).hex()] for v, k, s, p in decoder.feed(chunk)]
        assert (got, bad) == (expected, decoder.bad)


def _req(kind: int, seq: int, payload: bytes = b"") -> list:
    return ["send", codec.encode(kind, seq, payload).hex()]


def _scenario() -> list:
    hello = bytes((1, 1, 9, 8, 7, 6))
    return [
        _req(codec.PING, 1, b"before hello"),
        _req(codec.HELLO, 2, hello),
        _req(codec.HELLO, 3, hello + b"\x01"),
        _req(codec.INFO, 4, bytes((0, 16))), _req(codec.INFO, 5, bytes((16, 200))),
        _req(codec.PING, 6, b"\x03\x03\x00\x01"),
        _req(codec.PIN_MODE, 7, bytes((5, codec.MODE_INPUT, codec.PULL_UP, 2))),
        _req(codec.PIN_MODE, 8, bytes((12, codec.MODE_OUTPUT, 0, 0))),
        _req(codec.PIN_MODE, 9, bytes((13, codec.MODE_PWM, 0, 0))),
        _req(codec.PIN_MODE, 10, bytes((8, codec.MODE_OUTPUT, 0, 0))),
        _req(codec.PIN_MODE, 11, bytes((24, codec.MODE_OUTPUT, 0, 0))),
        _req(codec.PIN_MODE, 12, bytes((3, codec.MODE_INPUT))),
        _req(codec.PIN_SET, 13, bytes((12, 255, 255, 0, 0, 13, 0, 64, 232, 3))),
        _req(codec.PIN_SET, 14, bytes((12, 1))),
        _req(codec.PIN_SET, 15, bytes((5, 0, 0, 0, 0))),
        _req(codec.DISPLAY_TEXT, 16, bytes((0, 0)) + b"no display yet"),
        _req(codec.DISPLAY_INIT, 17, bytes((128, 64, 0x3C))),
        _req(codec.DISPLAY_TEXT, 18, bytes((1, 3)) + "Hi é ~\x7f\x01".encode()),
        _req(codec.DISPLAY_TEXT, 19, bytes((2, 120)) + b"clipped"),
        _req(codec.DISPLAY_TEXT, 20, bytes((3, 0)) + b"\xff\xfe"),
        _req(codec.DISPLAY_TEXT, 21, bytes((9, 0)) + b"row"),
        _req(codec.DISPLAY_PAGES, 22, bytes((7, 120)) + bytes(range(1, 20))),
        _req(codec.DISPLAY_SHOW, 23, bytes((0x80, 1))),
        _req(codec.ENTROPY_CREDIT, 24, codec.put_u16(20) + bytes((8,))),
        ["step", 4],
        _req(codec.ENTROPY_CREDIT, 25, codec.put_u16(20) + bytes((0,))),
        _req(codec.ENTROPY_CREDIT, 26, codec.put_u16(0)),
        ["press", 5, 0], ["wait", 0.01], ["step", 2], ["press", 5, -1], ["wait", 0.01], ["step", 2],
        _req(codec.GET_STATE, 27),
        _req(codec.GET_STATE, 27),  # a retry: from the cache
        _req(0x33, 28),
        ["wait", 0.3], ["step", 1],
        ["wait", 3.5], ["step", 1],  # silent host: the safe state
        # docs/bridge.md, "What the Pico does with each request"
        _req(codec.HELLO, 0, hello),  # seq 0: dropped, even a HELLO
        _req(codec.HELLO, 40, b"\x01\x02"),  # short: ERROR 2
        _req(codec.INFO, 41, bytes((250, 16))),  # past the tail: the total alone
        _req(codec.PIN_MODE, 42, bytes((12, 9, 0, 0))),  # a bad mode: ERROR 2, GP12 stays an output
        _req(codec.PIN_SET, 43, bytes((12, 255, 255, 0, 0, 5, 1, 0, 0, 0))),  # GP5 an input: nothing set
        _req(codec.PIN_SET, 44, bytes((13, 0, 1, 3, 0))),  # 3 Hz: ERROR 2
        _req(codec.DISPLAY_PAGES, 45, bytes((0, 128, 1))),  # a column past the edge
        _req(codec.EXIT_TO_REPL, 29),
        ["finish"],
    ]


def _cpython(steps: list, cwd: Path) -> str:
    """The scenario under CPython, in ``cwd`` (the Pico's flash: DISPLAY_INIT writes display.cfg)."""
    code = (f"import sys, json; sys.path[:0] = {[str(HERE), str(ROOT / 'firmware_bridge' / 'firmware'), str(ROOT)]!r}; "
            f"import scenario; scenario.run(json.loads(sys.stdin.read()))")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(steps), capture_output=True, text=True,
                          timeout=120, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _micropython(steps: list) -> str:
    files = {**mpy_wasm.firmware_files(*FIRMWARE),
             **{p.name: p.read_text(encoding="utf-8") for p in HERE.glob("*.py")},
             "steps.json": json.dumps(steps)}
    return mpy_wasm.run("import json, scenario\nscenario.run(json.loads(open('steps.json').read()))", files)


def test_the_firmware_answers_the_same_under_micropython_and_cpython(micropython: str, tmp_path: Path) -> None:
    steps = _scenario()
    real, twin = _micropython(steps), _cpython(steps, tmp_path)
    assert real.splitlines() == twin.splitlines()
    frames = [line.split() for line in real.splitlines() if line.startswith("frame")]
    errors = [bytes.fromhex(f[4])[1:].decode() for f in frames if len(f) > 4 and int(f[2]) == codec.ERROR]
    assert "the text is not UTF-8" in "".join(errors) and "GP8 is the OLED's I2C0 SDA" in "".join(errors)
    assert f"hw mem32 {0x40058000 + 0x3000} {1 << 30}" in real  # watchdog disarmed: CTRL clear alias, bit 30
    by_seq = {int(f[3]): (int(f[2]), bytes.fromhex(f[4]) if len(f) > 4 else b"") for f in frames}
    assert not any(int(f[3]) == 0 and int(f[2]) & 0x80 and int(f[2]) < 0xC0 for f in frames)  # seq 0: no reply
    assert {seq: by_seq[seq][1][:1] for seq in (40, 42, 43, 44, 45)} == {40: b"\x02", 42: b"\x02", 43: b"\x03",
                                                                        44: b"\x02", 45: b"\x02"}
    assert all(by_seq[seq][0] == codec.ERROR for seq in (40, 42, 43, 44, 45))
    assert by_seq[41][0] == codec.INFO | codec.REPLY and len(by_seq[41][1]) == 1  # past the tail: the total


TEXTS = ["Hello, world!", "é", "Aé€😀", "".join(chr(c) for c in range(1, 128)), "tab\there", "nul\x00after",
         "~\x7f", "ÿ"]
PLACES = [(0, 0), (3, 5), (-4, 0), (60, 9), (0, -3)]

FB_SCRIPT = """
import framebuf, json
texts = json.loads(open("texts.json").read())
for text in texts["texts"]:
    for x, y in texts["places"]:
        buf = bytearray(64 * 2)
        fb = framebuf.FrameBuffer(buf, 64, 16, framebuf.MONO_VLSB)
        fb.text(text, x, y, 1)
        print(bytes(buf).hex())
"""


def test_the_twins_framebuf_draws_text_as_micropython_does(micropython: str) -> None:
    data = {"texts": TEXTS, "places": PLACES}
    real = mpy_wasm.run(FB_SCRIPT, {"texts.json": json.dumps(data)}).split()
    ours = []
    for text in TEXTS:
        for x, y in PLACES:
            buf = bytearray(64 * 2)
            FrameBuffer(buf, 64, 16, 0).text(text, x, y, 1)
            ours.append(bytes(buf).hex())
    assert ours == real
    one = bytearray(64 * 2)
    FrameBuffer(one, 64, 16, 0).text("é", 0, 0, 1)
    assert one[0:8] == one[8:16] == bytes.fromhex("aa55aa55aa55aa55")  # a box per UTF-8 byte
