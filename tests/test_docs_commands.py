"""Every command the docs show runs as written in a fresh clone after the README's quick start,
and does what the docs say it does.

From README.md and docs/**/*.md this takes every shell line (the lines of ```sh blocks, a
heredoc with the line that starts it, and ``$ `` lines in an output block), every usage line
(``dicetower sim [--config FILE] ...``) and every command in running text (```dicetower
replay```). Each call of dicetower must name a real subcommand and real options (read from
the real argparse parser, and for ``roll`` and ``odds`` the system's own parser). A shell line
must call the program by the path the quick start makes (``.venv/bin/dicetower``;
``/opt/dicetower/venv/bin/dicetower`` on an installed tower): a fresh clone has no
``dicetower`` on PATH.

The safe lines (no hardware, no network listener, no root, nothing written outside the page's
scratch, nothing statistical) are run, a page's in the order the page gives them, from a
scratch copy of the clone (every top-level entry linked, so a file a page makes lands in the
scratch) with a scratch HOME; a path under ``/tmp/`` in a page is a path in its scratch. A
command does what the page says, not only exits 0 (issue 29):

- a ``$ COMMAND`` line in an output block prints what the lines under it show (each shown
  line, in order; ``...`` stands for any text);
- a ```sh line exits 0, unless the page says otherwise, and the page says what it changes
  on a comment line of its own right under it (any number of them)::

      # => 3 rolls in DIR              the roll log in DIR has 3 more rolls after it
      # => table seed CODE in DIR      the last table seed set in DIR's log is CODE
      # => makes PATH                  PATH exists after it (and did not before)
      # => exit N                      it exits with status N
      # => prints TEXT                 what it prints holds TEXT

  A line that changes something must say so: a scripted ``sim`` with a state directory (and,
  when it rolls, the table seed it sets, as a table would), ``session open|seed|close``, a
  ``roll`` with ``--state-dir``, and a line that writes a file (``>``);
- every file an example uses is made by the page first (running it from the scratch, a file
  the page never made is missing, and the command says something else than the page shows);
- every ```python block runs (``python fragment`` marks one that is part of a larger file);
- every line that uses ``sudo`` shows, close under it (over it, for a ``$`` line with its
  output), what to run as root where there is no sudo: the same command without ``sudo``
  (``runuser -u USER -- ...`` for ``sudo -u USER``; ``USER`` for ``$USER``, root's own name).

A failure names the doc, the line and the command, so a doc that falls behind the code (or
the code behind a doc) is fixed where it is said.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from engine.systems import get, ids
from hardware.cli import UsageError, build_parser
from hardware.cli.dice import _system_parser

REPO = Path(__file__).resolve().parent.parent
DOCS = (REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")))
SHELL_BLOCKS = {"sh", "bash", "shell"}
OUTPUT_BLOCKS = {"", "console", "text"}
#: How a shell line calls dicetower: in a clone (the README's quick start makes .venv), or
#: on a tower deploy/install.sh installed.
PATHS = (".venv/bin/dicetower", "/opt/dicetower/venv/bin/dicetower")
PROGRAM = re.compile(r"^(?:.*/)?dicetower$")
#: Subcommands that are safe to run here (no hardware, network or listener; a state
#: directory only under the scratch HOME). fairness is statistical (a fair source fails one
#: of its tests in a quarter of runs), run/board/bridge want hardware or a network; sim is
#: run scripted (``--press``/``--script``) and without ``--out`` (which writes into the docs):
#: those are parsed, not run.
SAFE = {"systems", "odds", "roll", "session", "replay", "log", "stats", "--version", "--help", "-h"}
#: Other programs whose documented lines are run too (the program and, if given, its first
#: argument); what they write goes into the page's scratch.
SAFE_OTHER = (("python3", "tools/verify_rolls.py"), ("python3", "-c"), ("systemd-analyze", "security"),
              ("mkdir", None), ("cat", None), ("printf", None), ("head", None),
              # a short run of the speech bench: its figures are checked to come in order
              (".venv/bin/python", "bench/bench_speech.py"))
#: Where a page's own files may be: its scratch (relative, ``~``, ``/tmp/``) or a device read.
SCRATCH_PATHS = ("/tmp/", "/dev/zero", "/dev/urandom", "/dev/null")
#: A usage line or a command in running text: placeholders in capitals, optional parts.
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(?:[.,:][A-Z0-9_]*)*$|…|\.\.\.")
#: The comment that states what the line above it changes.
EFFECT = re.compile(r"^#\s*=>\s*(.+)$")
EFFECTS = {
    "rolls": re.compile(r"^(\d+) rolls? in (\S+)$"),
    "table seed": re.compile(r"^table seed (\S+) in (\S+)$"),
    "makes": re.compile(r"^makes (\S+)$"),
    "exit": re.compile(r"^exit (\d+)$"),
    "prints": re.compile(r"^prints (.+)$"),
}


@dataclass(frozen=True)
class Line:
    doc: Path
    number: int
    text: str
    kind: str  # run (a sh block), shown (a $ line in an output block), usage, prose
    body: str = ""  # a heredoc's lines and its end marker
    effects: tuple[str, ...] = ()  # what the page says it changes (# => ...)
    output: tuple[str, ...] = field(default=(), compare=False)  # a $ line's shown output

    def where(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.number}: {self.text}"

    @property
    def script(self) -> str:
        return f"{self.text}\n{self.body}" if self.body else self.text


def doc_lines(doc: Path) -> Iterator[Line]:
    lines: list[Line] = []
    fence: str | None = None
    block = 0  # which fenced block: a $ line's output is the rest of its own block
    shown_in = -1
    pending = ""
    heredoc: tuple[str, list[str]] | None = None  # its end marker, its lines so far
    for number, raw in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = raw.strip()
        if heredoc is not None:
            heredoc[1].append(stripped)
            if stripped == heredoc[0]:
                last = lines[-1]
                lines[-1] = Line(last.doc, last.number, last.text, last.kind, body="\n".join(heredoc[1]))
                heredoc = None
            continue
        opened = re.match(r"^(```+|~~~+)\s*([\w+-]*)", stripped)
        if opened:
            fence = None if fence is not None else opened.group(2).lower()
            block += 1
            continue
        if fence is None:
            for span in re.findall(r"`([^`]+)`", raw):
                if re.match(r"^(?:sudo (?:-u \S+ )?)?(?:\S*/)?dicetower [a-z-]", span):
                    lines.append(Line(doc, number, span, "prose"))
            continue
        if fence in SHELL_BLOCKS:
            effect = EFFECT.match(stripped)
            if effect and lines and lines[-1].kind == "run":
                last = lines[-1]
                lines[-1] = Line(last.doc, last.number, last.text, last.kind, last.body,
                                 (*last.effects, effect.group(1).strip()))
                continue
            text = (pending + " " + stripped).strip() if pending else stripped
            if text.endswith("\\"):
                pending = text[:-1]
                continue
            pending = ""
            if text and not text.startswith("#"):
                lines.append(Line(doc, number, text, "usage" if _usage(text.split(" #", 1)[0]) else "run"))
                marker = re.search(r"<<-?\s*'?\"?(\w+)'?\"?", text)
                if marker:
                    heredoc = (marker.group(1), [])
        elif fence in OUTPUT_BLOCKS and stripped.startswith("$ "):
            lines.append(Line(doc, number, stripped[2:], "shown"))
            shown_in = block
        elif fence in OUTPUT_BLOCKS and lines and lines[-1].kind == "shown" and shown_in == block \
                and not re.match(r"^(?:\S*/)?dicetower [a-z]", stripped):
            last = lines[-1]
            lines[-1] = Line(last.doc, last.number, last.text, last.kind, output=(*last.output, stripped))
        elif fence in OUTPUT_BLOCKS and re.match(r"^(?:\S*/)?dicetower [a-z]", stripped) and _usage(stripped):
            lines.append(Line(doc, number, stripped, "usage"))
    yield from lines


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
        elif token in (">", ">>", "<", "2>", "2>&1", ">&", "<<", "<<-"):
            skip_next = token != "2>&1"
        else:
            current.append(token)


def redirects(line: Line) -> list[str]:
    """The files a shell line writes by redirection (``> FILE``, ``>> FILE``)."""
    lexer = shlex.shlex(line.text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    tokens = list(lexer)
    return [tokens[i + 1] for i, t in enumerate(tokens[:-1]) if t in (">", ">>")]


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
    named = [a for a in args if a in ids()]
    systems = named[:1] or list(ids())
    out: set[str] = set()
    for system in systems:
        out |= _options(_system_parser(command, get(system)))
    return out | set(ids())


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

#: Calls the docs name ahead of the code: another branch adds them. Each is expected to fail
#: here until that branch is merged, and then to pass; a strict xfail makes the merge say
#: so: delete the entry then.
PENDING: dict[tuple[str, ...], str] = {}


def _params(call: tuple[Line, list[str], list[str]]) -> object:
    line, command, args = call
    words = tuple(a for a in args if not a.startswith("-"))[:2]
    marks = [pytest.mark.xfail(reason=PENDING[words], strict=True)] if words in PENDING else []
    return pytest.param(line, command, args, id=f"{line.doc.name}:{line.number}", marks=marks)


def test_the_docs_show_commands_at_all() -> None:
    """The extraction finds what it should: a sh block, a usage line, a command in prose, a
    heredoc, a stated effect, a $ line with its output."""
    kinds = {line.kind for line in ALL_LINES}
    assert {"run", "usage", "prose", "shown"} <= kinds
    assert any(line.doc.name == "README.md" and line.kind == "run" for line, _, _ in CALLS)
    assert any(line.body for line in ALL_LINES) and any(line.effects for line in ALL_LINES)
    assert any(line.output for line in ALL_LINES if line.kind == "shown")


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


def _paths_in_scratch(command: list[str]) -> bool:
    return all(not a.startswith("/") or a.startswith(SCRATCH_PATHS) for a in command[1:])


def _safe(command: list[str]) -> bool:
    if PROGRAM.match(command[0]):
        if command[0] != PATHS[0]:
            return False  # an installed tower's (under sudo): not this checkout's
        sub = next((a for a in command[1:] if not a.startswith("-")), command[1] if len(command) > 1 else "")
        if sub == "sim":  # scripted, not into the docs, on files of the page's own
            scripted = "--press" in command or "--script" in command
            return scripted and "--out" not in command and _paths_in_scratch(command)
        return sub in SAFE and "--out" not in command
    for program, first in SAFE_OTHER:
        if command[0] == program and (first is None or first in command[1:2]):
            return _paths_in_scratch(command)
    return False


def _runs(line: Line) -> bool:
    """Whether the test runs ``line``: a shell line or a $ line of safe commands only, none
    under sudo, writing nothing outside the page's scratch."""
    if line.kind not in ("run", "shown") or "sudo " in line.text:
        return False
    if any(not target.startswith(("/tmp/", "~")) and target.startswith("/") for target in redirects(line)):
        return False
    return all(_safe(c) for c in commands(line))


def _runnable(doc: Path) -> list[Line]:
    return [line for line in ALL_LINES if line.doc == doc and _runs(line)]


RUN_DOCS = [doc for doc in DOCS if _runnable(doc)]


def _changes(line: Line) -> str:
    """What about ``line`` changes something (so the page must say what), or ""."""
    for command in commands(line):
        if not PROGRAM.match(command[0]):
            continue
        sub = [a for a in command[1:] if not a.startswith("-")]
        if sub[:1] == ["sim"] and ("--config" in command or "--state-dir" in command):
            return "a scripted sim with a state directory"
        if sub[:2] in (["session", "open"], ["session", "seed"], ["session", "close"]):
            return f"session {sub[1]}"
        if sub[:1] == ["roll"] and "--state-dir" in command:
            return "a roll with --state-dir"
    if redirects(line):
        return "a file written"
    return ""


def test_every_command_that_changes_something_says_what() -> None:
    """The effect a page states is what the test checks; a line that changes something and
    states nothing would only be held to its exit status."""
    unsaid = [f"{line.where()}\n  ({_changes(line)}): say what it changes under it, '# => ...'"
              for line in ALL_LINES if line.kind == "run" and _runs(line) and _changes(line) and not line.effects]
    assert not unsaid, "\n".join(unsaid)
    for line in ALL_LINES:
        for effect in line.effects:
            assert any(p.match(effect) for p in EFFECTS.values()), f"{line.where()}\n  unknown effect {effect!r}"


def test_a_panel_example_that_rolls_sets_the_table_seed_first() -> None:
    """A table sets its code at a new session's first ROLL; an example that rolls on a tower
    with a state directory shows it (and says so: '# => table seed CODE in DIR')."""
    for line in ALL_LINES:
        if line.kind != "run" or "sim" not in line.text or not _changes(line):
            continue
        presses = re.search(r"--press\s+(\S+)", line.text)
        if presses and "roll" in presses.group(1).split(","):
            assert any(e.startswith("table seed ") for e in line.effects), (
                f"{line.where()}\n  rolls on the panel: set the table seed as a table would "
                "(roll,plus,3,1,4,2,5,5,1,2,roll) and say '# => table seed CODE in DIR'")


def _scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A clone to run a page in: every top-level entry of the checkout linked (so .venv,
    tools/, docs/ are there, and what a page writes is not), a scratch HOME and /tmp."""
    clone = tmp_path / "clone"
    clone.mkdir()
    for entry in REPO.iterdir():
        if entry.name not in (".git",):
            (clone / entry.name).symlink_to(entry)
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DICETOWER_", "XDG_", "STATE_DIRECTORY"))}
    env["HOME"] = str(tmp_path / "home")  # PATH as it is: a fresh shell has no .venv on it
    (tmp_path / "home").mkdir()
    return clone, env


def _local(text: str, tmp_path: Path) -> str:
    """A page's ``/tmp/...`` as a path in its scratch."""
    return re.sub(r"(?<![\w.])/tmp/", f"{tmp_path}/tmp/", text)


def _path(text: str, tmp_path: Path, clone: Path) -> Path:
    text = _local(text, tmp_path)
    if text.startswith("~"):
        return tmp_path / "home" / text[2:]
    return Path(text) if text.startswith("/") else clone / text


def _rolls(directory: Path) -> list[dict]:
    log = directory / "rolls.jsonl"
    if not log.exists():
        return []
    return [json.loads(text) for text in log.read_text(encoding="utf-8").splitlines() if text.strip()]


def _shown(expected: tuple[str, ...], printed: str) -> str | None:
    """Whether ``printed`` holds each shown line in order (``...`` stands for any text)."""
    at = 0
    for shown in expected:
        pattern = ".*?".join(re.escape(part) for part in shown.split("..."))
        found = re.compile(pattern).search(printed, at)
        if found is None:
            return shown
        at = found.end()
    return None


def _check_effects(line: Line, done: subprocess.CompletedProcess[str], before: dict[str, object],
                   tmp_path: Path, clone: Path) -> list[str]:
    problems = []
    printed = done.stdout + done.stderr
    status = next((int(m[1]) for e in line.effects if (m := EFFECTS["exit"].match(e))), 0)
    if line.kind == "run" and done.returncode != status:
        problems.append(f"exit status {done.returncode}, the page says {status}\n  {printed.strip()[-600:]}")
    if line.kind == "shown" and line.output:
        missing = _shown(line.output, printed)
        if missing is not None:
            problems.append(f"the page shows {missing!r}; it printed:\n  {printed.strip()[-600:]}")
    for effect in line.effects:
        if m := EFFECTS["rolls"].match(effect):
            directory = _path(m[2], tmp_path, clone)
            made = sum(1 for e in _rolls(directory) if e.get("kind") == "roll") - int(before.get(effect, 0))  # type: ignore[call-overload]
            if made != int(m[1]):
                problems.append(f"the page says {effect!r}: it rolled {made} time(s)")
        elif m := EFFECTS["table seed"].match(effect):
            seeds = [e.get("table_seed") for e in _rolls(_path(m[2], tmp_path, clone)) if e.get("kind") == "table_seed"]
            if not seeds or seeds[-1] != m[1]:
                problems.append(f"the page says {effect!r}: the log's table seeds are {seeds}")
        elif m := EFFECTS["makes"].match(effect):
            if before.get(effect) or not _path(m[1], tmp_path, clone).exists():
                how = "there before" if before.get(effect) else "not made"
                problems.append(f"the page says {effect!r}: it was {how}")
        elif (m := EFFECTS["prints"].match(effect)) and m[1] not in printed:
            problems.append(f"the page says {effect!r}; it printed:\n  {printed.strip()[-600:]}")
    return problems


def _before(line: Line, tmp_path: Path, clone: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    for effect in line.effects:
        if m := EFFECTS["rolls"].match(effect):
            out[effect] = sum(1 for e in _rolls(_path(m[2], tmp_path, clone)) if e.get("kind") == "roll")
        elif m := EFFECTS["makes"].match(effect):
            out[effect] = _path(m[1], tmp_path, clone).exists()
    return out


@pytest.mark.parametrize("doc", RUN_DOCS, ids=[str(d.relative_to(REPO)) for d in RUN_DOCS])
def test_the_safe_documented_commands_do_what_the_page_says(doc: Path, tmp_path: Path) -> None:
    """Run from a scratch clone (as after the quick start), in the page's order: each exits as
    the page says, prints what it shows, and changes what it says it changes."""
    if not (REPO / PATHS[0]).exists():
        pytest.skip(f"{PATHS[0]} is made by the README's quick start (./tower or ./run-tests)")
    clone, env = _scratch(tmp_path)
    for line in _runnable(doc):
        if any(c[0] == "systemd-analyze" for c in commands(line)):
            from tests.support import require_command

            require_command("systemd-analyze")
        before = _before(line, tmp_path, clone)
        done = subprocess.run(["bash", "-c", _local(line.script, tmp_path)], cwd=clone, env=env, capture_output=True,
                              text=True, timeout=300)
        problems = _check_effects(line, done, before, tmp_path, clone)
        assert not problems, f"{line.where()}\n  " + "\n  ".join(problems)


# --- python examples ---------------------------------------------------------------------------


def python_blocks(doc: Path) -> Iterator[tuple[int, str]]:
    """Each ```python block of ``doc`` (its first line's number, its code), but a fragment
    (```python fragment: a part of a larger file)."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    start: int | None = None
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if start is None and re.match(r"^```python\s*$", stripped):
            start = number
        elif start is not None and stripped.startswith("```"):
            yield start, "\n".join(_dedent(lines[start:number - 1]))
            start = None


def _dedent(lines: list[str]) -> list[str]:
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return [line[indent:] for line in lines]


PYTHON = [(doc, number, code) for doc in DOCS for number, code in python_blocks(doc)]


@pytest.mark.parametrize(("doc", "number", "code"), PYTHON,
                         ids=[f"{doc.name}:{number}" for doc, number, _ in PYTHON])
def test_the_python_examples_run(doc: Path, number: int, code: str, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{doc.relative_to(REPO)}:{number}: the example fails:\n{done.stderr[-1500:]}"


# --- sudo --------------------------------------------------------------------------------------

#: ``sudo [-u USER] COMMAND`` in a shell line or a command in running text (the command up to
#: the end of the code, a comment or the line).
_SUDO = re.compile(r"\bsudo ((?:-u \S+ )?)([^`#\n]+)")
#: How near a sudo line the page says what to run as root (lines under it; and over it, for a
#: ``$`` line whose output follows).
AS_ROOT_WITHIN = 4
AS_ROOT_ABOVE = 5


def as_root(user: str, command: str) -> list[str]:
    """What to run as root for ``sudo [-u USER] COMMAND`` where there is no sudo: the command
    itself (each of ``a && sudo b``), or ``runuser -u USER -- COMMAND``."""
    # root's $USER is root: the page names the user (USER) instead
    parts = [part.strip().removeprefix("sudo ").strip().rstrip(".,;:)").replace("$USER", "USER")
             for part in command.split("&&")]
    name = user.split()[-1] if user else ""
    return [f"runuser -u {name} -- {part}" if name else part for part in parts if part]


def sudo_lines() -> Iterator[tuple[Path, int, str]]:
    """Every use of sudo in the docs (a shell line or a command in running text): the doc, the
    line, the text from ``sudo``."""
    for doc in DOCS:
        for number, raw in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
            for m in _SUDO.finditer(raw):
                yield doc, number, m.group(0)


SUDO = list(sudo_lines())


def _said_as_root(near: str, command: str) -> bool:
    """``command`` appears in ``near`` other than right after ``sudo`` (``no sudo `command```
    is the command alone)."""
    return any(not near[:m.start()].rstrip(" ").endswith("sudo") for m in re.finditer(re.escape(command), near))


@pytest.mark.parametrize(("doc", "number", "used"), SUDO, ids=[f"{doc.name}:{number}" for doc, number, _ in SUDO])
def test_a_line_that_uses_sudo_says_what_to_run_as_root(doc: Path, number: int, used: str) -> None:
    """Not every machine has sudo (a Debian installed with a root password, a container):
    the page says what root runs there, close under it."""
    m = _SUDO.match(used)
    assert m is not None
    lines = doc.read_text(encoding="utf-8").splitlines()
    above = AS_ROOT_ABOVE if lines[number - 1].lstrip().startswith("$ ") else 0
    near = re.sub(r"\s+", " ", " ".join(lines[max(0, number - 1 - above):number + AS_ROOT_WITHIN]))
    missing = [root for root in as_root(m.group(1), m.group(2)) if not _said_as_root(near, root)]
    assert not missing, (f"{doc.relative_to(REPO)}:{number}: {used!r}\n  say what to run as root where there is "
                         f"no sudo, within {AS_ROOT_WITHIN} lines: {missing}")
