"""The bridge's figures, through the firmware twin on a real pty (host and twin in one process).

- RTT: PING round trips (8-byte payload) p50/p99, against the line-rate baseline of the same
  frames at 115200 baud (10 bits a byte; a pty does not limit its rate, a UART would; USB CDC
  ignores the rate and is bounded by 1 ms USB frames on a real board).
- Button latency: from the twin's pin changing to the host's edge callback (debounce 0).
- Entropy throughput: raw bytes per second received against credits.
- Display throughput: whole 1 KiB frames per second (DISPLAY_PAGES of 192 bytes), against the
  frames per second 115200 baud could carry.

    .venv/bin/python bench/bench_bridge.py [--pings 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pings", type=int, default=2000)
    args = parser.parse_args()
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
