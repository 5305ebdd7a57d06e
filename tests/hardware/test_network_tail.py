"""LogTail: the entries after a seq, in order, each once, as the log grows, rotates or is damaged."""

from __future__ import annotations

import json
import os

from hardware.files.rolllog import RollLog
from hardware.network.tail import LogTail


def seqs(entries):
    return [e["seq"] for e in entries]


def test_follows_a_growing_log_from_a_seq(tmp_path):
    path = tmp_path / "rolls.jsonl"
    tail = LogTail(path)
    assert tail.read(10) == [] and not tail.pending()  # no log yet
    log = RollLog(path, fsync=False)
    for i in range(5):
        log.append("note", n=i)
    assert seqs(tail.read(3)) == [1, 2, 3]
    assert seqs(tail.read(10)) == [4, 5]
    assert tail.read(10) == [] and not tail.pending()
    log.append("note", n=5)
    assert tail.pending() and seqs(tail.read(10)) == [6]


def test_starts_after_the_cursor_and_checks_its_hash(tmp_path):
    path = tmp_path / "rolls.jsonl"
    log = RollLog(path, fsync=False)
    entries = [log.append("note", n=i) for i in range(6)]
    assert seqs(LogTail(path, 4, entries[3]["hash"]).read(10)) == [5, 6]
    notes, restarts = [], []
    tail = LogTail(path, 4, "00" * 32, on_note=notes.append, on_restart=lambda: restarts.append(1))
    assert seqs(tail.read(10) + tail.read(10)) == [1, 2, 3, 4, 5, 6]
    assert restarts == [1] and "not the one the cursor names" in notes[0]


def test_a_torn_line_waits_until_it_is_whole_and_damage_is_skipped(tmp_path):
    path = tmp_path / "rolls.jsonl"
    log = RollLog(path, fsync=False)
    log.append("note", n=0)
    tail = LogTail(path)
    assert seqs(tail.read(10)) == [1]
    whole = log.append("note", n=1)
    data = path.read_bytes()
    path.write_bytes(data[:-10])  # the last line is still being written
    assert tail.read(10) == []
    path.write_bytes(data)
    assert tail.read(10) == [whole]
    with open(path, "ab") as f:
        f.write(b"garbage that is not an entry\n")
    log.append("note", n=2)  # the log bridges the damage with a recovered entry
    assert [e["kind"] for e in tail.read(10)] == ["recovered", "note"]


def test_a_rotated_log_goes_on_in_the_new_file(tmp_path):
    path = tmp_path / "rolls.jsonl"
    log = RollLog(path, fsync=False)
    for i in range(3):
        log.append("note", n=i)
    tail = LogTail(path)
    assert seqs(tail.read(10)) == [1, 2, 3]
    last = log.append("note", n=3)
    os.replace(path, tmp_path / "rolls.1.jsonl")  # rotated after entry 4, which was not read yet
    with open(path, "wb") as f:
        nxt = {"seq": 5, "prev": last["hash"], "kind": "note", "hash": "x"}
        f.write(json.dumps(nxt).encode() + b"\n")
    notes: list[str] = []
    tail._on_note = notes.append
    got = tail.read(10)
    # entry 4 is in the rotated file: read_entries finds it there if it walks rotated files;
    # otherwise the gap is named and the tail goes on
    assert seqs(got) in ([4, 5], [5])
    assert seqs(got) == [4, 5] or "entries 4..4 are no longer in the log" in notes[0]
