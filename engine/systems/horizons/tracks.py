"""Infinite Horizons' two damage tracks as immutable values: every change returns a new track.

Wound Track: "divided into three escalating tiers: Minor, Major, and Critical"; Minor has
"4 + your Body Trait score + your Resolve Trait score (to a maximum of 10)" boxes, Major and
Critical "a fixed 4 boxes" each. Damage that finds its tier full "spills over and fills boxes in
the next higher tier". The text is silent on a full Critical tier: here the character is
incapacitated, and boxes that find no room anywhere are counted in ``overflow`` so the table
can see how far past the end the blow went.

Stability Track: the text gives no length, so it is a parameter (10 by default); when it is
"completely filled, your character suffers a mental breakdown". Boxes past the end count as
``overflow`` too.

Rules text: *Infinite Horizons: Game Mechanics*; readings: docs/rules/horizons.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Wound tiers from the least to the most severe; spill-over runs left to right.
TIERS: tuple[str, ...] = ("minor", "major", "critical")

MINOR_BASE = 4
MINOR_MAX = 10
MAJOR_BOXES = 4
CRITICAL_BOXES = 4

#: How damage spills past a full tier. ``box``: box for box (the text's "fills boxes in the
#: next higher tier"). ``hit``: a hit that finds its tier full marks a single box of the next
#: tier however many boxes it carried (the example's "another source of Minor damage ... fills
#: one Major box" read as one source, one box).
SPILL_RULES: tuple[str, ...] = ("box", "hit")

#: Default Stability track length; the rules text gives none.
STABILITY_BOXES = 10


def minor_boxes(body: int, resolve: int) -> int:
    """Boxes in the Minor tier: 4 + Body + Resolve, at most 10."""
    if body < 0 or resolve < 0:
        raise ValueError(f"Body and Resolve must be 0 or more, got body={body}, resolve={resolve}")
    return min(MINOR_MAX, MINOR_BASE + body + resolve)


def _check_tier(tier: str) -> int:
    try:
        return TIERS.index(tier)
    except ValueError:
        raise ValueError(f"wound tier must be one of {', '.join(TIERS)}, got {tier!r}") from None


def _check_count(what: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a whole number of 0 or more, got {value!r}")


@dataclass(frozen=True)
class WoundTrack:
    """Marked boxes per tier of one character's Wound Track.

    ``minor_boxes`` is the Minor tier's size (see :func:`minor_boxes`); ``minor``, ``major``
    and ``critical`` are the marked boxes; ``overflow`` counts boxes of damage taken after the
    Critical tier was full.
    """

    minor_boxes: int
    minor: int = 0
    major: int = 0
    critical: int = 0
    overflow: int = 0

    def __post_init__(self) -> None:
        _check_count("minor_boxes", self.minor_boxes)
        if not MINOR_BASE <= self.minor_boxes <= MINOR_MAX:
            raise ValueError(
                f"the Minor tier has {MINOR_BASE} to {MINOR_MAX} boxes, got {self.minor_boxes}"
            )
        for tier, marked in zip(TIERS, self._marks(), strict=True):
            _check_count(f"{tier} boxes marked", marked)
            if marked > self.size(tier):
                raise ValueError(
                    f"{marked} {tier} boxes marked, but the tier has only {self.size(tier)}"
                )
        _check_count("overflow", self.overflow)

    @classmethod
    def for_character(
        cls, body: int, resolve: int, minor: int = 0, major: int = 0, critical: int = 0
    ) -> WoundTrack:
        """The track of a character with these Body and Resolve scores and marks."""
        return cls(minor_boxes(body, resolve), minor, major, critical)

    def size(self, tier: str) -> int:
        """How many boxes ``tier`` has."""
        index = _check_tier(tier)
        return (self.minor_boxes, MAJOR_BOXES, CRITICAL_BOXES)[index]

    def marked(self, tier: str) -> int:
        return int(self._marks()[_check_tier(tier)])

    def _marks(self) -> tuple[int, int, int]:
        """The boxes marked in each tier, in :data:`TIERS`' order."""
        return (self.minor, self.major, self.critical)

    @property
    def incapacitated(self) -> bool:
        """Every Critical box is filled (the text says nothing further; see module doc)."""
        return self.critical >= CRITICAL_BOXES

    @property
    def status(self) -> str:
        """``unhurt``, the most severe tier with a mark, or ``incapacitated``."""
        if self.incapacitated:
            return "incapacitated"
        for tier in reversed(TIERS):
            if self.marked(tier):
                return tier
        return "unhurt"

    def take(self, tier: str, boxes: int, spill: str = "box") -> WoundTrack:
        """The track after ``boxes`` of damage aimed at ``tier``, spilling upwards when full.

        ``spill="box"`` moves each box that does not fit to the next tier; ``spill="hit"``
        turns whatever does not fit into a single box of the next tier (see SPILL_RULES).
        """
        start = _check_tier(tier)
        _check_count("damage boxes", boxes)
        if spill not in SPILL_RULES:
            raise ValueError(f"spill must be one of {', '.join(SPILL_RULES)}, got {spill!r}")
        marks = {t: self.marked(t) for t in TIERS}
        remaining = boxes
        for name in TIERS[start:]:
            if remaining == 0:
                break
            placed = min(remaining, self.size(name) - marks[name])
            marks[name] += placed
            remaining -= placed
            if remaining and spill == "hit":
                remaining = 1
        return WoundTrack(
            self.minor_boxes,
            marks["minor"],
            marks["major"],
            marks["critical"],
            self.overflow + remaining,
        )

    def heal(self, tier: str, boxes: int) -> WoundTrack:
        """The track with up to ``boxes`` marks erased from ``tier`` (table bookkeeping: the
        rules text has no healing rules, the tower only erases what the table says)."""
        _check_tier(tier)
        _check_count("healed boxes", boxes)
        marks = {t: self.marked(t) for t in TIERS}
        marks[tier] = max(0, marks[tier] - boxes)
        return WoundTrack(
            self.minor_boxes, marks["minor"], marks["major"], marks["critical"], self.overflow
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "minor": self.minor,
            "major": self.major,
            "critical": self.critical,
            "minor_boxes": self.minor_boxes,
            "major_boxes": MAJOR_BOXES,
            "critical_boxes": CRITICAL_BOXES,
            "overflow": self.overflow,
            "status": self.status,
            "incapacitated": self.incapacitated,
        }


@dataclass(frozen=True)
class StabilityTrack:
    """One character's Stability: ``marked`` of ``boxes`` filled, ``overflow`` past the end."""

    boxes: int = STABILITY_BOXES
    marked: int = 0
    overflow: int = 0

    def __post_init__(self) -> None:
        _check_count("stability boxes", self.boxes)
        if self.boxes < 1:
            raise ValueError(f"a Stability track needs at least 1 box, got {self.boxes}")
        _check_count("stability boxes marked", self.marked)
        if self.marked > self.boxes:
            raise ValueError(f"{self.marked} Stability boxes marked, but the track has {self.boxes}")
        _check_count("overflow", self.overflow)

    @property
    def breakdown(self) -> bool:
        """"When your Stability track is completely filled, your character suffers a mental
        breakdown.\""""
        return self.marked >= self.boxes

    def lose(self, boxes: int) -> StabilityTrack:
        """The track after losing ``boxes`` of Stability."""
        _check_count("stability loss", boxes)
        placed = min(boxes, self.boxes - self.marked)
        return StabilityTrack(self.boxes, self.marked + placed, self.overflow + boxes - placed)

    def recover(self, boxes: int) -> StabilityTrack:
        """The track with up to ``boxes`` marks erased (table bookkeeping, as ``heal``)."""
        _check_count("recovered boxes", boxes)
        return StabilityTrack(self.boxes, max(0, self.marked - boxes), self.overflow)

    def to_dict(self) -> dict[str, Any]:
        return {
            "marked": self.marked,
            "boxes": self.boxes,
            "overflow": self.overflow,
            "breakdown": self.breakdown,
        }
