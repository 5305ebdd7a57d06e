"""Where a command's dice come from: ``--seed`` (deterministic DRBG), ``--faces`` (a player's
physical dice) or the entropy pipeline (``--entropy``)."""

from __future__ import annotations

import argparse

from engine.dice import DiceSource, SecretsDice


def add_dice_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        metavar="S",
        help="deterministic dice from this seed (tests and replays; never the default)",
    )
    parser.add_argument(
        "--entropy",
        metavar="SOURCE",
        default=None,
        help="where the seed comes from: auto (default), kernel, hwrng, file:PATH",
    )


def make_dice(args: argparse.Namespace) -> DiceSource:
    """The dice source the options ask for."""
    if getattr(args, "seed", None) is not None:
        from engine.rng import DrbgDice

        return DrbgDice.from_seed(args.seed.encode("utf-8"))
    return SecretsDice()
