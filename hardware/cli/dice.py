"""``dicetower systems | roll | odds``: the rules and the odds from the command line.

The system's parameters are only known once the system is named, so ``roll`` and ``odds``
parse in two steps: the subcommand takes the system id, then a parser built from that
system's :class:`engine.params.Param` list reads the rest.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from engine.dice import DiceSource, FacesDice
from engine.errors import ParameterError
from engine.fingerprints import Fingerprint
from engine.params import Param, whole_number
from engine.systems import SystemSpec, all_systems, get, ids
from hardware.cli import Parser, UsageError
from hardware.cli.dice_source import RollBook, add_dice_options, add_state_options
from hardware.cli.output import out, say


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("systems", help="list the game systems and their parameters")
    p.add_argument("--json", action="store_true", help="machine-readable listing")
    p.set_defaults(func=cmd_systems)

    for name, helptext, func in (
        ("roll", "roll the dice for a system", cmd_roll),
        ("odds", "exact chances for a system and setting", cmd_odds),
    ):
        p = sub.add_parser(
            name,
            help=helptext,
            description=helptext,
            add_help=False,
            usage=f"dicetower {name} SYSTEM [PARAMS] [options]",
        )
        # Only "roll --help" reaches this: after SYSTEM, --help goes to the system's parser.
        p.add_argument("-h", "--help", action=_SystemsHelp, nargs=0,
                       help="list the systems and how to see each one's parameters")
        p.add_argument("system", nargs="?", metavar="SYSTEM", help="a system's id (dicetower systems lists them)")
        p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        p.set_defaults(func=func, subcommand=name)


class _SystemsHelp(argparse.Action):
    """``roll --help`` / ``odds --help``: the usage, the systems and where each one's
    parameters are listed (the systems are imported only when help is asked for)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        import textwrap

        command = parser.prog.split()[-1]
        lines = [parser.format_usage().rstrip(), "", f"{parser.description}.", "", "systems:"]
        systems = all_systems()
        for spec in systems:
            lines += textwrap.wrap(spec.summary, 78, initial_indent=f"  {spec.id:<10}",
                                   subsequent_indent=" " * 12)
        lines += [
            "",
            f"Each system's parameters: dicetower {command} SYSTEM --help",
            f"  (e.g. dicetower {command} {systems[0].id} --help);",
            "all of them: dicetower systems (--json for programs).",
        ]
        out("\n".join(lines))
        parser.exit()


def _system_parser(command: str, spec: SystemSpec) -> Parser:
    parser = Parser(prog=f"dicetower {command} {spec.id}", description=spec.summary)
    group = parser.add_argument_group(f"{spec.id} parameters")
    for param in spec.params:
        _add_param(group, param)
    if command == "roll":
        add_dice_options(parser)
        add_state_options(parser)
        parser.add_argument("--faces", metavar="LIST", help="use these die faces instead of the RNG, e.g. 5,1")
        parser.add_argument("--times", metavar="N", help="roll N times")
        parser.add_argument("--summary", action="store_true", help="with --times: count outcomes")
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _add_param(group: argparse._ArgumentGroup, param: Param) -> None:
    helptext = f"{param.help} ({param.allowed()}"
    helptext += ")" if param.required else f"; default {_show(param.default)})"
    helptext = helptext.replace("%", "%%")
    if param.kind == "bool":
        group.add_argument(param.flag, dest=param.name, nargs="?", const="yes", metavar="yes|no", help=helptext)
    elif param.kind == "list":
        group.add_argument(param.flag, dest=param.name, action="append", metavar="ITEM", help=helptext)
    else:
        group.add_argument(param.flag, dest=param.name, metavar=param.name.upper(), help=helptext)


def _show(value: Any) -> str:
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "none"
    return str(value)


def _parse(args: argparse.Namespace) -> tuple[SystemSpec, argparse.Namespace, dict[str, Any]]:
    if args.system is None:
        command = args.subcommand
        raise UsageError(f"dicetower {command}: error: name a system: {', '.join(ids())} "
                         f"(dicetower {command} --help)")
    spec = get(args.system)
    parser = _system_parser(args.subcommand, spec)
    opts = parser.parse_args(args.rest)
    raw = {p.name: getattr(opts, p.name) for p in spec.params}
    return spec, opts, raw


def cmd_roll(args: argparse.Namespace) -> int:
    spec, opts, raw = _parse(args)
    with RollBook(opts, spec) as book:  # roll log, player state; reveals the session at the end
        code = _roll(spec, opts, book, spec.resolve(book.fill(raw)))
    if book.log is None:
        say("dicetower: note: not recorded (no --state-dir): nobody can verify this roll later")
    return code


def _roll(spec: SystemSpec, opts: argparse.Namespace, book: RollBook, params: dict[str, Any]) -> int:
    times = whole_number("times", opts.times, 1, 10_000_000) if opts.times is not None else None
    if opts.summary and times is None:
        raise ParameterError("summary", "needs --times N")
    faces, dice = _entered_or_rolled(opts, book, spec, params)
    # Every result is printed only after the book has recorded it (appended, fsynced), with
    # where it is in the log (its roll number in the session and the start of its entry hash).
    if faces is not None:
        rolled = book.roll_faces(lambda p: spec.roll(faces, p), params, times or 1, faces.finish)
        results: Iterable[tuple[Any, Fingerprint | None]] = zip(rolled, book.entered, strict=False) \
            if book.log is not None else ((r, None) for r in rolled)
    else:
        results = ((book.roll(lambda p: spec.roll(dice, p), params), book.fingerprint) for _ in range(times or 1))

    # A mix the player typed goes into the roll: shown in full beside it (docs/fairness.md).
    mix = opts.mix if faces is None else None
    mixed = f' mix "{mix}"' if mix else ""

    def as_json(result: Any, fp: Fingerprint | None) -> str:
        shown = {**result.to_dict(), "verifiable": book.verifiable}
        if fp is not None:
            shown["recorded"] = {**fp.to_json(), **({"mix": mix} if mix else {})}
        return json.dumps(shown)

    if times is None:
        result, fp = next(iter(results))
        if opts.json:
            out(as_json(result, fp))
        else:
            out("\n".join(spec.describe(result)))
            if fp is not None:
                out(f"recorded: {fp}{mixed}")
        return 0

    if opts.summary:
        counts: Counter[str] = Counter(r.outcome for r, _ in results)
        if opts.json:
            ordered = {o: counts.get(o, 0) for o in spec.outcomes}
            ordered.update({k: v for k, v in counts.items() if k not in ordered})
            out(json.dumps({"n": times, "outcomes": ordered}))
        else:
            exact = spec.odds(params)
            out(f"{spec.title}: {times} rolls")
            out(f"{'outcome':<14}{'count':>10}{'seen':>9}{'exact':>9}")
            for o in spec.outcomes:
                c = counts.get(o, 0)
                p = float(exact.outcomes.get(o, 0))
                out(f"{o:<14}{c:>10}{c / times:>9.2%}{p:>9.2%}")
        return 0

    for result, fp in results:
        if opts.json:
            out(as_json(result, fp), flush=True)
        else:
            mark = [f"{fp.line}{mixed}"] if fp is not None else []
            out(" | ".join([*spec.describe(result), *mark]), flush=True)
    return 0


def _entered_or_rolled(opts: argparse.Namespace, book: RollBook, spec: SystemSpec,
                       params: dict[str, Any]) -> tuple[FacesDice | None, DiceSource]:
    """Typed-in dice (``--faces``; a system's ``entered`` parameter, fingers' ``--winners-set``,
    draws none) or the tower's dice.

    A typed-in roll is logged as ``entered``: nothing about it can be verified, so it takes
    no part in a session and may not be mixed with the options of rolled dice.
    """
    given = next((p.cli_name for p in spec.params if p.entered and params.get(p.name)), None)
    typed = "faces" if opts.faces is not None else given
    if typed is None:
        return None, book.dice(opts)
    chosen = {"seed": opts.seed, "entropy": opts.entropy, "mix": opts.mix}
    rolled = [f"--{name}" for name, value in chosen.items() if value is not None]
    if rolled:
        raise ParameterError(typed, f"the dice are either typed in (--{typed}) or rolled ({', '.join(rolled)}), "
                                    "not both")
    if opts.faces is None:
        return None, _TypedIn(typed)
    faces = FacesDice.parse(opts.faces)
    return faces, faces


class _TypedIn:
    """The dice of a roll whose outcome is typed in (by parameter ``name``, fingers'
    ``winners-set``): it draws nothing."""

    def __init__(self, name: str) -> None:
        self.name = name

    def randbelow(self, n: int) -> int:
        raise ParameterError(self.name, f"this roll would still draw a number below {n}; give every hand")


def cmd_odds(args: argparse.Namespace) -> int:
    spec, opts, raw = _parse(args)
    params = spec.resolve(raw)
    odds = spec.odds(params)
    if opts.json:
        out(json.dumps(odds.to_dict()))
        return 0
    exact = str(odds.success)
    if len(exact) > 40:
        exact = f"a fraction of {len(exact)} characters, in --json"
    if odds.truncated:
        exact += f"; series cut below {float(odds.truncated):.0e}"
    out(f"{spec.title}: chance of success {float(odds.success):.4%}  ({exact})")
    for name, p in odds.outcomes.items():
        out(f"  {name:<14}{float(p):>10.4%}")
    for extra, dist in odds.extra.items():
        # Rounded to 0.0000% the far tail says nothing; the JSON keeps every value. An exact
        # 0 is kept: "--auto-success yes 0%" is the point of that line.
        shown = ", ".join(f"{k} {float(v):.4%}" for k, v in dist.items() if v == 0 or v >= 5e-7)
        out(f"  {extra}: {shown}")
    if odds.advice is not None:  # the rules' own word on whether to roll at all
        out(f"  when to roll: {odds.advice.reason}")
    return 0


def cmd_systems(args: argparse.Namespace) -> int:
    systems = all_systems()
    if args.json:
        out(json.dumps({"systems": [s.describe_spec() for s in systems]}, indent=2))
        return 0
    # The flag column is as wide as the longest flag, and at least two spaces wider.
    width = max(len(p.flag) for s in systems for p in s.params) + 2
    for s in systems:
        out(f"{s.id:<10}{s.title}")
        for p in s.params:
            default = "required" if p.required else f"default {_show(p.default)}"
            out(f"    {p.flag:<{width}}{p.allowed()}; {default}")
    return 0
