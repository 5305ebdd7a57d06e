"""dicetower's pure core: the rules of the game systems (five shipped, more as plug-ins), exact
odds, randomness maths and the panel state machine. No I/O and no hardware: dice, time and
entropy are passed in.

The library says the same as the command line::

    engine.roll("infinity", rating=8, cr="difficult", faces=[3, 4])   # == roll --json
    engine.odds("horizons", trait=3, skill=2, need=3)                # == odds --json
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.dice import DiceSource, FacesDice, default_dice
from engine.errors import EngineError, EntropyError, FacesError, ParameterError, UnknownSystemError
from engine.results import RollResult
from engine.systems import SystemSpec, all_systems, get, ids, installed

__all__ = [
    "DiceSource",
    "EngineError",
    "EntropyError",
    "FacesError",
    "ParameterError",
    "SystemSpec",
    "UnknownSystemError",
    "all_systems",
    "get",
    "ids",
    "installed",
    "odds",
    "roll",
    "roll_result",
]


def roll_result(
    system: str,
    *,
    rng: DiceSource | None = None,
    faces: str | Iterable[int] | None = None,
    **params: Any,
) -> RollResult:
    """Roll once and return the system's immutable result value.

    ``faces`` supplies the dice (a player's physical roll) instead of ``rng``; every face
    must be used. Without either, an HMAC_DRBG seeded from the operating system's CSPRNG
    (:func:`engine.dice.default_dice`).
    """
    spec = get(system)
    resolved = spec.resolve(params)
    if faces is not None:
        source = FacesDice.parse(faces) if isinstance(faces, str) else FacesDice(faces)
        result = spec.roll(source, resolved)
        source.finish()
        return result
    return spec.roll(rng if rng is not None else default_dice(), resolved)


def roll(
    system: str,
    *,
    rng: DiceSource | None = None,
    faces: str | Iterable[int] | None = None,
    **params: Any,
) -> dict[str, Any]:
    """Exactly what ``dicetower roll SYSTEM ... --json`` prints."""
    return roll_result(system, rng=rng, faces=faces, **params).to_dict()


def odds(system: str, **params: Any) -> dict[str, Any]:
    """Exactly what ``dicetower odds SYSTEM ... --json`` prints.

    The system's odds of its last few settings are kept (:meth:`SystemSpec.known_odds`): a
    setting asked again costs its validation and the JSON, not the sums."""
    spec = get(system)
    return spec.known_odds(spec.resolve(params)).to_dict()
