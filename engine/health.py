"""Continuous health tests on raw entropy-source samples (NIST SP 800-90B, section 4.4).

The repetition count test catches a source that gets stuck on one value; the adaptive
proportion test catches one that starts producing a value far more often than its claimed
min-entropy allows. Both are tuned to a false-alarm probability of ``2^-alpha_exp`` per
test (2^-20 by default) for a source that really delivers ``min_entropy`` bits per sample.

Contract for callers: a batch of samples may be used (for seeding or additional input) only
after ``HealthMonitor.feed(batch)`` has returned without raising, and only once the monitor is
``ready`` (its start-up test has passed). Nothing derived from a batch that failed may be
returned; a failed monitor stays failed (a new one is needed, after the source was fixed).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from engine.errors import EntropyError

__all__ = [
    "AdaptiveProportionTest",
    "HealthMonitor",
    "RepetitionCountTest",
    "apt_cutoff",
    "rct_cutoff",
]


def _check_min_entropy(min_entropy: float) -> float:
    if isinstance(min_entropy, bool) or not isinstance(min_entropy, int | float):
        raise TypeError(f"min_entropy must be a number of bits per sample, got {min_entropy!r}")
    if not 0 < min_entropy <= 64 or math.isnan(min_entropy):
        raise ValueError(
            f"min_entropy must be within (0, 64] bits per sample, got {min_entropy}"
        )
    return float(min_entropy)


def _check_alpha(alpha_exp: int) -> int:
    if isinstance(alpha_exp, bool) or not isinstance(alpha_exp, int) or not 1 <= alpha_exp <= 64:
        raise ValueError(f"alpha_exp must be a whole number within 1..64, got {alpha_exp!r}")
    return alpha_exp


def rct_cutoff(min_entropy: float, alpha_exp: int = 20) -> int:
    """SP 800-90B 4.4.1: ``C = 1 + ceil(alpha_exp / H)`` (H=1 -> 21, H=8 -> 4)."""
    h = _check_min_entropy(min_entropy)
    return 1 + math.ceil(_check_alpha(alpha_exp) / h)


def apt_cutoff(min_entropy: float, window: int = 512, alpha_exp: int = 20) -> int:
    """SP 800-90B 4.4.2: ``C = 1 + CRITBINOM(W, 2^-H, 1 - alpha)``.

    That is the smallest ``C`` with ``P(Binomial(W, p) >= C) <= 2^-alpha_exp``, ``p = 2^-H``
    (H=1, W=512 -> 311). Computed exactly with integers: ``p`` is the binary fraction
    ``a / 2^m`` that ``2.0 ** -H`` denotes (exact for whole H), so every binomial term is
    ``comb(W, k) a^k (2^m - a)^(W-k)`` over the common denominator ``2^(mW)``.
    """
    h = _check_min_entropy(min_entropy)
    alpha_exp = _check_alpha(alpha_exp)
    if isinstance(window, bool) or not isinstance(window, int) or not 2 <= window <= 4096:
        raise ValueError(f"window must be a whole number of samples within 2..4096, got {window!r}")
    a, denominator = (2.0**-h).as_integer_ratio()
    m = denominator.bit_length() - 1  # denominator == 2**m
    b = denominator - a
    total = 1 << (m * window)  # sum of all terms: (a + b)^W
    threshold = total >> alpha_exp  # alpha * 2^(mW), exact: alpha_exp <= 64 <= mW
    if 2 * a >= denominator:
        # p >= 1/2: C is near the top; add upper-tail terms from k = W down until the tail
        # exceeds alpha, then C = k + 1. Consecutive terms differ by an exact integer ratio.
        term = a**window  # k = W
        tail = 0
        for k in range(window, -1, -1):
            tail += term
            if tail > threshold:
                return k + 1
            term = term * k * b // ((window - k + 1) * a)
    else:
        # p < 1/2: C is near the bottom; the smallest k with P(X <= k) >= 1 - alpha is
        # CRITBINOM, and C = k + 1.
        term = b**window  # k = 0
        cdf = 0
        for k in range(window + 1):
            cdf += term
            if cdf >= total - threshold:
                # Claims so high that even one repeat is too rare (H >= ~29 for W=512) would
                # give C=1, which the window's own first sample always reaches: keep C >= 2.
                return max(k + 1, 2)
            term = term * (window - k) * a // ((k + 1) * b)
    raise AssertionError("unreachable: the binomial terms sum to 1")


class RepetitionCountTest:
    """SP 800-90B 4.4.1: fails when one value repeats ``cutoff`` times in a row."""

    __slots__ = ("_count", "_last", "cutoff", "min_entropy")

    def __init__(self, min_entropy: float, alpha_exp: int = 20) -> None:
        self.min_entropy = _check_min_entropy(min_entropy)
        self.cutoff = rct_cutoff(min_entropy, alpha_exp)
        self._last: int | None = None
        self._count = 0

    def update(self, sample: int) -> bool:
        """Take one sample; ``False`` when this sample brings the run to the cutoff."""
        if sample == self._last:
            self._count += 1
            return self._count < self.cutoff
        self._last = sample
        self._count = 1
        return True

    def detail(self) -> str:
        return (
            f"value {self._last} seen {self._count} times in a row; "
            f"cutoff {self.cutoff} for {self.min_entropy:g} bits/sample"
        )


class AdaptiveProportionTest:
    """SP 800-90B 4.4.2: in each window of ``window`` samples, fails when the window's first
    value occurs ``cutoff`` times (counting the first sample itself)."""

    __slots__ = ("_count", "_first", "_seen", "cutoff", "min_entropy", "window")

    def __init__(self, min_entropy: float, window: int = 512, alpha_exp: int = 20) -> None:
        self.min_entropy = _check_min_entropy(min_entropy)
        self.cutoff = apt_cutoff(min_entropy, window, alpha_exp)
        self.window = window
        self._first: int | None = None
        self._count = 0
        self._seen = 0  # samples of the current window taken so far

    def update(self, sample: int) -> bool:
        """Take one sample; ``False`` when this sample brings the count to the cutoff."""
        if self._seen == self.window:
            self._seen = 0
        if self._seen == 0:
            self._first = sample
            self._count = 1
        elif sample == self._first:
            self._count += 1
        self._seen += 1
        return self._count < self.cutoff

    def detail(self) -> str:
        return (
            f"value {self._first} seen {self._count} times within {self._seen} samples "
            f"of a {self.window}-sample window; cutoff {self.cutoff} "
            f"for {self.min_entropy:g} bits/sample"
        )


class HealthMonitor:
    """Both continuous tests on one source's raw samples, with a start-up test and a sticky
    failure.

    ``feed(samples)`` runs every sample through both tests and raises
    :class:`~engine.errors.EntropyError` naming the source and the test at the first failing
    sample. From then on every ``feed`` raises the same error. ``ready`` becomes true once the
    first ``startup_samples`` samples (1024, SP 800-90B 4.3) have passed both tests; samples
    fed during start-up may be used once it is ready. For non-binary sources SP 800-90B uses a
    1024-sample window (``window=1024``); 512 is its window for binary ones.
    """

    __slots__ = ("_apt", "_failed", "_rct", "_seen", "source", "startup_samples")

    def __init__(
        self,
        source: str,
        min_entropy: float,
        *,
        startup_samples: int = 1024,
        window: int = 512,
        alpha_exp: int = 20,
    ) -> None:
        if isinstance(startup_samples, bool) or not isinstance(startup_samples, int) or (
            startup_samples < 1
        ):
            raise ValueError(f"startup_samples must be a whole number >= 1, got {startup_samples!r}")
        self.source = source
        self.startup_samples = startup_samples
        self._rct = RepetitionCountTest(min_entropy, alpha_exp)
        self._apt = AdaptiveProportionTest(min_entropy, window, alpha_exp)
        self._failed: str | None = None
        self._seen = 0

    def __repr__(self) -> str:
        state = "failed" if self._failed else "ready" if self.ready else "starting"
        return f"HealthMonitor({self.source!r}, {state}, samples_seen={self._seen})"

    @property
    def rct_cutoff(self) -> int:
        return self._rct.cutoff

    @property
    def apt_cutoff(self) -> int:
        return self._apt.cutoff

    @property
    def ready(self) -> bool:
        """The start-up test has passed and no test has failed since."""
        return self._failed is None and self._seen >= self.startup_samples

    @property
    def failed(self) -> str | None:
        """``None``, or the failure text (``failed the repetition count test (...)``)."""
        return self._failed

    @property
    def samples_seen(self) -> int:
        """Samples tested so far, up to and including a failing one."""
        return self._seen

    def feed(self, samples: Iterable[int]) -> None:
        """Test a batch; return normally only if every sample passed (see the module contract)."""
        if self._failed is not None:
            raise EntropyError(self.source, self._failed)
        rct, apt = self._rct.update, self._apt.update
        seen = self._seen
        try:
            for sample in samples:
                seen += 1
                if not rct(sample):
                    self._fail("repetition count", self._rct.detail(), seen)
                if not apt(sample):
                    self._fail("adaptive proportion", self._apt.detail(), seen)
        finally:
            self._seen = seen

    def _fail(self, test: str, detail: str, at: int) -> None:
        self._failed = f"failed the {test} test ({detail}; at sample {at})"
        raise EntropyError(self.source, self._failed)
