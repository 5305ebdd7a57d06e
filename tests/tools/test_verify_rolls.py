"""tools/verify_rolls.py, the outsider's verifier: standard library only, no project imports,
and it agrees with `dicetower replay` on honest logs (accepted, with the same counts) and on
every case of the forgery corpus in tests/hardware/forgeries.py (rejected, naming the problem)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from hardware.entropy.replay import replay_log
from tests.hardware import forgeries
from tests.hardware.test_replay_forgeries import cases, honest, logged, quiet  # noqa: F401  # the corpus fixtures

TOOL = Path(__file__).resolve().parents[2] / "tools" / "verify_rolls.py"


def verify(log: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, str(TOOL), str(log), *args], capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout


def test_the_tool_uses_the_standard_library_only() -> None:
    tree = ast.parse(TOOL.read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


#: One setting per system, rolled 15 times each into the every_system log (a new system adds
#: its line: tests/test_system_contract.py holds every system to it).
ONE_OF_EACH = {
    "infinity": ["--rating", "8", "--cr", "difficult"],
    "horizons": ["--pool", "6", "--opponent-pool", "3"],
    "d6cv": ["--stat", "3", "--cv", "7", "--contest", "targeted"],
    "immortal": ["--attribute", "5", "--tn", "15", "--hostile", "12"],
    "fingers": ["--choices", "5", "--winners", "2", "--guess", "1"],
}


@pytest.fixture(scope="module")
def every_system(tmp_path_factory) -> Path:
    """One session, opened first, seeded by the table, rolled in by every system, closed."""
    state = tmp_path_factory.mktemp("systems")
    assert quiet("session", "open", str(state)) == 0
    assert quiet("session", "seed", str(state), "Blue Dragon 7") == 0  # a code of words, spaces inside
    for system, argv in ONE_OF_EACH.items():
        assert quiet("roll", system, *argv, "--times", "15", "--state-dir", str(state)) == 0
    assert quiet("session", "close", str(state)) == 0
    return state


def test_honest_logs_are_accepted_by_both_with_the_same_counts(honest, every_system, tmp_path) -> None:  # noqa: F811
    paths = [logged(tmp_path / f"{n}.jsonl", honest.log(n)) for n in ("table", "two", "seeded", "entered")]
    for path in (*paths, every_system / "rolls.jsonl"):
        code, out = verify(path, "--all-revealed")
        report = replay_log(path)
        assert code == 0 and report.ok, out
        assert (f"verified {report.rolls_verified} rolled, {report.rolls_entered} entered (not checkable), "
                f"{report.rolls_test} test") in out
    assert "verified 75 rolled" in verify(every_system / "rolls.jsonl")[1]
    assert verify(paths[0], *honest.table_args())[0] == 0
    panel = logged(tmp_path / "panel.jsonl", honest.panel)
    noted = (a for n in honest.panel_noted.values() for a in ("--expect", n))
    assert verify(panel, *noted, "--table-seed", forgeries.PANEL_CODE, "--count", "12")[0] == 0
    every = (a for n in (honest.panel_noted["panel commitment"], *honest.panel_shown) for a in ("--expect", n))
    code, out = verify(panel, *every, "--table-seed", forgeries.PANEL_CODE)
    assert code == 0 and f'roll #12 {honest.panel_shown[-1].split(":")[1]}: "d6cv ' in out, out
    code, out = verify(panel, *(a for n in honest.panel_noted.values() for a in ("--expect", n)),
                       "--table-seed", forgeries.PANEL_CODE)  # two results noted, none counted
    assert code == 1 and "unseen-roll: roll(s) #1..#" in out, out
    code, out = verify(paths[3])
    assert code == 0 and "1 session(s) without a table seed (the owner could have chosen their seed)" in out


def first_problem(out: str) -> tuple[int, str]:
    """The first problem line verify_rolls.py printed: its entry (0: the log) and its code."""
    line = next(x for x in out.splitlines() if x.startswith(("entry ", "log: ")))
    where, code = line.split(": ")[:2]
    return (0 if where == "log" else int(where.split()[1])), code


@pytest.mark.parametrize("name", forgeries.NAMES)
def test_every_forgery_is_rejected_by_both_with_the_same_first_problem(cases, tmp_path, name) -> None:  # noqa: F811
    case = cases[name]
    path = logged(tmp_path / "rolls.jsonl", case.entries)
    code, out = verify(path, "--all-revealed", *case.args())
    report = replay_log(path, notes=case.notes())
    if case.rules_only:  # it takes the rules' odds: replay and the board catch it, the dice-only tool cannot
        assert code == 0 and report.problems[0].code == case.code, out
        return
    assert code == 1 and "problem(s)" in out, out
    first = report.problems[0]
    assert first_problem(out) == (first.line_no, first.code) and first.code == case.code, out
    assert {c for c in case.codes} <= {x.split(": ")[1] for x in out.splitlines() if x.startswith(("entry", "log:"))}


def test_what_the_players_noted_is_checked(honest, tmp_path) -> None:  # noqa: F811
    path = logged(tmp_path / "rolls.jsonl", honest.table)
    code, out = verify(path, "--expect", "0000000000000000")
    assert code == 1 and "log: not-in-log: the noted value 0000000000000000 is in no session" in out
    code, out = verify(path, "--table-seed", "999999")
    assert code == 1 and "log: table-seed-not-found:" in out
    code, out = verify(path, "--expect", honest.noted["commitment"], "--table-seed", "999999")
    assert code == 1 and "unnoted-table-seed: session" in out and "'417302' is not one you set" in out
    middle = honest.noted["middle roll"]
    number, digits = middle.split(":")
    code, out = verify(path, *honest.table_args()[:-2 * len(forgeries.MIXES)])  # the mixes not named
    assert code == 1 and "mix-not-named" in out
    code, out = verify(path, "--expect", f"{int(number) + 1}:{digits}")  # another roll's number
    assert code == 1 and f"roll-number: the noted result roll #{int(number) + 1} {digits} is roll #{number}" in out
    for short in ("abc", "a1b2c3d4", "0:" + digits):  # 8 digits are 2^32 work to forge: refused
        done = subprocess.run([sys.executable, str(TOOL), str(path), "--expect", short], capture_output=True,
                              text=True)
        assert done.returncode == 2 and "16 to 64 hex digits" in done.stderr


def test_a_rotated_log_checks_as_one(honest, tmp_path) -> None:  # noqa: F811
    """Step 5: the tower renames a full rolls.jsonl to rolls.1.jsonl and goes on in a new one;
    naming rolls.jsonl checks the whole chain."""
    entries = forgeries.rehash(honest.two)
    cut = next(i for i, e in enumerate(entries) if e["kind"] == "session" and i > 0)
    logged(tmp_path / "rolls.1.jsonl", entries[:cut])
    path = logged(tmp_path / "rolls.jsonl", entries[cut:])
    code, out = verify(path, "--all-revealed")
    assert code == 0 and "reading 2 files as one log: rolls.1.jsonl, rolls.jsonl" in out, out
    assert replay_log(path).ok


def test_an_open_session_is_reported_not_failed(tmp_path) -> None:
    assert quiet("session", "open", str(tmp_path)) == 0
    assert quiet("roll", "d6cv", "--stat", "3", "--cv", "7", "--state-dir", str(tmp_path)) == 0
    code, out = verify(tmp_path / "rolls.jsonl")
    assert code == 0 and "1 in 1 open session(s)" in out
    code, out = verify(tmp_path / "rolls.jsonl", "--all-revealed")
    assert code == 1 and "is still open" in out


def test_a_missing_file_is_one_line_and_exit_2(tmp_path) -> None:
    done = subprocess.run([sys.executable, str(TOOL), str(tmp_path / "none.jsonl")], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("verify_rolls: cannot read")


def test_an_old_stream_2_log_is_accepted_and_listed_apart() -> None:
    old = sorted((Path(__file__).resolve().parents[1] / "hardware" / "data" / "old_logs").glob("*.jsonl"))
    for path in old:
        code, out = verify(path, "--all-revealed")
        assert code == 0 and "all good" in out and "without a table seed" in out, out


@pytest.mark.parametrize("plant", ["fifo", "zero", "link", "dir", "device"])
def test_a_fifo_a_link_or_a_device_as_the_log_is_refused_in_one_line(tmp_path, every_system, plant) -> None:
    """The tool opens the log by the one rule on its own (no link followed, no FIFO waited on,
    a regular file only): a FIFO does not hang it, /dev/zero is not read for ever."""
    import os

    where = tmp_path / "rolls.jsonl"
    if plant == "fifo":
        os.mkfifo(where)
    elif plant == "zero":
        where.symlink_to("/dev/zero")
    elif plant == "link":
        where.symlink_to(every_system / "rolls.jsonl")
    elif plant == "dir":
        where.mkdir()
    else:
        where = Path("/dev/zero")
    done = subprocess.run([sys.executable, str(TOOL), str(where)], capture_output=True, text=True, timeout=60)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and done.stdout == "" and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"verify_rolls: cannot read {where}: it is "), lines
