"""Infinity (Campaign Builder's Guild): hot/cold 2d10 against a Challenge Rating.

Roll two d10, discard the larger; a remaining Hot die adds to the rating, a Cold die
subtracts, ties add nothing and are Doubles (1-5 mishap, 6-10 breakthrough). Total minus
CR is the Result: failure, complication, success, solid or spectacular, with a Success
Rating. Characters may Coordinate (``--helper``, ``--related``) or make a Volley Attack
(``--volley --damage --defense --attacker``). Readings of the text: docs/rules/infinity.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.dice import DiceSource, FacesDice, roll_die
from engine.errors import FacesError, ParameterError
from engine.params import Param, parse_whole
from engine.results import Odds, RollAdvice, RollResult
from engine.systems import SystemSpec
from engine.systems.infinity.odds import outcome_odds
from engine.systems.infinity.panel import PANEL
from engine.systems.infinity.rules import (
    CR_MAX,
    CR_NAMES,
    DAMAGE_MAX,
    DECLARATION_BONUS,
    DEFENSE_MAX,
    DIE_SIDES,
    DOUBLES_ODDS,
    MAX_OTHERS,
    MODIFIER_MAX,
    OUTCOMES,
    RATING_MAX,
    RETRY_PENALTY,
    TOTAL_MAX,
    Attacker,
    Participant,
    Related,
    beats_routine,
    combine,
    doubles_of,
    hot_cold_bonus,
    make_up,
    outcome_of,
    skill_bonus,
    success_rating,
)

#: Its place in MODE's order and every listing (SystemSpec.order), read without importing it.
ORDER = 10

__all__ = ["CR_MAX", "DAMAGE_MAX", "DEFENSE_MAX", "RATING_MAX", "SYSTEM", "TOTAL_MAX", "Attacker", "InfinityResult",
           "Participant", "Related", "effective_rating", "skill_bonus"]

DEFAULT_RATING = 8  # "A skill of 8 (Average)"
DEFAULT_CR = 10


def _whole(value: Any, what: str, hi: int) -> int:
    """A whole number 0..hi from an int or its text (never a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"{what} {value!r} is not a whole number")
    try:
        number = parse_whole(value) if isinstance(value, str) else value
    except ValueError:
        raise ValueError(f"{what} {value!r} is not a whole number") from None
    if not 0 <= number <= hi:
        raise ValueError(f"{what} {number} is out of range 0..{hi}")
    return number


def _rating_item(value: Any) -> int:
    return _whole(value, "rating", RATING_MAX)


def _attacker_item(value: Any) -> Attacker:
    """``"13:16"`` (Attack Rating 13, weapon Damage 16), an :class:`Attacker`, a pair or a
    mapping with ``rating`` and ``damage`` (as a roll's JSON shows it)."""
    rating: Any
    damage: Any
    if isinstance(value, Attacker):
        rating, damage = value.rating, value.damage
    elif isinstance(value, Mapping):
        rating, damage = value.get("rating"), value.get("damage")
    elif isinstance(value, list | tuple) and len(value) == 2:
        rating, damage = value
    elif isinstance(value, str) and value.count(":") == 1:
        rating, damage = value.split(":")
    else:
        raise ValueError(f"{value!r} is not RATING:DAMAGE")
    return Attacker(_whole(rating, "rating", RATING_MAX), _whole(damage, "damage", DAMAGE_MAX))


def _related_item(value: Any) -> int | Related:
    """A related skill: ``"16"`` (rating 16, adds +1 if it beats CR 0) or ``"16:8"`` / ``"16:moderate"``
    (a more distant skill that must beat Coordination CR 8), a :class:`Related`, a pair or a
    mapping with ``rating`` and ``cr`` (as a roll's JSON shows it). At CR 0 it is the plain rating."""
    rating: Any
    cr: Any
    if isinstance(value, Related):
        rating, cr = value.rating, value.cr
    elif isinstance(value, Mapping):
        rating, cr = value.get("rating"), value.get("cr")
    elif isinstance(value, list | tuple) and len(value) == 2:
        rating, cr = value
    elif isinstance(value, str) and value.count(":") == 1:
        rating, cr = value.split(":")
    elif isinstance(value, str) and ":" in value:
        raise ValueError(f"{value!r} is not RATING or RATING:CR")
    else:
        return _rating_item(value)
    if isinstance(cr, str) and cr.strip().lower() in CR_NAMES:
        cr = CR_NAMES[cr.strip().lower()]
    number = _whole(rating, "rating", RATING_MAX)
    coordination_cr = _whole(cr, "Coordination CR", CR_MAX)
    return Related(number, coordination_cr) if coordination_cr else number


PARAMS: tuple[Param, ...] = (
    Param("rating", "int", "Skill or Attack Rating of the roller", default=DEFAULT_RATING, lo=0, hi=RATING_MAX),
    Param("cr", "int", "Challenge Rating (number or name)", default=DEFAULT_CR, lo=0, hi=CR_MAX, names=CR_NAMES),
    Param("declaration", "bool", "the player made a Declaration: +1", default=False),
    Param("retry", "bool", "second attempt after a Complication, same skill: -3", default=False),
    Param("modifier", "int", "situational modifier added to the total", default=0, lo=-MODIFIER_MAX,
          hi=MODIFIER_MAX),
    Param(
        "helper", "list", "Coordination: rating of another character rolling the primary skill",
        default=(), item=_rating_item, item_help=f"ratings 0..{RATING_MAX}", max_items=MAX_OTHERS, panel=False,
    ),
    Param(
        "related", "list",
        "Coordination: a character using a related skill (adds at most +1); RATING:CR for a more distant "
        "skill that must beat a Coordination CR above 0",
        default=(), item=_related_item,
        item_help=f"RATING or RATING:CR, rating 0..{RATING_MAX}, Coordination CR 0..{CR_MAX} or a CR name",
        max_items=MAX_OTHERS, panel=False,
    ),
    Param("volley", "bool", "Volley Attack: combine attacks, add weapon Damage, compare with --defense",
          default=False, panel=False),
    Param("damage", "int", "Volley: Damage of the roller's weapon", default=None, lo=0, hi=DAMAGE_MAX, panel=False),
    Param("defense", "int", "Volley: Defense Rating of the target", default=None, lo=0,
          hi=DEFENSE_MAX, panel=False),
    Param(
        "attacker", "list", "Volley: another combat total as RATING:DAMAGE",
        default=(), item=_attacker_item, item_help=f"RATING:DAMAGE, rating 0..{RATING_MAX}, damage 0..{DAMAGE_MAX}",
        max_items=MAX_OTHERS, panel=False,
    ),
    Param("attribute", "int", "build the rating: Attribute (gives the skill bonus)", default=None, lo=0, hi=200,
          panel=False),
    Param("skill_points", "int", "build the rating: Skill Points (plus the Attribute's bonus)", default=None,
          lo=0, hi=100, panel=False),
)


def effective_rating(params: Mapping[str, Any]) -> int:
    """The roller's rating: ``--rating``, or Skill Points + the Attribute's skill bonus."""
    if params.get("attribute") is not None and params.get("skill_points") is not None:
        return int(params["skill_points"]) + skill_bonus(params["attribute"])
    return int(params["rating"])


def _allowed(name: str) -> str:
    return next(p for p in PARAMS if p.name == name).allowed()


def _check(params: dict[str, Any], given: frozenset[str] = frozenset()) -> None:
    attribute, points = params["attribute"], params["skill_points"]
    if (attribute is None) != (points is None):
        missing = "skill-points" if points is None else "attribute"
        raise ParameterError(missing, "--attribute and --skill-points build the rating together; give both")
    if attribute is not None:
        built = effective_rating(params)
        if "rating" in given and params["rating"] != built:
            raise ParameterError(
                "rating",
                f"--attribute {attribute} and --skill-points {points} give a rating of {built}, "
                f"but --rating {params['rating']} was also given; give one or the other",
            )
        # the rating is built, not given: None (not the default) in ``params`` says so, and a
        # replay resolving the logged ``params`` accepts them as they are
        params["rating"] = None
    if params["volley"]:
        for name in ("damage", "defense"):
            if params[name] is None:
                raise ParameterError(name, "required with --volley: " + _allowed(name))
        if params["helper"]:
            raise ParameterError("helper", "in a --volley other combat totals are --attacker RATING:DAMAGE")
        if "cr" in given:
            raise ParameterError("cr", f"a --volley is compared with --defense, not --cr; got --cr {params['cr']}")
        # A volley has no CR; None (not the default) in ``params`` says so and replays cleanly.
        params["cr"] = None
    else:
        for name in ("damage", "defense", "attacker"):
            if params[name] not in (None, ()):
                raise ParameterError(name.replace("_", "-"), "only used with --volley")


@dataclass(frozen=True)
class InfinityResult(RollResult):
    """An Infinity roll.

    ``bonus``/``doubles``: the roller's hot/cold bonus and Doubles. ``base``: the total the
    roll builds on (the roller's, or the group's highest primary or combat total);
    ``coordination``: +1s from the other totals; ``weapon_damage``: Damage added in a Volley.
    ``total`` is the final (Attack) Total, ``difficulty`` the CR (or Defense), ``result`` =
    total - difficulty, ``damage`` the Result read as Damage in a Volley (None otherwise).
    """

    bonus: int
    doubles: str
    result: int
    success_rating: int
    difficulty: int
    base: int
    coordination: int
    weapon_damage: int | None
    damage: int | None
    participants: tuple[Participant, ...]


def _adjustment(params: Mapping[str, Any]) -> int:
    return (
        int(params["modifier"])
        + (DECLARATION_BONUS if params["declaration"] else 0)
        - (RETRY_PENALTY if params["retry"] else 0)
    )


def _roster(params: Mapping[str, Any]) -> list[tuple[str, int, int | None, bool, int]]:
    """``(role, rating, damage, primary, coordination CR)`` in the order the dice are drawn
    (docs/rules/infinity.md): the roller, then helpers (or Volley attackers), then related skills."""
    volley = params["volley"]
    roster: list[tuple[str, int, int | None, bool, int]] = [
        ("roller", effective_rating(params), params["damage"] if volley else None, True, 0)
    ]
    if volley:
        roster += [("attacker", a.rating, a.damage, True, 0) for a in params["attacker"]]
    else:
        roster += [("helper", r, None, True, 0) for r in params["helper"]]
    roster += [
        ("related", r.rating, None, False, r.cr) if isinstance(r, Related) else ("related", r, None, False, 0)
        for r in params["related"]
    ]
    return roster


def _check_faces(dice: DiceSource, roster: list[tuple[str, int, int | None, bool, int]]) -> None:
    """Typed-in faces must be exactly two per character; say how many, not "at least" one more."""
    if not isinstance(dice, FacesDice):
        return
    given, needed = len(dice.faces) - dice.used, 2 * len(roster)
    if given != needed:
        kind = "too few" if given < needed else "too many"
        who = "" if len(roster) == 1 else (
            f" for each of the {len(roster)} characters (the roller, then each --helper or --attacker, "
            "then each --related)"
        )
        raise FacesError(f"{kind} faces: {given} given, this roll takes exactly {needed}: hot then cold{who}")


def roll(dice: DiceSource, params: Mapping[str, Any]) -> InfinityResult:
    """Roll hot then cold for each character in roster order and settle the group."""
    roster = _roster(params)
    _check_faces(dice, roster)
    faces: list[int] = []
    drawn: list[tuple[int, int]] = []
    for _ in roster:
        hot = roll_die(dice, DIE_SIDES)
        cold = roll_die(dice, DIE_SIDES)
        faces += (hot, cold)
        drawn.append((hot, cold))
    totals = [rating + hot_cold_bonus(h, c) for (_, rating, *_), (h, c) in zip(roster, drawn, strict=True)]
    group = combine(
        totals, (p for *_, p, _ in roster), (d for _, _, d, *_ in roster), (cr for *_, cr in roster)
    )
    participants = tuple(
        Participant(
            role=role, rating=rating, hot=h, cold=c, bonus=hot_cold_bonus(h, c), total=t,
            doubles=doubles_of(h, c), damage=damage, base=i == group.base_index,
            adds=i != group.base_index and beats_routine(t - cr), coordination_cr=cr,
        )
        for i, ((role, rating, damage, _, cr), (h, c), t) in enumerate(zip(roster, drawn, totals, strict=True))
    )
    volley = params["volley"]
    weapon = (group.damage or 0) if volley else 0
    total = group.base + group.coordination + _adjustment(params) + weapon
    difficulty = params["defense"] if volley else params["cr"]
    result = total - difficulty
    outcome = outcome_of(result)
    return InfinityResult(
        system="infinity",
        params=params,
        dice=tuple(faces),
        total=total,
        outcome=outcome,
        success=result >= 1,
        bonus=participants[0].bonus,
        doubles=participants[0].doubles,
        result=result,
        success_rating=success_rating(result),
        difficulty=difficulty,
        base=group.base,
        coordination=group.coordination,
        weapon_damage=group.damage if volley else None,
        damage=max(result, 0) if volley else None,
        participants=participants,
    )


def odds(params: Mapping[str, Any]) -> Odds:
    """Exact outcome probabilities over all 100**k dice outcomes, and P(mishap/breakthrough)
    for the roller's own dice (independent of everything else: 5 of the 100 pairs each)."""
    roster = _roster(params)
    volley = params["volley"]
    difficulty = params["defense"] if volley else params["cr"]
    primaries = [(rating, damage or 0) for _, rating, damage, primary, _ in roster if primary]
    # A total beats its Coordination CR exactly when (rating - CR) + bonus beats CR 0.
    related = [rating - cr for _, rating, _, primary, cr in roster if not primary]
    probs, success = outcome_odds(primaries, related, _adjustment(params) - difficulty, volley)
    return Odds(
        system="infinity",
        params=params,
        success=success,
        outcomes=probs,
        extra=DOUBLES_ODDS,
        advice=when_to_roll(params),
    )


#: The rule the advice rests on, cited as the docs cite rules.
WHEN_TO_ROLL = "Infinity, When to Roll"


def when_to_roll(params: Mapping[str, Any]) -> RollAdvice:
    """Whether the rules call for a roll: *"You roll, you only ever roll, when ... The CR is
    equal or greater than the character's skill"*; *"The rest of the time, assume Success"*,
    unless the player chooses to roll or significant adverse conditions apply (the tower
    cannot know those, so it says so and still rolls on ROLL). A CR equal to the rating
    calls for a roll; only a CR below it does not. The rating is the Skill Rating (built from
    an Attribute when given), not the total with a Declaration or modifier; in a
    Coordination it is the highest primary-skill rating of the group (that character alone
    would succeed). A Volley meets a Defense, not a CR: always rolled. docs/rules/infinity.md."""
    if params["volley"]:
        return RollAdvice(True, f"a Volley Attack is compared with a Defense, not a CR: roll ({WHEN_TO_ROLL})",
                          "volley: roll")
    ratings = [rating for _, rating, _, primary, _ in _roster(params) if primary]
    rating, cr = max(ratings), params["cr"]
    whose = "the rating" if len(ratings) == 1 else "the highest primary-skill rating of the group,"
    if cr >= rating:
        return RollAdvice(True, f"CR {cr} is equal to or greater than {whose} {rating}: roll ({WHEN_TO_ROLL})",
                          f"cr {cr} >= rating {rating}")
    return RollAdvice(
        False,
        f"CR {cr} is below {whose} {rating}: no roll is needed unless the player chooses to roll or significant "
        f"adverse conditions apply; the rest of the time, assume Success ({WHEN_TO_ROLL})",
        f"cr {cr} < rating {rating}",
    )


_CALLOUT = {
    "failure": "FAILURE",
    "complication": "COMPLICATION: retry at -3 (--retry) or use another skill",
    "success": "SUCCESS",
    "solid": "SOLID SUCCESS",
    "spectacular": "SPECTACULAR SUCCESS",
}
_DOUBLES_TEXT = {
    "mishap": "Doubles {f}-{f}: MISHAP, something bad happens",
    "breakthrough": "Doubles {f}-{f}: BREAKTHROUGH, something good happens",
}


def _cr_label(cr: int) -> str:
    # The last name is the text's own label (30 is "Nearly Impossible", not "impossible").
    names = [name for name, value in CR_NAMES.items() if value == cr]
    return f"CR {cr} ({names[-1]})" if names else f"CR {cr}"


def _other(p: Participant) -> str:
    """Another character's total, marked when it is the base, with its Coordination CR
    and its own Doubles (each character who rolls Doubles has a Mishap or Breakthrough)."""
    text = f"{p.role} {p.total}{'*' if p.base else ''}"
    if p.coordination_cr:
        text += f" vs CR {p.coordination_cr}"
    if p.doubles != "none":
        text += f" ({p.doubles} {p.hot}-{p.cold})"
    return text


def _breakdown(result: InfinityResult) -> str:
    """How the final total is built, when it is more than the roller's own total."""
    params = result.params
    group = result.coordination if len(result.participants) > 1 else None
    terms = make_up(result.base, group, params["declaration"], params["retry"], params["modifier"],
                    result.weapon_damage)
    return " = " + " ".join([str(result.base), *(f"{n:+d} {what}" for n, what in terms)]) if terms else ""


def describe(result: RollResult) -> list[str]:
    """Dice, total against the difficulty, the outcome with its SR, and any Doubles."""
    if not isinstance(result, InfinityResult):
        raise TypeError(f"not an infinity result: {type(result).__name__}")
    me = result.participants[0]
    lines = [f"hot {me.hot}  cold {me.cold}  bonus {me.bonus:+d}  ({me.rating} -> {me.total})"]
    others = result.participants[1:]
    if others:
        shown = ", ".join(_other(p) for p in others)
        lines.append(f"others: {shown}; base {result.base} +{result.coordination} coordinating")
    against = f"Defense {result.difficulty}" if result.damage is not None else _cr_label(result.difficulty)
    label = "attack total" if result.damage is not None else "total"
    lines.append(f"{label} {result.total}{_breakdown(result)} vs {against}: result {result.result:+d}")
    verdict = f"{_CALLOUT[result.outcome]} ({result.success_rating} SR)"
    if result.damage is not None:
        verdict += f", damage {result.damage}"
    if result.doubles != "none":
        verdict += "; " + _DOUBLES_TEXT[result.doubles].format(f=me.hot)
    lines.append(verdict)
    advice = when_to_roll(result.params)
    if not advice.needed:
        lines.append(f"rolled anyway: {advice.reason}")
    return lines


SYSTEM = SystemSpec(
    id="infinity",
    order=ORDER,
    panel=PANEL,
    title="Infinity",
    summary="hot/cold 2d10 + rating vs Challenge Rating; Success Ratings, Doubles, Coordination, Volleys",
    params=PARAMS,
    outcomes=OUTCOMES,
    roll=roll,
    odds=odds,
    describe=describe,
    check=_check,
)
