"""How the button panel offers and shows infinity (see :mod:`engine.systems.panel`).

Coordination (helpers on the primary skill, characters on a related skill), Volleys and
building a rating from an Attribute are flows of their own; their results list every
participant, so the table sees what made the total (infinity rules, Coordination and Volley
Attacks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.systems.infinity.rules import CR_MAX, DAMAGE_MAX, RATING_MAX, make_up
from engine.systems.infinity.speech import SPEECH
from engine.systems.panel import (
    SAID_ELSEWHERE,
    Flow,
    Line,
    ListShape,
    PanelSpec,
    Part,
    Versus,
    numbers,
    outcome_line,
    pack,
    phrase,
    signed,
)

_ROLE = {"roller": "you", "helper": "help", "related": "rel.", "attacker": "atk"}


def _headline(data: Mapping[str, Any]) -> str:
    return f"{data['total']} vs {data['difficulty']}"


def _versus(data: Mapping[str, Any]) -> Versus:
    """The headline for speech: a Volley is against the target's Defense, anything else its CR."""
    params = data.get("params") or {}
    return Versus(data["total"], data["difficulty"], "defense" if params.get("volley") else "cr")


def _participant(p: Mapping[str, Any]) -> Line:
    mark = " base" if p.get("base") else (" +1" if p.get("adds") else "")
    said = phrase("infinity.participant", who=p["role"], rating=p["rating"], hot=p["hot"], cold=p["cold"],
                  total=p["total"],
                  mark=phrase("infinity.base") if p.get("base") else phrase("infinity.adds") if p.get("adds") else "")
    return Line(f"{_ROLE.get(p['role'], p['role'])} {p['rating']}: {p['hot']}/{p['cold']} ={p['total']}{mark}", said)


def _doubles(doubles: Any) -> list[Line]:
    if not isinstance(doubles, str) or doubles == "none":
        return []
    return [Line(f"DOUBLES: {doubles.upper()}", phrase("infinity.doubles", kind=doubles))]


def _details(data: Mapping[str, Any]) -> list[str]:
    sr = data.get("success_rating")
    rated = isinstance(sr, int)
    out: list[str] = [outcome_line(data, f"SR{sr}" if rated else "",
                                   said=phrase("infinity.rating", n=sr) if rated else None)]
    hot, cold = data["dice"][0], data["dice"][1]
    bonus = signed(data.get("bonus", 0))
    out.append(Line(f"hot {hot} cold {cold} {bonus}", phrase("infinity.dice", hot=hot, cold=cold, bonus=bonus)))
    out.extend(_doubles(data.get("doubles")))
    people = data.get("participants") or []
    if len(people) > 1:
        out.extend(_participant(p) for p in people)
    out.extend(_make_up(data, group=len(people) > 1))
    if data.get("damage") is not None:
        out.append(Line(f"damage {data['damage']}", phrase("damage", n=data["damage"])))
    return out


#: How the make-up names each part on the 21-character screen.
_SHORT = {"coordinating": "", "declaration": " decl.", "retry": " retry", "modifier": " mod.", "weapon": " weapon"}


def _make_up(data: Mapping[str, Any], group: bool) -> list[Line]:
    """``41 = base 21 +2`` ``+18 weapon``: how the total is made when it is more than the
    roller's own total (the command line's ``41 = 21 +2 coordinating +18 weapon``), in lines
    that never break a part; said once, whole, with the first line."""
    params = data.get("params") or {}
    terms = make_up(data["base"], data.get("coordination", 0) if group else None, bool(params.get("declaration")),
                    bool(params.get("retry")), params.get("modifier") or 0, data.get("weapon_damage"))
    if not terms:
        return []
    parts = tuple(phrase("infinity.part", n=signed(n), what=what) for n, what in terms)
    said = phrase("infinity.make_up", total=data["total"], base=data["base"], parts=parts)
    lines = pack([f"{data['total']} = base {data['base']}", *(f"{n:+d}{_SHORT[what]}" for n, what in terms)])
    return [Line(line, said if i == 0 else SAID_ELSEWHERE) for i, line in enumerate(lines)]


def _turns(data: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """A Coordination or Volley: the leader's dice, then each helper's or attacker's, one per
    ROLL press, before the combined total (each press shows who is next)."""
    people = data.get("participants") or []
    if len(people) < 2:
        return []
    out: list[tuple[str, list[str]]] = []
    for n, p in enumerate(people):
        who = "leader" if p["role"] == "roller" else f"{p['role']} {n}"
        lines: list[str] = [_participant(p), *_doubles(p.get("doubles"))]
        if n + 1 < len(people):
            nxt = people[n + 1]
            lines.append(Line(f"next: {nxt['role']} {n + 1} ROLL", phrase("turn_next", who=f"{nxt['role']} {n + 1}")))
        else:
            lines.append(Line("ROLL: the total", phrase("turn_total")))
        out.append((who, lines))
    return out


PANEL = PanelSpec(
    speech=SPEECH,
    sides=10,
    # a Complication is neither success nor failure (Infinity, "Determining Success")
    mixed=frozenset({"complication"}),
    labels={"cr": "cr", "skill_points": "skill pts"},
    flows=(
        Flow("coordination", ("helper", "related"),
             "the leader sets the group: each helper's rating on the primary skill, and any "
             "characters on a related skill (RATING and their CR); one ROLL rolls everyone"),
        Flow("volley", ("volley", "damage", "defense", "attacker"),
             "a Volley Attack: the roller's weapon Damage, the target's Defense, and each "
             "other attacker's rating and weapon Damage"),
        Flow("build", ("attribute", "skill_points"),
             "build the rating from an Attribute and Skill Points (the Attribute's skill "
             "bonus is added); leave both at '-' to use the rating as set"),
    ),
    lists={
        # The command line's ranges; a related skill's Coordination CR starts at the rules'
        # CR 0 ("Every other Skill Total that beats a CR 0 (Routine) adds +1").
        "helper": ListShape((Part("rating", 0, RATING_MAX, 8),), lambda v: v[0], most=9),
        "related": ListShape((Part("rating", 0, RATING_MAX, 8), Part("cr", 0, CR_MAX, 0)),
                             lambda v: f"{v[0]}:{v[1]}", most=9),
        "attacker": ListShape((Part("rating", 0, RATING_MAX, 8), Part("damage", 0, DAMAGE_MAX, 2)),
                              lambda v: f"{v[0]}:{v[1]}", most=9),
    },
    omit={"cr": "volley", "rating": "attribute"},
    needs={"damage": "volley", "defense": "volley", "attacker": "volley"},
    count="success_rating",
    headline=_headline,
    versus=_versus,
    details=_details,
    turns=_turns,
)

__all__ = ["PANEL", "numbers"]
