"""d6cv rules shared by rolling and odds: one check, one contest exchange, the construction
table and the plan of an extended check.

Keeping the verdicts here, apart from the dice, is what lets :mod:`engine.systems.d6cv.odds`
count exactly the cases :func:`engine.systems.d6cv.roll` plays out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SIDES = 6
CRIT_SUCCESS_FACE = 6
CRIT_FAILURE_FACE = 1

#: Values of ``critical``: which critical decided the check, from the acting character's side.
NONE = "none"
SUCCESS = "success"
FAILURE = "failure"


@dataclass(frozen=True)
class Complexity:
    """What a project's complexity sets (the text names the three, not the numbers).
    ``name`` is the text's word for the level, where it has one."""

    level: int
    name: str
    cv: int
    min_skill: int
    base_time: str


#: Complexity Untrained (0) .. Master (4): CV 5 + 2 x level, minimum skill = level, and a
#: base time for a one-off that grows by about one calendar unit per level.
COMPLEXITIES: tuple[Complexity, ...] = (
    Complexity(0, "untrained", 5, 0, "1 hour"),
    Complexity(1, "", 7, 1, "1 day"),
    Complexity(2, "", 9, 2, "1 week"),
    Complexity(3, "", 11, 3, "1 month"),
    Complexity(4, "master", 13, 4, "1 year"),
)


@dataclass(frozen=True)
class Part:
    """One part of an extended check: ``repeat`` checks whose CV starts at ``cv`` (None in a
    contest) and moves by ``cv_step`` each check, decided by ``goal`` (``all`` or ``any``)."""

    label: str
    cv: int | None
    repeat: int
    cv_step: int

    def cv_of(self, index: int) -> int | None:
        return None if self.cv is None else self.cv + index * self.cv_step

    def cvs(self) -> tuple[int, ...]:
        """Each check's CV, in order; none in a contest."""
        return () if self.cv is None else tuple(self.cv + i * self.cv_step for i in range(self.repeat))


def bonus(params: Mapping[str, Any]) -> int:
    """What the acting character adds to the d6."""
    return int(params["stat"]) + int(params["skill"]) + int(params["modifier"])


def opponent_bonus(params: Mapping[str, Any]) -> int:
    return int(params["opponent_stat"]) + int(params["opponent_skill"]) + int(params["opponent_modifier"])


def plan(params: Mapping[str, Any]) -> tuple[Part, ...]:
    """The parts of the check, in order; every part must succeed.

    A plain, changing, repeat or contest check is one part; a construction project is a
    Blueprint part followed by an Execution part at the complexity's CV.
    """
    repeat, step = params["repeat"], params["cv_step"]
    construction = params["construction"]
    if construction != "none":
        cv = COMPLEXITIES[params["complexity"]].cv
        labels = ("blueprint", "execution") if construction == "project" else (construction,)
        return tuple(Part(label, cv, repeat, step) for label in labels)
    if params["contest"] != "none":
        return (Part("contest", None, repeat, 0),)
    return (Part("check", params["cv"], repeat, step),)


def _rank(face: int, criticals: bool) -> int:
    """+1 critical success, -1 critical failure, 0 otherwise."""
    if not criticals:
        return 0
    if face == CRIT_SUCCESS_FACE:
        return 1
    if face == CRIT_FAILURE_FACE:
        return -1
    return 0


def check_verdict(face: int, add: int, cv: int, criticals: bool) -> tuple[bool, str]:
    """A Dice Check: (succeeded, critical). Success needs ``face + add > cv`` (beat the CV)."""
    rank = _rank(face, criticals)
    if rank > 0:
        return True, SUCCESS
    if rank < 0:
        return False, FAILURE
    return face + add > cv, NONE


def exchange_verdict(
    face: int, opp_face: int, add: int, opp_add: int, criticals: bool, targeted: bool
) -> tuple[bool | None, str]:
    """One exchange of a Dice Contest: (actor won, critical); None for a tie to re-roll.

    Criticals are compared first: a critical success beats anything but another critical
    success, a critical failure loses to anything but another critical failure. Equal ranks
    compare totals; a tie goes to the target (targeted) or is re-rolled (untargeted).
    """
    rank, opp_rank = _rank(face, criticals), _rank(opp_face, criticals)
    if rank != opp_rank:
        won = rank > opp_rank
        return won, SUCCESS if won else FAILURE
    total, opp_total = face + add, opp_face + opp_add
    if total != opp_total:
        return total > opp_total, NONE
    return (False, NONE) if targeted else (None, NONE)
