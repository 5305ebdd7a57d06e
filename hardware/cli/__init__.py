"""The ``dicetower`` command line: one parser, subcommands in small modules.

Every problem ends in one line on stderr and a documented exit status, never a traceback:

- 0: done; 1: a check found a problem (``log verify``, ``replay``);
- 2: a mistake in what was typed (an option, a value, an argument that is not UTF-8, a
  damaged or over-deep config or state file);
- 3: an entropy source failed (no roll);
- 4: the roll could not be recorded (roll log or state directory not writable: full,
  read-only, a symbolic link, no permission): nothing is shown that is not in the log;
- 5: the output could not be written (``> /dev/full``, ``>&-``); a closed pipe (``| head``) is 0;
- 130: interrupted (Ctrl-C, SIGINT) before it finished; a roll already shown is in the log. (The
  ``dicetower`` command's entry point, :mod:`hardware.__main__`, lets a Ctrl-C during start-up
  end the process as SIGINT does, which a shell reports as 130 too: never a traceback.)

Everything a command prints goes through :func:`hardware.cli.output.out` (and its lines on
stderr through :func:`~hardware.cli.output.say`); every path a person typed through
:func:`hardware.files.paths.user_path`.

Subcommand modules are listed in :data:`COMMANDS`; each has ``register(subparsers)`` which
adds its parser and sets ``func(args) -> int``. (docs/roll-log.md lists the statuses too.)
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from engine.errors import EngineError, EntropyError, clip
from hardware.cli.output import OutputError, finish, out, say
from hardware.errors import HardwareError

#: Subcommand modules, in the order ``dicetower --help`` lists them, and the commands each
#: registers: a command loads its own module only (start-up: docs/architecture.md).
#: tests/hardware/test_cli_commands.py holds these names to what each module registers.
COMMANDS: dict[str, tuple[str, ...]] = {
    "hardware.cli.dice": ("systems", "roll", "odds"),
    "hardware.cli.tower": ("run", "sim"),
    "hardware.cli.fairness": ("fairness",),
    "hardware.cli.replay": ("replay",),
    "hardware.cli.session": ("session",),
    "hardware.cli.log": ("log",),
    "hardware.cli.stats": ("stats",),
    "hardware.cli.board": ("board",),
    "hardware.cli.bridge_tools": ("bridge",),
}

EXIT_USAGE = 2
EXIT_ENTROPY = 3
EXIT_UNRECORDED = 4
EXIT_OUTPUT = 5
EXIT_INTERRUPTED = 130


class UsageError(HardwareError):
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

    def print_help(self, file: Any = None) -> None:
        """Help goes through the one writer, so ``--help > /dev/full`` exits 5 (argparse's own
        printing drops the error)."""
        if file is not None:
            super().print_help(file)
            return
        out(self.format_help(), end="")

    def print_usage(self, file: Any = None) -> None:
        if file is not None:
            super().print_usage(file)
            return
        out(self.format_usage(), end="")

    def error(self, message: str) -> NoReturn:
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
        out(f"dicetower {text}")
        parser.exit()


def build_parser(command: str | None = None) -> Parser:
    """The command line's parser. With ``command`` (the first word typed), only the module
    that registers it is loaded; anything else (no command, ``--help``, a mistyped one) loads
    them all, so help and the list of commands are complete."""
    parser = Parser(
        prog="dicetower",
        description="A dice tower for tabletop RPGs: game systems (five shipped, more as plug-ins), exact odds, "
                    "fair dice.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    # a command that only reads the log (verify, show, replay, stats, session show) sets it:
    # its failures never say "cannot record"
    parser.set_defaults(reads_only=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    owners = [name for name, commands in COMMANDS.items() if command in commands]
    for name in owners or COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    _hold_closed_std_fds()
    try:
        code = _run(args_list)
    except KeyboardInterrupt:  # before _run's own try (its imports): said nowhere, as below
        code = EXIT_INTERRUPTED
    except SystemExit:  # --help, --version: printed, and argparse exits; unless it could not print
        try:
            finish()
        except OutputError as exc:
            raise SystemExit(_output_failed(exc)) from None
        raise
    try:
        finish()
    except OutputError as exc:
        code = _output_failed(exc)
    return code


def _hold_closed_std_fds() -> None:
    """A process started with fd 0, 1 or 2 closed (``>&-``, a cron job) would hand those numbers
    to the next files it opens, and the roll log could become "standard output". Each closed
    one is held by /dev/null instead; ``sys.stdout`` stays None, so :func:`out` still knows
    that nothing can be printed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                held = os.open(os.devnull, os.O_RDWR)
            except OSError:
                return
            if held != fd:  # a lower one was free after all: do not shuffle descriptors
                os.close(held)


def _run(args_list: list[str]) -> int:
    from hardware.files.locking import LockError
    from hardware.files.rolllog import LogError
    from hardware.files.state import StateWriteError

    args: argparse.Namespace | None = None
    try:
        _check_utf8(args_list)
        parser = build_parser(args_list[0] if args_list else None)
        args = parser.parse_args(args_list)
        return int(args.func(args) or 0)
    except UsageError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except OutputError as exc:
        return _output_failed(exc)
    except EntropyError as exc:
        return _fail(f"dicetower: {exc}", EXIT_ENTROPY)
    except (LogError, LockError, StateWriteError) as exc:
        # a command that only reads (verify, replay, show, stats) never says it cannot record
        reads = (args is not None and args.reads_only) or str(exc).startswith("cannot read")
        doing = "" if reads else "cannot record: "
        return _fail(f"dicetower: {doing}{exc}{_unrevealed(exc)}", EXIT_UNRECORDED)
    except EngineError as exc:
        return _fail(f"dicetower: error: {exc}", EXIT_USAGE)
    except HardwareError as exc:
        if isinstance(exc, OSError):  # a refused file: said as any OS error is
            return _os_failed(exc)
        return _fail(f"dicetower: error: {exc}", EXIT_USAGE)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except OSError as exc:
        return _os_failed(exc)
    except RecursionError:
        return _fail("dicetower: error: input nested too deeply", EXIT_USAGE)


def _os_failed(exc: OSError) -> int:
    if exc.filename is None and exc.errno in (errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EBADF):
        return _output_failed(exc)  # files are opened with their names: this is the output
    return _fail(f"dicetower: error: {exc.filename or ''}{': ' if exc.filename else ''}"
                 f"{exc.strerror or exc}", EXIT_USAGE)


def _check_utf8(args: list[str]) -> None:
    """An argument that is not UTF-8 (a seed or path in another encoding) is a usage error,
    not a UnicodeEncodeError deep inside."""
    for i, arg in enumerate(args, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            bad = os.fsencode(arg)[exc.start:exc.start + 1].hex()
            raise UsageError(f"dicetower: error: argument {i} is not UTF-8 text (byte 0x{bad}); "
                             "arguments must be UTF-8") from None


def _unrevealed(exc: BaseException) -> str:
    """The seed of a session whose reveal could not be logged, so its rolls stay checkable."""
    from hardware.files.rolllog import LogError  # loaded already: the error came from there

    seed = exc.unrevealed if isinstance(exc, LogError) else None  # only a roll log's error carries one
    if not seed:
        return ""
    return ("; the session's seed could not be logged either, so `dicetower replay` cannot check its logged "
            f"rolls: keep this seed to check them by hand: {seed}")


#: An error line longer than this is cut in the middle (a path of 100 KB from an OS error is
#: not echoed in full); long enough that a real message, with a session seed at its end, is whole.
FAIL_LINE_AT = 1000


def _fail(message: str, code: int) -> int:
    """``message`` on stderr, a line per ``\\n`` it holds on purpose; any other line break
    it quotes (``\\r``, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028, U+2029, all of which
    ``str.splitlines`` would split at) is shown escaped by :func:`say`, inside its line."""
    for line in message.split("\n"):
        say(clip(line, FAIL_LINE_AT))
    return code


def _output_failed(exc: OSError) -> int:
    """Standard output cannot be written: a closed pipe (``| head``) is fine, anything else
    (``> /dev/full``) one line. Standard output is pointed at /dev/null so that the
    interpreter's own flush at exit does not print a traceback."""
    stream = sys.stdout
    if stream is not None:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
    if exc.errno == errno.EPIPE:
        return 0
    return _fail(f"dicetower: cannot write the output: {exc.strerror or exc}", EXIT_OUTPUT)


if __name__ == "__main__":
    sys.exit(main())
