"""Dice sources: everything that rolls takes one, nothing in the engine looks one up.

A dice source is any object with ``randbelow(n) -> int`` uniform on ``0..n-1`` (like
:func:`secrets.randbelow`). :class:`FacesDice` replays faces a player typed in (``--faces``).
The DRBG-backed source lives in :mod:`engine.rng`.
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from engine.errors import FacesError
from engine.params import parse_whole


@runtime_checkable
class DiceSource(Protocol):
    """Uniform integers below ``n``; the one thing the rules need from randomness."""

    def randbelow(self, n: int) -> int: ...


class SubsetDice(ABC):
    """Dice that draw a ``k``-subset of ``1..n`` themselves (a replayed or player-supplied hand,
    the DRBG's own draw): :func:`sample_subset` asks them instead of drawing it die by die.

    Any class with ``randbelow`` and ``sample`` is one, without inheriting: ``isinstance``
    looks at its class once and remembers, as :mod:`collections.abc`'s ABCs do. (A runtime
    Protocol looks again at every call, tens of microseconds on Python 3.11, and the fairness
    battery draws a subset a million times.)"""

    __slots__ = ()

    @abstractmethod
    def randbelow(self, n: int) -> int: ...

    @abstractmethod
    def sample(self, n: int, k: int) -> Iterable[int]: ...

    @classmethod
    def __subclasshook__(cls, other: type) -> bool:
        # SubsetDice's own test; a subclass of it (none so far) would be checked as usual
        offers = cls is SubsetDice and all(any(name in vars(base) for base in other.__mro__)
                                           for name in ("randbelow", "sample"))
        return True if offers else NotImplemented


class SecretsDice:
    """The operating system's CSPRNG through :mod:`secrets` (never :mod:`random`)."""

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError(f"randbelow needs n >= 1, got {n}")
        return secrets.randbelow(n)


def default_dice() -> DiceSource:
    """The library's dice when none are passed in: an HMAC_DRBG (:mod:`engine.rng`) instantiated
    from 256 bits of the operating system's CSPRNG plus a 128-bit nonce.

    The command line and the tower never use this: they pass dice from the health-tested
    entropy pipeline (``hardware.entropy``), whose sessions can be committed and replayed.
    """
    from engine.rng import DrbgDice, HmacDrbg

    return DrbgDice(HmacDrbg(secrets.token_bytes(32), secrets.token_bytes(16), b"dicetower/engine.roll"))


def expect(dice: DiceSource, more: int) -> None:
    """The roll will draw at least ``more`` dice from here on. Only typed-in faces care: when
    they run out, the error says how many the roll needs (a pool of 5 needs 5), not just one
    more than were given."""
    if isinstance(dice, FacesDice):
        dice.expect(more)


def roll_die(dice: DiceSource, sides: int) -> int:
    """One die with faces ``1..sides``."""
    return dice.randbelow(sides) + 1


def sample_subset(dice: DiceSource, n: int, k: int) -> frozenset[int]:
    """A uniformly chosen ``k``-subset of ``1..n`` (partial Fisher-Yates, k draws).

    Sources that can draw subsets themselves (``sample(n, k)``) are asked directly, so that a
    player-supplied or replayed hand is used as given.
    """
    if not 0 <= k <= n:
        raise ValueError(f"subset size must be within 0..{n}, got {k}")
    if isinstance(dice, SubsetDice):
        return frozenset(dice.sample(n, k))
    pool = list(range(1, n + 1))
    for i in range(k):
        j = i + dice.randbelow(n - i)
        pool[i], pool[j] = pool[j], pool[i]
    return frozenset(pool[:k])


class FacesDice:
    """Faces supplied by a player, consumed in the order the roll draws its dice.

    ``randbelow(n)`` hands out the next face minus one, after checking it is a face of a
    ``n``-sided die. Call :meth:`finish` after the roll: faces left over are an error too,
    because a player who typed more dice than the roll used has made a mistake.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = tuple(faces)
        self._used = 0
        self._needed = 0  # faces the roll is known to need in all (see expect)

    @classmethod
    def parse(cls, text: str) -> FacesDice:
        """``"5,1"`` -> faces 5 then 1; a clear error for anything else."""
        parts = [p.strip() for p in text.strip().replace(" ", ",").split(",")]
        if not text.strip():
            raise FacesError(f"expected a comma-separated list of die faces, got {text!r}")
        if "" in parts and " " not in text.strip():
            raise FacesError(f"an empty place in {text!r}; expected faces like 5,1")
        parts = [p for p in parts if p]
        faces = []
        for p in parts:
            try:
                faces.append(parse_whole(p))
            except ValueError:
                raise FacesError(f"{p!r} is not a die face; expected whole numbers like 5,1") from None
        return cls(faces)

    @property
    def faces(self) -> tuple[int, ...]:
        return self._faces

    @property
    def used(self) -> int:
        return self._used

    def expect(self, more: int) -> None:
        """The roll will draw at least ``more`` faces from here (see :func:`expect`)."""
        self._needed = self._used + max(0, more)

    def randbelow(self, n: int) -> int:
        if self._used >= len(self._faces):
            needed = max(self._needed, self._used + 1)
            raise FacesError(f"too few faces: {len(self._faces)} given, the roll needs at least {needed}")
        face = self._faces[self._used]
        if not 1 <= face <= n:
            hint = f" (a d{n}'s 0 is typed as {n})" if face == 0 and n == 10 else ""
            raise FacesError(f"face {face} (number {self._used + 1}) is not on a d{n}; allowed 1..{n}{hint}")
        self._used += 1
        return face - 1

    def finish(self) -> None:
        """Raise if faces were left unused."""
        if self._used < len(self._faces):
            raise FacesError(
                f"too many faces: {len(self._faces)} given, the roll used {self._used}"
            )
