"""Entropy for the tower: sources, health tests on their raw samples, committed DRBG sessions.

``open_dice(spec)`` is the entry point (``--entropy`` on the command line); see
docs/fairness.md for the sources, the credit each gets, and what a player can verify.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.seeds import RollStream, SeedMaterial, TableSeedError
from hardware.entropy.pipeline import open_dice, parse_spec
from hardware.entropy.session_dice import MIN_CREDIT_BITS, NotEnoughEntropy, SessionDice, TableSeeding

if TYPE_CHECKING:
    from hardware.entropy.buttons import CREDIT_BITS_PER_PRESS, ButtonTiming
    from hardware.entropy.sources import EntropySource, SourceUnavailable

# The sources, their health tests and estimators load on first use of these names: a
# ``--seed`` session (the simulator's, the tests') opens none of them (docs/architecture.md).
_LAZY = {
    "CREDIT_BITS_PER_PRESS": "hardware.entropy.buttons",
    "ButtonTiming": "hardware.entropy.buttons",
    "EntropySource": "hardware.entropy.sources",
    "SourceUnavailable": "hardware.entropy.sources",
}

__all__ = [
    "CREDIT_BITS_PER_PRESS",
    "MIN_CREDIT_BITS",
    "ButtonTiming",
    "EntropySource",
    "NotEnoughEntropy",
    "RollStream",
    "SeedMaterial",
    "SessionDice",
    "SourceUnavailable",
    "TableSeedError",
    "TableSeeding",
    "open_dice",
    "parse_spec",
]


if not TYPE_CHECKING:  # so mypy still flags a name this package does not have

    def __getattr__(name: str) -> Any:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import importlib

        return getattr(importlib.import_module(module), name)
