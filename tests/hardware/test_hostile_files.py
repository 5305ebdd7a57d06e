"""The fault suite: whatever is planted in the state directory or given as a file, every
command ends, with one line and a documented status, holds no lock afterwards, and the log
still verifies up to the plant (docs/roll-log.md, "Files that cannot be turned against the
tower"). Real files and real processes: FIFOs, links to /dev/zero and to other directories,
huge sparse files, deep nesting, directories where files belong, a read-only mount, a closed
or full standard output. The rig is tests/hardware/planted.py; ``python -m
tests.hardware.planted`` prints every case's status.

A command that has not ended after ``HANG_GUARD_S`` is killed and reported as hung: that is a
guard against hangs, not a measure of speed (each case takes about a second).
"""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.hardware import planted
from tests.hardware.planted import (
    PRINTING,
    READ_ONLY,
    TARGETS,
    Outcome,
    Paths,
    Target,
    check_after,
    prepare,
    run_case,
)

#: Files that are refused outright (not a regular file, or behind a link), against damage
#: that is read and bridged or reported (huge, deep).
REFUSED = ("fifo", "zero", "dirlink", "dir", "file")
LOG_READERS = ("log-verify", "log-show", "log-show-last", "stats", "replay")


def expected(target: Target, kind: str, command: str) -> set[int]:
    """The documented status of each case (docs/roll-log.md, "Exit status")."""
    name = target.name
    if name in ("rolls.jsonl", "rolls.1.jsonl"):
        if command in ("sim", "sim-net"):
            return {0}  # the tower starts; its display says why it cannot record
        if name == "rolls.1.jsonl" and command in ("roll", "session-show"):
            # the open session began in this file: its state is re-derived from the log alone,
            # which cannot be read back to its start (docs/fairness.md, "Cached facts")
            return {4}
        if kind in REFUSED:
            return {4}  # the roll log cannot be read: cannot record, or cannot read
        if command in ("log-verify", "replay"):
            return {1}  # damage is a problem the check names
        return {0}  # damage is bridged by a `recovered` entry, or shown as damage
    if name in ("players/1.json", "players/"):
        return {2}  # a damaged or unreadable state file
    if name in ("open-sessions/ID.json", "open-sessions/", "session.json"):
        # the only file of the session the log holds open (its kept file, the folder of it, or
        # an earlier version's session.json) cannot be read: a command stops (2: a person puts
        # it back, or moves it away to give up that seed) rather than open a second session
        # beside it in the log; the tower says so and runs on without rolling
        if command == "sim":
            return {0}
        if command == "session-open":  # no session open in the log: the plant is said and passed
            return {2} if name == "open-sessions/" else {0}  # unless the new seed cannot be kept there
        if name == "open-sessions/ID.json" and kind in ("huge", "deep"):
            # bytes that are no session file (damage, not a link or a FIFO a person put there):
            # the session is ended as damaged, said in one line, and the writer goes on
            return {0} if command in ("roll", "roll-times") else {1} if command == "session-close" else {2}
        return {2}
    if name == ".lock":
        if command in ("sim", "session-show") or kind in ("huge", "deep"):
            return {0}  # a lock file's contents are never read; showing takes no lock
        return {4}  # the lock cannot be taken: nothing can be recorded
    if name in ("config", "script", "password_file"):
        return {2}
    return {0}  # a kept file of no logged session, the tower's panel memory, MQTT cursor: reported, and on


def _cases(target: Target) -> list[tuple[Target, str]]:
    return [(target, kind) for kind in target.kinds]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return planted.make_template(tmp_path_factory.mktemp("template"))


def _one(template: Path, root: Path, target: Target, kind: str, command: str) -> tuple[str, Outcome]:
    paths = prepare(template, root, target, command)
    planted.plant(target, kind, paths)
    outcome = run_case(command, paths)
    check_after(outcome, paths, expected(target, kind, command))
    return command, outcome


@pytest.mark.parametrize(("target", "kind"), [case for t in TARGETS for case in _cases(t)],
                         ids=lambda v: v.name if isinstance(v, Target) else v)
def test_a_planted_file_ends_every_command_in_one_line(template, tmp_path, target: Target, kind: str) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(_one, template, tmp_path / command, target, kind, command)
                   for command in target.commands]
        results = [f.result() for f in futures]
    problems = [f"{command}: {p}" for command, outcome in results for p in outcome.problems]
    assert not problems, f"{target.name} as {kind}:\n" + "\n".join(problems)


@pytest.mark.parametrize(("folder", "command", "status"), [
    ("players", "roll", 2), ("open-sessions", "sim", 0), ("open-sessions", "roll", 2),
    ("open-sessions", "session-open", 2)])
def test_a_symlinked_folder_of_the_state_dir_is_never_written_through(template, tmp_path, folder, command,
                                                                      status) -> None:
    """``ln -s ../V S/players`` made a roll write ``V/1.json``; open sessions (their seeds) must
    not land elsewhere either, whoever opens them."""
    paths = prepare(template, tmp_path, None, command)
    shutil.rmtree(paths.state / folder)
    victim = tmp_path / "victim"
    victim.mkdir()
    (paths.state / folder).symlink_to(victim)
    outcome = run_case(command, paths)
    check_after(outcome, paths, {status})
    assert not outcome.problems, outcome.problems
    assert list(victim.iterdir()) == []
    assert any(f"{folder} is a symbolic link" in line for line in outcome.err), outcome.err


# --- streams -----------------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["closed", "full"])
@pytest.mark.parametrize("command", PRINTING)
def test_stdout_that_cannot_be_written_is_exit_5_and_nothing_is_lost(template, tmp_path, command, how) -> None:
    if how == "full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    paths = prepare(template, tmp_path, None, command)
    before = (paths.state / "rolls.jsonl").read_bytes().count(b"\n")
    if how == "closed":
        outcome = run_case(command, paths, wrap=planted.closed_stdout())
    else:
        with open("/dev/full", "wb") as full:
            outcome = run_case(command, paths, stdout=full.fileno())
    check_after(outcome, paths, {5})
    assert not outcome.problems, outcome.problems
    assert outcome.line == ("dicetower: cannot write the output: "
                            + ("standard output is closed" if how == "closed" else "No space left on device"))
    if command.startswith("roll") and command != "roll-nolog":
        # the roll was logged first: it is in the log (nothing lost) though it could not be shown
        entries = [line for line in (paths.state / "rolls.jsonl").read_bytes().splitlines()[before:]]
        assert any(b'"kind":"roll"' in line for line in entries)


# --- a read-only card --------------------------------------------------------------------------

@pytest.mark.parametrize("command", sorted(READ_ONLY))
def test_a_read_only_state_dir(template, tmp_path, command) -> None:
    """A card mounted read-only: what writes says "cannot record" (exit 4), what reads works,
    and ``session show`` shows (it never writes)."""
    paths = prepare(template, tmp_path, None, command)
    wrap = planted.read_only(paths.state)
    if wrap is None:
        pytest.skip("no private mount namespace here (unshare -rm)")
    before = sorted(os.listdir(paths.state))
    outcome = run_case(command, paths, wrap=wrap)
    check_after(outcome, paths, READ_ONLY[command])
    assert not outcome.problems, outcome.problems
    assert sorted(os.listdir(paths.state)) == before


def test_session_show_creates_nothing(tmp_path) -> None:
    missing = tmp_path / "not-yet"
    done = planted.cli(["session", "show", str(missing)])
    assert done.returncode == 1 and not missing.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    done = planted.cli(["session", "show", str(empty)])
    assert done.returncode == 1 and list(empty.iterdir()) == []


def test_the_rig_plants_what_it_says(tmp_path) -> None:
    """The planted kinds are what their names say (a check of the rig itself)."""
    paths = Paths(tmp_path)
    paths.elsewhere.mkdir()
    made = {}
    for kind in planted.KINDS:
        where = tmp_path / f"x-{kind}.json"
        planted.KINDS[kind](where, paths.elsewhere)
        made[kind] = where
    assert Path(made["fifo"]).is_fifo()
    assert os.readlink(made["zero"]) == "/dev/zero"
    assert Path(made["dirlink"]).is_symlink() and Path(made["dirlink"]).is_dir()
    assert made["huge"].stat().st_size == planted.HUGE_BYTES and made["huge"].stat().st_blocks < 64
    assert made["deep"].read_text().count("[") == planted.DEEP
    assert made["dir"].is_dir() and made["file"].is_file()
