"""The ``dicetower`` command line: one parser, subcommands in small modules.

Every user mistake ends in one line on stderr and exit status 2 (3 for a failed entropy
source), never a traceback. Subcommand modules are listed in :data:`COMMANDS`; each has
``register(subparsers)`` which adds its parser and sets ``func(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Sequence
from typing import Any

from engine.errors import EngineError, EntropyError, clip

#: Subcommand modules, in the order ``dicetower --help`` lists them.
COMMANDS: tuple[str, ...] = (
    "hardware.cli.dice",
    "hardware.cli.tower",
    "hardware.cli.fairness",
    "hardware.cli.replay",
    "hardware.cli.session",
    "hardware.cli.log",
    "hardware.cli.stats",
)

EXIT_USAGE = 2
EXIT_ENTROPY = 3


class UsageError(Exception):
    """A command-line mistake found by argparse; printed as one line, exit 2."""

    def __init__(self, message: str) -> None:
        super().__init__(clip(message))


#: argparse's own wording, said the way the rest of the command line says things: the flag
#: first, then what is wrong, and never a flag that does not exist.
_REWORDED: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"argument (-[^ /:]*)(?:/[^:]*)?: expected one argument"), r"\1: needs a value"),
    (re.compile(r"argument (-[^ /:]*)(?:/[^:]*)?: not allowed with argument (-[^ /:]*)(?:/\S*)?"),
     r"\1: not allowed with \2"),
    (re.compile(r"argument (-[^ /:]*)(?:/[^:]*)?: ignored explicit argument (.*)", re.S),
     r"\1: takes no value, got \2"),
    (re.compile(r"argument COMMAND: invalid choice: (.*) \(choose from (.*)\)", re.S),
     r"unknown command \1; choose from \2 (dicetower --help)"),
    (re.compile(r"argument ([A-Z]+): invalid choice: (.*) \(choose from (.*)\)", re.S),
     r"\1: unknown \2; choose from \3 ({help})"),
    (re.compile(r"the following arguments are required: COMMAND"),
     "name a command (dicetower --help lists them)"),
    (re.compile(r"the following arguments are required: ([A-Z, ]+)"), r"\1: required ({help})"),
)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``dicetower roll: error: …``), not a usage dump.

    A value that starts with ``-`` and a digit (``--faces -3,4``, ``--modifier -2``) is a
    value, not an unknown option: no option of ours looks like that.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-[0-9]")

    def error(self, message: str):  # type: ignore[override]
        for pattern, replacement in _REWORDED:
            if pattern.fullmatch(message):
                message = pattern.sub(replacement, message).replace("{help}", f"{self.prog} --help")
                break
        raise UsageError(f"{self.prog}: error: {message}")


class _Version(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked for."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any,
                 option_string: str | None = None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("dicetower")
        except PackageNotFoundError:
            text = "(not installed; run ./tower or pip install .)"
        print(f"dicetower {text}")
        parser.exit()


def build_parser() -> Parser:
    parser = Parser(
        prog="dicetower",
        description="A dice tower for tabletop RPGs: five systems, exact odds, fair dice.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
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
