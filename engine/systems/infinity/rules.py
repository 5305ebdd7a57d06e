"""Infinity's rules as pure functions: the hot/cold bonus, Doubles, reading a Result, the
attribute to skill-bonus scale and how Coordination and Volley Attacks combine totals.

Shared by the roll (:mod:`engine.systems.infinity`) and the exact odds
(:mod:`engine.systems.infinity.odds`), so the two cannot read the rules differently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

#: Challenge Ratings by name ("Challenge Rating" table). "nearly-impossible" is the text's
#: own label for 30; "impossible" is a short form of it.
CR_NAMES: Mapping[str, int] = MappingProxyType(
    {
        "routine": 0,
        "easy": 5,
        "moderate": 8,
        "difficult": 10,
        "formidable": 15,
        "grueling": 20,
        "monumental": 25,
        "impossible": 30,
        "nearly-impossible": 30,
    }
)

OUTCOMES: tuple[str, ...] = ("failure", "complication", "success", "solid", "spectacular")
DOUBLES: tuple[str, ...] = ("none", "mishap", "breakthrough")

DECLARATION_BONUS = 1  # "they gain a +1 bonus to a Skill or Combat Challenge"
RETRY_PENALTY = 3  # "They can use the same skill at a -3"
DIE_SIDES = 10

#: Ranges shared by the parameters, the items of --helper/--related/--attacker and the panel.
RATING_MAX = 150
DAMAGE_MAX = 200  # the text's Death Star cannon is 170
MAX_OTHERS = 9  # a whole table: the roller and up to nine other characters of each kind
MODIFIER_MAX = 50
#: The highest Skill Total a roll reaches: the highest rating, the best hot die (+9), a
#: Declaration, +1 from every other character (helpers or attackers, and related skills)
#: and the highest modifier. The text caps no scale ("There is no cap on the Attribute
#: scale"), so a CR or Defense is allowed up to what a total can reach: every outcome of
#: every setting can be entered.
TOTAL_MAX = RATING_MAX + (DIE_SIDES - 1) + DECLARATION_BONUS + 2 * MAX_OTHERS + MODIFIER_MAX
CR_MAX = TOTAL_MAX
#: A Volley's Attack Total adds the weapon's Damage to the Skill Total.
DEFENSE_MAX = TOTAL_MAX + DAMAGE_MAX


def make_up(base: int, coordination: int | None, declaration: bool, retry: bool, modifier: int,
            weapon: int | None) -> tuple[tuple[int, str], ...]:
    """What is added to the base Total, in order: ``(amount, what)`` for the +1s of a group
    (``coordination`` None: no group), a Declaration, a retry, a modifier and a Volley's
    weapon Damage ("the Damage Rating of the weapon used by the highest combat Skill Total is
    added to the final Skill Total"). The command line and the panel both read a total's
    make-up from here, so they cannot leave a different part out."""
    terms: list[tuple[int, str]] = []
    if coordination is not None:
        terms.append((coordination, "coordinating"))
    if declaration:
        terms.append((DECLARATION_BONUS, "declaration"))
    if retry:
        terms.append((-RETRY_PENALTY, "retry"))
    if modifier:
        terms.append((modifier, "modifier"))
    if weapon is not None:
        terms.append((weapon, "weapon"))
    return tuple(terms)


def hot_cold_bonus(hot: int, cold: int) -> int:
    """Discard the larger die; a remaining Hot die adds, a remaining Cold die subtracts; ties 0."""
    if hot < cold:
        return hot
    if cold < hot:
        return -cold
    return 0


def doubles_of(hot: int, cold: int) -> str:
    """``mishap`` for low doubles (1-5), ``breakthrough`` for high (6-10), else ``none``."""
    if hot != cold:
        return "none"
    return "mishap" if hot <= 5 else "breakthrough"


def _bonus_counts() -> tuple[tuple[int, int], ...]:
    counts: dict[int, int] = {}
    for hot in range(1, DIE_SIDES + 1):
        for cold in range(1, DIE_SIDES + 1):
            b = hot_cold_bonus(hot, cold)
            counts[b] = counts.get(b, 0) + 1
    return tuple(sorted(counts.items()))


#: ``(bonus, ways)`` over the 100 equally likely (hot, cold) pairs: ways = 10 - |bonus|.
BONUS_COUNTS: tuple[tuple[int, int], ...] = _bonus_counts()
FACES_PER_ROLL = DIE_SIDES * DIE_SIDES

#: The roller's chance of each kind of Doubles: 5 of the 100 pairs each, whatever the roll.
DOUBLES_ODDS: Mapping[str, Mapping[str, Fraction]] = MappingProxyType(
    {
        "doubles": MappingProxyType(
            {
                kind: Fraction(sum(doubles_of(f, f) == kind for f in range(1, DIE_SIDES + 1)), FACES_PER_ROLL)
                for kind in DOUBLES[1:]
            }
        )
    }
)


def outcome_of(result: int) -> str:
    """The "Determining Success" table: -1 or less failure, 0 complication, 1-4 success,
    5-9 solid, 10+ spectacular."""
    if result <= -1:
        return "failure"
    if result == 0:
        return "complication"
    if result <= 4:
        return "success"
    if result <= 9:
        return "solid"
    return "spectacular"


def success_rating(result: int) -> int:
    """SR: 0 up to a Result of 0, 1 for 1-4, 2 for 5-9, 3 for 10-14, and "Every 5 Result
    higher than 10 (15, 20, 25, etc.) is an additional SR": 15 -> 4, 20 -> 5."""
    if result <= 0:
        return 0
    if result <= 4:
        return 1
    if result <= 9:
        return 2
    return 3 + (result - 10) // 5


def skill_bonus(attribute: int) -> int:
    """Skill bonus an Attribute gives its associated skills.

    The table gives 4-5: +1, 6-10: +2, 11-12: +3 and says the pattern repeats indefinitely,
    with 50 -> +10. The one reading that fits both is one more point of bonus for every
    5 points of Attribute, in bands 1-5, 6-10, 11-15, ... (the table stops at 12, the top of
    the human range), except that 1-3 give nothing (the table starts at 4):
    ``ceil(attribute / 5)`` for attributes of 4 or more, else 0. (Repeating the table's band
    widths 2, 5, 2, 5, ... would give 50 -> +14, against the text's example.)
    """
    if isinstance(attribute, bool) or not isinstance(attribute, int):
        raise ValueError(f"attribute must be a whole number, got {attribute!r}")
    if attribute < 0:
        raise ValueError(f"attribute must be 0 or more, got {attribute}")
    if attribute < 4:
        return 0
    return -(-attribute // 5)


def beats_routine(total: int) -> bool:
    """A total "beats a CR 0 (Routine)": a Result of at least 1 ("you must beat the
    Challenge. This means at least 1 Result Rating")."""
    return total >= 1


@dataclass(frozen=True)
class Attacker:
    """Another character in a Volley Attack: Attack Rating and the Damage of their weapon."""

    rating: int
    damage: int

    def __str__(self) -> str:
        return f"{self.rating}:{self.damage}"


@dataclass(frozen=True)
class Related:
    """A related skill that must beat a Coordination CR above 0 to add its +1.

    *"In general, the more distantly related a related skill is, the higher the Coordination
    CR would be"*; a related skill at the usual CR 0 is given as its plain rating instead.
    """

    rating: int
    cr: int

    def __str__(self) -> str:
        return f"{self.rating}:{self.cr}"


@dataclass(frozen=True)
class Participant:
    """One character's dice and total in a roll.

    ``role``: ``roller`` (the --rating character), ``helper`` (another character rolling the
    primary skill), ``related`` (a related skill: only ever adds +1) or ``attacker`` (another
    combat skill in a Volley). ``damage`` is the weapon Damage of combat participants in a
    Volley, else None. ``base`` marks the total the group builds on; ``adds`` marks a total
    that adds +1 to it (beat its Coordination CR and is not the base). ``coordination_cr``:
    the CR this total must beat to add +1 (0, Routine, except for a more distant related skill).
    """

    role: str
    rating: int
    hot: int
    cold: int
    bonus: int
    total: int
    doubles: str
    damage: int | None
    base: bool
    adds: bool
    coordination_cr: int = 0


@dataclass(frozen=True)
class Combined:
    """What a group of totals comes to: the base total, how many +1s, the weapon Damage."""

    base: int
    coordination: int
    damage: int | None
    base_index: int


def combine(
    totals: Iterable[int],
    primary: Iterable[bool],
    damages: Iterable[int | None],
    needs: Iterable[int] | None = None,
) -> Combined:
    """Coordination and Volley Attacks: the highest primary (or combat) total is the base;
    every other total that beats CR 0 adds +1; in a Volley the base's weapon Damage is added.

    ``needs`` gives each total's Coordination CR (default 0 for all): a more distantly related
    skill must beat a higher CR to add its +1. Ties for the base go to the one with the higher
    Damage (the group uses its best weapon), then to the earlier participant (the roller first).
    """
    totals = tuple(totals)
    primary = tuple(primary)
    damages = tuple(damages)
    crs = (0,) * len(totals) if needs is None else tuple(needs)
    best = -1
    for i, (t, p) in enumerate(zip(totals, primary, strict=True)):
        if not p:
            continue
        if best < 0 or (t, damages[i] or 0) > (totals[best], damages[best] or 0):
            best = i
    if best < 0:
        raise ValueError("a group needs at least one primary-skill (or combat) total")
    adds = sum(1 for i, (t, cr) in enumerate(zip(totals, crs, strict=True)) if i != best and beats_routine(t - cr))
    return Combined(base=totals[best], coordination=adds, damage=damages[best], base_index=best)
