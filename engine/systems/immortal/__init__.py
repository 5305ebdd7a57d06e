"""Immortal: a colour-coded d10 + attribute (+ skill) must equal or exceed a target number.

Also: untrained attempts (TN + 5, a failure locks the skill; or no attempt under the strict
rule), automatic success (skill x 3 >= TN, never in an opposed roll; ``--auto-success best``
declares it only where it does not lower the chance), opposed rolls (the
opponent's total is the TN), hostiles (separate d10 + attribute (+ legacy) against their own
TNs) and the primary bonus spent against them.

Dice are drawn in the order ``--faces`` takes them: the primary d10 (not drawn when the
success is automatic), each hostile's d10 in the order given (not drawn for an automatic
hostile), then the opponent's d10. Rules text: *Immortal*, "Target Numbers"; readings and
parameters: docs/rules/immortal.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.dice import DiceSource, expect, roll_die
from engine.errors import ParameterError
from engine.params import Param
from engine.results import RollResult
from engine.systems import SystemSpec
from engine.systems.immortal.odds import chosen_setup, immortal_odds
from engine.systems.immortal.panel import PANEL
from engine.systems.immortal.rules import (
    ATTRIBUTE_MAX,
    AUTO_SUCCESS_CHOICES,
    BONUS_RULES,
    COLOR_ATTRIBUTES,
    COLORS,
    HOSTILE_TN_MAX,
    POINTS_PER_RANK,
    RANK_MAX,
    SIDES,
    TN_MAX,
    hostile_item,
    opponent_item,
    spend_bonus,
)

#: Its place in MODE's order and every listing (SystemSpec.order), read without importing it.
ORDER = 40

OUTCOMES: tuple[str, ...] = ("success", "failure")
UNTRAINED_RULES: tuple[str, ...] = ("kind", "strict")
MAX_HOSTILES = 6

PARAMS: tuple[Param, ...] = (
    Param("attribute", "int", "the attribute the roll's colour challenges", 5, 0, ATTRIBUTE_MAX),
    Param("skill", "int", "skill rank added to the roll (0 = no skill needed)", 0, 0, RANK_MAX),
    Param("tn", "int", "target number: d10 + attribute + skill must equal or exceed it", 10, 1,
          TN_MAX),
    Param("color", "choice", "colour of the roll (red will, orange strength, yellow agility, "
          "green stamina, blue perception, violet intellect)", "orange", choices=COLORS),
    Param("untrained", "bool", "attempt a skill roll without the skill (TN + 5 under the kind "
          "rule; a failure locks the skill)", False),
    Param("untrained_rule", "choice", "kind: untrained attempts at TN + 5; strict: no attempt "
          "without the skill", "kind", choices=UNTRAINED_RULES),
    Param("auto_success", "choice", "optional rule: skill (or legacy) x 3 >= TN succeeds "
          "without rolling, never in an opposed roll; best: declared only where it does not "
          "lower the chance (an automatic primary scores no bonus for hostiles), yes: always "
          "when allowed, no: never", "best", choices=AUTO_SUCCESS_CHOICES),
    Param("hostile", "list", "a hostile: TN[:ATTRIBUTE[:LEGACY[:COLOR]]] (repeatable)", (),
          item=hostile_item, item_help=f"TN[:ATTRIBUTE[:LEGACY[:COLOR]]] items (TN 1..{HOSTILE_TN_MAX}), "
          "e.g. 12:6 or 12:6:4",
          max_items=MAX_HOSTILES, panel=False),
    Param("bonus_sharing", "choice", "how points above the primary TN are applied to hostiles: "
          "pool (each point once), each (the whole bonus against every hostile), none", "pool",
          choices=BONUS_RULES, panel=False),
    Param("opponent", "list", "an opposed roll: the opponent's ATTRIBUTE[+SKILL]; the "
          "opponent's d10 + attribute + skill is the TN", (), item=opponent_item,
          item_help="ATTRIBUTE[+SKILL], e.g. 6+2", max_items=1, panel=False),
    Param("opponent_total", "int", "an opposed roll whose opponent total is already known "
          "(it is the TN); 0 = not opposed", 0, 0, TN_MAX, panel=False),
    Param("skill_locked", "bool", "this character already failed an untrained attempt with "
          "this skill (no further untrained attempt until he gains a rank)", False,
          panel=False),
)


@dataclass(frozen=True)
class HostileResult:
    """One hostile as rolled; ``die``/``total`` are None when it was defeated automatically."""

    tn: int
    attribute: int
    legacy: int
    color: str
    attribute_name: str
    die: int | None
    total: int | None
    automatic: bool
    bonus_used: int
    success: bool


@dataclass(frozen=True)
class OpponentResult:
    """The opposing roll; ``die`` is None when the opponent's total was given."""

    attribute: int | None
    skill: int | None
    die: int | None
    total: int


@dataclass(frozen=True)
class ImmortalResult(RollResult):
    """An Immortal roll. ``total`` is the primary d10 + attribute + skill (None when the
    success was automatic); ``tn`` is the target number it was held against (with +5 for an
    untrained attempt, or the opponent's total); ``primary_bonus`` is the points scored above
    it; ``skill_locked`` says an untrained attempt failed and the skill is now locked;
    ``automatic_available`` says the rank allowed automatic success (``automatic`` says it
    was declared)."""

    automatic: bool
    color: str
    attribute_name: str
    tn: int
    primary_success: bool
    primary_bonus: int
    bonus_left: int
    untrained: bool
    skill_locked: bool
    hostiles: tuple[HostileResult, ...]
    opponent: OpponentResult | None
    automatic_available: bool


def check(params: dict[str, Any], given: frozenset[str] = frozenset()) -> None:
    """Cross-parameter rules, each refusal naming the parameter at fault."""
    if params["untrained"]:
        if params["skill"] > 0:
            raise ParameterError(
                "skill",
                f"an untrained attempt has no skill ranks: give --skill 0 with --untrained, "
                f"got --skill {params['skill']}",
            )
        if params["untrained_rule"] == "strict":
            raise ParameterError(
                "untrained",
                "refused: under --untrained-rule strict no attempt without the skill is "
                "allowed (allowed: --untrained-rule kind, which raises the TN by 5)",
            )
        if params["skill_locked"]:
            raise ParameterError(
                "untrained",
                "refused: the skill is locked (--skill-locked yes) after a failed untrained "
                "attempt; allowed again once the character has at least 1 rank (--skill 1..)",
            )
    if params["opponent"] and params["opponent_total"]:
        raise ParameterError(
            "opponent-total",
            f"give either --opponent or --opponent-total, not both; got --opponent-total "
            f"{params['opponent_total']} with --opponent",
        )


def roll(dice: DiceSource, params: Mapping[str, Any]) -> ImmortalResult:
    """Primary d10, then each hostile's d10, then the opponent's d10."""
    s = chosen_setup(params)
    # every die of the roll is known before the first: say how many (typed-in faces)
    expect(dice, (not s.automatic) + sum(not auto for auto in s.hostile_automatic) + (s.opponent is not None))
    drawn: list[int] = []
    total: int | None = None
    if not s.automatic:
        face = roll_die(dice, SIDES)
        drawn.append(face)
        total = face + s.modifier
    hostile_faces: list[int | None] = []
    for auto in s.hostile_automatic:
        hostile_face = None if auto else roll_die(dice, SIDES)
        if hostile_face is not None:
            drawn.append(hostile_face)
        hostile_faces.append(hostile_face)
    opponent: OpponentResult | None = None
    if s.opponent is not None:
        face = roll_die(dice, SIDES)
        drawn.append(face)
        opponent = OpponentResult(s.opponent.attribute, s.opponent.skill, face, face + s.base_tn)
        tn = opponent.total + s.penalty
    else:
        if params["opponent_total"]:
            opponent = OpponentResult(None, None, None, params["opponent_total"])
        tn = s.base_tn + s.penalty

    primary_success = s.automatic or (total is not None and total >= tn)
    bonus = total - tn if primary_success and total is not None else 0
    totals = [
        None if f is None else f + (h.attribute or 0) + h.legacy
        for h, f in zip(s.hostiles, hostile_faces, strict=True)
    ]
    deficits = [0 if t is None else max(0, h.tn - t) for h, t in zip(s.hostiles, totals,
                                                                       strict=True)]
    used = spend_bonus(bonus, deficits, s.bonus_rule)
    hostiles = tuple(
        HostileResult(
            tn=h.tn,
            attribute=h.attribute or 0,
            legacy=h.legacy,
            color=h.color or params["color"],
            attribute_name=COLOR_ATTRIBUTES[h.color or params["color"]],
            die=f,
            total=t,
            automatic=auto,
            bonus_used=u,
            success=d == u,
        )
        for h, f, t, auto, d, u in zip(
            s.hostiles, hostile_faces, totals, s.hostile_automatic, deficits, used, strict=True
        )
    )
    success = primary_success and all(h.success for h in hostiles)
    left = bonus - sum(used) if s.bonus_rule == "pool" else bonus
    return ImmortalResult(
        system="immortal",
        params=params,
        dice=tuple(drawn),
        total=total,
        outcome="success" if success else "failure",
        success=success,
        automatic=s.automatic,
        color=params["color"],
        attribute_name=COLOR_ATTRIBUTES[params["color"]],
        tn=tn,
        primary_success=primary_success,
        primary_bonus=bonus,
        bonus_left=left,
        untrained=params["untrained"],
        skill_locked=params["untrained"] and not primary_success,
        hostiles=hostiles,
        opponent=opponent,
        automatic_available=s.automatic_available,
    )


def _hostile_text(i: int, h: HostileResult) -> str:
    if h.automatic:
        return f"H{i} {h.color}: legacy {h.legacy}x{POINTS_PER_RANK} >= {h.tn} auto"
    sum_text = f"{h.die}+{h.attribute}" + (f"+{h.legacy}" if h.legacy else "") + f"={h.total}"
    bonus = f" +{h.bonus_used} bonus" if h.bonus_used else ""
    return f"H{i} {h.color}: {sum_text}{bonus} vs {h.tn} {'ok' if h.success else 'fails'}"


def describe(result: RollResult) -> list[str]:
    """Dice, total against the TN, each hostile, the outcome and any lock."""
    if not isinstance(result, ImmortalResult):
        raise TypeError(f"expected an immortal result, got {type(result).__name__}")
    r = result
    p = r.params
    head = f"{r.color} roll ({r.attribute_name})"
    if r.automatic:
        lines = [f"{head}: skill {p['skill']} x {POINTS_PER_RANK} >= TN {r.tn}, no roll"]
    else:
        parts = [str(r.dice[0]), str(p["attribute"])]
        if p["skill"]:
            parts.append(str(p["skill"]))
        tn_text = f"TN {r.tn}"
        if r.untrained:
            tn_text += " (untrained +5)"
        if r.opponent is not None:
            shown = f"opponent {r.opponent.total}"
            tn_text = f"TN {r.tn} ({shown}{' +5 untrained' if r.untrained else ''})"
        lines = [f"{head}: {' + '.join(parts)} = {r.total} vs {tn_text}"]
    if r.hostiles:
        lines.append("; ".join(_hostile_text(i, h) for i, h in enumerate(r.hostiles, start=1)))
    verdict = r.outcome.upper()
    if r.success and r.automatic:
        verdict += " (automatic)"
    elif r.success and r.primary_bonus:
        verdict += f" (primary bonus {r.primary_bonus})"
    elif r.primary_success and not r.success:
        # The primary held but a hostile did not: say so, or "FAILURE (automatic)" reads as
        # an automatic failure.
        how = "automatic" if r.automatic else "made"
        if r.primary_bonus:
            how += f", bonus {r.primary_bonus}"
        verdict += f" (primary {how}; a hostile failed)"
    lines.append(verdict)
    if r.automatic_available and not r.automatic and p["auto_success"] == "best":
        lines.append("rolled instead of automatic success: it scores no primary bonus, and "
                     "the roll has the better chance here (--auto-success yes to declare it)")
    elif r.automatic_available and not r.automatic:
        lines.append("rolled: the rank allows automatic success, but --auto-success no turns it off")
    if r.skill_locked:
        lines.append("skill locked: no untrained retry until 1 rank is gained")
    return lines


SYSTEM = SystemSpec(
    id="immortal",
    order=ORDER,
    panel=PANEL,
    title="Immortal",
    summary="colour-coded d10 + attribute (+ skill) >= target number; hostiles, primary bonus",
    params=PARAMS,
    outcomes=OUTCOMES,
    roll=roll,
    odds=immortal_odds,
    describe=describe,
    check=check,
)
