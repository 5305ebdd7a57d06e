"""Entropy for the tower: sources, health tests on their raw samples, committed DRBG sessions.

``open_dice(spec)`` is the entry point (``--entropy`` on the command line); see
docs/fairness.md for the sources, the credit each gets, and what a player can verify.

The sources, their health tests and estimators are in their own modules
(:mod:`~hardware.entropy.sources`, :mod:`~hardware.entropy.buttons`, ...), imported where
they are used: a ``--seed`` session (the simulator's, the tests') loads none of them
(docs/architecture.md), so this package names only what every session needs.
"""

from __future__ import annotations

from engine.seeds import RollStream, SeedMaterial, TableSeedError
from hardware.entropy.pipeline import open_dice, parse_spec
from hardware.session.dice import MIN_CREDIT_BITS, NotEnoughEntropy, SessionDice, TableSeeding

__all__ = [
    "MIN_CREDIT_BITS",
    "NotEnoughEntropy",
    "RollStream",
    "SeedMaterial",
    "SessionDice",
    "TableSeedError",
    "TableSeeding",
    "open_dice",
    "parse_spec",
]
