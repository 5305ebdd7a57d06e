"""Every command the docs show runs as written in a fresh clone after the README's quick start.

From README.md and docs/**/*.md this takes every shell line (the lines of ```sh blocks, and
``$ `` lines in an output block), every usage line (``dicetower sim [--config FILE] ...``) and
every command in running text (```dicetower replay```). Each call of dicetower must name a
real subcommand and real options (read from the real argparse parser, and for ``roll`` and
``odds`` the system's own parser). A shell line must call the program by the path the quick
start makes (``.venv/bin/dicetower``; ``/opt/dicetower/venv/bin/dicetower`` on an installed
tower): a fresh clone has no ``dicetower`` on PATH. The safe ones (no hardware, no network,
nothing written outside a scratch HOME, nothing statistical) are run, a page's in the order
the page gives them, and must exit 0.

A failure names the doc, the line and the command, so a doc that falls behind the code (or
the code behind a doc) is fixed where it is said.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.systems import SYSTEM_IDS, get
from hardware.cli import UsageError, build_parser
from hardware.cli.dice import _system_parser

REPO = Path(__file__).resolve().parent.parent
DOCS = (REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")))
SHELL_BLOCKS = {"sh", "bash", "shell"}
#: How a shell line calls dicetower: in a clone (the README's quick start makes .venv), or
#: on a tower deploy/install.sh installed.
PATHS = (".venv/bin/dicetower", "/opt/dicetower/venv/bin/dicetower")
PROGRAM = re.compile(r"^(?:.*/)?dicetower$")
#: Subcommands that are safe to run here (no hardware, network or listener; a state
#: directory only under the scratch HOME). fairness is statistical (a fair source fails one
#: of its tests in a quarter of runs), sim --out writes into the docs, run/board/bridge
#: want hardware or a network: those are parsed, not run.
SAFE = {"systems", "odds", "roll", "session", "replay", "log", "stats", "--version", "--help", "-h"}
#: Other programs whose documented lines are run too.
SAFE_OTHER = (("python3", "tools/verify_rolls.py"), ("systemd-analyze", "security"))
#: A usage line or a command in running text: placeholders in capitals, optional parts.
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(?:[.,:][A-Z0-9_]*)*$|…|\.\.\.")


@dataclass(frozen=True)
class Line:
    doc: Path
    number: int
    text: str
    kind: str  # run (a sh block), shown (a $ line in an output block), usage, prose

    def where(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.number}: {self.text}"


def doc_lines(doc: Path) -> Iterator[Line]:
    fence: str | None = None
    pending = ""
    for number, raw in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = raw.strip()
        opened = re.match(r"^(```+|~~~+)\s*([\w+-]*)", stripped)
        if opened:
            fence = None if fence is not None else opened.group(2).lower()
            continue
        if fence is None:
            for span in re.findall(r"`([^`]+)`", raw):
                if re.match(r"^(?:sudo (?:-u \S+ )?)?(?:\S*/)?dicetower [a-z-]", span):
                    yield Line(doc, number, span, "prose")
            continue
        if fence in SHELL_BLOCKS:
            text = (pending + " " + stripped).strip() if pending else stripped
            if text.endswith("\\"):
                pending = text[:-1]
                continue
            pending = ""
            if text and not text.startswith("#"):
                yield Line(doc, number, text, "usage" if _usage(text.split(" #", 1)[0]) else "run")
        elif fence in ("", "console", "text") and stripped.startswith("$ "):
            yield Line(doc, number, stripped[2:], "shown")
        elif fence in ("", "console", "text") and re.match(r"^(?:\S*/)?dicetower [a-z]", stripped) \
                and _usage(stripped):
            yield Line(doc, number, stripped, "usage")


def _usage(text: str) -> bool:
    return bool(re.search(r"[\[(]--|\[[A-Z]+\]|[A-Z]{3,} \|", text))


def commands(line: Line) -> Iterator[list[str]]:
    """The simple commands of a line (split at pipes, ``&&`` and ``;``), comments, redirections,
    ``sudo -u USER`` and ``NAME=value`` in front left out. A usage line or a command in prose
    is its words, up to a description after a wide gap (``... [--json]   commit; print``)."""
    if line.kind in ("usage", "prose"):
        segments = re.split(r"\s{2,}", line.text)
        kept = [segments[0]]
        for segment in segments[1:]:
            if not re.match(r"^[\[(|A-Z-]", segment):
                break
            kept.append(segment)
        words = " ".join(kept).split()
        yield words[3:] if words[:2] == ["sudo", "-u"] else words
        return
    lexer = shlex.shlex(line.text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        tokens = list(lexer)
    except ValueError as exc:
        pytest.fail(f"{line.where()}\n  cannot read it as a shell line: {exc}")
    current: list[str] = []
    skip_next = False
    for token in [*tokens, ";"]:
        if skip_next:
            skip_next = False
            continue
        if token in ("|", "||", "&&", ";", "&"):
            while current and (re.match(r"^[A-Z_]+=", current[0]) or current[0] in ("sudo", "env", "do", "then",
                                                                                     "else")):
                current = current[3:] if current[:2] == ["sudo", "-u"] else current[1:]
            if current:
                yield current
            current = []
        elif token in (">", ">>", "<", "2>", "2>&1", ">&"):
            skip_next = token != "2>&1"
        else:
            current.append(token)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return set(parser._option_string_actions)


def names_problem(args: list[str]) -> str | None:
    """What is wrong with the subcommand and options a dicetower call names (None: nothing)."""
    parser: argparse.ArgumentParser = build_parser()
    path: list[str] = []
    words = iter(args)
    options: set[str] = _options(parser)
    for word in words:
        token = word.strip("[]()|,")
        if not token or PLACEHOLDER.match(token) or token.startswith("~"):
            continue
        if token.startswith("-"):
            flag = token.split("=", 1)[0]
            if flag not in options:
                return f"dicetower {' '.join(path)}: no option {flag}"
            continue
        subs = _subparsers(parser)
        if subs:
            if token not in subs:
                return f"dicetower {' '.join(path)}: no subcommand {token!r} (there are {', '.join(subs)})"
            parser, options = subs[token], _options(subs[token])
            path.append(token)
            if path[0] in ("roll", "odds") and len(path) == 1:
                options |= _system_options(path[0], args)
    if not path and not any(a.startswith("-") for a in args):
        return "names no subcommand"
    return None


def _system_options(command: str, args: list[str]) -> set[str]:
    """A roll's or odds' options: the named system's, or every system's for ``SYSTEM``."""
    named = [a for a in args if a in SYSTEM_IDS]
    systems = named[:1] or list(SYSTEM_IDS)
    out: set[str] = set()
    for system in systems:
        out |= _options(_system_parser(command, get(system)))
    return out | set(SYSTEM_IDS)


def parse_problem(args: list[str]) -> str | None:
    """The real parser on a call with real values (a shell line): what it refuses."""
    try:
        namespace = build_parser().parse_args(args)
        if getattr(namespace, "command", None) in ("roll", "odds") and namespace.system is not None:
            _system_parser(namespace.command, get(namespace.system)).parse_args(namespace.rest)
    except UsageError as exc:
        return str(exc)
    except SystemExit:  # --help, --version
        return None
    except Exception as exc:  # an unknown system and the like: said, not a crash
        return f"{type(exc).__name__}: {exc}"
    return None


def _calls(line: Line) -> Iterator[tuple[list[str], list[str]]]:
    for command in commands(line):
        if PROGRAM.match(command[0]):
            yield command, command[1:]


ALL_LINES = [line for doc in DOCS for line in doc_lines(doc)]
CALLS = [(line, command, args) for line in ALL_LINES for command, args in _calls(line)]

#: Calls the docs name ahead of the code: another branch of issue 18 adds them. Each is
#: expected to fail here until that branch is merged, and then to pass; a strict xfail makes
#: the merge say so: delete the entry then.
PENDING: dict[tuple[str, ...], str] = {}


def _params(call: tuple[Line, list[str], list[str]]) -> object:
    line, command, args = call
    words = tuple(a for a in args if not a.startswith("-"))[:2]
    marks = [pytest.mark.xfail(reason=PENDING[words], strict=True)] if words in PENDING else []
    return pytest.param(line, command, args, id=f"{line.doc.name}:{line.number}", marks=marks)


def test_the_docs_show_commands_at_all() -> None:
    """The extraction finds what it should: a sh block, a usage line, a command in prose."""
    kinds = {line.kind for line in ALL_LINES}
    assert {"run", "usage", "prose", "shown"} <= kinds
    assert any(line.doc.name == "README.md" and line.kind == "run" for line, _, _ in CALLS)


@pytest.mark.parametrize(("line", "command", "args"), [_params(call) for call in CALLS])
def test_every_documented_dicetower_call_names_real_subcommands_and_options(line: Line, command: list[str],
                                                                            args: list[str]) -> None:
    problem = names_problem(args)
    assert problem is None, f"{line.where()}\n  {problem}"
    if line.kind in ("run", "shown"):
        assert command[0] in PATHS, (
            f"{line.where()}\n  call it as {PATHS[0]} (a fresh clone has no dicetower on PATH; the README's "
            f"quick start makes .venv) or, on an installed tower, {PATHS[1]}")
        if not any(PLACEHOLDER.match(a) for a in args):
            problem = parse_problem(args)
            assert problem is None, f"{line.where()}\n  {problem}"


def _safe(command: list[str]) -> bool:
    if PROGRAM.match(command[0]):
        if command[0] != PATHS[0]:
            return False  # an installed tower's (under sudo): not this checkout's
        sub = next((a for a in command[1:] if not a.startswith("-")), command[1] if len(command) > 1 else "")
        return sub in SAFE and "--out" not in command
    return any(command[0] == program and first in command[1:2] for program, first in SAFE_OTHER)


def _runnable(doc: Path) -> list[Line]:
    lines = [line for line in ALL_LINES if line.doc == doc and line.kind == "run" and "sudo " not in line.text]
    return [line for line in lines if all(_safe(c) for c in commands(line))]


RUN_DOCS = [doc for doc in DOCS if _runnable(doc)]


@pytest.mark.parametrize("doc", RUN_DOCS, ids=[str(d.relative_to(REPO)) for d in RUN_DOCS])
def test_the_safe_documented_commands_run_as_written(doc: Path, tmp_path: Path) -> None:
    """Run from the checkout (as after the quick start), in the page's order, with a scratch
    HOME (``~/tower`` and the default state directory land there)."""
    if not (REPO / PATHS[0]).exists():
        pytest.skip(f"{PATHS[0]} is made by the README's quick start (./tower or ./run-tests)")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DICETOWER_", "XDG_", "STATE_DIRECTORY"))}
    env["HOME"] = str(tmp_path)  # PATH as it is: a fresh shell has no .venv on it
    for line in _runnable(doc):
        if any(c[0] == "systemd-analyze" for c in commands(line)):
            from tests.support import require_command

            require_command("systemd-analyze")
        done = subprocess.run(["bash", "-c", line.text], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, (f"{line.where()}\n  exit status {done.returncode}\n"
                                      f"  {(done.stderr or done.stdout).strip()[-600:]}")
