"""The entropy source ``bridge``: raw ring-oscillator bits from the companion board.

The board streams raw bits only against credits granted here. Every bit goes through the
SP 800-90B repetition count and adaptive proportion tests (tuned for
:data:`~firmware_bridge.noise.TESTED_BITS_PER_SAMPLE`) before any is used; a fresh start-up
test runs after every reboot of the board; a chunk that follows an event gap is dropped
unused. The batch is conditioned with SHA-512 like every source and credited
:data:`~firmware_bridge.noise.CREDIT_BITS_PER_SAMPLE` per bit. See docs/bridge.md.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time

from engine.errors import EntropyError
from firmware_bridge import noise
from firmware_bridge.errors import BridgeError
from firmware_bridge.firmware import codec
from firmware_bridge.link import Hello, Link
from hardware.entropy.sources import CREDIT_CAP_BITS, Contribution, SourceUnavailable, condition

#: Raw bytes granted per credit (and per chunk): short, so button edges never wait long.
GRANT_BYTES = 512
CHUNK_BYTES = 64


class BridgeSource:
    """Raw bits from the board on ``link``, health-tested, conditioned, credited conservatively."""

    name = "bridge"

    def __init__(self, link: Link, *, timeout_s: float = 5.0) -> None:
        self.link = link
        self.timeout_s = timeout_s
        self.monitor = noise.monitor(self.name)
        self.restarts = 0  # start-up tests begun again after a reboot of the board
        self.discarded = 0
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._unavailable: str | None = None
        link.on_entropy(self._chunk)
        link.on_connect(self._connected)

    def __repr__(self) -> str:
        return f"BridgeSource({self.status()})"

    @property
    def failed(self) -> str | None:
        return self.monitor.failed

    def status(self) -> str:
        failure = self.monitor.failed
        if failure:
            return "FAILED " + ("RCT" if "repetition count" in failure else "APT")
        if self._unavailable:
            return self._unavailable
        return "ok" if self.monitor.ready else "idle"

    def _connected(self, hello: Hello, new_boot: bool) -> None:
        if new_boot and self.monitor.failed is None and self.monitor.samples_seen:
            # a rebooted board is a new source run: its start-up test is due again (a failure
            # stays: a source that failed is out of service until the tower restarts)
            self.monitor = noise.monitor(self.name)
            self.restarts += 1
        with self._cond:
            self._buf.clear()

    def _chunk(self, raw: bytes, contiguous: bool) -> None:
        with self._cond:
            if contiguous:
                self._buf.extend(raw)
            else:
                self.discarded += 1
            self._cond.notify_all()

    def samples_needed(self) -> int:
        """Raw bits per session: enough for the start-up test and for the credit cap."""
        startup = max(0, self.monitor.startup_samples - self.monitor.samples_seen)
        return max(startup, math.ceil(CREDIT_CAP_BITS / noise.CREDIT_BITS_PER_SAMPLE))

    def gather(self) -> Contribution:
        if self.monitor.failed:
            raise EntropyError(self.name, self.monitor.failed)
        raw = self._read(math.ceil(self.samples_needed() / 8))
        bits = noise.unpack_bits(raw)
        self.monitor.feed(bits)  # raises EntropyError (sticky) before anything is used
        if not self.monitor.ready:
            raise SourceUnavailable(self.name, "the start-up test has not completed")
        self._unavailable = None
        return condition(self.name, raw, len(bits) * noise.CREDIT_BITS_PER_SAMPLE)

    def _read(self, nbytes: int) -> bytes:
        deadline = time.monotonic() + self.timeout_s
        with self._cond:
            self._buf.clear()
        while True:
            with self._cond:
                have = len(self._buf)
                if have >= nbytes:
                    raw = bytes(self._buf[:nbytes])
                    del self._buf[:nbytes]
                    break
            if time.monotonic() > deadline:
                self._unavailable = "unavailable"
                raise SourceUnavailable(self.name, f"the companion board sent {have} of {nbytes} raw bytes "
                                                   f"within {self.timeout_s:g} s")
            self._grant(min(GRANT_BYTES, nbytes - have))
            with self._cond:
                self._cond.wait_for(lambda: len(self._buf) >= nbytes, timeout=0.25)
        with contextlib.suppress(SourceUnavailable):  # the board stops at its credit's end anyway
            self._grant(0)
        return raw

    def _grant(self, nbytes: int) -> None:
        try:
            self.link.request(codec.ENTROPY_CREDIT, codec.put_u16(nbytes) + bytes((CHUNK_BYTES,)))
        except BridgeError as exc:
            self._unavailable = "unavailable"
            raise SourceUnavailable(self.name, str(exc)) from None
