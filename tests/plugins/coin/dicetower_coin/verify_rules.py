"""coin for tools/verify_rolls.py (``--rules PATH``): how a coin roll is drawn again from its
bytes and how its result screen's first line reads. Standard library only (nothing of dicetower):
a player reads it, compares its sha256 (the checker prints it) with the one this plug-in
publishes, and names it to the checker."""

from __future__ import annotations

from typing import Any

SYSTEM = "coin"
#: No parameter types a roll in: every coin is drawn.
ENTERED: tuple[str, ...] = ()
#: Nothing is carried from roll to roll.
CARRIED: tuple[tuple[str, str], ...] = ()


def redraw(roll: Any, result: dict[str, Any]) -> str | None:
    """Each coin drawn as ``below(2) + 1`` (2 heads, 1 tails) in the logged order; None when
    the seed's bytes give the logged coins, else what differs."""
    drawn = [roll.below(2) + 1 for _ in result.get("dice", [])]
    if drawn != result.get("dice"):
        return f"coins logged {result.get('dice')}, the seed gives {drawn}"
    return None


def screen_line(result: dict[str, Any]) -> str:
    """The heads against the heads needed, as the result screen's first line shows them."""
    return f"{result['total']} vs {result['needed']}"
