"""Every parameter's range fits its rules: a difficulty goes up to the highest total the roll
can reach (so every chance can be entered), needs up to the largest pool, and a long-term
fingers challenge can spend karma. Each bound is checked at its edge: the highest value is
accepted and still decides something, one more is refused with the parameter named."""

from __future__ import annotations

from fractions import Fraction

import pytest

import engine
from engine.errors import ParameterError
from engine.systems import d6cv, horizons, infinity
from engine.systems.immortal import rules as immortal_rules


def chance(system: str, **params) -> Fraction:
    return Fraction(engine.odds(system, **params)["exact"]["success"])


def test_d6cv_cv_reaches_the_highest_total_with_and_without_criticals():
    top = {"stat": 15, "skill": 4, "modifier": 10}
    assert d6cv.TOTAL_MAX == 6 + 15 + 4 + 10 == 35
    assert engine.get("d6cv").param("cv").hi == 35
    # Without criticals CV 26..34 were out of reach; each is beaten by some total.
    for cv in range(26, 35):  # totals 30..35
        assert chance("d6cv", **top, cv=cv, criticals=False) == Fraction(min(6, 35 - cv), 6)
    assert chance("d6cv", **top, cv=35, criticals=False) == 0
    assert chance("d6cv", **top, cv=35) == Fraction(1, 6)  # only the critical 6
    with pytest.raises(ParameterError, match="--cv: expected a whole number from 0 to 35, got 36"):
        engine.odds("d6cv", cv=36)


def test_horizons_need_and_mitigation_reach_the_largest_pool():
    assert horizons.NEED_MAX == horizons.POOL_MAX == 30
    assert 0 < chance("horizons", pool=30, need=30) < Fraction(1, 10**5)
    assert chance("horizons", pool=30, need=21) > 0
    r = engine.roll("horizons", pool=30, need=30, faces=[7] * 30)
    assert r["successes"] == 30 and r["success"] is True
    odds = engine.odds("horizons", pool=30, opponent_pool=1, mitigation=30, body=2, resolve=2)
    assert 0 < odds["damage"]["1"] < 1e-6  # 31 net successes, less 30 mitigation
    for name in ("need", "mitigation"):
        with pytest.raises(ParameterError, match=f"--{name}: .* got 31"):
            engine.odds("horizons", **{name: 31})


def test_infinity_cr_and_defense_reach_the_highest_totals():
    assert infinity.CR_MAX == infinity.TOTAL_MAX == 150 + 9 + 1 + 18 + 50
    assert infinity.DEFENSE_MAX == infinity.TOTAL_MAX + infinity.DAMAGE_MAX
    # A rating of 150 against CR 150 could not be entered (CR stopped at 100).
    assert 0 < chance("infinity", rating=150, cr=150) < 1
    group = {"rating": 150, "declaration": True, "modifier": 50, "helper": [150] * 9,
             "related": [150] * 9}
    top = engine.odds("infinity", **group, cr=infinity.CR_MAX)["exact"]["outcomes"]
    assert Fraction(top["complication"]) > 0  # the highest total meets the highest CR
    volley = {**group, "volley": True, "damage": 200, "attacker": ["150:0"] * 9}
    del volley["helper"]
    top = engine.odds("infinity", **volley, defense=infinity.DEFENSE_MAX)["exact"]["outcomes"]
    assert Fraction(top["complication"]) > 0
    with pytest.raises(ParameterError, match="--defense"):
        engine.odds("infinity", volley=True, damage=1, defense=infinity.DEFENSE_MAX + 1)


def test_immortal_hostile_tn_reaches_what_a_primary_bonus_can_cover():
    assert immortal_rules.HOSTILE_TN_MAX == 79
    # d10 + 20 + legacy 10 = 40 at best, plus a primary bonus of up to 39 (TN 1).
    assert chance("immortal", attribute=20, skill=10, tn=1, hostile="79::10") == Fraction(1, 100)
    with pytest.raises(ParameterError, match="--hostile: hostile TN must be from 1 to 79, got 80"):
        engine.odds("immortal", hostile="80")


def test_fingers_long_term_can_spend_karma():
    params = {"chain": "2/5+1,2/5+1", "long_term": True, "max_tests": 2}
    assert chance("fingers", **params, karma=2) == Fraction(9, 25)
    assert chance("fingers", chain="2/5,2/5", long_term=True, max_tests=2) == Fraction(4, 25)
    r = engine.roll_result("fingers", **params, karma=2, guess=1, winners_set=[1, 2, 3, 1, 4, 5])
    assert [t.spent for t in r.tests] == [1, 1] and r.karma_after == 0 and r.success
