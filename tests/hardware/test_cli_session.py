"""`dicetower session open|seed|show|close`: one commitment, published first, a table seed
the players choose, binding the rolls of many later commands (real processes), revealed at the
end with what to note, replayable."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hardware.cli import main
from hardware.entropy.replay import replay_log
from hardware.session import file as session_file
from hardware.session.open_sessions import OPEN_SESSIONS_DIR

D6CV = ["roll", "d6cv", "--stat", "3", "--cv", "7"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def entries(state) -> list[dict]:
    return [json.loads(line) for line in (state / "rolls.jsonl").read_text().splitlines()]


def kept(state: Path) -> list[Path]:
    folder = state / OPEN_SESSIONS_DIR
    return sorted(folder.glob("*.json")) if folder.exists() else []


def the_kept(state: Path) -> session_file.StoredSession:
    (path,) = kept(state)
    stored = session_file.load_file(path)
    assert stored is not None
    return stored


def test_open_prints_the_commitment_and_its_qr_code_and_logs_it_before_any_roll(tmp_path, capsys) -> None:
    code, out, err = run(capsys, "session", "open", str(tmp_path))
    assert code == 0, err
    (session,) = entries(tmp_path)
    assert session["kind"] == "session"
    assert f"commitment {session['commitment']}\n" in out
    assert "▄▄▄▄▄" in out  # the QR code's finder patterns, in half blocks
    (path,) = kept(tmp_path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # the file holds the seed
    assert path.stem == session["session"] and the_kept(tmp_path).owner.kind == "open"
    code, out, _ = run(capsys, "session", "show", str(tmp_path), "--json")
    shown = json.loads(out)
    assert code == 0 and shown["commitment"] == session["commitment"] and shown["rolls"] == 0
    assert '"seed"' not in out and "drbg" not in out  # show never gives the secret away


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
    assert kept(tmp_path) == []


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


def test_a_seeded_test_roll_is_refused_beside_an_open_session(tmp_path, capsys) -> None:
    """One session at a time: a --seed test session cannot open beside the open one."""
    run(capsys, "session", "open", str(tmp_path))
    before = kept(tmp_path)[0].read_bytes()
    code, out, err = run(capsys, *D6CV, "--seed", "x", "--state-dir", str(tmp_path))
    assert code == 2 and out == "" and "one session at a time" in err and len(err.strip().splitlines()) == 1
    assert kept(tmp_path)[0].read_bytes() == before and [e["kind"] for e in entries(tmp_path)] == ["session"]
    run(capsys, "session", "close", str(tmp_path))
    assert run(capsys, *D6CV, "--seed", "x", "--state-dir", str(tmp_path))[0] == 0  # none open: fine
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


def test_a_damaged_kept_file_is_named_and_the_roll_goes_on_in_a_session_of_its_own(tmp_path, capsys) -> None:
    (tmp_path / OPEN_SESSIONS_DIR).mkdir()
    (tmp_path / OPEN_SESSIONS_DIR / "0123456789abcdef.json").write_text("{not json")
    code, _, err = run(capsys, *D6CV, "--state-dir", str(tmp_path))
    assert code == 0 and "0123456789abcdef.json is damaged" in err and "Traceback" not in err


def as_the_last_release_left_it(state: Path, capsys) -> str:
    """A session opened and rolled in twice, kept in session.json as the last release kept it
    (version 1: its cache has no log position); returns its commitment."""
    run(capsys, "session", "open", str(state))
    assert run(capsys, *D6CV, "--times", "2", "--state-dir", str(state))[0] == 0
    (path,) = kept(state)
    data = json.loads(path.read_text())
    old = {k: data[k] for k in ("commitment", "seed", "drbg", "rolls", "opened_ns", "block_bytes", "mode", "sources",
                                "credited_bits")}
    (state / session_file.SESSION_FILE).write_text(json.dumps({**old, "version": 1, "rolls": 0}))
    path.unlink()
    return str(data["commitment"])


def test_an_earlier_versions_session_json_is_rolled_in_and_closed(tmp_path, capsys) -> None:
    """A session.json left by the last release (version 1: its cache has no log position) is
    moved in with the others and its position rebuilt from the log."""
    as_the_last_release_left_it(tmp_path, capsys)
    assert run(capsys, *D6CV, "--state-dir", str(tmp_path))[0] == 0
    code, out, _ = run(capsys, "session", "close", str(tmp_path))
    assert code == 0 and "revealed after 3 roll(s)" in out and not (tmp_path / session_file.SESSION_FILE).exists()
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok and report.rolls_verified == 3 and report.sessions == 1


def _snapshot(state: Path) -> dict[str, tuple[int, int]]:
    """Every name under ``state`` with its size and modification time (what a write changes)."""
    return {str(p.relative_to(state)): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in state.rglob("*")}


def test_show_reads_an_earlier_versions_session_json_where_it_is(tmp_path, capsys) -> None:
    """``session show`` never writes: the last release's session.json is shown, not moved in
    (the next writer does that, under the lock), and nothing is created (no lock file)."""
    commitment = as_the_last_release_left_it(tmp_path, capsys)
    (tmp_path / ".lock").unlink()
    before = _snapshot(tmp_path)
    code, out, err = run(capsys, "session", "show", str(tmp_path), "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert (shown["commitment"], shown["rolls"], shown["opened_by"]) == (commitment, 2, "open")
    assert _snapshot(tmp_path) == before


def test_show_takes_no_lock(tmp_path, capsys) -> None:
    """A writer holding the lock (a long --times run, the tower mid-roll) never makes ``show`` wait."""
    from hardware.files.locking import state_lock
    from tests.hardware.planted import cli

    run(capsys, "session", "open", str(tmp_path))
    with state_lock(tmp_path):
        done = cli(["session", "show", str(tmp_path)])
    assert done.returncode == 0 and b"commitment" in done.stdout, done.stderr


@pytest.mark.parametrize("action", [[*D6CV, "--state-dir", "{d}"], ["session", "show", "{d}"],
                                    ["session", "close", "{d}"], ["session", "seed", "{d}", "417302"]])
def test_the_open_sessions_file_that_cannot_be_read_stops_every_writer_until_it_is_back(tmp_path, capsys,
                                                                                      action) -> None:
    """The log holds the session open and only its kept file can reveal it: a FIFO (or a link,
    a damaged file) in its place is one line, exit 2, and nothing is appended, so no second
    session opens beside it; with the file back, everything goes on and checks."""
    run(capsys, "session", "open", str(tmp_path))
    (path,) = kept(tmp_path)
    saved = path.read_bytes()
    path.unlink()
    os.mkfifo(path)
    log = (tmp_path / "rolls.jsonl").read_bytes()
    code, out, err = run(capsys, *[a.format(d=tmp_path) for a in action])
    assert code == 2 and out == "", err
    line = err.strip().splitlines()[-1]
    assert line.startswith("dicetower: error: the session file cannot be used: ") and "is a FIFO" in line, err
    assert f"the log holds session #{path.stem[:8]} open" in line
    assert (tmp_path / "rolls.jsonl").read_bytes() == log and kept(tmp_path) == [path]
    path.unlink()
    path.write_bytes(saved)
    assert run(capsys, *[a.format(d=tmp_path) for a in action])[0] == 0
    run(capsys, "session", "close", str(tmp_path))
    assert replay_log(tmp_path / "rolls.jsonl").ok


def test_an_open_session_that_reaches_its_roll_limit_is_revealed_and_the_next_one_stays_open(tmp_path, capsys,
                                                                                             monkeypatch) -> None:
    import functools

    from hardware.cli import dice_source
    from hardware.entropy import open_dice

    monkeypatch.setattr(dice_source, "open_dice", functools.partial(open_dice, session_rolls=3))
    run(capsys, "session", "open", str(tmp_path))
    first = the_kept(tmp_path)
    code, _, err = run(capsys, *D6CV, "--times", "7", "--state-dir", str(tmp_path))
    assert code == 0 and err.count("was revealed (its roll limit") == 2
    last = the_kept(tmp_path)  # taken over from the `session open` one: it stays open like it
    assert last.id != first.id and last.owner.kind == "open"
    assert f"commitment {last.commitment}" in err
    run(capsys, "session", "close", str(tmp_path))
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok and report.sessions == 3 and report.rolls_verified == 7 and not report.open_sessions


def test_a_command_killed_after_its_append_leaves_nothing_the_next_cannot_take_in(tmp_path, capsys) -> None:
    """The kept file is a cache of the log: one left behind it (a command killed between its
    append and anything else; here the file is put back as it was) is brought up to date from
    the log by the next writer, which rolls on where the log says; nothing is drawn twice."""
    assert run(capsys, "session", "open", str(tmp_path))[0] == 0
    assert run(capsys, *D6CV, "--state-dir", str(tmp_path))[0] == 0
    (path,) = kept(tmp_path)
    behind = path.read_bytes()
    assert run(capsys, *D6CV, "--times", "2", "--state-dir", str(tmp_path))[0] == 0
    path.write_bytes(behind)  # as if the cache were never brought up to date
    assert run(capsys, *D6CV, "--state-dir", str(tmp_path))[0] == 0
    code, out, _ = run(capsys, "session", "close", str(tmp_path))
    assert code == 0 and "revealed after 4 roll(s)" in out
    rolls = [e for e in entries(tmp_path) if e["kind"] == "roll"]
    assert [r["start"] for r in rolls] == [0, *[r["end"] for r in rolls[:-1]]]
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok and report.rolls_checked == 4, [str(p) for p in report.problems]


def test_a_session_closed_before_its_file_went_is_not_rolled_in(tmp_path, capsys) -> None:
    assert run(capsys, "session", "open", str(tmp_path))[0] == 0
    assert run(capsys, *D6CV, "--state-dir", str(tmp_path))[0] == 0
    (path,) = kept(tmp_path)
    saved = path.read_bytes()
    assert run(capsys, "session", "close", str(tmp_path))[0] == 0
    path.write_bytes(saved)  # the removal never happened
    code, _, err = run(capsys, *D6CV, "--state-dir", str(tmp_path))
    assert code == 0 and "no session open in" in err  # the log says it is revealed: a session of its own
    assert [e["kind"] for e in entries(tmp_path)].count("reveal") == 2
    assert kept(tmp_path) == [] and replay_log(tmp_path / "rolls.jsonl").ok


def test_the_table_seed_is_set_before_the_first_roll_and_checked(tmp_path, capsys) -> None:
    run(capsys, "session", "open", str(tmp_path))
    commitment = entries(tmp_path)[0]["commitment"]
    code, out, err = run(capsys, "session", "seed", str(tmp_path), "417302")
    assert code == 0, err
    seed_entry = entries(tmp_path)[-1]
    assert seed_entry["kind"] == "table_seed" and seed_entry["table_seed"] == "417302"
    assert f"--expect {commitment[:16]} --table-seed 417302" in out
    assert run(capsys, *D6CV, "--times", "3", "--state-dir", str(tmp_path))[0] == 0
    assert next(e["start"] for e in entries(tmp_path) if e["kind"] == "roll") == 1  # call 0 took the seed
    code, out, _ = run(capsys, "session", "show", str(tmp_path))
    assert "table seed 417302" in out and "rolls      3" in out
    code, out, _ = run(capsys, "session", "close", str(tmp_path))
    reveal = entries(tmp_path)[-1]
    for line in (f"commitment {commitment}", "table seed 417302", "rolls 3", f"head {reveal['hash']}"):
        assert line + "\n" in out
    assert "▄▄▄" in out  # the QR code of the four
    assert run(capsys, "replay", str(tmp_path), "--all-revealed", "--table-seed", "417302", "--expect",
               reveal["hash"][:16], "--expect", commitment[:20], "--count", "3")[0] == 0
    code, _, err = run(capsys, "replay", str(tmp_path), "--expect", commitment[:16], "--table-seed", "417303")
    assert code == 1 and "unnoted-table-seed" in err and "'s table seed is '417302', not one you set ('417303')" in err
    code, _, err = run(capsys, "replay", str(tmp_path), "--expect", reveal["hash"][:8])
    assert code == 2 and "16 to 64 hex digits" in err  # 8 digits are 2^32 work to forge


def test_one_code_one_session(tmp_path, capsys) -> None:
    """A code a session of the log carried already is refused for a new session (the reopen
    loop of issue 26), in one line, and nothing is appended."""
    run(capsys, "session", "open", str(tmp_path))
    assert run(capsys, "session", "seed", str(tmp_path), "417302")[0] == 0
    run(capsys, "session", "close", str(tmp_path))
    run(capsys, "session", "open", str(tmp_path))
    logged = entries(tmp_path)
    code, out, err = run(capsys, "session", "seed", str(tmp_path), "417302")
    first = logged[0]["session"]
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"417302 was the code of session #{first[:8]}; one code, one session: choose a new code" in err
    assert entries(tmp_path) == logged
    assert run(capsys, "session", "seed", str(tmp_path), "417303")[0] == 0


@pytest.mark.parametrize(("before", "text", "message"), [
    ([], "", "table seed: empty"),
    ([], "x" * 65, "at most 64"),
    ([], "tab\there", "is not printable ASCII"),
    ([], " 417302", "starts or ends with a space"),
    ([["session", "seed", "{d}", "111111"]], "222222", "has its table seed already ('111111')"),
    ([[*D6CV, "--state-dir", "{d}"]], "222222", "has 1 roll(s) already"),
])
def test_a_table_seed_that_cannot_be_set_is_one_line_and_exit_2(tmp_path, capsys, before, text, message) -> None:
    run(capsys, "session", "open", str(tmp_path))
    for argv in before:
        assert run(capsys, *[a.format(d=tmp_path) for a in argv])[0] == 0
    logged = entries(tmp_path)
    code, out, err = run(capsys, "session", "seed", str(tmp_path), text)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1, err
    assert entries(tmp_path) == logged  # nothing appended


def test_a_table_seed_without_an_open_session_is_refused(tmp_path, capsys) -> None:
    code, out, err = run(capsys, "session", "seed", str(tmp_path), "417302")
    assert code == 2 and out == "" and "no session open in" in err and "session open" in err


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
