"""immortal for tools/verify_rolls.py, the outsider's checker: how a immortal roll is drawn again from
its bytes, and how its result screen's first line reads (docs/fairness.md, "Verify it
yourself", rules 12 to 18). Standard library only (nothing of dicetower): the checker loads this
file by its path and prints its sha256, so a player can read it and compare it with the
published one."""

from __future__ import annotations

from typing import Any

SYSTEM = "immortal"
#: Parameters that, given, make a roll typed in (its outcome not drawn): rule 13.
ENTERED: tuple[str, ...] = ()
#: What a player carries from roll to roll: (the state's name, the result field giving it after
#: a roll; a dotted path reads inside an object), rule 17.
CARRIED: tuple[tuple[str, str], ...] = ()
#: The sides of its dice: each die is drawn below SIDES, plus 1, in the logged order (rule 12).
SIDES = 10


def redraw(roll: Any, result: dict[str, Any]) -> str | None:
    """None when the seed's bytes give the logged dice; else what differs. roll.below(n)
    draws the next value below n (rule 10)."""
    drawn = [roll.below(SIDES) + 1 for _ in result.get("dice", [])]
    if drawn != result.get("dice"):
        return f"dice logged {result.get('dice')}, the seed gives {drawn}"
    return None


def screen_line(result: dict[str, Any]) -> str:
    """What the result screen's first line shows after the system's id (rule 18): an automatic
    success rolls no die, so it reads ``auto``."""
    return f"{'auto' if result.get('total') is None else result['total']} vs {result['tn']}"
