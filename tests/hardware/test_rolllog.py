"""The roll log: hash chain, fsync'd appends, torn-tail recovery, and `dicetower log verify`."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hardware.cli import main
from hardware.files.rolllog import GENESIS, LogError, RollLog, entry_hash, verify


def clock():
    t = iter(range(1_700_000_000 * 10**9, 1_800_000_000 * 10**9, 10**9))
    return lambda: next(t)


def filled(tmp_path, n: int = 5) -> RollLog:
    log = RollLog(tmp_path / "rolls.jsonl", clock=clock())
    for i in range(n):
        log.append("roll", result={"dice": [i + 1]}, session="abc")
    return log


def lines(log: RollLog) -> list[str]:
    return log.path.read_text().splitlines()


def rewrite(log: RollLog, new_lines: list[str]) -> None:
    log.path.write_text("".join(line + "\n" for line in new_lines))


def canonical(entry: dict) -> str:
    return json.dumps(entry, sort_keys=True, separators=(",", ":"))


def test_entries_chain_by_hash(tmp_path) -> None:
    log = filled(tmp_path)
    entries = [json.loads(line) for line in lines(log)]
    assert [e["seq"] for e in entries] == [1, 2, 3, 4, 5]
    assert entries[0]["prev"] == GENESIS
    for before, after in itertools.pairwise(entries):
        assert after["prev"] == before["hash"] == entry_hash(before)
    assert entries[0]["time"] == "2023-11-14T22:13:20.000Z"
    report = verify(log.path)
    assert report.ok and report.entries == 5 and report.head == entries[-1]["hash"]


def test_reserved_fields_cannot_be_set(tmp_path) -> None:
    with pytest.raises(ValueError, match="set by the log itself"):
        RollLog(tmp_path / "l").append("roll", seq=3)


def test_an_edited_entry_is_named(tmp_path) -> None:
    log = filled(tmp_path)
    text = lines(log)
    text[2] = text[2].replace('"dice":[3]', '"dice":[6]')
    rewrite(log, text)
    report = verify(log.path)
    assert not report.ok and report.problem.line_no == 3
    assert "edited" in report.problem.message and report.entries == 2


def test_an_edited_and_rehashed_entry_breaks_the_next_link(tmp_path) -> None:
    log = filled(tmp_path)
    text = lines(log)
    entry = json.loads(text[2])
    entry["result"]["dice"] = [6]
    entry["hash"] = entry_hash(entry)
    text[2] = canonical(entry)
    rewrite(log, text)
    report = verify(log.path)
    assert report.problem.line_no == 4
    assert "entry 3 was edited and re-hashed" in report.problem.message


def test_a_dropped_entry_is_found(tmp_path) -> None:
    log = filled(tmp_path)
    text = lines(log)
    del text[1]
    rewrite(log, text)
    report = verify(log.path)
    assert report.problem.line_no == 2 and "dropped" in report.problem.message


def test_reordered_entries_are_found(tmp_path) -> None:
    log = filled(tmp_path)
    text = lines(log)
    text[1], text[2] = text[2], text[1]
    rewrite(log, text)
    assert verify(log.path).problem.line_no == 2


def test_a_torn_last_line_fails_verify_and_is_recovered_on_the_next_append(tmp_path) -> None:
    log = filled(tmp_path, 3)
    with open(log.path, "ab") as f:
        f.write(b'{"kind":"roll","seq":4,"pre')  # power cut in the middle of a write
    report = verify(log.path)
    assert report.problem.line_no == 4 and "incomplete" in report.problem.message
    log.append("roll", result={"dice": [4]})
    entries = [json.loads(line) for line in lines(log)]
    assert [e["kind"] for e in entries] == ["roll"] * 3 + ["recovered", "roll"]
    assert entries[3]["dropped_bytes"] == 27
    assert verify(log.path).ok


def test_two_writers_keep_one_chain(tmp_path) -> None:
    a = RollLog(tmp_path / "rolls.jsonl")
    b = RollLog(tmp_path / "rolls.jsonl")
    for i in range(6):
        (a if i % 2 else b).append("roll", n=i)
    assert verify(a.path).ok and verify(a.path).entries == 6


def test_a_garbage_last_line_is_kept_bridged_and_reported(tmp_path) -> None:
    # An unattended tower keeps rolling; the damage stays in the file and verify names it.
    path = tmp_path / "rolls.jsonl"
    log = RollLog(path)
    log.append("session")
    first = log.append("roll", n=1)
    with open(path, "ab") as f:
        f.write(b"not json\n\n")
    entry = log.append("roll", n=2)
    lines = path.read_bytes().split(b"\n")
    assert lines[2:4] == [b"not json", b""]  # kept in place
    recovered = json.loads(lines[4])
    assert recovered["kind"] == "recovered" and recovered["damaged_lines"] == 2
    assert recovered["seq"] == first["seq"] + 1 and recovered["prev"] == first["hash"]
    assert entry["seq"] == recovered["seq"] + 1 and entry["prev"] == recovered["hash"]
    report = verify(path)
    assert not report.ok and report.problem.line_no == 3


def test_a_log_of_nothing_but_garbage_starts_a_chain_after_it(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    path.write_text("not json\n")
    entry = RollLog(path).append("roll")
    assert entry["seq"] == 2 and json.loads(path.read_text().splitlines()[1])["prev"] == "0" * 64


def test_a_new_log_creates_its_directory(tmp_path) -> None:
    log = RollLog(tmp_path / "deep" / "dir" / "rolls.jsonl")
    log.append("session")
    assert verify(log.path).ok


#: Appends under a file-size limit (RLIMIT_FSIZE): the write stops part way as on a full card.
#: In a child process, so that the limit cannot touch pytest's own files.
_FULL_CARD = """
import json, resource, sys
from hardware.files.rolllog import LogError, RollLog
path, torn = sys.argv[1], sys.argv[2] == "torn"
log = RollLog(path)
for i in range(3):
    log.append("roll", n=i)
if torn:
    with open(path, "ab") as f:
        f.write(b'{"kind":"roll","seq":4,"pre')
with open(path, "rb") as f:
    before = f.read()
resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 40, resource.RLIM_INFINITY))
try:
    log.append("roll", n=99, pad="x" * 200)
    error = None
except LogError as exc:
    error = str(exc)
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
with open(path, "rb") as f:
    print(json.dumps({"error": error, "unchanged": f.read() == before}))
"""


@pytest.mark.parametrize("tail", ["whole", "torn"])
def test_a_write_that_stops_half_way_on_a_full_card_leaves_the_log_as_it_was(tmp_path, tail: str) -> None:
    """It left a torn line that the next append recorded as a power cut ("recovered"), and a
    failed recovery lost the torn bytes it had cut."""
    path = tmp_path / "rolls.jsonl"
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _FULL_CARD, str(path), tail], cwd=root, capture_output=True,
                          text=True, timeout=60, check=True)
    outcome = json.loads(done.stdout)
    assert outcome["error"] and "cannot write the roll log" in outcome["error"]
    assert outcome["unchanged"]
    if tail == "whole":
        assert verify(path).ok and verify(path).entries == 3
    RollLog(path).append("roll", n=4)  # room again: the chain carries on
    kinds = [json.loads(line)["kind"] for line in path.read_text().splitlines()]
    assert kinds == ["roll"] * 3 + (["recovered"] if tail == "torn" else []) + ["roll"]
    assert verify(path).ok


def test_a_log_directory_that_cannot_be_made_is_a_log_error(tmp_path) -> None:
    """It was a bare OSError, which the panel does not catch: ROLL crashed the tower."""
    (tmp_path / "card").write_text("a file where the directory should be")
    with pytest.raises(LogError, match="cannot open the roll log"):
        RollLog(tmp_path / "card" / "state" / "rolls.jsonl").append("session")


# --- dicetower log verify ---------------------------------------------------------------------


def test_log_verify_cli_ok_and_bad(tmp_path, capsys) -> None:
    log = filled(tmp_path)
    assert main(["log", "verify", "--state-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "5 entries, chain intact" in out and not err
    text = lines(log)
    text[3] = text[3].replace('"dice":[4]', '"dice":[1]')
    rewrite(log, text)
    assert main(["log", "verify", "--file", str(log.path)]) == 1
    out, err = capsys.readouterr()
    assert not out
    assert err.count("\n") == 1 and "entry 4:" in err and "edited" in err


def test_log_verify_json(tmp_path, capsys) -> None:
    filled(tmp_path, 2)
    assert main(["log", "verify", "--state-dir", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["entries"] == 2 and report["problem"] is None


def test_log_verify_without_a_log_is_a_usage_error(tmp_path, capsys) -> None:
    assert main(["log", "verify", "--state-dir", str(tmp_path)]) == 2
    assert "no roll log at" in capsys.readouterr().err


def test_log_verify_default_state_dir_comes_from_the_environment(tmp_path, capsys, monkeypatch) -> None:
    filled(tmp_path, 1)
    monkeypatch.setenv("DICETOWER_STATE_DIR", str(tmp_path))
    assert main(["log", "verify"]) == 0
    assert os.fspath(tmp_path) in capsys.readouterr().out
