"""Commit and reveal: `dicetower replay` recomputes every logged roll from the revealed seeds,
and reports a changed roll even when the hash chain was rebuilt around the change."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil

import pytest

from hardware.cli import main
from hardware.entropy.replay import replay_log
from hardware.files.rolllog import GENESIS, entry_hash

SETTINGS = {
    "infinity": ["--rating", "8", "--cr", "difficult"],
    "horizons": ["--trait", "3", "--skill", "2", "--need", "3"],
    "d6cv": ["--stat", "5", "--cv", "7"],
    "immortal": ["--attribute", "6", "--skill", "4", "--tn", "15"],
    "fingers": ["--choices", "5", "--winners", "2", "--guess", "3"],
}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def recorded_once(tmp_path_factory):
    """A state dir with rolls of every system (one session per command, auto entropy)."""
    path = tmp_path_factory.mktemp("recorded")
    for system, args in SETTINGS.items():
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["roll", system, *args, "--times", "3", "--state-dir", str(path), "--player", "1", "--json"])
        assert code == 0, err.getvalue()
    return path


@pytest.fixture
def recorded(recorded_once, tmp_path):
    """A fresh copy of the recorded state dir for a test to tamper with."""
    copy = tmp_path / "state"
    shutil.copytree(recorded_once, copy)
    return copy


def read(path) -> list[dict]:
    return [json.loads(line) for line in (path / "rolls.jsonl").read_text().splitlines()]


def write(path, entries: list[dict], rechain: bool) -> None:
    """Write entries back; ``rechain`` rebuilds seq/prev/hash as a forger with write access would."""
    prev = GENESIS
    lines = []
    for seq, e in enumerate(entries, start=1):
        if rechain:
            e = {**e, "seq": seq, "prev": prev}
            e["hash"] = entry_hash(e)
            prev = e["hash"]
        lines.append(json.dumps(e, sort_keys=True, separators=(",", ":")))
    (path / "rolls.jsonl").write_text("".join(line + "\n" for line in lines))


def test_a_recorded_log_replays(recorded, capsys) -> None:
    code, out, err = run(capsys, "replay", str(recorded))
    assert code == 0, err
    assert "5 session(s) (5 revealed, 0 open)\n  verified: 15 roll(s) recomputed from revealed seeds\n" in out
    assert out.endswith("result: all match\n")
    report = replay_log(recorded / "rolls.jsonl")
    assert report.ok and report.rolls_checked == 15 and report.rolls_unrevealed == 0


def test_every_session_commits_before_its_first_roll(recorded) -> None:
    entries = read(recorded)
    seen: set[str] = set()
    for e in entries:
        if e["kind"] == "session":
            seen.add(e["session"])
        elif e["kind"] in ("roll", "reveal"):
            assert e["session"] in seen
    for e in entries:
        if e["kind"] == "reveal":
            start = next(s for s in entries if s["kind"] == "session" and s["session"] == e["session"])
            assert hashlib.sha256(bytes.fromhex(e["seed"])).hexdigest() == start["commitment"]


def test_a_changed_roll_is_reported_even_with_a_rebuilt_chain(recorded, capsys) -> None:
    entries = read(recorded)
    i = next(i for i, e in enumerate(entries) if e["kind"] == "roll" and e["result"]["system"] == "d6cv")
    result = entries[i]["result"]
    result["dice"] = [result["dice"][0] % 6 + 1]  # a different face
    write(recorded, entries, rechain=True)
    assert run(capsys, "log", "verify", "--state-dir", str(recorded))[0] == 0  # the chain alone can't tell
    code, _, err = run(capsys, "replay", str(recorded / "rolls.jsonl"))
    assert code == 1
    (line,) = err.splitlines()
    assert f"entry {i + 1}: roll-mismatch: d6cv roll does not match the revealed seed: dice logged" in line


def test_a_tampered_entry_is_reported_by_log_verify_and_by_replay(recorded, capsys) -> None:
    entries = read(recorded)
    i = next(i for i, e in enumerate(entries) if e["kind"] == "roll")
    entries[i]["result"]["outcome"] = "tampered"
    write(recorded, entries, rechain=False)
    code, _, err = run(capsys, "log", "verify", "--state-dir", str(recorded))
    assert code == 1 and f"entry {i + 1}:" in err
    code, _, err = run(capsys, "replay", str(recorded))
    assert code == 1
    assert f"entry {i + 1}: chain: hash chain broken" in err
    assert f"entry {i + 1}: " in err and "does not match the revealed seed: outcome logged" in err


def test_a_swapped_seed_does_not_match_its_commitment(recorded, capsys) -> None:
    entries = read(recorded)
    reveals = [i for i, e in enumerate(entries) if e["kind"] == "reveal"]
    entries[reveals[0]]["seed"], entries[reveals[1]]["seed"] = entries[reveals[1]]["seed"], entries[reveals[0]]["seed"]
    write(recorded, entries, rechain=True)
    report = replay_log(recorded / "rolls.jsonl")
    messages = [str(p) for p in report.problems]
    assert len(messages) == 2
    assert all("revealed seed does not match the commitment published in entry" in m for m in messages)


def test_a_dropped_last_roll_is_reported_by_the_reveal_count_and_end(recorded) -> None:
    entries = read(recorded)
    i = max(i for i, e in enumerate(entries) if e["kind"] == "roll")  # the last roll of a session
    del entries[i]
    write(recorded, entries, rechain=True)
    report = replay_log(recorded / "rolls.jsonl")
    assert {p.line_no for p in report.problems} == {i + 1}  # the reveal, now one line earlier
    assert "the reveal counts 3 roll(s), the log holds 2" in report.problems[0].message
    assert report.problems[1].code == "continuity" and "reveal says it ended at" in report.problems[1].message


def test_a_moved_roll_start_is_reported(recorded) -> None:
    entries = read(recorded)
    rolls = [i for i, e in enumerate(entries) if e["kind"] == "roll" and e["start"] > 0]
    entries[rolls[0]]["start"] -= 1
    write(recorded, entries, rechain=True)
    report = replay_log(recorded / "rolls.jsonl")
    assert not report.ok and report.problems[0].line_no == rolls[0] + 1
    assert report.problems[0].code == "continuity"
    assert report.problems[0].message.startswith("roll starts at generate call 0")


def test_an_unrevealed_session_is_noted_not_failed(recorded, capsys) -> None:
    entries = read(recorded)
    last_reveal = max(i for i, e in enumerate(entries) if e["kind"] == "reveal")
    del entries[last_reveal]
    write(recorded, entries, rechain=True)
    code, out, _ = run(capsys, "replay", str(recorded), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["rolls"] == {"verified": 12, "entered": 0, "test": 0, "open": 3}
    assert report["open_sessions"][0]["rolls"] == 3
    assert "is still open: its 3 roll(s) are not checked" in report["notes"][0]


def test_a_seeded_session_replays_as_a_test_not_as_verified(tmp_path, capsys) -> None:
    code, _, _ = run(capsys, "roll", "fingers", "--choices", "4", "--winners", "1", "--guess", "2", "--seed", "s1",
                     "--times", "4", "--state-dir", str(tmp_path), "--json")
    assert code == 0
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok and report.rolls_test == 4 and report.rolls_verified == 0


def test_replay_of_a_missing_log_is_a_usage_error(tmp_path, capsys) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "no roll log at" in err


def test_a_roll_that_draws_no_dice_is_logged_and_replays(tmp_path, capsys) -> None:
    # 1 of 2 plus a spent karma point is 2 of 2: an automatic success, no dice drawn.
    code, out, err = run(capsys, "roll", "fingers", "--choices", "2", "--winners", "1", "--karma", "1",
                         "--spend", "1", "--guess", "1", "--json", "--state-dir", str(tmp_path))
    assert code == 0, err
    assert json.loads(out)["automatic"] is True
    (roll,) = [e for e in read(tmp_path) if e["kind"] == "roll"]
    assert roll["start"] == roll["end"] == 0
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok and report.rolls_checked == 1
