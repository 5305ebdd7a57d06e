"""results.Distribution (probabilities sharing one denominator, Fractions made when read) reads
exactly as the plain dict of Fractions it stands for, in the odds' JSON too."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.results import Distribution, Odds


@given(counts=st.lists(st.integers(0, 10**40), min_size=1, max_size=12), extra=st.integers(0, 10**40),
       power=st.booleans())
def test_a_distribution_reads_as_its_fractions(counts: list[int], extra: int, power: bool) -> None:
    denominator = 10 ** len(str(sum(counts) + extra)) if power else sum(counts) + extra + 1
    keys = [str(i - 3) for i in range(len(counts))]
    plain = {k: Fraction(c, denominator) for k, c in zip(keys, counts, strict=True)}
    shared = Distribution(keys, counts, denominator)
    assert shared == plain and dict(shared) == plain and list(shared) == keys
    as_plain = Odds("x", {}, Fraction(1, 2), {"success": Fraction(1, 2)}, extra={"d": plain}).to_dict()
    as_shared = Odds("x", {}, Fraction(1, 2), {"success": Fraction(1, 2)}, extra={"d": shared}).to_dict()
    assert as_shared == as_plain
    assert list(as_shared["exact"]["d"].items()) == list(as_plain["exact"]["d"].items())


def test_a_distribution_is_read_only_and_checks_its_shape() -> None:
    shared = Distribution(["0", "1"], [1, 3], 4)
    with pytest.raises(TypeError):
        shared["0"] = Fraction(0)  # type: ignore[index]  # the forgery: write into odds
    with pytest.raises(ValueError, match="2 keys for 3 counts"):
        Distribution(["0", "1"], [1, 2, 1], 4)
