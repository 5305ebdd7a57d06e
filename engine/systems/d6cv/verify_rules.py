"""d6cv for tools/verify_rolls.py, the outsider's checker: how a d6cv roll is drawn again from
its bytes, and how its result screen's first line reads (docs/fairness.md, "Verify it
yourself", rules 12 to 18). Standard library only (nothing of dicetower): the checker loads this
file by its path and prints its sha256, so a player can read it and compare it with the
published one."""

from __future__ import annotations

from typing import Any

SYSTEM = "d6cv"
#: Parameters that, given, make a roll typed in (its outcome not drawn): rule 13.
ENTERED: tuple[str, ...] = ()
#: What a player carries from roll to roll: (the state's name, the result field giving it after
#: a roll; a dotted path reads inside an object), rule 17.
CARRIED: tuple[tuple[str, str], ...] = ()
#: The sides of its dice: each die is drawn below SIDES, plus 1, in the logged order (rule 12).
SIDES = 6


def redraw(roll: Any, result: dict[str, Any]) -> str | None:
    """None when the seed's bytes give the logged dice; else what differs. roll.below(n)
    draws the next value below n (rule 10)."""
    drawn = [roll.below(SIDES) + 1 for _ in result.get("dice", [])]
    if drawn != result.get("dice"):
        return f"dice logged {result.get('dice')}, the seed gives {drawn}"
    return None


def screen_line(result: dict[str, Any]) -> str:
    """What the result screen's first line shows after the system's id (rule 18): the total
    against the CV, the opponent's total in a contest, or the checks won of several."""
    checks = result.get("checks") or []
    if isinstance(result.get("opponent_total"), int):
        return f"{result['total']} vs {result['opponent_total']}"
    if len(checks) > 1:
        return f"{sum(1 for c in checks if c['success'])}/{len(checks)} checks"
    return f"{result['total']} vs {result['cv']}"
