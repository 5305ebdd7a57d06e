"""Berlekamp-Massey against brute force: the shortest LFSR found by trying every one."""

from __future__ import annotations

import itertools
import random

from hypothesis import given
from hypothesis import strategies as st

from engine.linear_complexity import LINEAR_MARGIN, linear_complexity, too_linear


def brute_force(bits: list[int]) -> int:
    """The smallest L with coefficients c1..cL such that s[i] = c1 s[i-1] + ... + cL s[i-L]
    for every i >= L (mod 2), trying every L and every coefficient vector."""
    n = len(bits)
    for length in range(n + 1):
        for coefficients in itertools.product((0, 1), repeat=length):
            if all(sum(c * bits[i - j - 1] for j, c in enumerate(coefficients)) % 2 == bits[i]
                   for i in range(length, n)):
                return length
    return n


@given(st.lists(st.integers(0, 1), max_size=12))
def test_berlekamp_massey_is_the_shortest_lfsr(bits: list[int]) -> None:
    assert linear_complexity(bits) == brute_force(bits)


def test_random_windows_sit_at_half_their_length_and_pass() -> None:
    rng = random.Random(3)
    for n in (1024, 8192):
        for _ in range(5):
            bits = [rng.getrandbits(1) for _ in range(n)]
            assert abs(linear_complexity(bits) - n // 2) < LINEAR_MARGIN and too_linear(bits) is None


def test_a_shift_register_s_output_has_its_length() -> None:
    state, bits = 0b1010011, []
    for _ in range(4096):  # x^7 + x^6 + 1
        bits.append(state & 1)
        state = (state >> 1) | ((((state >> 0) ^ (state >> 1)) & 1) << 6)
    assert linear_complexity(bits) == 7 and too_linear(bits) == 7
