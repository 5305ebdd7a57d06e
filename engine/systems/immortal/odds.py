"""Exact odds of an Immortal roll: integer counts over every face, Fractions at the end.

The primary roll gives the number of ways to score each primary bonus (points above the
target number, clipped at the largest bonus that can still matter); each hostile gives the
number of faces falling short of its TN by each amount (its deficit). Success is summed over
the bonus: with the ``pool`` rule the hostiles' deficits must add up to at most the bonus,
with ``each`` every deficit on its own must be at most the bonus, with ``none`` every
deficit must be 0.

The ``pool`` convolution multiplies the hostiles' deficit polynomials packed into Python
integers (one fixed-width digit per deficit, truncated above the cap), so six hostiles cost
six big-integer products rather than a Python loop over every joint face.

``--auto-success best`` needs these odds to decide: :func:`chosen_setup` computes the chance
with the primary declared automatic and rolled, and keeps the better (the roll uses it too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from engine.results import Odds
from engine.systems.immortal.rules import SIDES, Setup, setup


def _deficits(tn: int, modifier: int) -> tuple[int, tuple[int, ...]]:
    """A d10 + ``modifier`` against ``tn``: how many faces defeat it, and the deficit of each
    face that does not (faces 1, 2, ... fall short by ``tn - modifier - face``)."""
    need = tn - modifier  # the face needed
    short = tuple(need - face for face in range(1, min(need - 1, SIDES) + 1))
    return SIDES - len(short), short


def _bonus_counts(s: Setup, cap: int) -> tuple[list[int], int]:
    """Ways each primary bonus 0..cap is scored (bonuses above ``cap`` counted at ``cap``),
    and the number of equally likely primary outcomes."""
    bonus = [0] * (cap + 1)
    if s.automatic:
        # No roll, so no points scored above the target number: the bonus is 0.
        bonus[0] = 1
        return bonus, 1
    margin = s.modifier - s.base_tn - s.penalty
    if s.opponent is not None:
        # Own face minus the opponent's face is k for 10 - |k| of the 100 pairs.
        for k in range(1 - SIDES, SIDES):
            m = k + margin
            if m >= 0:
                bonus[m if m < cap else cap] += SIDES - abs(k)
        return bonus, SIDES * SIDES
    for face in range(1, SIDES + 1):
        m = face + margin
        if m >= 0:
            bonus[m if m < cap else cap] += 1
    return bonus, SIDES


def _pool_ok(hostiles: list[tuple[int, tuple[int, ...]]], cap: int) -> list[int]:
    """For each bonus b in 0..cap, the joint hostile outcomes whose deficits sum to <= b."""
    width = (SIDES ** len(hostiles)).bit_length() + 1  # no digit can carry into the next
    keep = (1 << (width * (cap + 1))) - 1
    product = 1
    for zero, short in hostiles:
        poly = zero
        for d in short:
            if d <= cap:
                poly += 1 << (d * width)
        product = (product * poly) & keep
    digit = (1 << width) - 1
    out, running = [], 0
    for b in range(cap + 1):
        running += (product >> (b * width)) & digit
        out.append(running)
    return out


def _each_ok(hostiles: list[tuple[int, tuple[int, ...]]], cap: int) -> list[int]:
    """For each bonus b in 0..cap, the joint hostile outcomes whose every deficit is <= b."""
    out = [1] * (cap + 1)
    for zero, short in hostiles:
        within = [0] * (cap + 1)
        within[0] = zero
        for d in short:
            if d <= cap:
                within[d] += 1
        running = 0
        for b in range(cap + 1):
            running += within[b]
            out[b] *= running
    return out


def chosen_setup(params: Mapping[str, Any]) -> Setup:
    """The setup as rolled: under ``--auto-success best`` an available automatic primary
    success is declared only where it does not lower the exact chance of success (an
    automatic primary scores no bonus for the hostiles, a roll may). Ties declare it: the
    chance is the same and no die is needed."""
    s = setup(params)
    if params["auto_success"] != "best" or not s.automatic:
        return s
    rolled = replace(s, automatic=False)
    return s if _success(s) >= _success(rolled) else rolled


def immortal_odds(params: Mapping[str, Any]) -> Odds:
    """Exact P(success) and P(failure) of one setting. Where automatic success is available
    (to the primary or a hostile's legacy), ``extra["auto_success"]`` gives the chance under
    ``--auto-success yes`` and under ``no``, so a player can see what the choice is worth."""
    s = chosen_setup(params)
    wins = _success(s)
    extra: dict[str, Mapping[str, Fraction]] = {}
    if s.automatic_available or s.legacy_available:
        extra["auto_success"] = {
            mode: wins if mode == params["auto_success"] else _success(setup({**params, "auto_success": mode}))
            for mode in ("yes", "no")
        }
    return Odds(
        system="immortal",
        params=params,
        success=wins,
        outcomes={"success": wins, "failure": 1 - wins},
        extra=extra,
    )


def _success(s: Setup) -> Fraction:
    """Exact P(success) of a setup."""
    hostiles = [
        _deficits(h.tn, (h.attribute or 0) + h.legacy)
        for h, auto in zip(s.hostiles, s.hostile_automatic, strict=True)
        if not auto
    ]
    worst = [short[0] if short else 0 for _, short in hostiles]
    if s.bonus_rule == "pool":
        cap = sum(worst)
    elif s.bonus_rule == "each" and worst:
        cap = max(worst)
    else:
        cap = 0
    # Nor can the bonus exceed the best primary roll's margin (own 10, opponent's 1).
    if not s.automatic:
        best = SIDES + s.modifier - s.base_tn - s.penalty - (s.opponent is not None)
        cap = max(0, min(cap, best))
    bonus, primary_den = _bonus_counts(s, cap)
    ok = _pool_ok(hostiles, cap) if s.bonus_rule == "pool" else _each_ok(hostiles, cap)
    wins = sum(b * h for b, h in zip(bonus, ok, strict=True))
    return Fraction(wins, primary_den * SIDES ** len(hostiles))
