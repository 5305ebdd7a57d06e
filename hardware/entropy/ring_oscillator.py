"""The entropy source ``bridge``: raw ring-oscillator bits from the Pico.

The Pico streams raw bits only against credits granted here. Every bit goes through the
SP 800-90B repetition count and adaptive proportion tests (tuned for
:data:`~firmware_bridge.noise.TESTED_BITS_PER_SAMPLE`) and every window of 8192 bits through
the SP 800-90B non-IID estimators (:class:`~hardware.entropy.assessment.EntropyAssessor`, kind
``bridge``) before any is used; a predictable stream is refused naming the estimator, as for
every source. A fresh start-up test and first window run after every connection to the Pico; every
bit credited has been judged in a whole window first; a window that an LFSR could have made
(PRBS15 to PRBS31, which pass the estimators) is refused by its linear complexity; a
chunk that follows an event gap is dropped unused. The batch is conditioned with SHA-512 like
every source and credited the latest minimum estimate times the design factor per bit. A Pico
without ring-oscillator bits (an RP2350) makes the source unavailable, saying so in one line.
See docs/bridge.md.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable

from engine.errors import EntropyError
from firmware_bridge import noise
from firmware_bridge.errors import BridgeError
from firmware_bridge.firmware import codec
from firmware_bridge.link import Hello, Link
from hardware.entropy.assessment import EntropyAssessor
from hardware.entropy.sources import CREDIT_CAP_BITS, Contribution, SourceUnavailable, _test_name, condition

#: The credit's 16-bit count as the board reads it. The codec is the board's own MicroPython
#: module, plain code without annotations (its host-side types are firmware_bridge's): this
#: names the type of the one function taken from it here.
PUT_U16: Callable[[int], bytes] = codec.put_u16

#: Raw bytes granted per credit: an estimator window's worth (8192 bits).
GRANT_BYTES = 1024
#: Raw bytes per chunk: short, so button edges never wait long behind entropy.
CHUNK_BYTES = 64


class BridgeSource:
    """Raw bits from the Pico on ``link``, health-tested, conditioned, credited conservatively."""

    name = "bridge"

    def __init__(self, link: Link, *, timeout_s: float = 5.0) -> None:
        self.timeout_s = timeout_s
        self.monitor = noise.monitor(self.name)
        self.assessor = EntropyAssessor(self.name, "bridge", width=1)
        self.restarts = 0  # start-up tests begun again after a reboot of the Pico
        self.discarded = 0
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._unavailable: str | None = None
        self._no_bits: str | None = None
        self.bind(link)

    def bind(self, link: Link) -> None:
        """Take the bits from ``link`` (a command opens a fresh one for each gather)."""
        self.link = link
        link.on_entropy(self._chunk)
        link.on_connect(self._connected)

    def __repr__(self) -> str:
        return f"BridgeSource({self.status()})"

    @property
    def failed(self) -> str | None:
        return self.monitor.failed or self.assessor.failed

    def status(self) -> str:
        failure = self.failed
        if failure:
            return "FAILED " + _test_name(failure)
        if self._unavailable:
            return self._unavailable
        return "ok" if self.monitor.ready and self.assessor.rate is not None else "idle"

    def _connected(self, hello: Hello, new_boot: bool) -> None:
        if self.failed is None and self.monitor.samples_seen:
            # every connection (a reboot, a replug, a cable that came back) is a new source run:
            # its start-up test and first estimate are due again (a failure stays: a source that
            # failed is out of service until the restart)
            self.monitor = noise.monitor(self.name)
            self.assessor = EntropyAssessor(self.name, "bridge", width=1)
            self.restarts += 1
        self._no_bits = None if hello.entropy else (
            f"the Pico ({hello.firmware or 'firmware ' + str(hello.major) + '.' + str(hello.minor)}) "
            "offers no ring-oscillator bits: the bridge reads them only on an RP2040 (not a Pico 2's RP2350)")
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
        """Raw bits per session: enough for the start-up test and the first estimate, then for
        the credit cap at the estimated rate, always in whole windows: every bit credited has
        been judged by the estimators in this gather (a window judged only once full, and a
        credit from the previous window's estimate, let a source that turned into a pattern be
        credited for three gathers before it was refused)."""
        startup = max(0, self.monitor.startup_samples - self.monitor.samples_seen)
        rate = self.assessor.rate
        wanted = max(startup, self.assessor.needed if rate is None else math.ceil(CREDIT_CAP_BITS / rate))
        pending = self.assessor.pending
        window = self.assessor.window if self.assessor.last is not None else self.assessor.startup
        # up to the end of a window: nothing is left pending unjudged
        return wanted + (-(pending + wanted) % window)

    def gather(self) -> Contribution:
        if self.failed:
            raise EntropyError(self.name, self.failed)
        if self._no_bits:
            self._unavailable = "no entropy"
            raise SourceUnavailable(self.name, self._no_bits)
        raw = self._read(math.ceil(self.samples_needed() / 8))
        bits = noise.unpack_bits(raw)
        self.monitor.feed(bits)  # raises EntropyError (sticky) before anything is used
        self.assessor.feed(bits)  # so does an estimate below the floor, naming the estimator
        if not self.monitor.ready or self.assessor.rate is None:
            raise SourceUnavailable(self.name, "the start-up test has not completed")
        self._unavailable = None
        return condition(self.name, raw, len(bits) * self.assessor.rate)

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
                raise SourceUnavailable(self.name, f"the Pico sent {have} of {nbytes} raw bytes "
                                                   f"within {self.timeout_s:g} s")
            self._grant(min(GRANT_BYTES, nbytes - have))
            with self._cond:
                self._cond.wait_for(lambda: len(self._buf) >= nbytes, timeout=0.25)
        with contextlib.suppress(SourceUnavailable):  # the Pico stops at its credit's end anyway
            self._grant(0)
        return raw

    def _grant(self, nbytes: int) -> None:
        try:
            self.link.request(codec.ENTROPY_CREDIT, PUT_U16(nbytes) + bytes((CHUNK_BYTES,)))
        except BridgeError as exc:
            self._unavailable = "unavailable"
            raise SourceUnavailable(self.name, str(exc)) from None


#: Where a command finds the Pico for ``--entropy bridge`` (as the pin factory does).
PORT_ENV = "DICETOWER_BRIDGE_PORT"


class CommandBridgeSource:
    """``--entropy bridge`` for a command (``dicetower roll``): the Pico at
    ``$DICETOWER_BRIDGE_PORT`` (a path, a pyserial URL, or ``twin``) or the first Pico by USB id,
    opened for each gather and closed after it, so a command leaves no port open. The health
    monitor and the estimates carry on from one gather to the next while the Pico keeps its
    boot id."""

    name = "bridge"

    def __init__(self, port: str | None = None, *, timeout_s: float = 5.0) -> None:
        import os

        self.port = port if port is not None else (os.environ.get(PORT_ENV) or None)
        self.timeout_s = timeout_s
        self._source: BridgeSource | None = None
        self._boot_id: int | None = None

    @property
    def failed(self) -> str | None:
        return self._source.failed if self._source is not None else None

    def status(self) -> str:
        return self._source.status() if self._source is not None else "idle"

    def gather(self) -> Contribution:
        from firmware_bridge.pins import open_link

        link, twin = open_link(self.port or None)
        try:
            try:
                hello = link.wait_up(self.timeout_s)
            except BridgeError as exc:
                raise SourceUnavailable(self.name, f"{exc} (set {PORT_ENV} to the Pico's port, e.g. "
                                                   "/dev/ttyACM0)") from None
            if self._source is None:
                self._source = BridgeSource(link, timeout_s=self.timeout_s)
            else:
                self._source.bind(link)
            self._source._connected(hello, new_boot=hello.boot_id != self._boot_id)
            self._boot_id = hello.boot_id
            return self._source.gather()
        finally:
            link.close()
            if twin is not None:
                twin.close()
