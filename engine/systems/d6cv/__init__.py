"""d6cv: d6 + stat + skill + modifier must beat a Challenge Value (CV).

A natural 6 is a critical success and a natural 1 a critical failure (switchable). Also Dice
Contests (targeted: the target wins ties; untargeted: ties re-roll), and extended checks:
repeat checks (``--repeat``), changing checks (``--cv-step``), and construction checks
(``--construction`` blueprint/execution/project at a ``--complexity``). Rules decisions:
docs/rules/d6cv.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.dice import DiceSource, roll_die
from engine.errors import ParameterError
from engine.params import Param
from engine.results import RollResult
from engine.systems import SystemSpec
from engine.systems.d6cv.odds import odds
from engine.systems.d6cv.panel import PANEL
from engine.systems.d6cv.rules import (
    COMPLEXITIES,
    FAILURE,
    SIDES,
    SUCCESS,
    Part,
    bonus,
    check_verdict,
    exchange_verdict,
    opponent_bonus,
    plan,
)

#: Its place in MODE's order and every listing (SystemSpec.order), read without importing it.
ORDER = 30

_SKILL_NAMES = {"untrained": 0, "mastery": 4, "master": 4}

STAT_MAX = 15
SKILL_MAX = 4
MODIFIER_MAX = 10
#: The highest total a check reaches (a 6 + the highest stat, skill and modifier): a CV of
#: this can only be beaten by a critical, a CV of one less by that total alone, so every
#: chance a CV can give is reachable without or with criticals.
TOTAL_MAX = SIDES + STAT_MAX + SKILL_MAX + MODIFIER_MAX

PARAMS: tuple[Param, ...] = (
    Param("stat", "int", "the stat: 0 incapable, 5 average, 10 the natural limit, "
          "11-15 superhuman", default=5, lo=0, hi=STAT_MAX),
    Param("skill", "int", "skill bonus: 0 untrained .. 4 mastery", default=0, lo=0,
          hi=SKILL_MAX, names=_SKILL_NAMES),
    Param("modifier", "int", "situational modifier added to the roll", default=0,
          lo=-MODIFIER_MAX, hi=MODIFIER_MAX),
    Param("cv", "int", "Challenge Value: the total must beat it (be greater)", default=5,
          lo=0, hi=TOTAL_MAX),
    Param("criticals", "bool", "a natural 6 always succeeds, a natural 1 always fails",
          default=True),
    Param("contest", "choice", "Dice Contest against an opponent instead of a CV: targeted "
          "(the target wins ties) or untargeted (ties re-roll)", default="none",
          choices=("none", "targeted", "untargeted")),
    Param("opponent_stat", "int", "the opponent's stat (contests)", default=5, lo=0,
          hi=STAT_MAX),
    Param("opponent_skill", "int", "the opponent's skill bonus (contests)", default=0, lo=0,
          hi=SKILL_MAX, names=_SKILL_NAMES),
    Param("opponent_modifier", "int", "the opponent's modifier (contests)", default=0,
          lo=-MODIFIER_MAX, hi=MODIFIER_MAX),
    # "once an hour, for example": a day of hourly checks.
    Param("repeat", "int", "checks in a row (repeat or changing check)", default=1, lo=1, hi=24),
    Param("cv_step", "int", "CV change from one check to the next (changing check)",
          default=0, lo=-5, hi=5),
    Param("goal", "choice", "extended check: all checks must succeed, or any one is enough",
          default="all", choices=("all", "any")),
    Param("construction", "choice", "construction check: blueprint, execution, or project "
          "(blueprint then execution)", default="none",
          choices=("none", "blueprint", "execution", "project")),
    Param("complexity", "int", "project complexity 0 untrained .. 4 master: sets CV, "
          "minimum skill and base time", default=0, lo=0, hi=4,
          names={"untrained": 0, "master": 4, "mastery": 4}),
)


def check(params: dict[str, Any], given: frozenset[str] = frozenset()) -> None:
    """Combinations that mean nothing are errors; unused parameters are simply ignored."""
    contest, construction = params["contest"], params["construction"]
    if contest != "none" and construction != "none":
        raise ParameterError(
            "contest", f"a construction check is made against the project's CV, not an "
            f"opponent; use --contest none with --construction {construction}, got {contest}")
    if contest != "none" and params["cv_step"] != 0:
        raise ParameterError(
            "cv-step", f"a contest has no CV to change; allowed 0 with --contest {contest}, "
            f"got {params['cv_step']}")
    if construction != "none":
        level = COMPLEXITIES[params["complexity"]]
        if params["skill"] < level.min_skill:
            raise ParameterError(
                "skill", f"a complexity-{level.level} project needs skill {level.min_skill} "
                f"or more, got {params['skill']}")


@dataclass(frozen=True)
class D6cvCheck:
    """One check of an extended check. ``rolls``/``opponent_rolls`` hold every exchange of a
    contest (untargeted ties re-roll); ``total`` is the deciding exchange's total."""

    part: str
    cv: int | None
    rolls: tuple[int, ...]
    opponent_rolls: tuple[int, ...]
    total: int
    opponent_total: int | None
    critical: str
    success: bool


@dataclass(frozen=True)
class D6cvResult(RollResult):
    """``total``, ``cv``, ``critical`` and ``opponent_total`` are the deciding (last) check's;
    ``checks`` lists every check made, ``base_time`` the construction's one-off time."""

    critical: str
    cv: int | None
    opponent_total: int | None
    checks: tuple[D6cvCheck, ...]
    base_time: str | None


def _roll_check(dice: DiceSource, part: Part, index: int, params: Mapping[str, Any],
                drawn: list[int]) -> D6cvCheck:
    add, criticals = bonus(params), params["criticals"]
    cv = part.cv_of(index)
    if cv is not None:
        face = roll_die(dice, SIDES)
        drawn.append(face)
        won, critical = check_verdict(face, add, cv, criticals)
        return D6cvCheck(part.label, cv, (face,), (), face + add, None, critical, won)
    opp_add, targeted = opponent_bonus(params), params["contest"] == "targeted"
    rolls: list[int] = []
    opp_rolls: list[int] = []
    while True:  # an untargeted tie re-rolls both dice, actor first
        face, opp = roll_die(dice, SIDES), roll_die(dice, SIDES)
        drawn += (face, opp)
        rolls.append(face)
        opp_rolls.append(opp)
        verdict, critical = exchange_verdict(face, opp, add, opp_add, criticals, targeted)
        if verdict is not None:
            return D6cvCheck(part.label, None, tuple(rolls), tuple(opp_rolls), face + add,
                             opp + opp_add, critical, verdict)


def roll(dice: DiceSource, params: Mapping[str, Any]) -> D6cvResult:
    goal_all = params["goal"] == "all"
    drawn: list[int] = []
    checks: list[D6cvCheck] = []
    for part in plan(params):
        for index in range(part.repeat):
            made = _roll_check(dice, part, index, params, drawn)
            checks.append(made)
            if made.success != goal_all:  # all: a failure decides; any: a success does
                break
        if not checks[-1].success:
            break
    last = checks[-1]
    construction = params["construction"] != "none"
    return D6cvResult(
        system="d6cv",
        params=params,
        dice=tuple(drawn),
        total=last.total,
        outcome="success" if last.success else "failure",
        success=last.success,
        critical=last.critical,
        cv=last.cv,
        opponent_total=last.opponent_total,
        checks=tuple(checks),
        base_time=COMPLEXITIES[params["complexity"]].base_time if construction else None,
    )


def _plus(n: int) -> str:
    """`` + 5`` or `` - 3``: a bonus as a sum reads it (never ``+ -3``)."""
    return f" + {n}" if n >= 0 else f" - {-n}"


def _check_line(c: D6cvCheck, add: int, opp_add: int, labelled: bool) -> str:
    mark = "ok" if c.success else "x"
    part = f"{c.part} " if labelled else ""  # a project's checks: blueprint or execution
    if c.cv is None:
        ties = f" ({len(c.rolls) - 1} tied)" if len(c.rolls) > 1 else ""
        return (f"{c.rolls[-1]}{add:+d}={c.total} vs {c.opponent_rolls[-1]}{opp_add:+d}="
                f"{c.opponent_total}{ties} {mark}")
    return f"{part}{c.rolls[0]}{add:+d}={c.total} vs CV {c.cv} {mark}"


def describe(result: RollResult) -> list[str]:
    if not isinstance(result, D6cvResult):
        raise TypeError(f"expected a d6cv result, got {type(result).__name__}")
    p = result.params
    add = bonus(p)
    lines = []
    last = result.checks[-1]
    # A project has two parts: say which one the deciding check belongs to, so a failed
    # blueprint (no execution roll) reads differently from a failed execution.
    labelled = p["construction"] == "project"
    if last.cv is None:
        ties = len(last.rolls) - 1
        after = f" (after {ties} tie{'s' if ties > 1 else ''})" if ties else ""
        lines.append(f"{p['contest']} contest{after}: d6 {last.rolls[-1]}{_plus(add)} = "
                     f"{last.total} vs opponent d6 {last.opponent_rolls[-1]}"
                     f"{_plus(opponent_bonus(p))} = {last.opponent_total}")
    else:
        mod = p["modifier"]
        signed = _plus(mod) if mod else ""
        part = f"{last.part}: " if labelled else ""
        lines.append(f"{part}d6 {last.rolls[0]} + stat {p['stat']} + skill {p['skill']}{signed} = "
                     f"{last.total} vs CV {last.cv}")
    if len(result.checks) > 1:
        recent = "; ".join(_check_line(c, add, opponent_bonus(p), labelled)
                           for c in result.checks[-4:])
        more = "... " if len(result.checks) > 4 else ""
        lines.append(f"{len(result.checks)} checks: {more}{recent}")
    verdict = result.outcome.upper()
    contest = last.cv is None
    if result.critical == SUCCESS:
        verdict += " (won on a critical)" if contest else " (critical success)"
    elif result.critical == FAILURE:
        verdict += " (lost on a critical)" if contest else " (critical failure)"
    lines.append(verdict)
    if result.base_time is not None:
        level = COMPLEXITIES[p["complexity"]]
        named = f" ({level.name})" if level.name else ""
        lines.append(f"{p['construction']}, complexity {level.level}{named}: needs skill "
                     f"{level.min_skill}, base time {level.base_time}")
    return lines


SYSTEM = SystemSpec(
    id="d6cv",
    order=ORDER,
    panel=PANEL,
    title="d6 vs Challenge Value",
    summary="d6 + stat + skill + modifier must beat the CV; 6 critical success, 1 critical "
            "failure; contests, repeat, changing and construction checks",
    params=PARAMS,
    outcomes=("success", "failure"),
    roll=roll,
    odds=odds,
    describe=describe,
    check=check,
)
