"""SP 800-90B continuous health tests: the cutoffs, exact trigger points, start-up, stickiness."""

from __future__ import annotations

import hashlib
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from engine.errors import EntropyError
from engine.fairness import bits_from_bytes
from engine.health import (
    AdaptiveProportionTest,
    HealthMonitor,
    RepetitionCountTest,
    apt_cutoff,
    rct_cutoff,
)


def good_bytes(n: int, label: bytes = b"health") -> bytes:
    blocks = (hashlib.sha256(label + i.to_bytes(8, "big")).digest() for i in itertools.count())
    return b"".join(itertools.islice(blocks, -(-n // 32)))[:n]


# --- cutoffs ----------------------------------------------------------------------------------


def test_cutoffs_for_one_bit_per_sample() -> None:
    assert rct_cutoff(1) == 21
    assert apt_cutoff(1, 512) == 311
    assert RepetitionCountTest(1).cutoff == 21
    assert AdaptiveProportionTest(1).cutoff == 311


@pytest.mark.parametrize(("h", "expected"), [(0.5, 41), (2, 11), (4, 6), (7.5, 4), (8, 4), (20, 2)])
def test_rct_cutoff_formula(h: float, expected: int) -> None:
    assert rct_cutoff(h) == expected


# SP 800-90B table 2 (alpha = 2^-20): window 512 for binary, 1024 for non-binary sources.
@pytest.mark.parametrize(
    ("h", "window", "expected"),
    [(0.5, 512, 410), (1, 512, 311), (1, 1024, 589), (0.5, 1024, 793), (8, 1024, 18)],
)
def test_apt_cutoffs_of_the_standard(h: float, window: int, expected: int) -> None:
    assert apt_cutoff(h, window) == expected


@settings(max_examples=40, deadline=None)
@given(
    h=st.one_of(st.integers(1, 12), st.floats(0.05, 12.0)),
    window=st.sampled_from([64, 512, 1024]),
    alpha_exp=st.integers(10, 30),
)
def test_apt_cutoff_is_the_smallest_with_tail_at_most_alpha(
    h: float, window: int, alpha_exp: int
) -> None:
    c = apt_cutoff(h, window, alpha_exp)
    p, alpha = 2.0**-h, 2.0**-alpha_exp
    # binom.sf(c - 1) = P(X >= c); allow float slack only right at the boundary.
    assert binom.sf(c - 1, window, p) <= alpha * (1 + 1e-9)
    if c > 2:
        assert binom.sf(c - 2, window, p) > alpha * (1 - 1e-9)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), 65])
def test_min_entropy_range(bad: float) -> None:
    with pytest.raises(ValueError, match="min_entropy"):
        RepetitionCountTest(bad)
    with pytest.raises(ValueError, match="min_entropy"):
        HealthMonitor("x", bad)


def test_other_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="window"):
        apt_cutoff(1, 1)
    with pytest.raises(ValueError, match="alpha_exp"):
        rct_cutoff(1, 0)
    with pytest.raises(ValueError, match="startup_samples"):
        HealthMonitor("x", 1, startup_samples=0)


# --- exact trigger points ---------------------------------------------------------------------


def test_rct_fires_exactly_at_the_cutoff() -> None:
    rct = RepetitionCountTest(1)
    assert all(rct.update(7) for _ in range(20))  # 20 in a row is allowed
    assert rct.update(3)  # a different value restarts the run
    assert all(rct.update(3) for _ in range(19))
    assert not rct.update(3)  # the 21st in a row
    assert "21 times in a row" in rct.detail()


def test_apt_fires_exactly_at_the_cutoff() -> None:
    apt = AdaptiveProportionTest(1, window=512)
    # Window 1: its first value appears 310 times (one below the cutoff): no failure.
    window = [1, 0] * 202 + [1] * 108
    assert window.count(1) == 310 and len(window) == 512
    assert all(apt.update(b) for b in window)
    # Window 2 starts afresh: it fails at its 311th one, not before.
    stream = iter([1, 1, 0] * 156)
    taken = list(itertools.takewhile(apt.update, stream))
    assert taken.count(1) == 310  # takewhile drops the failing sample, the 311th one
    assert "seen 311 times" in apt.detail()


def test_apt_counts_the_first_value_of_each_window_only() -> None:
    apt = AdaptiveProportionTest(1, window=64)
    assert apt.cutoff == 51
    # 0 leads every window: ones are the vast majority, but the test counts the leading value.
    assert all(apt.update(b) for b in ([0] + [1] * 63) * 3)
    assert all(apt.update(0) for _ in range(50))
    assert not apt.update(0)


def test_apt_cutoff_above_the_window_never_fires() -> None:
    apt = AdaptiveProportionTest(1, window=8)  # even 8 of 8 is likelier than 2^-20
    assert apt.cutoff == 9
    assert all(apt.update(0) for _ in range(64))


# --- the monitor ------------------------------------------------------------------------------


def test_stuck_source_fails_the_repetition_count_test_at_sample_21() -> None:
    monitor = HealthMonitor("hwrng", 1)
    with pytest.raises(EntropyError) as info:
        monitor.feed([1] * 100)
    assert info.value.source == "hwrng"
    assert str(info.value).startswith("entropy source hwrng: failed the repetition count test (")
    assert monitor.samples_seen == 21
    assert monitor.failed is not None and "repetition count" in monitor.failed
    assert not monitor.ready


def test_constant_bytes_fail_fast_at_eight_bits_per_sample() -> None:
    monitor = HealthMonitor("kernel", 8, window=1024)
    with pytest.raises(EntropyError, match="repetition count"):
        monitor.feed(bytes(64))
    assert monitor.samples_seen == 4  # cutoff 1 + ceil(20/8)


def test_biased_stream_without_long_runs_fails_the_adaptive_proportion_test() -> None:
    # Two ones in three bits: runs of at most 2, so only the proportion test can see it.
    monitor = HealthMonitor("buttons", 1)
    with pytest.raises(EntropyError, match="adaptive proportion") as info:
        monitor.feed([1, 1, 0] * 1000)
    assert monitor.samples_seen <= 2 * 512  # within the second window at the latest
    assert "cutoff 311" in str(info.value)


def test_heavily_biased_bytes_fail() -> None:
    # A byte source claiming 4 bits/sample that emits 0x00 half of the time.
    data = bytes(b if i % 2 else 0 for i, b in enumerate(good_bytes(4096)))
    monitor = HealthMonitor("file:capture.bin", 4, window=1024)
    with pytest.raises(EntropyError, match="adaptive proportion"):
        monitor.feed(data)
    assert monitor.samples_seen <= 2048


def test_good_streams_pass_and_become_ready() -> None:
    data = good_bytes(20_000)
    as_bytes = HealthMonitor("kernel", 7, window=1024)
    as_bytes.feed(data)
    as_bits = HealthMonitor("hwrng", 1)
    as_bits.feed(bits_from_bytes(data))
    for monitor, n in ((as_bytes, 20_000), (as_bits, 160_000)):
        assert monitor.ready and monitor.failed is None and monitor.samples_seen == n


def test_ready_only_after_the_startup_samples() -> None:
    monitor = HealthMonitor("hwrng", 8, window=1024)
    data = good_bytes(1024)
    monitor.feed(data[:1023])
    assert not monitor.ready and monitor.samples_seen == 1023
    monitor.feed(data[1023:])
    assert monitor.ready
    short = HealthMonitor("hwrng", 8, startup_samples=4096)
    short.feed(data)
    assert not short.ready


def test_failure_is_sticky() -> None:
    monitor = HealthMonitor("hwrng", 1)
    monitor.feed(bits_from_bytes(good_bytes(256)))
    assert monitor.ready
    with pytest.raises(EntropyError) as first:
        monitor.feed([1] + [0] * 30)
    for later in ([], [0, 1], bits_from_bytes(good_bytes(256))):
        with pytest.raises(EntropyError) as again:
            monitor.feed(later)
        assert str(again.value) == str(first.value)
    assert not monitor.ready
    assert monitor.samples_seen == 2048 + 1 + 21
    assert "at sample 2070" in (monitor.failed or "")


def test_feed_accepts_any_iterable_of_integers() -> None:
    monitor = HealthMonitor("bridge", 4, startup_samples=16)
    monitor.feed(b & 0x0F for b in good_bytes(16))  # e.g. timestamp low bits
    assert monitor.ready
    assert "bridge" in repr(monitor) and "ready" in repr(monitor)
