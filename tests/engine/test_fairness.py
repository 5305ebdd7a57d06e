"""The fairness statistics against the worked examples of NIST SP 800-22 rev 1a and scipy."""

from __future__ import annotations

import hashlib
import itertools
import math

import pytest
import scipy.special
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.fairness import (
    _longest_run_chi2,
    approximate_entropy,
    bits_from_bytes,
    block_frequency,
    chi_square,
    chi_square_uniform,
    cumulative_sums,
    igam,
    igamc,
    longest_run_of_ones,
    monobit,
    runs,
    runs_test,
    serial_correlation,
    sp800_22_subset,
)
from tests.support import seeded_dice

# SP 800-22 rev 1a, the 100-bit example sequence of sections 2.1.8, 2.2.8, 2.3.8, 2.12.8, 2.13.8
# (the first 100 bits of the binary expansion of pi).
EPSILON_100 = (
    "11001001000011111101101010100010001000010110100011"
    "00001000110100110001001100011001100010100010111000"
)
# Section 2.4.4 and 2.4.8: the 128-bit example of the longest-run test.
EPSILON_128 = (
    "11001100000101010110110001001100111000000000001001001101010100010001"
    "001111010110100000001101011111001100111001101101100010110010"
)


def good_bytes(n: int, label: bytes = b"fairness") -> bytes:
    blocks = (hashlib.sha256(label + i.to_bytes(8, "big")).digest() for i in itertools.count())
    return b"".join(itertools.islice(blocks, -(-n // 32)))[:n]


def test_example_sequences_are_the_published_ones() -> None:
    pi_bits = "11" + bin(0x243F6A8885A308D313198A2E037073)[2:].zfill(120)
    assert pi_bits[:100] == EPSILON_100
    assert len(EPSILON_128) == 128


# --- SP 800-22 worked examples (published to 6-7 digits) ------------------------------------


@pytest.mark.parametrize(
    ("name", "p_value", "expected"),
    [
        ("2.1.4 monobit", lambda: monobit("1011010101"), 0.527089),
        ("2.1.8 monobit", lambda: monobit(EPSILON_100), 0.109599),
        ("2.2.4 block frequency", lambda: block_frequency("0110011010", 3), 0.801252),
        ("2.2.8 block frequency", lambda: block_frequency(EPSILON_100, 10), 0.706438),
        ("2.3.4 runs", lambda: runs("1001101011"), 0.147232),
        ("2.3.8 runs", lambda: runs(EPSILON_100), 0.500798),
        ("2.4.8 longest run", lambda: longest_run_of_ones(EPSILON_128), 0.180598),
        ("2.12.4 approximate entropy", lambda: approximate_entropy("0100110101", 3), 0.261961),
        ("2.12.8 approximate entropy", lambda: approximate_entropy(EPSILON_100, 2), 0.235301),
        ("2.13.4 cusum forward", lambda: cumulative_sums("1011010111"), 0.4116588),
        ("2.13.8 cusum forward", lambda: cumulative_sums(EPSILON_100), 0.219194),
        ("2.13.8 cusum reverse", lambda: cumulative_sums(EPSILON_100, reverse=True), 0.114866),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_sp800_22_worked_examples(name: str, p_value, expected: float) -> None:
    # Within half a unit of the sixth published decimal (2.13.4 prints 0.4116588; the
    # computation gives 0.41165862).
    assert p_value() == pytest.approx(expected, abs=5e-7)


def test_longest_run_example_statistic() -> None:
    chi2, k = _longest_run_chi2([int(c) for c in EPSILON_128])
    assert k == 3
    assert chi2 == pytest.approx(4.882605, abs=5e-7)
    # Section 2.4.4 prints 0.180609 for this chi-square, 2.4.8 prints 0.180598; the latter is
    # igamc(3/2, 4.882605/2), as scipy confirms.
    assert scipy.special.gammaincc(1.5, chi2 / 2) == pytest.approx(0.180598, abs=5e-7)


def test_runs_prerequisite_gives_zero() -> None:
    # n = 100: the frequency prerequisite fails when |ones/n - 1/2| >= 2/sqrt(n) = 0.2.
    assert runs("1" * 70 + "0" * 30) == 0.0
    assert 0.0 < runs("10" * 10 + "1" * 49 + "0" * 31) < 1e-6


def test_longest_run_needs_128_bits_and_picks_larger_blocks_for_long_input() -> None:
    with pytest.raises(ValueError, match="128"):
        longest_run_of_ones(EPSILON_100)
    bits = bits_from_bytes(good_bytes(1000))  # 8000 bits: M = 128, 6 classes
    _, k = _longest_run_chi2(bits)
    assert k == 5
    assert 0.001 < longest_run_of_ones(bits) <= 1.0
    assert longest_run_of_ones([1, 0, 0, 0] * 2000) < 1e-10  # runs far too short


def test_bits_from_bytes_is_most_significant_bit_first() -> None:
    assert bits_from_bytes(b"\x80\x01") == [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    assert bits_from_bytes(b"") == []
    assert sum(bits_from_bytes(b"\xff" * 3)) == 24


def test_bad_bits_are_refused() -> None:
    with pytest.raises(ValueError, match="0 and 1"):
        monobit("10201")
    with pytest.raises(ValueError, match="0 or 1"):
        monobit([1, 2])
    with pytest.raises(ValueError, match="block size"):
        block_frequency("0101", 5)
    with pytest.raises(ValueError, match="m must"):
        approximate_entropy("0101", 0)


def test_battery_passes_good_bits_and_flags_biased_ones() -> None:
    good = sp800_22_subset(bits_from_bytes(good_bytes(4096)))
    assert set(good) == {
        "monobit",
        "block_frequency",
        "runs",
        "longest_run_of_ones",
        "cumulative_sums_forward",
        "cumulative_sums_reverse",
        "approximate_entropy",
    }
    assert all(p > 0.001 for p in good.values()), good
    # Every 16th bit forced to 1: a 3% bias.
    biased = [1 if i % 16 == 0 else b for i, b in enumerate(bits_from_bytes(good_bytes(8192)))]
    flagged = sp800_22_subset(biased)
    assert flagged["monobit"] < 1e-4 and flagged["cumulative_sums_forward"] < 1e-4
    # Alternating bits are balanced but have far too many runs.
    alternating = sp800_22_subset([0, 1] * 2048)
    assert alternating["runs"] < 1e-10 and alternating["approximate_entropy"] < 1e-10


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=128, max_size=600))
def test_p_values_are_probabilities(bits: list[int]) -> None:
    assert all(0.0 <= p <= 1.0 for p in sp800_22_subset(bits).values())


# --- incomplete gamma ---------------------------------------------------------------------------

GAMMA_GRID = [
    (a, x)
    for a in (0.5, 1, 1.5, 2, 3.5, 5, 10, 49, 128, 1000, 10_000)
    for x in (1e-6, 0.01, 0.5, 1, 2.5, 0.5 * a, a - 1 if a > 1 else 0.3, a, a + 1, 2 * a + 3, 700)
]


@pytest.mark.parametrize(("a", "x"), GAMMA_GRID)
def test_igamc_matches_scipy(a: float, x: float) -> None:
    expected = float(scipy.special.gammaincc(a, x))
    assert igamc(a, x) == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert igam(a, x) == pytest.approx(float(scipy.special.gammainc(a, x)), rel=1e-9, abs=1e-300)


def test_igamc_edges() -> None:
    assert igamc(2.0, 0.0) == 1.0 and igam(2.0, 0.0) == 0.0
    assert igamc(2.0, math.inf) == 0.0
    assert igamc(1.0, 3.0) == pytest.approx(math.exp(-3.0), rel=1e-13)  # Q(1, x) = e^-x
    assert igamc(0.5, 2.0) == pytest.approx(math.erfc(math.sqrt(2.0)), rel=1e-12)
    with pytest.raises(ValueError, match="a > 0"):
        igamc(0, 1)
    with pytest.raises(ValueError, match="x >= 0"):
        igamc(1, -1)


# --- chi-square ---------------------------------------------------------------------------------


def test_chi_square_uniform_matches_scipy() -> None:
    counts = [98, 105, 110, 87, 101, 99, 93, 107, 112, 88]
    stat, df, p = chi_square_uniform(counts)
    reference = scipy.stats.chisquare(counts)
    assert df == 9
    assert stat == pytest.approx(reference.statistic, rel=1e-12)
    assert p == pytest.approx(reference.pvalue, rel=1e-9)


def test_chi_square_with_probabilities_and_mappings() -> None:
    probs = {"failure": 0.5, "success": 0.3, "critical": 0.2}
    observed = {"failure": 530, "success": 280}  # "critical" missing: counted as 0
    stat, df, p = chi_square(observed, probs)
    reference = scipy.stats.chisquare([530, 280, 0], [405, 243, 162])
    assert (df, stat) == (2, pytest.approx(reference.statistic, rel=1e-12))
    assert p == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-300)
    same = chi_square([500, 300, 200], [0.5, 0.3, 0.2])
    assert same.stat == 0.0 and same.p == 1.0


def test_chi_square_impossible_outcomes() -> None:
    assert chi_square([5, 0, 3], [0.5, 0.0, 0.5]).df == 1  # a 0-probability cell is dropped
    assert chi_square([5, 1, 3], [0.5, 0.0, 0.5]).p == 0.0
    with pytest.raises(ValueError, match="no expected probability"):
        chi_square({"x": 1, "y": 2}, {"x": 1.0})
    with pytest.raises(ValueError, match="sum to 1"):
        chi_square([1, 2], [0.5, 0.6])
    with pytest.raises(ValueError, match="2 cells"):
        chi_square_uniform([10])


def test_seeded_d6_passes_and_a_loaded_d6_fails() -> None:
    dice = seeded_dice(b"fairness d6")
    fair = [0] * 6
    for _ in range(30_000):
        fair[dice.randbelow(6)] += 1
    assert chi_square_uniform(fair).p > 1e-4
    loaded = [5200, 5000, 5000, 5000, 5000, 4800]  # a 4% lean towards 1
    assert chi_square_uniform(loaded).p < 0.02


# --- serial correlation and runs ----------------------------------------------------------------


def test_serial_correlation_matches_pearson_on_the_circular_shift() -> None:
    dice = seeded_dice(b"serial")
    values = [dice.randbelow(10) + 1 for _ in range(5000)]
    result = serial_correlation(values)
    shifted = values[1:] + values[:1]
    assert result.r == pytest.approx(scipy.stats.pearsonr(values, shifted).statistic, abs=1e-12)
    assert result.p > 1e-3


def test_serial_correlation_flags_dependent_values() -> None:
    walk = [(i // 3) % 10 for i in range(3000)]  # each face three times in a row
    assert serial_correlation(walk).p < 1e-10
    alternating = [1, 6] * 500
    assert serial_correlation(alternating).r == pytest.approx(-1.0)
    assert serial_correlation([4] * 10) == (1.0, math.inf, 0.0)
    with pytest.raises(ValueError, match="at least 3"):
        serial_correlation([1, 2])


def test_runs_test_by_hand() -> None:
    # Above/below 4.5: + + - - + -  ->  4 runs; n1 = n2 = 3, mean 4, variance 1.2.
    result = runs_test([6, 7, 1, 2, 8, 3], center=4.5)
    assert result.runs == 4 and result.expected == pytest.approx(4.0)
    assert result.z == pytest.approx(0.0) and result.p == pytest.approx(1.0)
    # 2 runs in 8: z = (2 - 5) / sqrt(2*4*4*(32-8)/(64*7)).
    clumped = runs_test([1, 1, 1, 1, 9, 9, 9, 9])
    assert clumped.z == pytest.approx(-3 / math.sqrt(768 / 448))
    assert clumped.p == pytest.approx(math.erfc(abs(clumped.z) / math.sqrt(2)))


def test_runs_test_drops_the_centre_and_flags_patterns() -> None:
    assert runs_test([1, 5, 9, 5, 1, 9], center=5).runs == 4  # the 5s are left out
    assert runs_test([1, 10] * 500, center=5.5).p < 1e-10  # alternation
    assert runs_test(sorted(range(1, 11)) * 1).p < 0.01  # one long climb
    dice = seeded_dice(b"runs")
    assert runs_test([dice.randbelow(10) + 1 for _ in range(5000)], center=5.5).p > 1e-3
    with pytest.raises(ValueError, match="both sides"):
        runs_test([3, 3, 3], center=1)
