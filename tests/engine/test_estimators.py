"""SP 800-90B 6.3 estimators against reference values worked by hand from the standard's
algorithms (NIST SP 800-90B, January 2018, sections 6.3.1-6.3.6; the arithmetic is in each
test, with z = 2.5758293, the 99 % quantile the standard prints as 2.576), against brute-force
versions of the standard's literal formulas, and on the data the tower must refuse (counters,
patterns, text) or accept (random bytes). The predictors (6.3.7-6.3.10) and NIST's own figures
for all ten are in test_predictors.py."""

from __future__ import annotations

import hashlib
import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.estimators import (
    ESTIMATORS,
    _compression_expectation,
    _g,
    _tuple_counts,
    assess,
    collision,
    compression,
    markov,
    most_common_value,
    t_tuple_and_lrs,
    to_bits,
)
from engine.predictors import Z_ALPHA


def pseudo_random(n: int, label: bytes = b"est") -> bytes:
    return b"".join(hashlib.sha256(label + i.to_bytes(4, "big")).digest() for i in range(-(-n // 32)))[:n]


def test_mcv_on_a_three_symbol_set() -> None:
    # L = 20, the value 1 occurs 8 times: p = 0.4; p_u = 0.4 + z sqrt(0.4 * 0.6 / 19)
    # = 0.4 + 2.5758293 * 0.1123903 = 0.6894982; -log2(p_u) = 0.536381
    samples = [0, 1, 1, 2, 0, 1, 2, 2, 0, 1, 0, 1, 1, 0, 2, 2, 1, 0, 2, 1]
    assert math.isclose(most_common_value(samples), 0.536381, abs_tol=1e-6)


def test_collision_on_alternating_waits_of_two_and_three() -> None:
    # "00" then "011", 200 times: v = 400 waits, 2 and 3 alternately; mean 2.5,
    # sd = sqrt(400 * 0.25 / 399) = 0.5006262; X' = 2.5 - 2.5758293 * 0.5006262 / 20 = 2.4355236
    # p = 1/2 + sqrt(5/4 - X'/2) = 0.5 + sqrt(0.0322382) = 0.6795500; -log2(p) = 0.557348
    bits = [0, 0, 0, 1, 1] * 200
    assert math.isclose(collision(bits), 0.557348, abs_tol=1e-5)
    assert collision([0, 1, 1] * 300) == 1.0  # every wait is 3: X' >= 2.5, no solution, 1 bit
    assert collision([1, 1] * 300) == 0.0  # every wait is 2: p = 1


def test_markov_on_alternating_bits() -> None:
    # 0101...01, L = 1000: P0 = 0.5, P01 = P10 = 1, P00 = P11 = 0; the likeliest 128-bit
    # sequence 0101... has probability 0.5, so H = 1 bit per 128 bits: 1/128 = 0.0078125
    assert markov([0, 1] * 500) == 1 / 128
    # a fair-looking i.i.d. stream: every transition near 1/2, H close to 1 per bit
    assert markov(to_bits(pseudo_random(4096))) > 0.95


def test_t_tuple_and_lrs_on_a_run_of_zeros_then_distinct_values() -> None:
    # 40 zeros then 1..60 (L = 100). The most common t-tuple is 0^t, seen 41 - t times, >= 35
    # for t <= 6. P_max = max_i ((41 - i) / (101 - i))^(1/i) = (35/95)^(1/6) = 0.8466893;
    # p_u = 0.8466893 + 2.5758293 sqrt(0.8466893 * 0.1533107 / 99) = 0.9399605; -log2 = 0.089328
    t_tuple, lrs = t_tuple_and_lrs([0] * 40 + list(range(1, 61)))
    assert math.isclose(t_tuple, 0.089328, abs_tol=1e-5)
    # LRS: u = 7, v = 39; P_W = C(41 - W, 2) / C(101 - W, 2), largest ^(1/W) at W = 27:
    # (91 / 2701)^(1/27) = 0.8819898;
    # p_u = 0.8819898 + 2.5758293 sqrt(0.8819898 * 0.1180102 / 99) = 0.9655099; -log2 = 0.050637
    best = max(((41 - w) * (40 - w) / ((101 - w) * (100 - w))) ** (1 / w) for w in range(7, 40))
    p_u = best + Z_ALPHA * math.sqrt(best * (1 - best) / 99)
    assert math.isclose(lrs, -math.log2(p_u), rel_tol=1e-12)
    assert math.isclose(lrs, 0.050637, abs_tol=1e-5)


def _brute_counts(data: list[int]) -> tuple[list[int], list[int], int]:
    """The standard's counts, literally: every w-tuple of the data counted."""
    most, pairs, w = [len(data)], [0], 1
    while True:
        counts = Counter(tuple(data[i : i + w]) for i in range(len(data) - w + 1))
        if max(counts.values()) < 2:
            return most, pairs, w - 1
        most.append(max(counts.values()))
        pairs.append(sum(c * (c - 1) // 2 for c in counts.values()))
        w += 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=80), st.integers(1, 6), st.booleans())
def test_suffix_array_counts_are_the_literal_tuple_counts(data, period, repeat) -> None:
    if repeat:
        data = (data[:period] * 80)[: len(data)]
    most, pairs, longest = _tuple_counts(data)
    b_most, b_pairs, b_longest = _brute_counts(data)
    assert longest == b_longest
    assert most[1 : longest + 1] == b_most[1:] and pairs[1 : longest + 1] == b_pairs[1:]


def test_the_o_of_l_compression_g_is_the_standards_double_sum() -> None:
    # G(z) = 1/v sum_{t=d+1}^{L} sum_{u=1}^{t} log2(u) F(z, t, u), F = z^2 (1-z)^(u-1) for u < t,
    # z (1-z)^(t-1) for u = t (6.3.4 step 7), summed literally
    blocks, d = 60, 20
    for z in (0.02, 1 / 64, 0.3, 0.9):
        def f(t: int, u: int, z: float = z) -> float:
            return z * z * (1 - z) ** (u - 1) if u < t else z * (1 - z) ** (t - 1)

        literal = sum(sum(math.log2(u) * f(t, u) for u in range(1, t + 1)) for t in range(d + 1, blocks + 1))
        literal /= blocks - d
        assert math.isclose(_g(z, blocks, d), literal, rel_tol=1e-12)
    # the expectation falls as p grows, which the bisection relies on
    values = [_compression_expectation(p, 2000, 1000, 64) for p in (1 / 64, 0.1, 0.3, 0.6, 0.95)]
    assert values == sorted(values, reverse=True)


def test_compression_needs_more_than_1000_blocks() -> None:
    assert compression([0, 1] * 3000) is None  # exactly 1000 six-bit blocks
    assert compression([0] * 6600) < 1e-9  # one block value only: p = 1
    assert 0.6 < compression(to_bits(pseudo_random(2048))) <= 1.0


def test_random_bytes_pass_and_patterns_counters_and_text_fail() -> None:
    floor = 2.0
    random = assess(pseudo_random(1024))
    assert random.minimum[1] > 3.0 and tuple(random.figures) == ESTIMATORS
    english = (b"It was the best of times, it was the worst of times, it was the age of wisdom, it was "
               b"the age of foolishness, it was the epoch of belief, it was the epoch of incredulity. ") * 8
    for name, data, estimator in (
        ("counter", bytes(i % 256 for i in range(1024)), "lrs"),
        ("00 ff", b"\x00\xff" * 512, None),
        ("16-byte ASCII", b"dicetower rolls!" * 64, None),
        ("English text", english[:1024], None),
    ):
        result = assess(data)
        worst, bits = result.minimum
        assert bits < floor, name
        if estimator:
            assert worst == estimator, name


def test_assess_runs_the_estimators_it_is_given_in_the_standards_order() -> None:
    data = pseudo_random(1024)
    six = assess(data, estimators=("lrs", "mcv", "collision", "markov", "compression", "t-tuple"))
    assert tuple(six.figures) == ESTIMATORS[:6]
    assert six.figures == {k: v for k, v in assess(data).figures.items() if k in ESTIMATORS[:6]}
    with pytest.raises(ValueError, match=r"unknown estimators \['lagg'\]"):
        assess(data, estimators=("mcv", "lagg"))
    with pytest.raises(ValueError, match="at least one estimator"):
        assess(data, estimators=())
