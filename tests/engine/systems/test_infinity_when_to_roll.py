"""Infinity, When to Roll: *"You roll, you only ever roll, when ... The CR is equal or greater
than the character's skill"*; *"The rest of the time, assume Success"* (unless the player
chooses to roll or significant adverse conditions apply). ``engine.odds`` (and ``odds --json``,
tests/hardware/test_cli_text_agrees.py) says ``"roll_needed"`` with the reason;
docs/rules/infinity.md states the reading."""

from __future__ import annotations

import pytest

import engine


@pytest.mark.parametrize(("rating", "cr", "needed"), [
    (8, 7, False), (8, 8, True), (8, 9, True),  # "equal or greater": equal calls for a roll
    (8, 0, False), (0, 0, True), (150, 149, False), (150, 228, True),
])
def test_a_roll_is_needed_exactly_when_the_cr_is_equal_or_greater_than_the_rating(rating, cr, needed) -> None:
    odds = engine.odds("infinity", rating=rating, cr=cr)
    assert odds["roll_needed"] is needed
    reason = odds["roll_needed_reason"]
    assert reason.endswith("(Infinity, When to Roll)")
    if needed:
        assert reason.startswith(f"CR {cr} is equal to or greater than the rating {rating}: roll")
    else:
        assert reason.startswith(f"CR {cr} is below the rating {rating}: no roll is needed unless the player "
                                 "chooses to roll or significant adverse conditions apply")


def test_the_rating_is_the_skill_rating_not_the_total() -> None:
    """A Declaration or a modifier changes the total, not "the character's skill"."""
    assert engine.odds("infinity", rating=8, cr=8, declaration=True, modifier=5)["roll_needed"] is True
    assert engine.odds("infinity", rating=8, cr=7, modifier=-10)["roll_needed"] is False
    # a rating built from an Attribute: 4 points + the bonus of Attribute 6 (+2) = 6
    assert engine.odds("infinity", attribute=6, skill_points=4, cr=6)["roll_needed"] is True
    assert engine.odds("infinity", attribute=6, skill_points=4, cr=5)["roll_needed"] is False


def test_a_group_goes_by_its_best_primary_skill_and_a_volley_always_rolls() -> None:
    assert engine.odds("infinity", rating=8, cr=10, helper=[12])["roll_needed"] is False
    assert engine.odds("infinity", rating=8, cr=12, helper=[12])["roll_needed"] is True
    # a related skill never gives the base Total, so it does not decide either
    assert engine.odds("infinity", rating=8, cr=10, related=["20"])["roll_needed"] is True
    volley = engine.odds("infinity", rating=50, volley=True, damage=2, defense=3)
    assert volley["roll_needed"] is True and "Defense, not a CR" in volley["roll_needed_reason"]


def test_other_systems_do_not_claim_a_rule_they_lack() -> None:
    for system in ("horizons", "d6cv", "immortal"):
        assert "roll_needed" not in engine.odds(system)
