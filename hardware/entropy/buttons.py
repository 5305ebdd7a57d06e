"""Button timing: nanosecond timestamps of the panel's button edges as an entropy source.

The panel runtime calls :meth:`ButtonTiming.edge` for every debounced edge. The timing is
entropy for the *next* session, never for the roll a press makes: the device measures it
after the session's commitment, so a modified program could choose it (try press times a few
microseconds apart until a roll suits it). Every edge's timestamp goes into the pool
uncredited; a deliberate tap also earns credit towards seeding: :data:`CREDIT_BITS_PER_PRESS`
(2 bits, less if the latest SP 800-90B estimate is lower), nothing for anything else. Why 2 bits: a human press lands
with a timing spread of tens of milliseconds (motor jitter), and even at a coarse 1 ms
resolution a spread with a standard deviation of 5 ms already has a most likely millisecond
of probability below 0.1, i.e. more than 3 bits of min-entropy; the clock resolves
microseconds. Crediting 2 bits leaves room for an observer who sees the player's hand.

A press earns nothing when it is (rules in :meth:`ButtonTiming._credit`):
- the first press (there is no interval to measure yet);
- less than 50 ms after the previous press of any button (no deliberate human press is that
  fast: a bounce or a machine);
- a hold (released after ``hold_ns``) or a blip shorter than 20 ms, or a press whose
  release never came (the button stays held), or one repeated (pressed again before release);
- a repeat: its press-to-press interval is within 1 ms of the previous interval (a rhythm
  that regular is an auto-repeat or a machine, not a hand);
- on a clock that does not resolve below a millisecond (an interval of whole milliseconds);
- after the health tests failed, or while the time runs backwards.

Health tests: each press's interval in microseconds, low byte, is one sample for an
SP 800-90B monitor claiming 2 bits per sample (a stuck or coarse clock fails it). The start-
up test is shortened to 16 presses (SP 800-90B asks 1024 samples, which would mean 1024
presses before the first roll); until it passes, no credit is given.
"""

from __future__ import annotations

import hashlib
import struct
import threading

from engine.errors import EntropyError
from engine.health import HealthMonitor
from hardware.entropy.assessment import EntropyAssessor
from hardware.entropy.sources import CREDIT_CAP_BITS, Contribution, condition

__all__ = [
    "CREDIT_BITS_PER_PRESS",
    "HOLD_NS",
    "MIN_INTERVAL_NS",
    "MIN_TAP_NS",
    "REGULAR_NS",
    "STARTUP_PRESSES",
    "ButtonTiming",
]

#: Credit for one deliberate tap, in bits of min-entropy.
CREDIT_BITS_PER_PRESS = 2
#: Press-to-press intervals shorter than this are not human.
MIN_INTERVAL_NS = 50_000_000
#: Presses shorter than this are bounces.
MIN_TAP_NS = 20_000_000
#: Presses at least this long are holds (the runtime passes its own threshold).
HOLD_NS = 500_000_000
#: Intervals this close to the previous interval are a machine rhythm.
REGULAR_NS = 1_000_000
#: Presses in the shortened start-up health test.
STARTUP_PRESSES = 16

_U64 = (1 << 64) - 1


class ButtonTiming:
    """Collects button edges for the next session: every edge uncredited, credit for deliberate taps.

    Thread-safe: gpiozero calls back from its own threads. A failed health test is sticky;
    :meth:`edge` never raises (the panel keeps working), it records the failure, which
    :attr:`failed` and :meth:`status` report and the session acts on.
    """

    name = "buttons"

    def __init__(
        self,
        *,
        hold_ns: int = HOLD_NS,
        min_interval_ns: int = MIN_INTERVAL_NS,
        min_tap_ns: int = MIN_TAP_NS,
        startup_presses: int = STARTUP_PRESSES,
    ) -> None:
        if not 0 < min_tap_ns < hold_ns:
            raise ValueError(f"need 0 < min_tap_ns < hold_ns, got {min_tap_ns} and {hold_ns}")
        self.hold_ns = hold_ns
        self.min_interval_ns = min_interval_ns
        self.min_tap_ns = min_tap_ns
        self.assessor = EntropyAssessor("buttons", "buttons")
        self.monitor = HealthMonitor("buttons", float(CREDIT_BITS_PER_PRESS), startup_samples=startup_presses,
                                     window=64)
        self._lock = threading.Lock()
        self._edges = hashlib.sha512()  # every edge since the last take, uncredited
        self._pool: list[bytes] = []
        self._pool_bits = 0
        self._down: dict[str, tuple[int, bool]] = {}  # button -> (press time, eligible for credit)
        self._last_press: int | None = None
        self._last_interval: int | None = None
        self._last_t: int | None = None
        self._presses = 0
        self._credited_presses = 0

    def __repr__(self) -> str:
        return f"ButtonTiming({self.status()})"

    # --- input ---------------------------------------------------------------------------------

    def edge(self, button: str, pressed: bool, t_ns: int) -> int:
        """Record one debounced edge at monotonic time ``t_ns``; return the bits credited (0 or 2)."""
        if isinstance(t_ns, bool) or not isinstance(t_ns, int):
            raise TypeError(f"t_ns must be an int of nanoseconds, got {t_ns!r}")
        with self._lock:
            self._edges.update(struct.pack(">?Q", bool(pressed), t_ns & _U64) + str(button).encode()[:16])
            if self.failed:
                return 0
            backwards = self._last_t is not None and t_ns < self._last_t
            self._last_t = t_ns if not backwards else self._last_t
            if backwards:
                self._down.clear()  # nothing in flight can be trusted
                return 0
            if pressed:
                self._press(str(button), t_ns)
                return 0
            return self._release(str(button), t_ns)

    def _press(self, button: str, t: int) -> None:
        if button in self._down:
            # Pressed again without a release (an auto-repeat, or a lost release): a repeat.
            # It is uncredited input only, and the press it repeats can no longer earn credit.
            self._down[button] = (self._down[button][0], False)
            return
        self._presses += 1
        eligible = False
        if self._last_press is not None:
            interval = t - self._last_press
            try:
                sample = [(interval // 1000) & 0xFF]
                self.monitor.feed(sample)
                self.assessor.feed(sample)  # an estimate below the floor fails like a health test
            except EntropyError:
                self._pool.clear()
                self._pool_bits = 0
                self._down.clear()
                return
            eligible = self._credit(interval)
            self._last_interval = interval
        self._last_press = t
        self._down[button] = (t, eligible)

    def _credit(self, interval: int) -> bool:
        """Whether a press after ``interval`` ns may earn credit once released as a tap."""
        if interval < self.min_interval_ns:
            return False  # faster than a deliberate human press
        if self._last_interval is not None and abs(interval - self._last_interval) < REGULAR_NS:
            return False  # a repeat: machine-regular rhythm
        return interval % 1_000_000 != 0  # the clock must resolve below a millisecond

    def _release(self, button: str, t: int) -> int:
        down = self._down.pop(button, None)
        if down is None:
            return 0  # a release without a press we saw
        pressed_at, eligible = down
        duration = t - pressed_at
        if not eligible or not self.min_tap_ns <= duration < self.hold_ns:
            return 0
        if self._pool_bits + CREDIT_BITS_PER_PRESS > CREDIT_CAP_BITS:
            return 0  # the pool is full; the press is still uncredited input
        self._pool.append(struct.pack(">QQ", pressed_at & _U64, t & _U64))
        self._pool_bits += CREDIT_BITS_PER_PRESS
        self._credited_presses += 1
        return CREDIT_BITS_PER_PRESS

    # --- output --------------------------------------------------------------------------------

    @property
    def failed(self) -> str | None:
        return self.monitor.failed or self.assessor.failed

    @property
    def ready(self) -> bool:
        """The start-up health test has passed (and nothing failed since)."""
        return self.monitor.ready and not self.failed

    def _credit_for(self, presses: int) -> int:
        """The pooled presses' credit: 2 bits each, less if the timing's latest SP 800-90B
        estimate (times the design factor) is lower."""
        rate = self.assessor.rate
        per_press = CREDIT_BITS_PER_PRESS if rate is None else min(float(CREDIT_BITS_PER_PRESS), rate)
        return min(self._pool_bits, int(presses * per_press))

    @property
    def credited_bits(self) -> int:
        """Bits credited and not yet used to seed a session."""
        with self._lock:
            return self._credit_for(len(self._pool))

    @property
    def presses(self) -> int:
        return self._presses

    def take_credited(self) -> Contribution | None:
        """The pooled taps and every edge since the last take, conditioned, with the taps'
        credit; None when there is nothing credited.

        Empties the pool: each press goes into one session only.
        """
        with self._lock:
            if not self.ready or not self._pool:
                return None
            raw = b"".join(self._pool) + self._edges.digest()
            bits = self._credit_for(len(self._pool))
            self._pool.clear()
            self._pool_bits = 0
            self._edges = hashlib.sha512()
        return condition(self.name, raw, bits)

    def gather(self) -> Contribution:
        """The :class:`~hardware.entropy.sources.EntropySource` form of :meth:`take_credited`."""
        if self.failed:
            raise EntropyError(self.name, self.failed)
        got = self.take_credited()
        if got is None:
            return Contribution(self.name, b"", 0, 0)
        return got

    def status(self) -> str:
        failed = self.failed
        if failed:
            if "SP 800-90B" in failed:
                return "FAILED " + failed.split("SP 800-90B ", 1)[1].split(" estimate", 1)[0]
            return "FAILED " + ("RCT" if "repetition" in failed else "APT")
        if not self.monitor.ready:
            seen = self.monitor.samples_seen
            return f"warming {seen}/{self.monitor.startup_samples}"
        return f"{self.credited_bits}b"
