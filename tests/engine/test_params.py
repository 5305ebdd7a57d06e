"""Parameter specs: coercion, ranges, names, lists and the messages users see."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import ParameterError
from engine.params import Param, resolve

RATING = Param("rating", "int", "skill rating", default=8, lo=-10, hi=60)
CR = Param("cr", "int", "challenge rating", lo=0, hi=60, names={"easy": 5, "difficult": 10})
FLAG = Param("declaration", "bool", "a Declaration", default=False)
MODE = Param("contest", "choice", "kind of contest", default="none", choices=("none", "targeted"))
HELPERS = Param("helper", "list", "other ratings", default=(), item_help="ratings", max_items=3)
PARAMS = (RATING, CR, FLAG, MODE, HELPERS)


def test_defaults_fill_in_and_required_is_enforced() -> None:
    assert resolve(PARAMS, {"cr": "difficult"}) == {
        "rating": 8, "cr": 10, "declaration": False, "contest": "none", "helper": (),
    }
    expected = r"^--cr: required: a whole number from 0 to 60 or one of easy, difficult$"
    with pytest.raises(ParameterError, match=expected):
        resolve(PARAMS, {})


def test_names_and_numbers_are_both_accepted() -> None:
    assert CR.coerce("Easy") == 5
    assert CR.coerce("10") == 10
    assert CR.coerce(15) == 15


@pytest.mark.parametrize("bad", ["61", "-1", "ten", "", "1.5", True, 2.0])
def test_out_of_range_or_wrong_type_names_the_parameter_and_the_range(bad) -> None:
    with pytest.raises(ParameterError) as info:
        CR.coerce(bad)
    assert str(info.value).startswith("--cr: expected a whole number from 0 to 60")
    assert info.value.param == "cr"
    assert isinstance(info.value, ValueError)


def test_bool_and_choice() -> None:
    assert FLAG.coerce("yes") is True and FLAG.coerce("off") is False and FLAG.coerce(True) is True
    with pytest.raises(ParameterError, match="--declaration: expected yes or no, got 'maybe'"):
        FLAG.coerce("maybe")
    assert MODE.coerce("Targeted") == "targeted"
    with pytest.raises(ParameterError, match="one of none, targeted"):
        MODE.coerce("untargeted")


def test_list_from_repeats_and_commas() -> None:
    assert HELPERS.coerce(["3,5", "7"]) == (3, 5, 7)
    assert HELPERS.coerce("1, 2") == (1, 2)
    assert HELPERS.coerce(None) == ()
    with pytest.raises(ParameterError, match="at most 3 items"):
        HELPERS.coerce("1,2,3,4")
    with pytest.raises(ParameterError, match=r"--helper:.*'x' is not a whole number"):
        HELPERS.coerce("1,x")


def test_unknown_parameter_lists_the_known_ones() -> None:
    with pytest.raises(ParameterError, match="--bogus: not a parameter of this system; it takes --rating, --cr"):
        resolve(PARAMS, {"bogus": 1, "cr": 5})


def test_kebab_and_snake_keys_are_the_same_parameter() -> None:
    p = (Param("opponent_pool", "int", "opposing dice", default=0, lo=0, hi=30),)
    assert resolve(p, {"opponent-pool": "4"}) == resolve(p, {"opponent_pool": 4}) == {"opponent_pool": 4}


@given(st.integers(-100, 100))
def test_coerced_ints_are_always_within_range(value: int) -> None:
    try:
        got = RATING.coerce(str(value))
    except ParameterError:
        assert not -10 <= value <= 60
    else:
        assert got == value and -10 <= got <= 60


def test_describe_has_what_systems_json_promises() -> None:
    d = CR.describe()
    assert d == {
        "name": "cr", "flag": "--cr", "type": "int", "help": "challenge rating", "required": True,
        "default": None, "min": 0, "max": 60, "step": 1, "names": {"easy": 5, "difficult": 10},
    }


def test_an_empty_place_in_a_list_is_an_error_not_a_skipped_item() -> None:
    with pytest.raises(ParameterError, match=r"^--helper: an empty place in '1,,2'; expected ratings"):
        HELPERS.coerce("1,,2")
    with pytest.raises(ParameterError, match=r"an empty place in '3,'"):
        HELPERS.coerce(["3,"])
    assert HELPERS.coerce("") == ()
