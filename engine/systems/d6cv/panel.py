"""How the button panel offers and shows d6cv (see :mod:`engine.systems.panel`).

Contests, repeat and changing checks, and construction are flows: the first page keeps the
plain check (stat, skill, modifier, CV, criticals), and each check of a series is listed on
the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.systems.d6cv.rules import CRIT_FAILURE_FACE, CRIT_SUCCESS_FACE, FAILURE, NONE, SUCCESS
from engine.systems.d6cv.speech import SPEECH
from engine.systems.panel import SAID_ELSEWHERE, Flow, Line, PanelSpec, Versus, numbers, outcome_line, pack, phrase

#: What a die that decided by its critical is called on the screen: a 6 and a 1.
_MARK = {CRIT_SUCCESS_FACE: "CRIT", CRIT_FAILURE_FACE: "FUMBLE"}


def _headline(data: Mapping[str, Any]) -> str:
    checks = data.get("checks") or []
    if isinstance(data.get("opponent_total"), int):
        return f"{data['total']} vs {data['opponent_total']}"
    if len(checks) > 1:
        return f"{sum(1 for c in checks if c['success'])}/{len(checks)} checks"
    return f"{data['total']} vs {data['cv']}"


def _versus(data: Mapping[str, Any]) -> Versus | None:
    """The headline for speech; a repeat or construction check has none (its headline counts
    the checks)."""
    if isinstance(data.get("opponent_total"), int):
        return Versus(data["total"], data["opponent_total"], "opponent_total")
    if len(data.get("checks") or []) > 1:
        return None
    return Versus(data["total"], data["cv"], "cv")


def _deciders(c: Mapping[str, Any]) -> tuple[bool, bool]:
    """Which dice of a contest's deciding exchange decided it by their critical: (the
    actor's, the opponent's). A contest "won on a critical" was won by the actor's 6 or the
    opponent's 1, one "lost on a critical" by the actor's 1 or the opponent's 6 (d6cv rules,
    Dice Contests: criticals are compared before totals)."""
    if c.get("critical", NONE) == NONE:
        return False, False
    won = c["critical"] == SUCCESS
    mine, theirs = c["rolls"][-1], c["opponent_rolls"][-1]
    return ((mine == CRIT_SUCCESS_FACE) if won else (mine == CRIT_FAILURE_FACE),
            (theirs == CRIT_FAILURE_FACE) if won else (theirs == CRIT_SUCCESS_FACE))


def _side(who: str, face: int, total: int, decided: bool) -> str:
    """``you 3 =8``, ``opp. 6 =12 CRIT``: one side of an exchange, its die and total, and the
    critical that decided the contest on the die that rolled it."""
    return f"{who} {face} ={total}" + (f" {_MARK[face]}" if decided else "")


def _contest(c: Mapping[str, Any]) -> list[Line]:
    """A contest check, each exchange in turn: the ties re-rolled (untargeted), then the one
    that decided it, each side's die and total apart (never a sum of two rolls), and the
    critical on the die that rolled it."""
    add = c["total"] - c["rolls"][-1]
    opp_add = c["opponent_total"] - c["opponent_rolls"][-1]
    out: list[Line] = []
    for mine, theirs in zip(c["rolls"][:-1], c["opponent_rolls"][:-1], strict=True):
        said = phrase("d6cv.tie", you=mine, total=mine + add, opponent=theirs, opponent_total=theirs + opp_add)
        text = pack(["tie:", _side("you", mine, mine + add, False), _side("opp.", theirs, theirs + opp_add, False)])
        out.extend(Line(line, said if i == 0 else SAID_ELSEWHERE) for i, line in enumerate(text))
    mine_decided, theirs_decided = _deciders(c)
    mine, theirs = c["rolls"][-1], c["opponent_rolls"][-1]
    verdict = "ok" if c["success"] else "fail"
    said = phrase("d6cv.exchange", part=c["part"], you=mine, total=c["total"], opponent=theirs,
                  opponent_total=c["opponent_total"], verdict=verdict,
                  yours=phrase(f"d6cv.{_MARK[mine].lower()}") if mine_decided else "",
                  theirs=phrase(f"d6cv.their_{_MARK[theirs].lower()}") if theirs_decided else "")
    text = pack([f"{c['part']}:", _side("you", mine, c["total"], mine_decided),
                 _side("opp.", theirs, c["opponent_total"], theirs_decided), verdict])
    out.extend(Line(line, said if i == 0 else SAID_ELSEWHERE) for i, line in enumerate(text))
    return out


def _check(c: Mapping[str, Any]) -> list[Line]:
    if c.get("opponent_total") is not None:
        return _contest(c)
    face = c["rolls"][0]
    crit = {SUCCESS: " CRIT", FAILURE: " FUMBLE"}.get(c.get("critical", NONE), "")
    verdict = "ok" if c["success"] else "fail"
    said = phrase("d6cv.check", part=c["part"], cv=c["cv"], face=face, total=c["total"], verdict=verdict,
                  critical=phrase(f"d6cv.{crit.strip().lower()}") if crit else "")
    return [Line(f"{c['part']} cv {c['cv']}: {face} ={c['total']} {verdict}{crit}", said)]


def _callout(data: Mapping[str, Any]) -> list[Line]:
    """A critical that decided the roll: a check's own (``CRITICAL SUCCESS``); a contest's
    may be either side's die, so it says how the contest went, as the command line does
    (``lost on a critical``), and the check's line marks the die."""
    critical = data.get("critical")
    if not isinstance(critical, str) or critical == NONE:
        return []
    if data.get("opponent_total") is not None:
        won = critical == SUCCESS
        return [Line(f"{'won' if won else 'lost'} on a critical", phrase(f"d6cv.{'won' if won else 'lost'}_critical"))]
    return [Line(f"CRITICAL {critical.upper()}", phrase(f"d6cv.critical_{critical}"))]


def _details(data: Mapping[str, Any]) -> list[str]:
    out: list[str] = [outcome_line(data), *_callout(data)]
    checks = data.get("checks") or []
    if len(checks) > 1 or data.get("opponent_total") is not None:
        for c in checks:
            out.extend(_check(c))
    else:  # one die: drawn on the OLED, this line for a text display and the ear
        out.append(numbers("dice", data["dice"]))
    if data.get("base_time"):
        out.append(Line(f"base time {data['base_time']}", phrase("d6cv.base_time", time=data["base_time"])))
    return out


PANEL = PanelSpec(
    speech=SPEECH,
    sides=6,
    # each label fits beside its longest value on a 21-character line (vs skill 0 untrained)
    labels={"opponent_stat": "vs stat", "opponent_skill": "vs skill", "opponent_modifier": "vs mod",
            "cv_step": "cv step", "construction": "build", "complexity": "complex."},
    flows=(
        Flow("contest", ("contest", "opponent_stat", "opponent_skill", "opponent_modifier"),
             "a Dice Contest: targeted (the target wins ties) or untargeted, and the opponent's "
             "stat, skill and modifier; the tower rolls both sides"),
        Flow("repeat", ("repeat", "cv_step", "goal"),
             "repeat and changing checks: how many checks, the CV change from one to the next, "
             "and whether all or any must succeed"),
        Flow("construction", ("construction", "complexity"),
             "construction: blueprint, execution or the whole project, and its complexity"),
    ),
    headline=_headline,
    versus=_versus,
    details=_details,
)
