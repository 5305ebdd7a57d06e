"""Entropy for the tower: sources, health tests on their raw samples, committed DRBG sessions.

``open_dice(spec)`` is the entry point (``--entropy`` on the command line); see
docs/fairness.md for the sources, the credit each gets, and what a player can verify.
"""

from __future__ import annotations

from hardware.entropy.buttons import CREDIT_BITS_PER_PRESS, ButtonTiming
from hardware.entropy.pipeline import open_dice, parse_spec
from hardware.entropy.seed import RollStream, SeedMaterial, TableSeedError
from hardware.entropy.session_dice import MIN_CREDIT_BITS, NotEnoughEntropy, SessionDice, TableSeeding
from hardware.entropy.sources import EntropySource, SourceUnavailable

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
