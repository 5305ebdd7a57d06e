"""Exact d6cv odds by counting faces.

A check is six faces, a contest exchange 36 face pairs counted in closed form (an untargeted
contest drops its ties: re-rolling until decided sums the geometric series
sum_k t^k * P(win) = P(win) / (1 - t), which is P(win | no tie)). Every check, part and
whole extended check reduces to the same :class:`Counts`, whole numbers over one
denominator, so the result is exact and the Fractions are built once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.results import Distribution, Odds
from engine.systems.d6cv.rules import (
    CRIT_FAILURE_FACE,
    CRIT_SUCCESS_FACE,
    FAILURE,
    NONE,
    SIDES,
    SUCCESS,
    bonus,
    opponent_bonus,
    plan,
)


@dataclass(frozen=True)
class Counts:
    """Ways to end as (won by a critical, won, lost by a critical, lost) out of ``den``."""

    win_crit: int
    win_plain: int
    lose_crit: int
    lose_plain: int
    den: int

    @property
    def wins(self) -> int:
        return self.win_crit + self.win_plain

    @property
    def losses(self) -> int:
        return self.lose_crit + self.lose_plain


def _faces(criticals: bool) -> tuple[tuple[int, int, int], ...]:
    """The d6's faces by critical rank: (rank, lowest face, highest face)."""
    if criticals:
        return ((1, CRIT_SUCCESS_FACE, CRIT_SUCCESS_FACE), (0, CRIT_FAILURE_FACE + 1,
                CRIT_SUCCESS_FACE - 1), (-1, CRIT_FAILURE_FACE, CRIT_FAILURE_FACE))
    return ((0, 1, SIDES),)


def check_counts(add: int, cv: int, criticals: bool) -> Counts:
    """Faces that beat the CV (``face > cv - add``), criticals counted apart."""
    crit = 1 if criticals else 0
    low, high = 1 + crit, SIDES - crit
    wins = max(0, high - max(low, cv - add + 1) + 1)
    return Counts(crit, wins, crit, high - low + 1 - wins, SIDES)


def _above(faces: int, threshold: int) -> tuple[int, int]:
    """Two dice uniform on the same ``faces`` consecutive values: pairs whose difference
    (a - o) is above ``threshold``, and pairs where it equals it (``faces - |d|`` each)."""
    above = sum(faces - abs(d) for d in range(max(threshold + 1, 1 - faces), faces))
    equal = faces - abs(threshold) if abs(threshold) < faces else 0
    return above, equal


def contest_counts(add: int, opp_add: int, criticals: bool, targeted: bool) -> Counts:
    """One contest; untargeted ties are left out of the denominator (re-rolled until decided).

    Pairs of different critical rank are decided by the ranks; pairs of equal rank share one
    range of faces, so the totals compare through the difference of two uniform dice.
    """
    wc = wp = lc = lp = 0
    classes = _faces(criticals)
    for rank, low, high in classes:
        size = high - low + 1
        for opp_rank, opp_low, opp_high in classes:
            pairs = size * (opp_high - opp_low + 1)
            if rank > opp_rank:
                wc += pairs
            elif rank < opp_rank:
                lc += pairs
            else:
                above, equal = _above(size, opp_add - add)
                wp += above
                lp += pairs - above - (0 if targeted else equal)
    return Counts(wc, wp, lc, lp, wc + wp + lc + lp)


def sequence(steps: Sequence[Counts], goal: str) -> Counts:
    """Checks made one after another until decided.

    ``all``: stop at the first failure, succeed when every check did. ``any``: stop at the
    first success, fail when every check failed. The deciding check's critical is kept.
    """
    if len(steps) == 1:
        return steps[0]
    suffix = [1] * len(steps)
    for j in range(len(steps) - 2, -1, -1):
        suffix[j] = suffix[j + 1] * steps[j + 1].den
    reach = 1
    wc = wp = lc = lp = 0
    last = len(steps) - 1
    for j, c in enumerate(steps):
        scale = reach * suffix[j]
        if goal == "all":
            lc += scale * c.lose_crit
            lp += scale * c.lose_plain
            if j == last:
                wc, wp = scale * c.win_crit, scale * c.win_plain
            reach *= c.wins
        else:
            wc += scale * c.win_crit
            wp += scale * c.win_plain
            if j == last:
                lc, lp = scale * c.lose_crit, scale * c.lose_plain
            reach *= c.losses
    return Counts(wc, wp, lc, lp, suffix[0] * steps[0].den)


def total_counts(params: Mapping[str, Any]) -> Counts:
    """The whole extended check: each part's checks in sequence, every part must succeed."""
    add, criticals = bonus(params), params["criticals"]
    contest = params["contest"]
    parts = []
    for part in plan(params):
        if part.cv is None:
            one = contest_counts(add, opponent_bonus(params), criticals, contest == "targeted")
            steps = [one] * part.repeat
        else:
            steps = [check_counts(add, cv, criticals) for cv in part.cvs()]
        parts.append(sequence(steps, params["goal"]))
    return parts[0] if len(parts) == 1 else sequence(parts, "all")


def odds(params: Mapping[str, Any]) -> Odds:
    c = total_counts(params)
    # every probability is a count of the same equally likely cases: one denominator
    return Odds(
        system="d6cv",
        params=params,
        success=Fraction(c.wins, c.den),
        outcomes=Distribution(("success", "failure"), (c.wins, c.losses), c.den),
        extra={
            "critical": Distribution((NONE, SUCCESS, FAILURE),
                                     (c.win_plain + c.lose_plain, c.win_crit, c.lose_crit), c.den),
        },
    )
