"""The forgery corpus (tests/hardware/forgeries.py) through ``dicetower replay``: every forged
log keeps a valid hash chain, so ``log verify`` cannot see it, and replay names the problem;
the honest logs it is built from pass with what the players noted."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from hardware.cli import main
from hardware.entropy.replay import replay_log
from hardware.files.rolllog import verify
from tests.hardware import forgeries


def quiet(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(argv))


@pytest.fixture
def honest(forgery_honest) -> forgeries.Honest:
    return forgery_honest


@pytest.fixture
def cases(forgery_cases) -> dict[str, forgeries.Case]:
    return forgery_cases


def logged(path: Path, entries) -> Path:
    path.write_text("".join(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n" for e in entries))
    return path


def test_the_honest_logs_pass_both_with_and_without_what_the_players_noted(honest, tmp_path) -> None:
    two_noted = [a for e in honest.two if e["kind"] == "session" for a in ("--expect", e["commitment"][:16])]
    for name, entries, extra in (
            ("table", honest.table, honest.table_args()),
            ("two", honest.two, [*two_noted, "--table-seed", forgeries.TABLE_SEED, "--table-seed",
                                 forgeries.TABLE_SEED_2, "--count", "60",
                                 *(a for m in forgeries.MIXES * 2 for a in ("--allow-mix", m))]),  # 5 mixes a night
            ("panel", honest.panel, [*(a for n in (honest.panel_noted["panel commitment"], *honest.panel_shown)
                                       for a in ("--expect", n)), "--table-seed", forgeries.PANEL_CODE]),
            ("panel counted", honest.panel, [*(a for n in honest.panel_noted.values() for a in ("--expect", n)),
                                             "--table-seed", forgeries.PANEL_CODE, "--count", "12"]),
            ("seeded", honest.seeded, []), ("entered", honest.entered, [])):
        path = logged(tmp_path / f"{name}.jsonl", entries)
        assert quiet("replay", str(path), "--all-revealed", *extra) == 0, name
        assert quiet("replay", str(path), "--all-revealed") == 0, name
    report = replay_log(tmp_path / "table.jsonl")
    assert (report.rolls_verified, report.rolls_mixed, report.without_table_seed) == (30, 5, ())
    assert report.flags == ()  # typed mixes are counted, not flagged: the players name them
    seeded, entered = replay_log(tmp_path / "seeded.jsonl"), replay_log(tmp_path / "entered.jsonl")
    assert (seeded.rolls_verified, seeded.rolls_test) == (0, 5)
    assert (entered.rolls_verified, entered.rolls_entered) == (1, 5)
    assert [o.session for o in entered.without_table_seed] == [entered.to_dict()["without_table_seed"][0]["session"]]


def test_the_reveal_card_is_what_replay_prints(honest, tmp_path, capsys) -> None:
    """A player compares the reveal screen with replay's lines: the same commitment, code,
    count and head (issue 26: the head replay printed was not the one the screen showed)."""
    path = logged(tmp_path / "rolls.jsonl", honest.table)
    assert main(["replay", str(path), *honest.table_args()]) == 0
    out = capsys.readouterr().out
    reveal = honest.table[-1]
    assert f"commitment {honest.table[0]['commitment']}" in out
    assert f"table seed {forgeries.TABLE_SEED}, rolls 30, head {reveal['hash']}" in out


@pytest.mark.parametrize("name", forgeries.NAMES)
def test_every_forgery_keeps_the_chain_but_fails_replay(cases, honest, tmp_path, capsys, name) -> None:
    case = cases[name]
    path = logged(tmp_path / "rolls.jsonl", case.entries)
    assert verify(path).ok  # the chain is whole: only the replay can tell
    report = replay_log(path, notes=case.notes())
    codes = [p.code for p in report.problems]
    assert codes and codes[0] == case.code and set(case.codes) <= set(codes), [str(p) for p in report.problems]
    assert main(["replay", str(path), "--all-revealed", *case.args()]) == 1
    assert f": {case.code}: " in capsys.readouterr().err
    if case.honest_notes:  # what the players noted is true of the honest log too: no false alarm
        honest_path = logged(tmp_path / "honest.jsonl", honest.log(case.source))
        assert quiet("replay", str(honest_path), "--all-revealed", *case.args()) == 0


def test_grinding_is_named_at_the_first_ground_roll(honest, tmp_path) -> None:
    forged = forgeries.rehash(forgeries.grind_offsets(honest.table, claim_continuity=False))
    first = next(i for i, (a, b) in enumerate(zip(honest.table, forged, strict=True))
                 if a.get("start") != b.get("start"))
    report = replay_log(logged(tmp_path / "rolls.jsonl", forged))
    assert report.problems[0].line_no == first + 1 and report.problems[0].code == "continuity"
    assert "roll starts at generate call" in report.problems[0].message
    assert report.rolls_verified < 30


def test_hidden_sessions_are_named_at_the_second_session(honest, tmp_path) -> None:
    forged = forgeries.rehash(forgeries.hidden_sessions(honest.table))
    report = replay_log(logged(tmp_path / "rolls.jsonl", forged))
    first = report.problems[0]
    assert first.line_no == 2 and "opened while session" in first.message and "one session at a time" in first.message
    assert any("which is not the open session" in p.message for p in report.problems)


def test_a_roll_of_an_unknown_session_is_a_problem(honest, tmp_path) -> None:
    stray = {**next(e for e in honest.table if e["kind"] == "roll"), "session": "0123456789abcdef"}
    report = replay_log(logged(tmp_path / "rolls.jsonl", forgeries.rehash([*honest.table, stray])))
    assert any("never started" in p.message for p in report.problems)
