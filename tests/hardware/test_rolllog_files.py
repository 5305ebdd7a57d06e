"""The roll log's files: a complete unterminated entry kept, only damage cut, size rotation with
the chain continuing, symbolic links refused, and reading that streams."""

from __future__ import annotations

import json
import os

import pytest

from hardware.files.rolllog import (
    MAX_LINE_BYTES,
    LogError,
    RollLog,
    chain_files,
    entry_hash,
    last_entry,
    read_entries,
    verify,
)


def clock():
    t = iter(range(1_700_000_000 * 10**9, 1_800_000_000 * 10**9, 10**9))
    return lambda: next(t)


def filled(path, n: int = 3, **kwargs) -> RollLog:
    log = RollLog(path, clock=clock(), fsync=False, **kwargs)
    for i in range(n):
        log.append("roll", result={"dice": [i + 1]}, session="abc")
    return log


def kinds(path) -> list[str]:
    return [s.entry["kind"] for s in read_entries(path)]


def test_a_complete_entry_missing_its_newline_is_kept_and_completed(tmp_path) -> None:
    log = filled(tmp_path / "rolls.jsonl")
    log.path.write_bytes(log.path.read_bytes()[:-1])  # a power cut just before the newline
    assert verify(log.path).ok and verify(log.path).entries == 3
    log.append("reveal", session="abc", seed="00")
    assert kinds(log.path) == ["roll", "roll", "roll", "reveal"]  # nothing cut, no "recovered"
    assert verify(log.path).ok


def test_only_what_fails_to_parse_or_hash_is_torn(tmp_path) -> None:
    log = filled(tmp_path / "rolls.jsonl")
    whole = log.path.read_bytes()
    last = json.loads(whole.splitlines()[-1])
    last["result"]["dice"] = [6]  # parses, but its hash does not match: not a whole entry
    log.path.write_bytes(whole + json.dumps(last).encode())
    assert not verify(log.path).ok
    log.append("roll", result={"dice": [1]}, session="abc")
    assert kinds(log.path) == ["roll"] * 3 + ["recovered", "roll"]
    assert verify(log.path).ok


def test_the_log_rotates_by_size_and_the_chain_goes_on(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    log = filled(path, 40, rotate_bytes=2000)
    files = chain_files(path)
    assert [f.name for f in files[:3]] == ["rolls.1.jsonl", "rolls.2.jsonl", "rolls.3.jsonl"]
    assert files[-1] == path and len(files) > 3
    assert all(f.stat().st_size < 2000 + 400 for f in files)
    report = verify(path)
    assert report.ok and report.entries == 40
    seqs = [s.entry["seq"] for s in read_entries(path)]
    assert seqs == list(range(1, 41))
    assert [s.line_no for s in read_entries(path)] == seqs
    # an edit in an old file is found, with its place in the whole chain
    first = files[0].read_text().splitlines()
    first[1] = first[1].replace('"dice":[2]', '"dice":[5]')
    files[0].write_text("".join(line + "\n" for line in first))
    assert verify(path).problem.line_no == 2
    assert log.path == path


def test_a_new_current_file_chains_on_from_the_newest_rotated_one(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    filled(path, 5, rotate_bytes=1)  # every append rotates the one before
    assert len(chain_files(path)) == 5
    os.rename(path, tmp_path / "rolls.5.jsonl")  # a crash right after a rotation's rename
    assert not path.exists() and verify(path).ok
    RollLog(path, fsync=False).append("roll", result={}, session="abc")
    assert verify(path).ok and verify(path).entries == 6


def test_a_symlinked_log_is_refused_and_creates_nothing(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    path.symlink_to(tmp_path / "target")
    with pytest.raises(LogError, match="symbolic link"):
        RollLog(path).append("roll", result={})
    assert not (tmp_path / "target").exists()
    with pytest.raises(LogError, match="symbolic link"):
        list(read_entries(path))


def test_a_fifo_is_not_a_log(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    os.mkfifo(path)
    with pytest.raises(LogError, match="not a regular file"):
        RollLog(path).append("roll", result={})
    with pytest.raises(LogError, match="not a regular file"):
        list(read_entries(path))


def test_an_over_long_line_is_damage_not_a_memory_hog(tmp_path) -> None:
    log = filled(tmp_path / "rolls.jsonl", 2)
    with open(log.path, "ab") as f:
        f.write(b"x" * (MAX_LINE_BYTES * 3) + b"\n")
    stored = list(read_entries(log.path))
    assert len(stored) == 3 and stored[2].entry is None and stored[2].raw == b""
    assert verify(log.path).problem.line_no == 3
    log.append("roll", result={"dice": [1]}, session="abc")  # bridged, damage kept in place
    assert kinds_of(log.path)[-2:] == ["recovered", "roll"]


def kinds_of(path) -> list[str | None]:
    return [s.entry["kind"] if s.entry else None for s in read_entries(path)]


def test_a_deeply_nested_last_line_does_not_stop_the_log(tmp_path) -> None:
    log = filled(tmp_path / "rolls.jsonl", 1)
    with open(log.path, "ab") as f:
        f.write(b"[" * 200_000 + b"\n")
    log.append("roll", result={}, session="abc")
    assert kinds_of(log.path) == ["roll", None, "recovered", "roll"]


def test_last_entry_reads_back_from_the_end(tmp_path) -> None:
    log = filled(tmp_path / "rolls.jsonl", 3)
    log.append("reveal", session="abc", seed="00")
    found = last_entry(log.path, "roll")
    assert found["result"] == {"dice": [3]} and found["hash"] == entry_hash(found)
    assert last_entry(log.path, "session") is None
    assert last_entry(tmp_path / "missing.jsonl", "roll") is None
