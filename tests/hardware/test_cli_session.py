"""`dicetower session open|show|close`: one commitment, published first, binding the rolls of
many later commands (real processes), revealed at the end, replayable."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from hardware.cli import main
from hardware.entropy import session_file
from hardware.entropy.replay import replay_log

D6CV = ["roll", "d6cv", "--stat", "3", "--cv", "7"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def entries(state) -> list[dict]:
    return [json.loads(line) for line in (state / "rolls.jsonl").read_text().splitlines()]


def test_open_prints_the_commitment_and_its_qr_code_and_logs_it_before_any_roll(tmp_path, capsys) -> None:
    code, out, err = run(capsys, "session", "open", str(tmp_path))
    assert code == 0, err
    (session,) = entries(tmp_path)
    assert session["kind"] == "session"
    assert f"commitment {session['commitment']}\n" in out
    assert "▄▄▄▄▄" in out  # the QR code's finder patterns, in half blocks
    mode = stat.S_IMODE(os.stat(tmp_path / session_file.SESSION_FILE).st_mode)
    assert mode == 0o600  # the file holds the seed
    code, out, _ = run(capsys, "session", "show", str(tmp_path), "--json")
    shown = json.loads(out)
    assert code == 0 and shown["commitment"] == session["commitment"] and shown["rolls"] == 0
    assert "seed" not in out and "drbg" not in out  # show never gives the secret away


def test_a_session_opened_by_one_process_and_rolled_in_by_three_others_replays(tmp_path) -> None:
    cli = [sys.executable, "-m", "hardware"]
    opened = subprocess.run([*cli, "session", "open", str(tmp_path), "--json"], capture_output=True, text=True,
                            check=True)
    commitment = json.loads(opened.stdout)["commitment"]
    rollers = [subprocess.Popen([*cli, *D6CV, "--times", "4", "--mix", f"player {i}", "--state-dir", str(tmp_path),
                                 "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for i in range(3)]
    for p in rollers:  # all three at once: the state dir's lock keeps them in line
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert all(json.loads(line)["verifiable"] is True for line in out.splitlines())
        assert "no session open" not in err
    shown = subprocess.run([*cli, "session", "show", str(tmp_path), "--json"], capture_output=True, text=True,
                           check=True)
    assert json.loads(shown.stdout)["rolls"] == 12
    subprocess.run([*cli, "session", "close", str(tmp_path)], capture_output=True, check=True)
    log = entries(tmp_path)
    assert [e["kind"] for e in log].count("session") == 1
    assert log[0]["commitment"] == commitment
    rolls = [e for e in log if e["kind"] == "roll"]
    assert [r["start"] for r in rolls] == [0, *[r["end"] for r in rolls[:-1]]]  # each where the last ended
    assert log[-1]["kind"] == "reveal" and log[-1]["rolls"] == 12 and log[-1]["end"] == rolls[-1]["end"]
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok and report.rolls_verified == 12 and not report.open_sessions
    assert not (tmp_path / session_file.SESSION_FILE).exists()


def test_rolls_in_an_open_session_stay_open_and_replay_says_so(tmp_path, capsys) -> None:
    run(capsys, "session", "open", str(tmp_path))
    code, _, err = run(capsys, *D6CV, "--state-dir", str(tmp_path))
    assert code == 0 and "note" not in err
    code, out, _ = run(capsys, "replay", str(tmp_path))
    assert code == 0 and "open:     1 roll(s) in sessions not revealed yet" in out
    code, _, err = run(capsys, "replay", str(tmp_path), "--all-revealed")
    assert code == 1 and "is still open (1 roll(s) unchecked)" in err
    code, out, _ = run(capsys, "session", "close", str(tmp_path))
    assert code == 0 and "revealed after 1 roll(s)" in out
    code, out, _ = run(capsys, "replay", str(tmp_path), "--all-revealed")
    assert code == 0 and "verified: 1 roll(s)" in out


def test_a_seeded_test_roll_does_not_touch_the_open_session(tmp_path, capsys) -> None:
    run(capsys, "session", "open", str(tmp_path))
    before = session_file.load(tmp_path)
    assert run(capsys, *D6CV, "--seed", "x", "--state-dir", str(tmp_path))[0] == 0
    assert session_file.load(tmp_path) == before
    run(capsys, "session", "close", str(tmp_path))
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok and (report.rolls_test, report.rolls_verified) == (1, 0)


def test_a_roll_without_an_open_session_says_its_commitment_came_too_late(tmp_path, capsys) -> None:
    code, _, err = run(capsys, *D6CV, "--state-dir", str(tmp_path))
    assert code == 0 and "no session open in" in err and "dicetower session open DIR" in err
    assert replay_log(tmp_path / "rolls.jsonl").rolls_verified == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["session", "open", "{d}"], "a session is already open in"),
    ([*D6CV, "--entropy", "kernel", "--state-dir", "{d}"], "--entropy: "),
    (["session", "open", "{d}", "--seed", "1"], "--seed: "),
])
def test_conflicts_with_an_open_session_exit_2_in_one_line(tmp_path, capsys, argv, message) -> None:
    run(capsys, "session", "open", str(tmp_path))
    code, out, err = run(capsys, *[a.format(d=tmp_path) for a in argv])
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_show_and_close_without_a_session_exit_1(tmp_path, capsys) -> None:
    for action in ("show", "close"):
        code, out, err = run(capsys, "session", action, str(tmp_path))
        assert code == 1 and out == "" and err.startswith("dicetower: no session open in")


def test_a_damaged_session_file_is_named_not_a_traceback(tmp_path, capsys) -> None:
    (tmp_path / session_file.SESSION_FILE).write_text("{not json")
    code, _, err = run(capsys, *D6CV, "--state-dir", str(tmp_path))
    assert code == 2 and "session.json is damaged" in err and "Traceback" not in err


def test_an_open_session_that_reaches_its_roll_limit_is_revealed_and_the_next_one_kept(tmp_path, capsys,
                                                                                      monkeypatch) -> None:
    import functools

    from hardware.cli import dice_source
    from hardware.entropy import open_dice

    monkeypatch.setattr(dice_source, "open_dice", functools.partial(open_dice, session_rolls=3))
    run(capsys, "session", "open", str(tmp_path))
    first = session_file.load(tmp_path)
    code, _, err = run(capsys, *D6CV, "--times", "7", "--state-dir", str(tmp_path))
    assert code == 0 and err.count("reached its roll limit and was revealed") == 2
    kept = session_file.load(tmp_path)
    assert kept.id != first.id and kept.rolls == 1
    assert f"commitment {kept.commitment}" in err
    run(capsys, "session", "close", str(tmp_path))
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok and report.sessions == 3 and report.rolls_verified == 7 and not report.open_sessions


def test_a_command_stopped_before_it_saved_the_session_does_not_roll_it_on(tmp_path, capsys) -> None:
    """A roll command killed between its log entry and saving session.json leaves the file a
    roll behind the log: the next command reveals that session with the rolls the log has (no
    roll drawn twice) and rolls in a session of its own; the log replays."""
    assert run(capsys, "session", "open", str(tmp_path))[0] == 0
    assert run(capsys, *D6CV, "--state-dir", str(tmp_path))[0] == 0
    behind = (tmp_path / session_file.SESSION_FILE).read_bytes()
    assert run(capsys, *D6CV, "--state-dir", str(tmp_path))[0] == 0
    (tmp_path / session_file.SESSION_FILE).write_bytes(behind)  # as if the save never happened
    code, _, err = run(capsys, *D6CV, "--state-dir", str(tmp_path))
    assert code == 0, err
    assert "was behind the roll log" in err and "revealed and closed" in err
    assert not (tmp_path / session_file.SESSION_FILE).exists()
    first = entries(tmp_path)[0]["session"]
    reveal = next(e for e in entries(tmp_path) if e["kind"] == "reveal")
    assert (reveal["session"], reveal["rolls"], reveal["reason"]) == (first, 2, "restart")
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok, [str(p) for p in report.problems]
    assert report.rolls_checked == 3


def test_a_session_closed_before_its_file_went_is_not_rolled_in(tmp_path, capsys) -> None:
    assert run(capsys, "session", "open", str(tmp_path))[0] == 0
    assert run(capsys, *D6CV, "--state-dir", str(tmp_path))[0] == 0
    kept = (tmp_path / session_file.SESSION_FILE).read_bytes()
    assert run(capsys, "session", "close", str(tmp_path))[0] == 0
    (tmp_path / session_file.SESSION_FILE).write_bytes(kept)  # the removal never happened
    code, _, err = run(capsys, *D6CV, "--state-dir", str(tmp_path))
    assert code == 0 and "was behind the roll log" in err
    assert [e["kind"] for e in entries(tmp_path)].count("reveal") == 2  # closed once, own session once
    assert replay_log(tmp_path / "rolls.jsonl").ok


def test_a_logged_seed_run_longer_than_a_session_replays(tmp_path, capsys) -> None:
    """--seed sessions rotate after 1000 rolls like any session (to seed S#1), so a long test
    run replays session by session instead of overflowing what a replay holds."""
    code, _, err = run(capsys, *D6CV, "--seed", "long", "--times", "1001", "--summary", "--state-dir", str(tmp_path))
    assert code == 0, err
    logged = entries(tmp_path)
    assert [e["kind"] for e in logged].count("session") == 2
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok, [str(p) for p in report.problems]
    assert report.rolls_test == 1001 and report.rolls_checked == 0
