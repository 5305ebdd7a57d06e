"""``dicetower fairness``: the statistical battery on the live dice pipeline.

Draws ``--n`` dice for each test from the same session dice a roll uses (``--entropy``, or
``--seed`` for a deterministic run), prints a table of p-values with pass/fail at
alpha = 0.01 and how many failures chance alone explains. Exit 1 only when a fair source
would fail that many tests less than once in a thousand runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, TextIO

from engine.params import whole_number
from hardware.cli import output
from hardware.cli.dice_source import add_dice_options, make_dice

if TYPE_CHECKING:  # the battery is loaded by the command that runs it, not at every start-up
    from hardware.entropy.battery import Battery

DEFAULT_N = 1_000_000
MAX_N = 100_000_000
EXIT_UNFAIR = 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("fairness", help="run the statistical battery on the dice pipeline")
    p.add_argument("--n", metavar="N", default=str(DEFAULT_N), help=f"draws per test (default {DEFAULT_N:,})")
    add_dice_options(p)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="progress bar on stderr (auto: when stderr is a terminal)")
    p.set_defaults(func=cmd_fairness)


def _draws(text: str) -> int:
    # 1,000,000 and 1_000_000 are both fine to type
    return whole_number("n", str(text).replace(",", ""), 100, MAX_N)


class ProgressBar:
    """``[#####.....]  45%  chi-square d20`` redrawn in place on a terminal."""

    def __init__(self, out: TextIO, width: int = 30) -> None:
        self._out = out
        self._width = width
        self._shown = -1

    def __call__(self, done: int, total: int, what: str) -> None:
        permille = done * 1000 // total
        if permille == self._shown:
            return
        self._shown = permille
        filled = self._width * done // total
        bar = "#" * filled + "." * (self._width - filled)
        self._out.write(f"\r[{bar}] {permille / 10:5.1f}%  {what:<34}")
        self._out.flush()

    def finish(self) -> None:
        if self._shown >= 0:
            self._out.write("\r" + " " * (self._width + 46) + "\r")
            self._out.flush()


def cmd_fairness(args: argparse.Namespace) -> int:
    from hardware.entropy.battery import ALPHA, run_battery, unlikely_failures

    n = _draws(args.n)
    dice = make_dice(args)
    show = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty())
    bar = ProgressBar(sys.stderr) if show else None
    try:
        commitment = dice.commitment
        battery = run_battery(dice, n, progress=bar)
    finally:
        if bar is not None:
            bar.finish()
        dice.close()
    if args.json:
        output.out(json.dumps({
            "n": n, "bits": battery.bits, "source": dice.label, "sources": list(dice.sources) or [dice.label],
            "commitment": commitment, "alpha": ALPHA,
            "tests": [r.to_dict() for r in battery.results], "failed": battery.failed,
            "expected_failures": battery.expected_failures, "tail_probability": battery.tail_probability,
        }))
    else:
        source = dice.status() if dice.label == "seed" else f"{dice.label}: {dice.status()}"
        print_table(battery, source, commitment)
    return EXIT_UNFAIR if unlikely_failures(battery) else 0


def print_table(battery: Battery, source: str, commitment: str, out: TextIO | None = None) -> None:
    from hardware.entropy.battery import ALPHA

    emit = output.out if out is None else (lambda line: print(line, file=out))
    emit(f"fairness battery: {battery.draws:,} draws per test, {battery.bits:,} DRBG bits; source {source}")
    emit(f"session commitment {commitment}")
    emit(f"{'test':<36}{'statistic':<26}{'p-value':>9}  result")
    for r in battery.results:
        emit(f"{r.name:<36}{r.statistic:<26}{r.p:>9.4f}  {'pass' if r.passed else 'FAIL'}")
    t = len(battery.results)
    emit(
        f"{t} tests at alpha = {ALPHA}: {battery.failed} failed. A fair source fails each test with "
        f"probability {ALPHA}, so about {battery.expected_failures:.2f} failures are expected by chance, "
        f"and a fair source fails at least one test in {battery.chance_of_at_least_one:.0%} of runs"
        + (f"; P(>= {battery.failed} failures by chance) = {battery.tail_probability:.3g}." if battery.failed else "."),
    )
