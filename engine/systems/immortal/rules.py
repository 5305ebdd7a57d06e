"""Immortal's rules as plain values and small pure functions, shared by the roll and the odds
so that the two cannot disagree: roll colours, hostiles and opponents as parameter items,
automatic success, the effective target number and how the primary bonus is spent.

Rules text: *Immortal*, "Target Numbers"; readings: docs/rules/immortal.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from engine.params import parse_whole

#: Each roll colour and the attribute it challenges. The text names four ("blue ... the hue of
#: the aura which governs perception", orange strength, yellow agility, red will); green and
#: violet complete the spectrum and are this project's reading, not the text's.
COLOR_ATTRIBUTES: Mapping[str, str] = MappingProxyType(
    {
        "red": "will",
        "orange": "strength",
        "yellow": "agility",
        "green": "stamina",
        "blue": "perception",
        "violet": "intellect",
    }
)

#: The colours the rules text itself names; the others are readings (see COLOR_ATTRIBUTES).
TEXT_COLORS: frozenset[str] = frozenset({"red", "orange", "yellow", "blue"})

#: Colours for the RGB LED, so the tower can show the colour of the roll.
COLOR_RGB: Mapping[str, tuple[int, int, int]] = MappingProxyType(
    {
        "red": (255, 0, 0),
        "orange": (255, 110, 0),
        "yellow": (255, 220, 0),
        "green": (0, 200, 0),
        "blue": (0, 60, 255),
        "violet": (150, 0, 255),
    }
)

COLORS: tuple[str, ...] = tuple(COLOR_ATTRIBUTES)

#: Immortal rolls one d10 at a time.
SIDES = 10

#: Ranges shared by the parameters and the items of --hostile / --opponent.
ATTRIBUTE_MAX = 20
RANK_MAX = 10
TN_MAX = 60
#: A hostile is met by its own d10 + attribute + legacy (at most 10 + 20 + 10) plus the
#: primary bonus (at most 10 + 20 + 10 - 1, against TN 1), so a hostile's TN is allowed up
#: to the sum: every hostile a roll can defeat can be entered.
HOSTILE_TN_MAX = 2 * (SIDES + ATTRIBUTE_MAX + RANK_MAX) - 1

#: An untrained attempt: "the target number increases by 5 against the roll of the player".
UNTRAINED_PENALTY = 5

#: "One rank of skill automatically defeats 3 points of the target number."
POINTS_PER_RANK = 3

#: How the points above the primary target number are spent on hostiles.
BONUS_RULES: tuple[str, ...] = ("pool", "each", "none")

#: ``--auto-success``: ``best`` declares automatic success only where it does not lower the
#: chance of success (the text makes it the player's option: "he could declare automatic
#: success"), ``yes`` whenever the rank allows it, ``no`` never (the optional rule is off).
AUTO_SUCCESS_CHOICES: tuple[str, ...] = ("best", "yes", "no")


def _whole(text: Any, what: str, lo: int, hi: int) -> int:
    if type(text) is int:
        value = text
    elif isinstance(text, str):
        try:
            value = parse_whole(text)
        except ValueError:
            raise ValueError(f"{what} must be a whole number, got {text!r}") from None
    else:
        raise ValueError(f"{what} must be a whole number, got {text!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{what} must be from {lo} to {hi}, got {value}")
    return value


def _color(text: Any) -> str:
    color = str(text).strip().lower()
    if color not in COLOR_ATTRIBUTES:
        raise ValueError(f"colour must be one of {', '.join(COLORS)}, got {text!r}")
    return color


@dataclass(frozen=True)
class Hostile:
    """One hostile (modifier): a separate d10 + attribute (+ legacy) against its own TN.

    ``attribute`` None means the primary roll's attribute; ``color`` None means the primary
    roll's colour.
    """

    tn: int
    attribute: int | None = None
    legacy: int = 0
    color: str | None = None

    @classmethod
    def parse(cls, value: Any) -> Hostile:
        """``12``, ``"12:6"``, ``"12:6:4"`` (legacy 4), ``"12:6:4:red"`` or a mapping."""
        if isinstance(value, str):
            fields = [f.strip() for f in value.split(":")]
            if not 1 <= len(fields) <= 4 or fields[0] == "":
                raise ValueError(f"expected TN[:ATTRIBUTE[:LEGACY[:COLOR]]], got {value!r}")
            fields += [""] * (4 - len(fields))
            parts: list[Any] = [fields[0], fields[1] or None, fields[2] or 0, fields[3] or None]
        elif isinstance(value, Hostile):
            return value
        elif type(value) is int:
            parts = [value, None, 0, None]
        elif isinstance(value, Mapping):
            unknown = set(value) - {"tn", "attribute", "legacy", "color"}
            if unknown or "tn" not in value:
                raise ValueError(
                    f"a hostile needs tn and may have attribute, legacy, color; got {dict(value)!r}"
                )
            parts = [value["tn"], value.get("attribute"), value.get("legacy", 0)]
            parts.append(value.get("color"))
        else:
            raise ValueError(f"expected TN[:ATTRIBUTE[:LEGACY[:COLOR]]], got {value!r}")
        tn = _whole(parts[0], "hostile TN", 1, HOSTILE_TN_MAX)
        attribute = None if parts[1] is None else _whole(parts[1], "attribute", 0, ATTRIBUTE_MAX)
        legacy = _whole(parts[2], "legacy", 0, RANK_MAX)
        color = None if parts[3] is None else _color(parts[3])
        return cls(tn=tn, attribute=attribute, legacy=legacy, color=color)

    @property
    def text(self) -> str:
        """Canonical ``TN[:ATTRIBUTE[:LEGACY[:COLOR]]]``, as the parameters keep it."""
        fields = [
            str(self.tn),
            "" if self.attribute is None else str(self.attribute),
            str(self.legacy) if self.legacy else "",
            self.color or "",
        ]
        while fields[-1] == "":
            fields.pop()
        return ":".join(fields)


def hostile_item(value: Any) -> str:
    """Parameter item parser for ``--hostile``: validated, kept as canonical text so that
    the parameters echo the command line and stay cheap to print."""
    return Hostile.parse(value).text


@dataclass(frozen=True)
class Opponent:
    """The opposing character of an opposed roll: d10 + attribute + skill is the TN."""

    attribute: int
    skill: int = 0

    @classmethod
    def parse(cls, value: Any) -> Opponent:
        """``"6"``, ``"6+2"`` (attribute 6, skill 2), an int or a mapping."""
        if isinstance(value, str):
            fields = [f.strip() for f in value.split("+")]
            if len(fields) > 2 or "" in fields:
                raise ValueError(f"expected ATTRIBUTE[+SKILL], got {value!r}")
            parts: list[Any] = [*fields, 0][:2]
        elif isinstance(value, Opponent):
            return value
        elif type(value) is int:
            parts = [value, 0]
        elif isinstance(value, Mapping):
            unknown = set(value) - {"attribute", "skill"}
            if unknown or "attribute" not in value:
                raise ValueError(
                    f"an opponent needs attribute and may have skill; got {dict(value)!r}"
                )
            parts = [value["attribute"], value.get("skill", 0)]
        else:
            raise ValueError(f"expected ATTRIBUTE[+SKILL], got {value!r}")
        return cls(
            attribute=_whole(parts[0], "opponent attribute", 0, ATTRIBUTE_MAX),
            skill=_whole(parts[1], "opponent skill", 0, RANK_MAX),
        )

    @property
    def text(self) -> str:
        """Canonical ``ATTRIBUTE[+SKILL]``, as the parameters keep it."""
        return f"{self.attribute}+{self.skill}" if self.skill else str(self.attribute)


def opponent_item(value: Any) -> str:
    """Parameter item parser for ``--opponent`` (canonical text, like :func:`hostile_item`)."""
    return Opponent.parse(value).text


@dataclass(frozen=True)
class Setup:
    """The parameters reduced to what the dice are thrown against.

    ``opponent`` is the parsed opponent of a rolled opposed roll (else None);
    ``base_tn`` is the target number before an opponent's roll: the fixed TN, or the
    opponent's known total, or the opponent's attribute + skill (the die is added later);
    ``penalty`` is +5 for an untrained attempt. ``hostiles`` carry their attribute filled in.
    ``automatic_available`` says the rank allows an automatic primary success;
    ``automatic`` says it is taken (under ``best`` the odds decide: see
    :func:`engine.systems.immortal.odds.chosen_setup`). ``legacy_available`` says some
    hostile's legacy allows an automatic success.
    """

    modifier: int
    base_tn: int
    penalty: int
    opponent: Opponent | None
    automatic: bool
    hostiles: tuple[Hostile, ...]
    hostile_automatic: tuple[bool, ...]
    bonus_rule: str
    automatic_available: bool = False
    legacy_available: bool = False


def automatic_success(rank: int, tn: int) -> bool:
    """"Automatic success only succeeds if the skill rank x 3 equals or exceeds the TN"."""
    return rank > 0 and rank * POINTS_PER_RANK >= tn


def setup(params: Mapping[str, Any]) -> Setup:
    """Reduce resolved parameters to a :class:`Setup` (pure; used by roll and odds).

    Under ``--auto-success best`` the primary is automatic here whenever it is available;
    :func:`engine.systems.immortal.odds.chosen_setup` then keeps it only where it does not
    lower the chance of success.
    """
    opponent = Opponent.parse(params["opponent"][0]) if params["opponent"] else None
    known_total: int = params["opponent_total"]
    opposed = opponent is not None or known_total > 0
    penalty = UNTRAINED_PENALTY if params["untrained"] else 0
    if opponent is not None:
        base_tn = opponent.attribute + opponent.skill
    elif known_total > 0:
        base_tn = known_total
    else:
        base_tn = params["tn"]
    mode = params["auto_success"]
    # "Automatic success can never be applied in a situation where one skill opposes another."
    available = not opposed and automatic_success(params["skill"], base_tn + penalty)
    hostiles = tuple(
        Hostile(
            tn=h.tn,
            attribute=params["attribute"] if h.attribute is None else h.attribute,
            legacy=h.legacy,
            color=params["color"] if h.color is None else h.color,
        )
        for h in map(Hostile.parse, params["hostile"])
    )
    # A legacy's automatic success is certain and spends no bonus, so rolling instead can
    # never raise the chance: ``best`` takes it like ``yes``.
    legacy = tuple(automatic_success(h.legacy, h.tn) for h in hostiles)
    return Setup(
        modifier=params["attribute"] + params["skill"],
        base_tn=base_tn,
        penalty=penalty,
        opponent=opponent,
        automatic=available and mode != "no",
        hostiles=hostiles,
        hostile_automatic=tuple(auto and mode != "no" for auto in legacy),
        bonus_rule=params["bonus_sharing"],
        automatic_available=available,
        legacy_available=any(legacy),
    )


def spend_bonus(bonus: int, deficits: Sequence[int], rule: str) -> tuple[int, ...]:
    """Points of the primary bonus applied to each hostile, given each hostile's deficit
    (TN minus total, 0 when it already succeeds).

    ``pool``: every point is spent once; the smallest deficits are covered first, which turns
    the most failures into successes (the roll as a whole succeeds exactly when the deficits
    sum to at most the bonus, whatever the order). ``each``: the whole bonus counts against
    every hostile. ``none``: the primary bonus is not used.
    """
    used = [0] * len(deficits)
    if rule == "none" or bonus <= 0:
        return tuple(used)
    if rule == "each":
        return tuple(d if 0 < d <= bonus else 0 for d in deficits)
    left = bonus
    for i in sorted(range(len(deficits)), key=lambda j: deficits[j]):
        d = deficits[i]
        if d == 0:
            continue
        if d > left:
            break
        used[i] = d
        left -= d
    return tuple(used)
