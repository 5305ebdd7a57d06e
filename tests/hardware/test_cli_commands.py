"""The command table (hardware.cli.COMMANDS) names exactly the commands each module registers,
so a command typed loads its own module and nothing is missing from ``dicetower --help``."""

from __future__ import annotations

import importlib

import pytest

from hardware.cli import COMMANDS, Parser, build_parser


@pytest.mark.parametrize("module", list(COMMANDS))
def test_each_module_registers_the_commands_the_table_names(module: str) -> None:
    parser = Parser(prog="dicetower")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    importlib.import_module(module).register(sub)
    assert tuple(sub.choices) == COMMANDS[module]


def test_a_command_builds_the_same_parser_for_itself_as_the_whole_one() -> None:
    whole = build_parser()
    subparsers = next(a for a in whole._actions if a.dest == "command")
    for commands in COMMANDS.values():
        for command in commands:
            alone = build_parser(command)
            just = next(a for a in alone._actions if a.dest == "command")
            assert tuple(just.choices) == commands
            assert just.choices[command].format_help() == subparsers.choices[command].format_help()
