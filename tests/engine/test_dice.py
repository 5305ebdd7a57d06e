"""Dice sources: supplied faces and uniform subsets."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.dice import FacesDice, SecretsDice, roll_die, sample_subset
from engine.errors import FacesError


def test_faces_are_handed_out_in_order_and_checked_against_the_die() -> None:
    dice = FacesDice.parse("5, 1")
    assert roll_die(dice, 10) == 5
    assert roll_die(dice, 6) == 1
    dice.finish()


def test_too_few_too_many_and_out_of_range_faces_are_errors() -> None:
    dice = FacesDice([3])
    roll_die(dice, 10)
    with pytest.raises(FacesError, match="too few faces: 1 given"):
        roll_die(dice, 10)
    extra = FacesDice([3, 4, 5])
    roll_die(extra, 10)
    with pytest.raises(FacesError, match="too many faces: 3 given, the roll used 1"):
        extra.finish()
    with pytest.raises(FacesError, match=r"face 7 \(number 1\) is not on a d6; allowed 1..6"):
        roll_die(FacesDice([7]), 6)
    with pytest.raises(FacesError, match="'x' is not a die face"):
        FacesDice.parse("1,x")
    with pytest.raises(FacesError, match=r"^--faces:"):
        FacesDice.parse("")


class _Scripted:
    """Yields a fixed sequence of randbelow answers, to enumerate every path of a sampler."""

    def __init__(self, answers: tuple[int, ...]) -> None:
        self._answers = list(answers)

    def randbelow(self, n: int) -> int:
        value = self._answers.pop(0)
        assert 0 <= value < n
        return value


@pytest.mark.parametrize(("n", "k"), [(n, k) for n in range(1, 6) for k in range(n + 1)])
def test_subset_sampler_is_exactly_uniform(n: int, k: int) -> None:
    # Every sequence of draws (n * (n-1) * ... ) is equally likely; each k-subset must come
    # from the same number of them.
    paths = itertools.product(*(range(n - i) for i in range(k)))
    counts = Counter(sample_subset(_Scripted(p), n, k) for p in paths)
    assert len(counts) == len(list(itertools.combinations(range(n), k)))
    assert len(set(counts.values())) == 1


@given(st.integers(1, 5).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_subsets_have_k_distinct_fingers_in_range(nk: tuple[int, int]) -> None:
    n, k = nk
    chosen = sample_subset(SecretsDice(), n, k)
    assert len(chosen) == k and chosen <= set(range(1, n + 1))


def test_secrets_dice_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="n >= 1, got 0"):
        SecretsDice().randbelow(0)


def test_the_library_default_is_a_fresh_drbg() -> None:
    from engine.dice import default_dice
    from engine.rng import DrbgDice

    a, b = default_dice(), default_dice()
    assert isinstance(a, DrbgDice)
    # Independently seeded: 32 d100s agree by chance with probability 1e-64.
    assert [a.randbelow(100) for _ in range(32)] != [b.randbelow(100) for _ in range(32)]


def test_a_d10_zero_gets_a_hint_and_an_empty_place_is_an_error() -> None:
    with pytest.raises(FacesError, match=r"not on a d10; allowed 1..10 \(a d10's 0 is typed as 10\)"):
        roll_die(FacesDice([0]), 10)
    with pytest.raises(FacesError, match=r"an empty place in '5,,1'"):
        FacesDice.parse("5,,1")
    assert FacesDice.parse("5, 1").faces == (5, 1)
    assert FacesDice.parse("5 1").faces == (5, 1)
