"""Infinite Horizons' rules as small pure functions shared by the roll and the odds, so the two
cannot disagree: the dice pool, rolling exploding dice, and how successes, an opponent's
successes, the need, mitigation and damage combine into an outcome.

Rules text: *Infinite Horizons: Game Mechanics*; readings: docs/rules/horizons.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.dice import DiceSource, expect, roll_die
from engine.errors import EntropyError

SIDES = 10
#: "Each die that rolls a 7 or better counts as a Success."
SUCCESS_FACE = 7
#: "Whenever you roll a 10 on any die in your dice pool, it counts as a Success, and then you
#: get to roll that die again!"
EXPLODE_FACE = 10
#: "1 (base die) + Trait + Skill = Your Dice Pool"
BASE_DICE = 1

#: Where Damage Mitigation is subtracted. ``damage``: from the net successes that become damage,
#: after the roll has been judged against the need. ``successes``: from the attack's (net)
#: successes before they are compared with the need, so mitigation can also turn a hit aside.
MITIGATION_MODES: tuple[str, ...] = ("damage", "successes")

#: "There's no limit to how many times a die can explode." A source that gives this many 10s in
#: a row on one die (probability 10**-1000) is broken, not lucky; stopping keeps a stuck
#: source from hanging the tower.
IMPLAUSIBLE_EXPLOSIONS = 1000


def pool_size(params: Mapping[str, Any]) -> int:
    """``--pool`` when given, else 1 + trait + skill."""
    if params.get("pool") is not None:
        return int(params["pool"])
    return BASE_DICE + int(params.get("trait") or 0) + int(params.get("skill") or 0)


def is_success(face: int) -> bool:
    return face >= SUCCESS_FACE


def roll_die_chain(dice: DiceSource, after: int = 0) -> tuple[int, ...]:
    """One die of the pool: its face, then every re-roll while it shows 10. ``after``: dice
    still to be drawn after this one (for :func:`engine.dice.expect`)."""
    expect(dice, 1 + after)
    faces = [roll_die(dice, SIDES)]
    while faces[-1] == EXPLODE_FACE:
        if len(faces) > IMPLAUSIBLE_EXPLOSIONS:
            raise EntropyError(
                "dice", f"{IMPLAUSIBLE_EXPLOSIONS} tens in a row on one die; the source is stuck"
            )
        expect(dice, 1 + after)  # the re-roll, then the dice still to come
        faces.append(roll_die(dice, SIDES))
    return tuple(faces)


def roll_pool(dice: DiceSource, size: int, after: int = 0) -> tuple[tuple[int, ...], ...]:
    """``size`` dice in draw order, each with its explosions right after it; ``after`` dice
    (an opponent's pool) are drawn once these are."""
    return tuple(roll_die_chain(dice, size - 1 - i + after) for i in range(size))


def count_successes(faces: tuple[int, ...]) -> int:
    return sum(1 for f in faces if is_success(f))


def chains(faces: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Split flat faces back into dice: a 10 is followed by its re-roll."""
    out: list[tuple[int, ...]] = []
    current: list[int] = []
    for face in faces:
        current.append(face)
        if face != EXPLODE_FACE:
            out.append(tuple(current))
            current = []
    if current:
        out.append(tuple(current))
    return tuple(out)


@dataclass(frozen=True)
class Exchange:
    """How one roll's successes are judged.

    ``net``: the actor's successes minus the opponent's (the successes when unopposed);
    ``success``: ``net`` (less mitigation, in ``successes`` mode) reaches ``need``;
    ``damage``: on a success, ``net - mitigation`` floored at 0; 0 on a failure.
    """

    net: int
    success: bool
    damage: int

    @property
    def winner(self) -> str:
        """Of an opposed roll: "The character with more successes wins the exchange"."""
        if self.net > 0:
            return "actor"
        if self.net < 0:
            return "opponent"
        return "tie"


def effective_need(need: int, mitigation: int, mode: str) -> int:
    """The net successes a success takes: the need, plus mitigation in ``successes`` mode."""
    if mode not in MITIGATION_MODES:
        raise ValueError(f"mitigation mode must be one of {', '.join(MITIGATION_MODES)}, got {mode!r}")
    return need + (mitigation if mode == "successes" else 0)


def judge(successes: int, opponent_successes: int, need: int, mitigation: int, mode: str) -> Exchange:
    """Net successes, success and damage of one roll (see :class:`Exchange`)."""
    net = successes - opponent_successes
    success = net >= effective_need(need, mitigation, mode)
    damage = max(0, net - mitigation) if success else 0
    return Exchange(net, success, damage)
