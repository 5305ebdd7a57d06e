"""The linear complexity of a bit sequence (Berlekamp-Massey over GF(2)), as NIST SP 800-22's
linear complexity test uses it: the length of the shortest linear feedback shift register
that generates the sequence.

A random sequence of ``n`` bits has a linear complexity very close to ``n / 2`` (the deviation
``|L - n/2|`` exceeds ``k`` with probability about ``2^-2k``). A pseudo-random binary sequence
from an LFSR (PRBS15, PRBS23, PRBS31: a line tester's or a faulty source's pattern) has its
register's length, 15 to 31, however long the window: the SP 800-90B estimators, which look
for repeats and predictable runs, pass such a sequence as noise. Pure, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["LINEAR_MARGIN", "linear_complexity", "too_linear"]

#: How far below n/2 a window's linear complexity may fall before it is refused: a random
#: window falls this far with probability about 2^-64.
LINEAR_MARGIN = 32


def linear_complexity(bits: Sequence[int]) -> int:
    """The shortest LFSR that generates ``bits`` (each 0 or 1): Berlekamp-Massey, with the
    polynomials and the reversed prefix held as Python integers (a bit a coefficient), so a
    step is a few whole-word operations: 8192 bits in tens of milliseconds."""
    c, b = 1, 1  # connection polynomials: bit j is the coefficient of x^j
    length, shift = 0, 1
    reversed_prefix = 0  # bit j is s[i - j]
    for i, bit in enumerate(bits):
        reversed_prefix = (reversed_prefix << 1) | (bit & 1)
        if (c & reversed_prefix).bit_count() & 1:  # the discrepancy
            previous = c
            c ^= b << shift
            if 2 * length <= i:
                length, b, shift = i + 1 - length, previous, 1
                continue
        shift += 1
    return length


def too_linear(bits: Sequence[int]) -> int | None:
    """The window's linear complexity when it is more than :data:`LINEAR_MARGIN` below half
    the window's length (an LFSR's pattern, not noise), else None."""
    found = linear_complexity(bits)
    return found if found < len(bits) // 2 - LINEAR_MARGIN else None
