"""Immortal's automatic success as the player's choice (``--auto-success yes|no|best``).

The text makes it an option ("he could declare automatic success"), and an automatic primary
scores no primary bonus for the hostiles, so declaring it can lower the chance. ``best``
declares it only where it does not: the property tests check over the whole parameter space
that ``best`` is never below ``yes`` or ``no`` and that one more rank never hurts under it.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.errors import ParameterError
from engine.systems import get
from engine.systems.immortal.rules import COLORS

SPEC = get("immortal")
MODES = ("best", "yes", "no")


def chance(**params) -> Fraction:
    return Fraction(engine.odds("immortal", **params)["exact"]["success"])


# --- the examples ---------------------------------------------------------------------


def test_one_more_rank_no_longer_lowers_the_chance():
    # Will 6, TN 15, a hostile 14: rank 4 rolls for 33 %; rank 5 allows automatic success,
    # which scores no bonus (30 %), so best rolls (42 %).
    assert chance(attribute=6, skill=4, tn=15, hostile="14:6") == Fraction(33, 100)
    assert chance(attribute=6, skill=5, tn=15, hostile="14:6", auto_success="yes") == Fraction(3, 10)
    assert chance(attribute=6, skill=5, tn=15, hostile="14:6", auto_success="no") == Fraction(42, 100)
    assert chance(attribute=6, skill=5, tn=15, hostile="14:6") == Fraction(42, 100)


def test_attribute_20_skill_10_tn_1_against_six_hostiles():
    # Declared, the primary scores nothing and the TN 31 hostile can never be met (0); rolled,
    # the primary bonus of at least 30 covers every shortfall (1).
    params = {"attribute": 20, "skill": 10, "tn": 1, "hostile": ["31", "25", "25", "25", "25", "25"]}
    assert chance(**params, auto_success="yes") == 0
    assert chance(**params, auto_success="no") == 1
    assert chance(**params) == 1
    odds = engine.odds("immortal", **params)
    assert odds["exact"]["auto_success"] == {"yes": "0", "no": "1"}
    r = engine.roll_result("immortal", faces=[1] * 7, **params)
    assert r.automatic is False and r.automatic_available is True and r.success is True
    assert "rolled instead of automatic success" in SPEC.describe(r)[-1]


def test_best_declares_it_where_it_does_not_lower_the_chance():
    # No hostile: automatic success is certain, so best declares it and draws no die.
    r = engine.roll_result("immortal", faces=[], attribute=6, skill=5, tn=15)
    assert r.automatic is True and r.dice == () and r.success is True
    # A tie (a legacy defeats the only hostile automatically) declares it too: no die needed.
    r = engine.roll_result("immortal", faces=[], attribute=6, skill=5, tn=15, hostile="12::4")
    assert r.automatic is True and r.success is True


def test_no_switches_off_legacies_too_and_yes_declares_both():
    params = {"attribute": 6, "skill": 4, "tn": 15, "hostile": "12:6:4"}
    assert engine.roll_result("immortal", faces=[6], **params, auto_success="yes").hostiles[0].automatic
    r = engine.roll_result("immortal", faces=[6, 5], **params, auto_success="no")
    assert not r.hostiles[0].automatic and r.hostiles[0].total == 15


def test_default_is_best_and_the_switch_values_still_work():
    assert SPEC.param("auto_success").default == "best"
    assert SPEC.param("auto_success").choices == MODES
    assert SPEC.resolve({"auto_success": True})["auto_success"] == "yes"
    assert SPEC.resolve({"auto_success": False})["auto_success"] == "no"
    assert SPEC.resolve({"auto_success": " Best "})["auto_success"] == "best"
    with pytest.raises(ParameterError, match=r"--auto-success: expected one of best, yes, no, got 'maybe'"):
        SPEC.resolve({"auto_success": "maybe"})


def test_odds_report_both_chances_only_where_automatic_success_is_available():
    assert "auto_success" not in engine.odds("immortal", attribute=6, skill=4, tn=15)
    assert "auto_success" not in engine.odds("immortal", attribute=6, skill=5, opponent="4")
    both = engine.odds("immortal", attribute=6, skill=5, tn=15, hostile="14:6")
    assert both["auto_success"] == {"yes": 0.3, "no": 0.42}
    legacy_only = engine.odds("immortal", attribute=6, skill=4, tn=15, hostile="12:6:4")
    assert legacy_only["exact"]["auto_success"] == {"yes": "3/5", "no": legacy_only["exact"]["auto_success"]["no"]}
    assert Fraction(legacy_only["exact"]["auto_success"]["no"]) < Fraction(3, 5)


# --- properties over the whole parameter space -----------------------------------------------

hostile_text = st.tuples(
    st.integers(1, 60), st.one_of(st.none(), st.integers(0, 20)), st.integers(0, 10),
    st.one_of(st.none(), st.sampled_from(COLORS)),
).map(lambda t: ":".join(["" if v is None else str(v) for v in t]).rstrip(":"))

whole_space = st.fixed_dictionaries(
    {
        "attribute": st.integers(0, 20),
        "skill": st.integers(0, 10),
        "tn": st.integers(1, 60),
        "color": st.sampled_from(COLORS),
        "untrained": st.booleans(),
        "bonus_sharing": st.sampled_from(["pool", "each", "none"]),
        "hostile": st.lists(hostile_text, max_size=6),
        "opposed": st.sampled_from(["no", "roll", "total"]),
        "opponent": st.tuples(st.integers(0, 20), st.integers(0, 10)).map(lambda t: f"{t[0]}+{t[1]}"),
        "opponent_total": st.integers(1, 60),
    }
).map(lambda p: {
    **{k: v for k, v in p.items() if k not in ("opposed", "opponent", "opponent_total")},
    "skill": 0 if p["untrained"] else p["skill"],
    **({"opponent": p["opponent"]} if p["opposed"] == "roll" else {}),
    **({"opponent_total": p["opponent_total"]} if p["opposed"] == "total" else {}),
})


@settings(max_examples=300, deadline=None)
@given(whole_space)
def test_best_is_never_below_yes_or_no(params):
    best, yes, no = (chance(**params, auto_success=m) for m in MODES)
    assert best >= yes and best >= no
    reported = engine.odds("immortal", **params)["exact"].get("auto_success")
    if reported is not None:
        assert {k: Fraction(v) for k, v in reported.items()} == {"yes": yes, "no": no}
    else:
        assert best == yes == no


@settings(max_examples=150, deadline=None)
@given(whole_space)
def test_under_best_one_more_rank_never_lowers_the_chance(params):
    if params["untrained"] or params["skill"] == 10:
        return
    assert chance(**{**params, "skill": params["skill"] + 1}) >= chance(**params)


@settings(max_examples=100, deadline=None)
@given(whole_space, st.lists(st.integers(1, 10), min_size=8, max_size=8))
def test_a_roll_under_best_is_the_roll_it_chose(params, faces):
    """Declared (or not available), best rolls exactly as yes does; declined, it is because
    declaring would have lowered the chance, and the primary die is drawn."""
    r = engine.roll_result("immortal", faces=faces[: _dice_needed(params)], **params)
    if r.automatic or not r.automatic_available:
        same = engine.roll_result("immortal", faces=list(r.dice), **{**params, "auto_success": "yes"})
        assert same.to_dict() | {"params": None} == r.to_dict() | {"params": None}
    else:
        assert chance(**params, auto_success="yes") < chance(**params)
        assert r.total is not None and r.dice[0] == faces[0]


def _dice_needed(params) -> int:
    class Count:
        n = 0

        def randbelow(self, n: int) -> int:
            self.n += 1
            return 0

    counter = Count()
    SPEC.roll(counter, SPEC.resolve(params))
    return counter.n


def test_best_against_yes_and_no_exhaustively_for_one_hostile():
    """Every skill rank and TN where automatic success is available, a spread of
    attributes and every hostile TN that can matter, under the pool rule."""
    for attribute, skill in itertools.product((0, 4, 8, 12), range(1, 11)):
        for tn, hostile_tn in itertools.product(range(1, 3 * skill + 1, 2), range(attribute + 2, attribute + 31, 3)):
            params = {"attribute": attribute, "skill": skill, "tn": tn, "hostile": str(hostile_tn)}
            best, yes, no = (chance(**params, auto_success=m) for m in MODES)
            assert best == max(yes, no), params
