"""``dicetower bridge selftest``: one full round trip through a Pico (or the twin).

HELLO, pings (payloads with 0x03 bytes), LED levels, display pages, injected button presses
(twin only: a real Pico's buttons need a finger), and an entropy stream through the health
tests. Every reply is checked byte for byte; the result is the JSON the CLI prints.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from engine.errors import EntropyError
from firmware_bridge import noise
from firmware_bridge.errors import BridgeError
from firmware_bridge.firmware import codec
from firmware_bridge.link import Link
from firmware_bridge.twin import Twin

LED_PIN = 25  # the Pico's own LED
BUTTON_PIN = 5
PIECE = 32  # display bytes per request: short frames get through a noisy line


def sizes(noise_p: float) -> tuple[int, int, int]:
    """(most random bytes in a ping, display bytes per request, entropy bytes per chunk): on a
    noisy line shorter frames, as a host on such a line should send, since a frame of n bytes
    gets through whole with probability (1 - p)^n (at p = 0.1, 8 % for 24 bytes, 1 % for 44)."""
    if noise_p == 0:
        return 24, PIECE, 64
    if noise_p <= 0.02:
        return 12, 16, 16
    return 2, 8, 8
ENTROPY_BYTES = 256  # 2048 raw bits: the 1024-sample start-up test and a window more


def run(port: str | None = None, *, noise_p: float = 0.0, seed: int | None = None, pings: int = 40,
        up_timeout: float | None = None, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the self-test; ``port`` None starts the twin (with ``noise_p`` on its line)."""
    twin = Twin(noise=noise_p, seed=seed) if port is None else None
    find = twin.find if twin is not None else (lambda: port)
    checks: dict[str, Any] = {}
    error = None
    if twin is not None:
        twin.plug()
    link = Link(find=find, timeout=30.0 if noise_p else 2.0, log=log)
    try:
        link.start()
        link.wait_up(up_timeout or (60.0 if noise_p else 10.0))
        rng = random.Random(seed)
        ping_bytes, piece, chunk = sizes(noise_p)
        checks["ping"] = _pings(link, rng, pings, ping_bytes)
        checks["leds"] = _leds(link, twin)
        checks["display"] = _display(link, twin, rng, piece)
        checks["buttons"] = _buttons(link, twin)
        checks["entropy"] = _entropy(link, chunk=chunk, overgrant=1 if noise_p == 0 else 40)
    except BridgeError as exc:
        error = str(exc)
    except Exception as exc:  # the JSON is printed whatever happened; the error says what
        error = f"internal error: {type(exc).__name__}: {exc}"
    finally:
        link.close()
        if twin is not None:
            twin.close()
    rtts = sorted(link.stats.rtts) or [0.0]
    result: dict[str, Any] = {
        "ok": error is None and all(v is True or v == "skipped" for v in checks.values()),
        "frames": link.stats.frames_rx + link.stats.frames_tx,
        "rtt_ms": {"p50": round(statistics.median(rtts) * 1000, 3),
                   "p99": round(rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))] * 1000, 3)},
        "dropped_bad": link.stats.dropped_bad,
        "retransmits": link.stats.retransmits,
        "checks": checks,
        "port": "twin" if twin is not None else port,
        "noise": noise_p,
    }
    if twin is not None:
        result["line_faults"] = twin.faults
    if error is not None:
        result["error"] = error
    return result


def _pings(link: Link, rng: random.Random, n: int, most: int) -> bool | str:
    for i in range(n):
        payload = bytes((3,)) * (i % 4) + rng.randbytes(rng.randrange(0, most + 1))
        if link.request(codec.PING, payload) != payload:
            return f"ping {i}: reply differs"
    return True


def _leds(link: Link, twin: Twin | None) -> bool | str:
    link.request(codec.PIN_MODE, bytes((LED_PIN, codec.MODE_PWM, 0, 0)))
    for duty in (65535, 16384, 0):
        link.request(codec.PIN_SET, bytes((LED_PIN,)) + codec.put_u16(duty) + codec.put_u16(1000))
        if twin is not None and abs(twin.level(LED_PIN) - duty / 65535) > 1e-6:
            return f"LED GP{LED_PIN} at {twin.level(LED_PIN):.3f}, {duty / 65535:.3f} was set"
    state = link.get_state()
    return True if state.get(LED_PIN) == (codec.MODE_PWM, 0) else f"state says {state.get(LED_PIN)}"


def _display(link: Link, twin: Twin | None, rng: random.Random, piece: int) -> bool | str:
    link.request(codec.DISPLAY_INIT, bytes((128, 64, 0x3C)))
    frame = rng.randbytes(128 * 8)
    for at in range(0, len(frame), piece):
        page, col = divmod(at, 128)
        link.request(codec.DISPLAY_PAGES, bytes((page, col)) + frame[at : at + piece])
    link.request(codec.DISPLAY_SHOW, bytes((0xFF, 1)))
    if twin is not None and twin.pico is not None and bytes(twin.pico.oled.gddram) != frame:
        return "the display memory differs from the frame sent"
    return True


def _buttons(link: Link, twin: Twin | None) -> bool | str:
    if twin is None:
        return "skipped"
    link.request(codec.PIN_MODE, bytes((BUTTON_PIN, codec.MODE_INPUT, codec.PULL_UP, 5)))
    seen: list[int] = []
    done = threading.Event()

    def edge(pin: int, level: int, at: float) -> None:
        if pin == BUTTON_PIN:
            seen.append(level)
            done.set()

    link.on_edge(edge)
    for down in (True, False):
        done.clear()
        twin.press(BUTTON_PIN, down)
        if not done.wait(5.0):
            # the edge may have been lost on a noisy line: the state request must still show it
            level = link.get_state().get(BUTTON_PIN, (0, -1))[1]
            if level != (0 if down else 1):
                return f"press={down}: no edge and the state says level {level}"
    return True


def _entropy(link: Link, chunk: int, overgrant: int = 1) -> bool | str:
    """ENTROPY_BYTES contiguous raw bytes through the health tests. On a noisy line most chunks
    are lost (and the one after each loss is not used), so the grant is ``overgrant`` times what
    is still missing, and the Pico streams without waiting for a round trip per grant."""
    monitor = noise.monitor("bridge")
    got = bytearray()
    lock = threading.Lock()
    arrived = threading.Event()

    def on_chunk(raw: bytes, contiguous: bool) -> None:
        if contiguous:
            with lock:
                got.extend(raw)
            arrived.set()

    link.on_entropy(on_chunk)
    deadline = time.monotonic() + 60.0
    while len(got) < ENTROPY_BYTES:
        if time.monotonic() > deadline:
            return f"only {len(got)} of {ENTROPY_BYTES} entropy bytes arrived"
        arrived.clear()
        grant = min(0xFFFF, (ENTROPY_BYTES - len(got)) * overgrant)
        link.request(codec.ENTROPY_CREDIT, codec.put_u16(grant) + bytes((chunk,)))
        arrived.wait(0.2)
        while arrived.wait(0.05):  # until the stream stops (credit used up or chunks lost)
            arrived.clear()
    link.request(codec.ENTROPY_CREDIT, codec.put_u16(0))
    try:
        monitor.feed(noise.unpack_bits(bytes(got)))
    except EntropyError as exc:
        return str(exc)
    return True if monitor.ready else "the start-up test did not complete"
