"""tools/verify_rolls.py, the outsider's verifier: standard library only, no project imports,
and it agrees with `dicetower replay` on genuine logs (accepted) and on every forgery in
tests/hardware/forgeries.py (rejected)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hardware.entropy.replay import replay_log
from tests.hardware import forgeries
from tests.hardware.test_replay_forgeries import genuine, quiet  # noqa: F401  # the genuine-log fixture

TOOL = Path(__file__).resolve().parents[2] / "tools" / "verify_rolls.py"


def verify(log: Path) -> tuple[int, str]:
    done = subprocess.run([sys.executable, str(TOOL), str(log)], capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout


def test_the_tool_uses_the_standard_library_only() -> None:
    tree = ast.parse(TOOL.read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


@pytest.fixture(scope="module")
def every_system(tmp_path_factory) -> Path:
    """One session, opened first, rolled in by every system, closed."""
    state = tmp_path_factory.mktemp("systems")
    assert quiet("session", "open", str(state)) == 0
    for argv in (["infinity", "--rating", "8", "--cr", "difficult"],
                 ["horizons", "--pool", "6", "--opponent-pool", "3"],
                 ["d6cv", "--stat", "3", "--cv", "7", "--contest", "targeted"],
                 ["immortal", "--attribute", "5", "--tn", "15", "--hostile", "12"],
                 ["fingers", "--choices", "5", "--winners", "2", "--guess", "1"]):
        assert quiet("roll", *argv, "--times", "15", "--state-dir", str(state)) == 0
    assert quiet("session", "close", str(state)) == 0
    return state


def test_genuine_logs_are_accepted_by_both_with_the_same_counts(genuine, every_system) -> None:  # noqa: F811
    for state in (*genuine.values(), every_system):
        code, out = verify(state / "rolls.jsonl")
        report = replay_log(state / "rolls.jsonl")
        assert code == 0 and report.ok, out
        assert (f"verified {report.rolls_verified} rolled, {report.rolls_entered} entered (not checkable), "
                f"{report.rolls_test} test") in out
    assert "verified 75 rolled" in verify(every_system / "rolls.jsonl")[1]


@pytest.mark.parametrize("name", list(forgeries.FORGERIES))
def test_every_forgery_is_rejected_by_both(genuine, tmp_path, name) -> None:  # noqa: F811
    source, forge = forgeries.FORGERIES[name]
    state = tmp_path / "forged"
    shutil.copytree(genuine[source], state)
    forgeries.write(state / "rolls.jsonl", forge(forgeries.read(state / "rolls.jsonl")))
    code, out = verify(state / "rolls.jsonl")
    assert code == 1 and "problem(s)" in out, out
    assert not replay_log(state / "rolls.jsonl").ok


def test_an_open_session_is_reported_not_failed(tmp_path) -> None:
    assert quiet("session", "open", str(tmp_path)) == 0
    assert quiet("roll", "d6cv", "--stat", "3", "--cv", "7", "--state-dir", str(tmp_path)) == 0
    code, out = verify(tmp_path / "rolls.jsonl")
    assert code == 0 and "1 in 1 open session(s)" in out


def test_a_missing_file_is_one_line_and_exit_2(tmp_path) -> None:
    done = subprocess.run([sys.executable, str(TOOL), str(tmp_path / "none.jsonl")], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("verify_rolls: cannot read")
