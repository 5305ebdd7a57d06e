"""fingers for tools/verify_rolls.py, the outsider's checker: how a fingers roll is drawn again
from its bytes, and how its result screen's first line reads (docs/fairness.md, "Verify it
yourself", rules 11 to 18). Standard library only (nothing of dicetower): the checker loads this
file by its path and prints its sha256, so a player can read it and compare it with the
published one."""

from __future__ import annotations

from typing import Any

SYSTEM = "fingers"
#: Parameters that, given, make a roll typed in (its outcome not drawn): rule 13. A hand typed
#: in with winners_set draws nothing.
ENTERED = ("winners_set",)
#: What a player carries from roll to roll: (the state's name, the result field giving it after
#: a roll), rule 17.
CARRIED = (("karma", "karma_after"),)


def redraw(roll: Any, result: dict[str, Any]) -> str | None:
    """Each test's winning fingers, a partial Fisher-Yates draw of k of n (rule 11); None when
    the seed's bytes give the logged hands, else what differs. ``roll.below(n)`` draws the
    next value below n (rule 10)."""
    if (result.get("params") or {}).get("winners_set"):
        return None
    for test in result.get("tests", []):
        if test.get("automatic"):
            continue
        n, k = test["choices"], test["winning"]
        pool = list(range(1, n + 1))
        for i in range(k):
            j = i + roll.below(n - i)
            pool[i], pool[j] = pool[j], pool[i]
        if sorted(pool[:k]) != sorted(test["winners"]):
            return f"test {test.get('number')}: winners logged {test['winners']}, the seed gives {sorted(pool[:k])}"
    return None


def screen_line(result: dict[str, Any]) -> str:
    """What the result screen's first line shows after the system's id (rule 18): the last
    test's winning fingers of its choices."""
    return f"{result['tests'][-1]['winning']} of {result['tests'][-1]['choices']}"
