"""Infinite Horizons: a pool of 1 + Trait + Skill d10s, each 7+ a success, 10s count and
explode without limit; opposed rolls compare successes, Damage Mitigation absorbs part of a
hit, and the damage fills a defender's three-tier Wound Track; a failed roll can cost the
roller Stability.

Roles in one roll: the *actor* rolls the pool; the *opponent* rolls against it, on the tower
(``--opponent-pool``) or with their own dice at the table (``--opponent-successes``: the
successes they counted), and is also the *defender* whose Mitigation, Body, Resolve and Wound
Track the damage meets; the Stability parameters are the actor's own track.

Rules text: *Infinite Horizons: Game Mechanics*; readings: docs/rules/horizons.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.dice import DiceSource
from engine.errors import ParameterError
from engine.params import Param, parse_whole
from engine.results import Odds, RollResult, to_jsonable
from engine.systems import SystemSpec
from engine.systems.horizons.odds import TRUNCATION, net_counts, opposed_success, pool_counts
from engine.systems.horizons.panel import PANEL
from engine.systems.horizons.rules import (
    MITIGATION_MODES,
    chains,
    count_successes,
    effective_need,
    judge,
    pool_size,
    roll_pool,
)
from engine.systems.horizons.tracks import (
    CRITICAL_BOXES,
    MAJOR_BOXES,
    SPILL_RULES,
    STABILITY_BOXES,
    TIERS,
    StabilityTrack,
    WoundTrack,
    minor_boxes,
)

#: Its place in MODE's order and every listing (SystemSpec.order), read without importing it.
ORDER = 20

POOL_MAX = 30
SCORE_MAX = 10
#: Successes needed: up to the largest pool (10s explode, so a pool can score more than
#: its size, but a need above every pool is not a roll a table sets).
NEED_MAX = POOL_MAX
#: The text gives Mitigation no scale; up to the largest pool, as net successes go.
MITIGATION_MAX = POOL_MAX
STABILITY_MAX = 20
#: An opponent who rolled at the table can score more successes than dice (10s explode); twice
#: the largest pool is more than any pool of 30 scores outside odds below 1e-15.
OPPONENT_SUCCESSES_MAX = 2 * POOL_MAX


def _wound_count(value: Any) -> int:
    """One item of ``--wounds``: a count of marked boxes."""
    problem = f"{value!r} is not a count of marked boxes (a whole number, 0 or more)"
    if isinstance(value, bool):
        raise ValueError(problem)
    try:
        number = value if isinstance(value, int) else parse_whole(str(value))
    except ValueError:
        raise ValueError(problem) from None
    if number < 0:
        raise ValueError(problem)
    return number


PARAMS: tuple[Param, ...] = (
    Param("trait", "int", "Trait score; the pool is 1 + trait + skill", 2, 0, SCORE_MAX),
    Param("skill", "int", "Skill score; the pool is 1 + trait + skill", 1, 0, SCORE_MAX),
    Param(
        "pool", "int", "dice in the pool, instead of --trait and --skill",
        None, 1, POOL_MAX, panel=False,
    ),
    Param("need", "int", "successes needed (net successes in an opposed roll)", 1, 1, NEED_MAX),
    Param(
        "opponent_pool", "int", "the opponent's dice pool in an opposed roll; 0 = unopposed",
        0, 0, POOL_MAX,
    ),
    Param(
        "opponent_successes", "int",
        "the opponent's successes, counted at the table from their own dice "
        "(instead of --opponent-pool)",
        None, 0, OPPONENT_SUCCESSES_MAX,
    ),
    Param(
        "mitigation", "int", "the defender's Damage Mitigation, taken off the net successes",
        0, 0, MITIGATION_MAX,
    ),
    Param(
        "mitigation_mode", "choice",
        "damage: mitigation only absorbs damage; successes: it also counts against --need",
        "damage", choices=MITIGATION_MODES, panel=False,
    ),
    Param(
        "body", "int", "the defender's Body (Minor boxes = 4 + Body + Resolve, at most 10)",
        None, 0, SCORE_MAX, panel=False,
    ),
    Param(
        "resolve", "int", "the defender's Resolve (Minor boxes = 4 + Body + Resolve, at most 10)",
        None, 0, SCORE_MAX, panel=False,
    ),
    Param(
        "wounds", "list", "the defender's boxes already marked, per tier",
        (), item=_wound_count, item_help="MINOR[,MAJOR[,CRITICAL]] marked-box counts",
        max_items=len(TIERS), panel=False,
    ),
    Param(
        "damage_tier", "choice", "the wound tier the damage goes to (default minor)",
        None, choices=TIERS, panel=False,
    ),
    Param(
        "spill", "choice",
        "box: each box that finds its tier full fills one box of the next; "
        "hit: a hit that finds its tier full fills one box of the next",
        "box", choices=SPILL_RULES, panel=False,
    ),
    Param(
        "stability", "int", "the actor's Stability boxes already marked",
        None, 0, STABILITY_MAX, panel=False,
    ),
    Param(
        "stability_boxes", "int", "length of the Stability track (the text gives none)",
        STABILITY_BOXES, 1, STABILITY_MAX, panel=False,
    ),
    Param(
        "stability_loss", "int", "Stability boxes the actor marks when the roll fails",
        None, 0, STABILITY_MAX, panel=False,
    ),
)


def wounds_in_play(params: Mapping[str, Any]) -> bool:
    """A defender's Wound Track is given (its Body, Resolve or marks)."""
    return any(params.get(k) is not None for k in ("body", "resolve")) or bool(params.get("wounds"))


def stability_in_play(params: Mapping[str, Any]) -> bool:
    return params.get("stability") is not None or params.get("stability_loss") is not None


def damage_in_play(params: Mapping[str, Any]) -> bool:
    """The roll is an attack on a defender: it has Mitigation or a Wound Track.

    (A plain opposed roll may be a grapple or a chase; its ``net`` already says it all.)
    """
    return bool(params["mitigation"]) or wounds_in_play(params)


def wound_track(params: Mapping[str, Any]) -> WoundTrack:
    marks = (*params["wounds"], 0, 0, 0)[: len(TIERS)]
    return WoundTrack.for_character(params["body"], params["resolve"], *marks)


def stability_track(params: Mapping[str, Any]) -> StabilityTrack:
    return StabilityTrack(params["stability_boxes"], params["stability"] or 0)


def check(params: dict[str, Any], given: frozenset[str] = frozenset()) -> None:
    """Cross-parameter checks: --pool or --trait/--skill, one kind of opponent, a complete, consistent defender's track
    and Stability track. With --pool, trait and skill become None, and with --opponent-successes the
    opponent's pool does, so ``params`` shows what counted and is accepted again as it is (a replay
    resolves a roll's logged ``params``)."""
    if "pool" in given:
        clash = [f"--{k} {params[k]}" for k in ("trait", "skill") if k in given]
        if clash:
            raise ParameterError(
                "pool",
                f"give either --pool or --trait/--skill, not both; got --pool {params['pool']} "
                f"with {' and '.join(clash)}",
            )
        params["trait"] = params["skill"] = None
    if params["opponent_successes"] is not None and "opponent_pool" in given:
        raise ParameterError(
            "opponent-successes",
            "give either --opponent-pool (the tower rolls the opponent) or --opponent-successes "
            f"(the opponent rolled at the table), not both; got --opponent-pool "
            f"{params['opponent_pool']} with --opponent-successes {params['opponent_successes']}",
        )
    if params["opponent_successes"] is not None:
        params["opponent_pool"] = None  # not rolled: the opponent counted at the table
    if wounds_in_play(params):
        for name, other in (("body", "resolve"), ("resolve", "body")):
            if params[name] is None:
                raise ParameterError(
                    name,
                    f"required with the defender's wound track (--{other}, --wounds): "
                    f"Minor boxes = 4 + Body + Resolve; give 0 to {SCORE_MAX}",
                )
        sizes = (minor_boxes(params["body"], params["resolve"]), MAJOR_BOXES, CRITICAL_BOXES)
        for tier, marked, size in zip(TIERS, params["wounds"], sizes, strict=False):
            if marked > size:
                raise ParameterError(
                    "wounds",
                    f"{marked} {tier} boxes marked, but the {tier} tier has {size} "
                    f"(allowed 0 to {size}); got {','.join(map(str, params['wounds']))}",
                )
    elif params["damage_tier"] is not None:
        raise ParameterError(
            "damage-tier",
            f"needs the defender's wound track (--body and --resolve), got only "
            f"--damage-tier {params['damage_tier']}",
        )
    if params["stability"] is not None and params["stability"] > params["stability_boxes"]:
        raise ParameterError(
            "stability",
            f"{params['stability']} boxes marked, but the track has {params['stability_boxes']} "
            f"(allowed 0 to {params['stability_boxes']}; see --stability-boxes)",
        )


@dataclass(frozen=True)
class HorizonsResult(RollResult):
    """One Infinite Horizons roll. ``total`` is the actor's successes.

    Fields that do not apply to the roll are None and left out of the JSON: the opponent's
    for an unopposed roll (``opponent_dice`` also when the opponent rolled at the table),
    ``damage`` when the roll is no attack, the tracks when not given.
    """

    pool: int = 0
    successes: int = 0
    explosions: int = 0
    opponent_dice: tuple[int, ...] | None = None
    opponent_successes: int | None = None
    net: int | None = None
    winner: str | None = None
    damage: int | None = None
    wounds_after: WoundTrack | None = None
    stability_after: StabilityTrack | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if value is None and name not in ("system", "params", "total", "outcome"):
                continue
            if isinstance(value, WoundTrack | StabilityTrack):
                out[name] = value.to_dict()
            else:
                out[name] = to_jsonable(value)
        return out


def roll(dice: DiceSource, params: Mapping[str, Any]) -> HorizonsResult:
    """Roll the actor's pool, then the opponent's; judge; mark the tracks."""
    pool = pool_size(params)
    actor = tuple(f for chain in roll_pool(dice, pool, after=params["opponent_pool"] or 0) for f in chain)
    successes = count_successes(actor)
    opponent: tuple[int, ...] | None = None
    opponent_successes: int | None = None
    if params["opponent_pool"]:
        opponent = tuple(f for chain in roll_pool(dice, params["opponent_pool"]) for f in chain)
        opponent_successes = count_successes(opponent)
    elif params["opponent_successes"] is not None:
        opponent_successes = params["opponent_successes"]
    opposed = opponent_successes is not None
    exchange = judge(
        successes,
        opponent_successes or 0,
        params["need"],
        params["mitigation"],
        params["mitigation_mode"],
    )
    wounds = None
    if wounds_in_play(params):
        tier = params["damage_tier"] or "minor"
        wounds = wound_track(params).take(tier, exchange.damage, params["spill"])
    stability = None
    if stability_in_play(params):
        loss = 0 if exchange.success else params["stability_loss"] or 0
        stability = stability_track(params).lose(loss)
    return HorizonsResult(
        system="horizons",
        params=params,
        dice=actor + (opponent or ()),
        total=successes,
        outcome="success" if exchange.success else "failure",
        success=exchange.success,
        pool=pool,
        successes=successes,
        explosions=sum(len(c) - 1 for c in chains(actor)),
        opponent_dice=opponent,
        opponent_successes=opponent_successes,
        net=exchange.net if opposed else None,
        winner=exchange.winner if opposed else None,
        damage=exchange.damage if damage_in_play(params) else None,
        wounds_after=wounds,
        stability_after=stability,
    )


def odds(params: Mapping[str, Any]) -> Odds:
    """Exact P(success), the actor's success counts, net successes and damage."""
    pool = pool_size(params)
    need = effective_need(params["need"], params["mitigation"], params["mitigation_mode"])
    mitigation = params["mitigation"]
    extra: dict[str, Mapping[str, Fraction]] = {}
    counts: Callable[[int], int]  # ways for each net number of successes
    if params["opponent_pool"]:
        # Two truncated series: half the allowance each keeps the joint loss below it.
        opponent = pool_counts(params["opponent_pool"], TRUNCATION / 2)
        actor = pool_counts(pool, TRUNCATION / 2, at_least=len(opponent.counts) - 1 + need - 1)
        success = opposed_success(actor, opponent, need)
        net = net_counts(actor, opponent)
        extra["successes"] = actor.fractions()
        extra["net"] = net.fractions()
        truncated = Fraction(net.tail, net.denominator)
        high, counts, denominator = net.low + len(net.counts) - 1, net.at, net.denominator
    else:
        # Unopposed, or against successes counted at the table: net = S - k for a known k.
        k = params["opponent_successes"] or 0
        actor = pool_counts(pool, TRUNCATION, at_least=k + need - 1)
        # P(S - k >= need) = 1 - P(S < k + need): a finite sum, exact whatever the truncation.
        success = Fraction(actor.at_least(k + need), actor.denominator)
        extra["successes"] = actor.fractions()
        if params["opponent_successes"] is not None:
            extra["net"] = actor.fractions(shift=k)
        truncated = Fraction(actor.tail, actor.denominator)
        high, denominator = len(actor.counts) - 1 - k, actor.denominator

        def shifted(n: int) -> int:
            return actor.counts[n + k] if 0 <= n + k < len(actor.counts) else 0

        counts = shifted

    if damage_in_play(params):
        # A success with net n does max(0, n - mitigation) damage; a failure none.
        hits = {
            n - mitigation: counts(n) for n in range(max(need, mitigation + 1), high + 1)
        }
        zero = 1 - success + Fraction(
            sum(counts(n) for n in range(need, mitigation + 1)), denominator
        )
        extra["damage"] = {"0": zero} | {str(d): Fraction(c, denominator) for d, c in hits.items()}
    return Odds(
        system="horizons",
        params=params,
        success=success,
        outcomes={"success": success, "failure": 1 - success},
        extra=extra,
        truncated=truncated,
    )


def _faces_text(faces: tuple[int, ...]) -> str:
    return " ".join("+".join(map(str, chain)) for chain in chains(faces)) or "-"


def _successes(n: int | None) -> str:
    return f"{n} success" + ("" if n == 1 else "es")


def describe(result: RollResult) -> list[str]:
    """Dice and successes, the opponent's, the verdict, and any damage or track change."""
    if not isinstance(result, HorizonsResult):
        raise TypeError(f"expected a horizons result, got {type(result).__name__}")
    p = result.params
    own = result.dice[: len(result.dice) - len(result.opponent_dice or ())]
    boom = ""
    if result.explosions:
        boom = f", {result.explosions} explosion" + ("s" if result.explosions > 1 else "")
    lines = [f"Pool {result.pool}: {_faces_text(own)} -> {_successes(result.successes)}{boom}"]
    # In ``successes`` mode mitigation counts against the need; show it, or "3 successes,
    # need 1: FAILURE" contradicts itself.
    need = f"{p['need']}"
    if p["mitigation"] and p["mitigation_mode"] == "successes":
        need += f" + mitigation {p['mitigation']}"
    if result.net is not None:
        if result.opponent_dice is not None:
            lines.append(
                f"Opponent {p['opponent_pool']}: {_faces_text(result.opponent_dice)} -> "
                f"{_successes(result.opponent_successes)}"
            )
        else:
            lines.append(f"Opponent rolled at the table: {_successes(result.opponent_successes)}")
        if result.winner == "tie":
            lead = "Tie, nobody wins the exchange"
        else:
            who = "You win" if result.winner == "actor" else "Opponent wins"
            lead = f"{who} by {abs(result.net)} net"
        lines.append(f"{lead} (need {need}): {result.outcome.upper()}")
    else:
        lines.append(f"{_successes(result.successes)}, need {need}: {result.outcome.upper()}")
    after: list[str] = []
    if result.damage is not None:
        after.append(f"damage {result.damage} (mitigation {p['mitigation']})")
    if result.wounds_after is not None:
        w = result.wounds_after
        over = f" +{w.overflow} over" if w.overflow else ""
        after.append(
            f"wounds {w.minor}/{w.minor_boxes} {w.major}/{MAJOR_BOXES} "
            f"{w.critical}/{CRITICAL_BOXES}{over} {w.status}"
        )
    if result.stability_after is not None:
        st = result.stability_after
        after.append(f"stability {st.marked}/{st.boxes}" + (" BREAKDOWN" if st.breakdown else ""))
    if after:
        text = "; ".join(after)
        lines.append(text[0].upper() + text[1:])
    return lines


SYSTEM = SystemSpec(
    id="horizons",
    order=ORDER,
    panel=PANEL,
    title="Infinite Horizons",
    summary="pool of 1 + Trait + Skill d10s, 7+ succeeds, 10s explode; opposed rolls, "
    "mitigation, wound and stability tracks",
    params=PARAMS,
    outcomes=("success", "failure"),
    roll=roll,
    odds=odds,
    describe=describe,
    check=check,
)
