"""Coin: flip ``coins`` coins; the roll succeeds when at least ``heads`` of them land heads.

A dicetower system plug-in (docs/architecture.md, "Writing a system plug-in"): this package's
``SYSTEM`` is registered in the ``dicetower_systems`` entry-point group by its pyproject.toml.
A coin is a two-sided die, drawn as ``randbelow(2) + 1``: 2 is heads, 1 is tails, so
``--faces 2,1,2`` types in heads, tails, heads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dicetower_coin.odds import odds
from dicetower_coin.panel import PANEL
from dicetower_coin.rules import HEADS, MAX_COINS, SIDES
from engine.dice import DiceSource, roll_die
from engine.errors import ParameterError
from engine.params import Param
from engine.results import RollResult
from engine.systems import SystemSpec

#: Its place in MODE's order, after the shipped systems (10 to 50): read from this line without
#: importing the plug-in, so listing the systems costs no import.
ORDER = 60

PARAMS: tuple[Param, ...] = (
    Param("coins", "int", "how many coins are flipped", default=3, lo=1, hi=MAX_COINS),
    Param("heads", "int", "heads needed for a success", default=2, lo=0, hi=MAX_COINS),
)


def check(params: dict[str, Any], given: frozenset[str] = frozenset()) -> None:
    """More heads than coins can never succeed: refused rather than rolled."""
    if params["heads"] > params["coins"]:
        raise ParameterError("heads", f"at most the number of coins ({params['coins']}), got {params['heads']}")


@dataclass(frozen=True)
class CoinResult(RollResult):
    """``dice`` are the coins as flipped (2 heads, 1 tails); ``total`` the heads among them."""

    needed: int


def roll(dice: DiceSource, params: Mapping[str, Any]) -> CoinResult:
    faces = tuple(roll_die(dice, SIDES) for _ in range(params["coins"]))
    heads = sum(1 for face in faces if face == HEADS)
    won = heads >= params["heads"]
    return CoinResult(system="coin", params=params, dice=faces, total=heads,
                      outcome="success" if won else "failure", success=won, needed=params["heads"])


def describe(result: RollResult) -> list[str]:
    if not isinstance(result, CoinResult):
        raise TypeError(f"expected a coin result, got {type(result).__name__}")
    shown = " ".join("H" if face == HEADS else "T" for face in result.dice)
    return [f"coins {shown}", f"{result.total} heads vs {result.needed} needed", result.outcome.upper()]


SYSTEM = SystemSpec(
    id="coin",
    order=ORDER,
    panel=PANEL,
    title="Coin",
    summary="flip 1 to 9 coins; a success when at least the heads needed land heads",
    params=PARAMS,
    outcomes=("success", "failure"),
    roll=roll,
    odds=odds,
    describe=describe,
    check=check,
)
