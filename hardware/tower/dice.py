"""What the tower asks of its dice beyond ``randbelow``, as typed seams.

Every dice source rolls (:class:`engine.dice.DiceSource`). Some do more, and the tower uses
what they do: dice that record their rolls in the roll log, dice that commit to a seed
before rolling and reveal it afterwards (a dice session), dice that follow what other
writers logged, that keep reveals the log could not take, that report a status line, or
that close. :class:`hardware.entropy.SessionDice` does all of it; a seeded test source only
rolls; a test's stand-in may do some. :func:`abilities` sorts a source once, when the tower
is assembled, into a :class:`DiceAbilities` whose fields are typed, so no part of the tower
probes the dice with ``getattr`` afterwards.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engine.fingerprints import Fingerprint
    from engine.results import RollResult
    from hardware.session.dice import TableSeeding

__all__ = [
    "Closing",
    "Committing",
    "Describing",
    "DiceAbilities",
    "Following",
    "LateRevealing",
    "Recording",
    "Reporting",
    "abilities",
]


class Recording(Protocol):
    """Dice that append each roll to the roll log (None: they keep no log) and say which roll
    of their session it was."""

    last_fingerprint: Fingerprint | None

    def record(self, result: RollResult | Mapping[str, Any], *, player: int | None = None,
               **fields: Any) -> dict[str, Any] | None: ...


class Committing(Protocol):
    """Dice that commit to a session's seed before its first roll and reveal it at the end.
    Reading :attr:`commitment` opens a session when none is open."""

    @property
    def commitment(self) -> str: ...

    @property
    def session_id(self) -> str | None: ...

    def reveal(self, *, by: str | None = None, reason: str = "reveal") -> str | None: ...


class Describing(Protocol):
    """Dice that describe their open session (``session``, ``rolls``, ``table_seed``)."""

    def describe(self) -> Mapping[str, Any]: ...


class Following(Protocol):
    """Dice that take in what other writers logged in the state directory's open session."""

    def follow(self) -> None: ...


class LateRevealing(Protocol):
    """Dice that keep the reveals the log could not take, and write them when it can."""

    last_reveal_entry: dict[str, Any] | None

    @property
    def late_reveals(self) -> tuple[str, ...]: ...

    def flush_reveals(self) -> None: ...


class Reporting(Protocol):
    """Dice with a status line for the panel (their sources' health, the credit so far)."""

    def status(self) -> str: ...


class Closing(Protocol):
    """Dice that close at shutdown (revealing the session they opened)."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class DiceAbilities:
    """One dice source seen through each seam it offers (None where it does not)."""

    recording: Recording | None = None
    committing: Committing | None = None
    describing: Describing | None = None
    following: Following | None = None
    late: LateRevealing | None = None
    seeding: TableSeeding | None = None
    reporting: Reporting | None = None
    closing: Closing | None = None

    def describe(self) -> Mapping[str, Any]:
        """The open session as the dice describe it ({} for dice that do not)."""
        return self.describing.describe() if self.describing is not None else {}


def abilities(dice: object) -> DiceAbilities:
    """What ``dice`` can do, by the seams above. The class is asked (statically): reading
    ``commitment`` on the dice themselves would open a session."""
    committing = _offers(dice, Committing)
    seeding = None
    if committing is not None:  # a table seed is a session's: dice without sessions take none
        from hardware.session.dice import TableSeeding  # loaded already: sessions come from there

        seeding = _offers(dice, TableSeeding)
    return DiceAbilities(
        recording=_offers(dice, Recording),
        committing=committing,
        describing=_offers(dice, Describing),
        following=_offers(dice, Following),
        late=_offers(dice, LateRevealing),
        seeding=seeding,
        reporting=_offers(dice, Reporting),
        closing=_offers(dice, Closing),
    )


def _offers(dice: object, seam: type) -> Any:
    """``dice`` if it has every member ``seam`` names, else None."""
    if all(inspect.getattr_static(dice, name, _MISSING) is not _MISSING for name in _members(seam)):
        return dice
    return None


def _members(seam: type) -> tuple[str, ...]:
    """The names a Protocol declares: its methods, properties and annotated attributes."""
    names = [*vars(seam), *inspect.get_annotations(seam)]
    return tuple(dict.fromkeys(n for n in names if not n.startswith("_")))


_MISSING = object()


if TYPE_CHECKING:
    from hardware.entropy import SessionDice

    def _session_dice_fit(dice: SessionDice) -> tuple[Recording, Committing, Describing, Following, LateRevealing,
                                                       TableSeeding, Reporting, Closing]:
        """Never called: the type checker holds SessionDice to every seam here."""
        return dice, dice, dice, dice, dice, dice, dice, dice
