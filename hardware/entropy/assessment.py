"""Entropy estimated, not assumed: SP 800-90B 6.3 estimates of each source's raw samples.

Every source's start-up samples, and then every further window of raw samples, go through
the ten non-IID estimators of :mod:`engine.estimators`. A source is credited the *minimum*
estimate times its design factor (how much of what the statistics see the source's design
lets us trust); an estimate below the source's floor takes it out of service, naming the
estimator, exactly like a failed health test. Both, and the windows, are the source's row in
:data:`hardware.backends.ENTROPY_SOURCES`; the figures per source are in docs/fairness.md.
"""

from __future__ import annotations

import threading

from engine.errors import EntropyError
from engine.estimators import Assessment, assess
from engine.linear_complexity import too_linear
from hardware import backends
from hardware.backends import EntropyKind

__all__ = ["EntropyAssessor"]


def _row(kind: str) -> EntropyKind:
    return backends.ENTROPY_SOURCES.get(kind)


class EntropyAssessor:
    """Collects a source's raw samples and estimates each full window.

    :meth:`feed` raises :class:`EntropyError` (sticky: :attr:`failed`) when an estimate falls
    below the floor; :attr:`rate` is the credit per sample from the latest estimate (None
    before the first window is full).
    """

    def __init__(self, source: str, kind: str, *, width: int = 8) -> None:
        if kind not in backends.ENTROPY_SOURCES:
            raise ValueError(f"no entropy floor for source kind {kind!r}; known: "
                             f"{', '.join(backends.ENTROPY_SOURCES.names())}")
        self.source = source
        self.kind = kind
        self.width = width
        self.startup, self.window = _row(kind).windows
        self.last: Assessment | None = None
        self.failed: str | None = None
        self._pending: list[int] = []
        self._lock = threading.Lock()

    @property
    def pending(self) -> int:
        """Samples collected towards the next estimate."""
        return len(self._pending)

    @property
    def needed(self) -> int:
        """Samples still needed before the next estimate."""
        size = self.window if self.last is not None else self.startup
        return max(0, size - len(self._pending))

    @property
    def rate(self) -> float | None:
        """Credited bits per sample: the latest minimum estimate (at most the row's ceiling)
        times the design factor."""
        if self.last is None or self.failed:
            return None
        row = _row(self.kind)
        estimate = self.last.minimum[1]
        return (estimate if row.ceiling is None else min(estimate, row.ceiling)) * row.design_factor

    def feed(self, samples: bytes | list[int]) -> None:
        with self._lock:
            if self.failed:
                raise EntropyError(self.source, self.failed)
            self._pending.extend(samples)
            while len(self._pending) >= (self.window if self.last is not None else self.startup):
                size = self.window if self.last is not None else self.startup
                batch, self._pending = self._pending[:size], self._pending[size:]
                self._judge(assess(batch, self.width))
                if self.width == 1:
                    self._linear(batch)  # after the estimators: a pattern they see is named by them

    def _linear(self, bits: list[int]) -> None:
        """A one-bit source's window must not be an LFSR's: PRBS15 to PRBS31 pass every
        estimator (engine/linear_complexity.py)."""
        found = too_linear(bits)
        if found is not None:
            self.failed = (f"failed the linear complexity test ({found} over {len(bits)} bits; noise has about "
                           f"{len(bits) // 2}): a shift register's pattern, not noise")
            raise EntropyError(self.source, self.failed)

    def _judge(self, result: Assessment) -> None:
        name, bits = result.minimum
        floor = _row(self.kind).floor
        if bits < floor:
            self.failed = (f"failed the SP 800-90B {name} estimate ({bits:.2f} bits of min-entropy per sample "
                           f"over {result.samples} samples; at least {floor:g} needed): a pattern, not noise")
            raise EntropyError(self.source, self.failed)
        self.last = result
