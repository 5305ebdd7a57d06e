"""The ``dicetower`` command line: one parser, subcommands in small modules.

Every user mistake ends in one line on stderr and exit status 2 (3 for a failed entropy
source), never a traceback. Subcommand modules are listed in :data:`COMMANDS`; each has
``register(subparsers)`` which adds its parser and sets ``func(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from engine.errors import EngineError, EntropyError

#: Subcommand modules, in the order ``dicetower --help`` lists them.
COMMANDS: tuple[str, ...] = (
    "hardware.cli.dice",
    "hardware.cli.tower",
    "hardware.cli.fairness",
    "hardware.cli.replay",
    "hardware.cli.log",
    "hardware.cli.stats",
)

EXIT_USAGE = 2
EXIT_ENTROPY = 3


class UsageError(Exception):
    """A command-line mistake found by argparse; printed as one line, exit 2."""


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``dicetower roll: error: …``), not a usage dump."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{self.prog}: error: {message}")


def build_parser() -> Parser:
    parser = Parser(
        prog="dicetower",
        description="A dice tower for tabletop RPGs: five systems, exact odds, fair dice.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        args = parser.parse_args(args_list)
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except EntropyError as exc:
        print(f"dicetower: {exc}", file=sys.stderr)
        return EXIT_ENTROPY
    except EngineError as exc:
        print(f"dicetower: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `dicetower roll ... --times 1000 | head` is fine.
        return 0


if __name__ == "__main__":
    sys.exit(main())
