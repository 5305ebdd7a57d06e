"""The host's view of the Pico's raw ring-oscillator bits: how they are unpacked and the
min-entropy the health tests assume for them.

The credit is not fixed here: each window of raw bits goes through SP 800-90B's non-IID
estimators (hardware/entropy/assessment.py, kind ``bridge``); docs/bridge.md ("Crediting the
ring oscillator") gives the figures.
"""

from __future__ import annotations

from engine.health import HealthMonitor

#: Min-entropy per raw bit the health tests are tuned for (RCT cutoff 41, APT 410 of 512).
TESTED_BITS_PER_SAMPLE = 0.5
#: SP 800-90B's adaptive proportion window for binary samples.
BINARY_WINDOW = 512


def unpack_bits(raw: bytes) -> list[int]:
    """The samples of one EV_ENTROPY chunk, in order (first sample in each byte's top bit)."""
    return [(b >> (7 - i)) & 1 for b in raw for i in range(8)]


def monitor(name: str = "bridge") -> HealthMonitor:
    """A fresh health monitor for the raw bits (start-up test of 1024 samples first)."""
    return HealthMonitor(name, TESTED_BITS_PER_SAMPLE, window=BINARY_WINDOW)
