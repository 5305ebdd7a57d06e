"""Forgeries that keep a valid hash chain: grinding, a dropped roll with the count fixed, an
edited result, relabelled kinds. `log verify` cannot see them; `dicetower replay` must."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest

from hardware.cli import main
from hardware.entropy.replay import replay_log
from hardware.rolllog import verify
from tests.hardware import forgeries

D6CV_HARD = ["roll", "d6cv", "--stat", "2", "--cv", "10", "--json"]


def quiet(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(argv))


@pytest.fixture(scope="module")
def genuine(tmp_path_factory) -> dict[str, Path]:
    """Genuine state dirs: random rolls, a --seed test session, typed-in winners."""
    base = tmp_path_factory.mktemp("genuine")
    dirs = {name: base / name for name in ("random", "seeded", "entered")}
    assert quiet(*D6CV_HARD, "--times", "30", "--state-dir", str(dirs["random"])) == 0
    assert quiet(*D6CV_HARD, "--times", "5", "--seed", "table", "--state-dir", str(dirs["seeded"])) == 0
    for _ in range(5):  # five typed-in "failures" that raise karma, as in the issue
        assert quiet("roll", "fingers", "--choices", "5", "--winners", "1", "--guess", "3", "--winners-set", "4",
                     "--state-dir", str(dirs["entered"]), "--player", "1", "--json") == 0
    assert quiet(*D6CV_HARD, "--state-dir", str(dirs["entered"])) == 0
    return dirs


def test_genuine_logs_replay_and_count_each_kind(genuine) -> None:
    random, seeded, entered = (replay_log(genuine[k] / "rolls.jsonl") for k in ("random", "seeded", "entered"))
    assert random.ok and (random.rolls_verified, random.rolls_test, random.rolls_entered) == (30, 0, 0)
    assert seeded.ok and (seeded.rolls_verified, seeded.rolls_test) == (0, 5)
    assert entered.ok and (entered.rolls_verified, entered.rolls_entered) == (1, 5)


def test_forced_rolls_are_never_counted_as_verified(genuine, capsys) -> None:
    assert main(["replay", str(genuine["entered"])]) == 0
    out = capsys.readouterr().out
    assert "verified: 1 roll(s)" in out and "entered:  5 roll(s) typed in" in out


@pytest.mark.parametrize("name", list(forgeries.FORGERIES))
def test_every_forgery_keeps_the_chain_but_fails_replay(genuine, tmp_path, name) -> None:
    source, forge = forgeries.FORGERIES[name]
    state = tmp_path / "forged"
    shutil.copytree(genuine[source], state)
    original = forgeries.read(state / "rolls.jsonl")
    forged = forge(original)
    assert forged != original
    forgeries.write(state / "rolls.jsonl", forged)
    assert verify(state / "rolls.jsonl").ok  # the chain is whole: only the replay can tell
    report = replay_log(state / "rolls.jsonl")
    assert not report.ok, name
    assert all(p.line_no >= 1 for p in report.problems)


def test_grinding_is_named_at_the_first_ground_roll(genuine, tmp_path) -> None:
    state = tmp_path / "forged"
    shutil.copytree(genuine["random"], state)
    entries = forgeries.read(state / "rolls.jsonl")
    forged = forgeries.grind_with_true_offsets(entries)
    forgeries.write(state / "rolls.jsonl", forged)
    first = next(i for i, (a, b) in enumerate(zip(entries, forged, strict=True)) if a.get("start") != b.get("start"))
    report = replay_log(state / "rolls.jsonl")
    assert report.problems[0].line_no == first + 1
    assert "continuity: roll starts at generate call" in report.problems[0].message
    assert report.rolls_verified < 30


def test_a_dropped_middle_roll_is_named(genuine, tmp_path) -> None:
    state = tmp_path / "forged"
    shutil.copytree(genuine["random"], state)
    forgeries.write(state / "rolls.jsonl", forgeries.drop_middle_roll_fix_count(forgeries.read(state / "rolls.jsonl")))
    (problem,) = replay_log(state / "rolls.jsonl").problems
    assert "calls skipped: a dropped, moved or re-drawn roll" in problem.message


def test_a_roll_after_the_reveal_or_of_an_unknown_session_is_a_problem(genuine, tmp_path) -> None:
    state = tmp_path / "forged"
    shutil.copytree(genuine["random"], state)
    entries = forgeries.read(state / "rolls.jsonl")
    late = dict(next(e for e in entries if e["kind"] == "roll"))
    stray = {**late, "session": "0123456789abcdef"}
    forgeries.write(state / "rolls.jsonl", [*entries, late, stray])
    messages = [p.message for p in replay_log(state / "rolls.jsonl").problems]
    assert any("after that session was revealed" in m for m in messages)
    assert any("never started" in m for m in messages)
