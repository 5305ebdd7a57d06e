"""How the button panel offers and shows immortal (see :mod:`engine.systems.panel`).

Hostiles (each one's TN, attribute, legacy and colour) with bonus sharing, and opposed rolls,
are flows. The untrained-skill lock is kept per numbered skill slot: the player picks the
slot on the first page, and only that slot locks ("may not make a roll requiring that same
skill thereafter until he gains at least 1 rank", immortal rules, Untrained Skill Use).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.params import Param
from engine.systems.immortal.rules import ATTRIBUTE_MAX, COLOR_RGB, COLORS, HOSTILE_TN_MAX, POINTS_PER_RANK, RANK_MAX
from engine.systems.immortal.speech import SPEECH
from engine.systems.panel import Flow, Line, ListShape, Lock, PanelSpec, Part, Versus, numbers, outcome_line, phrase


def _headline(data: Mapping[str, Any]) -> str:
    # An automatic success rolls no die, so there is no total: the skill's points stand for it.
    reached = "auto" if data.get("total") is None else data["total"]
    return f"{reached} vs {data['tn']}"


def _automatic(data: Mapping[str, Any]) -> Line:
    """``automatic 5x3>=15``: why no die was rolled (``automatic`` is the primary's; a failed
    hostile can still sink the roll)."""
    skill = (data.get("params") or {}).get("skill", 0)
    word = "automatic" if data.get("success") else "primary automatic"
    said = phrase(f"immortal.{word.replace(' ', '_')}", skill=skill, per=POINTS_PER_RANK, tn=data["tn"])
    return Line(f"{word} {skill}x{POINTS_PER_RANK}>={data['tn']}", said)


def _declared_or_rolled(data: Mapping[str, Any]) -> list[Line]:
    """Where the rank allowed automatic success but the roll was made, say so (the command
    line says it too): under ``best`` the roll had the better chance, under ``no`` the
    player turned the option off."""
    if not data.get("automatic_available") or data.get("automatic"):
        return []
    choice = (data.get("params") or {}).get("auto_success")
    if choice == "best":
        return [Line("rolled, not automatic: better chance", phrase("immortal.rolled_best"))]
    return [Line("rolled: auto success off", phrase("immortal.rolled_off"))] if choice == "no" else []


def _opponent(opponent: Mapping[str, Any]) -> Line:
    """The opposing roll, or the opponent's total as typed in (no die, no attribute)."""
    if opponent.get("die") is None:
        return Line(f"opp. total {opponent['total']}", phrase("immortal.opponent_total", total=opponent["total"]))
    said = phrase("immortal.opponent", attribute=opponent["attribute"], skill=opponent["skill"], die=opponent["die"],
                  total=opponent["total"])
    return Line(f"opp. {opponent['attribute']}+{opponent['skill']} d{opponent['die']} ={opponent['total']}", said)


def _versus(data: Mapping[str, Any]) -> Versus:
    # an automatic success rolls no die: nothing reached, said "automatic against T N 15"
    return Versus(data.get("total"), data["tn"], "tn")


def _hostile(n: int, h: Mapping[str, Any]) -> Line:
    roll = "auto" if h.get("automatic") else f"d{h['die']} ={h['total']}"
    used = f" +{h['bonus_used']}" if h.get("bonus_used") else ""
    verdict = "ok" if h["success"] else "fail"
    bonus = phrase("immortal.bonus_used", n=h["bonus_used"]) if h.get("bonus_used") else ""
    if h.get("automatic"):
        said = phrase("immortal.hostile_automatic", n=n, tn=h["tn"], used=bonus, verdict=verdict)
    else:
        said = phrase("immortal.hostile", n=n, tn=h["tn"], die=h["die"], total=h["total"], used=bonus, verdict=verdict)
    return Line(f"H{n} tn{h['tn']} {roll}{used} {verdict}", said)


def _details(data: Mapping[str, Any]) -> list[str]:
    out: list[str] = [outcome_line(data)]
    if data.get("automatic") is True:
        out.append(_automatic(data))
    out.extend(_declared_or_rolled(data))
    if data.get("dice"):  # drawn on the OLED; this line for a text display and the ear
        out.append(numbers("dice", data["dice"]))
    out.append(Line(f"{data['color']}: {data['attribute_name']}",
                    phrase("immortal.colour", colour=data["color"], attribute=data["attribute_name"])))
    if data.get("primary_bonus"):
        left = data.get("bonus_left", 0)
        out.append(Line(f"bonus {data['primary_bonus']}, left {left}",
                        phrase("immortal.bonus", bonus=data["primary_bonus"], left=left)))
    out.extend(_hostile(n, h) for n, h in enumerate(data.get("hostiles") or [], start=1))
    opponent = data.get("opponent")
    if isinstance(opponent, Mapping):
        out.append(_opponent(opponent))
    if data.get("skill_locked") is True:
        out.append(Line("skill now LOCKED", phrase("immortal.locked")))
    return out


def _hostile_text(v: tuple[int, ...]) -> str:
    tn, attribute, legacy, colour = v
    return ":".join([str(tn), "" if attribute < 0 else str(attribute), str(legacy) if legacy else "",
                     COLORS[colour - 1] if colour else ""])


#: The numbered skill a roll uses: the lock after a failed untrained attempt is per slot.
SKILL_SLOT = Param("skill_slot", "int", "which of the character's skills this roll uses (1-9): "
                   "only that slot locks after a failed untrained attempt", 1, lo=1, hi=9)

PANEL = PanelSpec(
    speech=SPEECH,
    advanced=("untrained_rule", "auto_success"),
    sides=10,
    labels={"untrained_rule": "untr. rule", "auto_success": "auto success", "bonus_sharing": "sharing",
            "opponent_total": "opp. total", "skill_slot": "skill slot", "skill_locked": "skill locked"},
    flows=(
        Flow("hostiles", ("hostile", "bonus_sharing"),
             "hostiles: how many, each one's TN, attribute ('-' = the roller's), legacy and "
             "colour ('-' = the roll's), and how the bonus is shared among them"),
        Flow("opposed", ("opponent", "opponent_total"),
             "an opposed roll: the opponent's attribute and skill (the tower rolls their d10), "
             "or their total when already known"),
        Flow("skill-lock", ("skill_locked",),
             "not set by hand: the player slot locks the skill slot whose untrained attempt "
             "failed, and passes the lock when that slot is picked again", page=False),
    ),
    lists={
        # The command line's ranges (rules.py), so the panel can enter every hostile.
        "hostile": ListShape((Part("tn", 1, HOSTILE_TN_MAX, 10), Part("attr", -1, ATTRIBUTE_MAX, -1, omit=-1),
                              Part("legacy", 0, RANK_MAX, 0, omit=0),
                              Part("col", 0, len(COLORS), 0, omit=0, names=("-", *COLORS))),
                             _hostile_text, most=6),
        "opponent": ListShape((Part("attr", 0, ATTRIBUTE_MAX, 5), Part("skill", 0, RANK_MAX, 0)),
                              lambda v: f"{v[0]}+{v[1]}", most=1),
    },
    extra=(SKILL_SLOT,),
    colour="color",
    colours=COLOR_RGB,
    compare="auto_success",
    # "best" is the better of the two, so the line shows what declaring and rolling each give.
    compare_values=("yes", "no"),
    locks=(Lock("skill_locked", "skill_locked", "skill_slot"),),
    headline=_headline,
    versus=_versus,
    details=_details,
)
