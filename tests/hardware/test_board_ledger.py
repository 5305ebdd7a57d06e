"""The board's bookkeeping without a broker: out-of-order arrival, gaps, conflicts, bad
messages, the byte cap on waiting entries, forgetting tower ids that never chain, stats."""

from __future__ import annotations

import json
import sqlite3
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.board import ledger as ledger_module
from hardware.board import towers as towers_module
from hardware.board.stats import Stats, outcome_odds
from hardware.board.towers import ASK_AGAIN_S, STALL_S, Towers
from hardware.files.rolllog import RollLog, entry_hash, read_entries
from hardware.network.topics import log_message
from tests.hardware.netparts import wait_for


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "rolls.jsonl"
    log = RollLog(path, fsync=False)
    for i in range(12):
        log.append("note", n=i)
    return [s.entry for s in read_entries(path)]


@pytest.fixture
def board(tmp_path):
    towers = Towers(tmp_path / "record", "s", verifier=False)
    try:
        yield towers
    finally:
        towers.close()


def send(towers: Towers, entry: dict, tower: str = "t") -> None:
    towers.handle(f"dicetower/s/{tower}/log", log_message("s", tower, entry))


@settings(max_examples=40, deadline=None)
@given(order=st.permutations(range(12)), dupes=st.lists(st.integers(0, 11), max_size=8))
def test_any_arrival_order_with_duplicates_keeps_the_chain_once(chain, order, dupes):
    with tempfile.TemporaryDirectory() as tmp:
        towers = Towers(tmp, "s", verifier=False)
        try:
            for i in [*order, *dupes]:
                send(towers, json.loads(json.dumps(chain[i])))
            ledger = towers.ledgers["s/t"]
            kept = list(towers._read().path_entries(ledger.id, 1, 12))
            assert kept == chain and ledger.head_seq == 12
            assert ledger.problem is None and ledger.duplicates == len(dupes) and not ledger.pending
        finally:
            towers.close()


def test_a_gap_waits_and_is_asked_for_after_a_stall(board, chain):
    for e in chain[:3] + chain[5:7]:
        send(board, e)
    ledger = board.ledgers["s/t"]
    assert ledger.head_seq == 3 and sorted(ledger.pending) == [6, 7] and ledger.missing == 2
    now = ledger.progress_at
    assert board.resend_requests(now) == []  # entries may still be on their way
    assert board.resend_requests(now + STALL_S) == [("s", "t", 4, 5)]  # just the gap
    assert board.resend_requests(now + STALL_S + 0.1) == []  # asked; the answer may be on its way
    assert board.resend_requests(now + STALL_S + ASK_AGAIN_S) == [("s", "t", 4, 5)]
    assert board.resend_requests(now + STALL_S + 2 * ASK_AGAIN_S) == []  # asked again later and later
    for e in chain[3:5]:
        send(board, e)
    assert ledger.head_seq == 7 and not ledger.pending and ledger.problem is None


def test_status_says_what_exists_and_the_will_keeps_the_rest(board):
    body = {"state": "online", "store": "s", "tower": "t", "seq": 12}
    board.handle("dicetower/s/t/status", json.dumps(body).encode())
    ledger = board.ledgers["s/t"]
    assert ledger.online and ledger.wanted == 12
    board.handle("dicetower/s/t/status", json.dumps({"state": "offline", "store": "s", "tower": "t"}).encode())
    assert not ledger.online and ledger.wanted == 12
    board.handle("dicetower/s/t/status", b"not json")
    assert ledger.problem.startswith("a message that is not JSON")


def hashed(entry: dict, **changes) -> dict:
    e = {**json.loads(json.dumps(entry)), **changes}
    e["hash"] = entry_hash(e)
    return e


ROLL = {"seq": 1, "prev": "0" * 64, "kind": "roll", "time": "2026-01-01T00:00:00.000Z", "session": None,
        "roll_kind": "entered", "result": {"system": "d6cv", "params": {"stat": 1, "cv": 7}, "dice": [3],
                                           "outcome": "failure", "total": 4, "success": False}}


@pytest.mark.parametrize(("payload", "problem"), [
    (b"[" * 100_000, "a message nested 100000 levels deep, more than the 32 allowed"),
    (b"{}", "a log message that is not {store, tower, entry}"),
    (b"\xff\xfe", "a message that is not UTF-8 text (byte 0)"),
    (b'{"a": NaN}', "a message that is not JSON (NaN is not a JSON number"),
    (b"x" * (2 << 20), "a message of 2097152 bytes, more than the"),
    (json.dumps({"store": "s", "tower": "t", "entry": {"seq": "1"}}).encode(), "a log message without a log entry"),
    (json.dumps({"store": "x", "tower": "t", "entry": {"seq": 1}}).encode(),
     "entry 1: published on s/t's topic but says it is from x/t"),
    (log_message("s", "t", {**ROLL, "hash": 5}), "entry 1: hash is a number (5), expected 64 hex digits"),
    (log_message("s", "t", {**ROLL, "hash": "0" * 64}), "entry 1: its content does not match its own hash"),
    (log_message("s", "t", hashed(ROLL, result={**ROLL["result"], "params": "stat 9"})),
     "entry 1: result.params is a string ('stat 9'), expected an object"),
    (log_message("s", "t", hashed(ROLL, result={**ROLL["result"], "params": [1, 2]})),
     "entry 1: result.params is a list of 2, expected an object"),
    (log_message("s", "t", hashed(ROLL, result={**ROLL["result"], "dice": "66"})),
     "entry 1: result.dice is a string ('66'), expected a list of whole numbers"),
    (log_message("s", "t", hashed({**ROLL, "kind": "session", "session": "ab", "commitment": 7})),
     "entry 1: commitment is a number (7), expected a string"),
])
def test_bad_messages_are_findings_against_the_tower_and_never_raise(board, chain, payload, problem):
    board.handle("dicetower/s/t/log", payload)
    ledger = board.ledgers["s/t"]
    assert ledger.problem is not None and ledger.problem.startswith(problem), ledger.problem
    for e in chain[:3]:  # the board goes on taking the tower's messages
        send(board, e, "u")
    assert board.ledgers["s/u"].head_seq == 3
    assert board.internal_errors == 0


def test_a_correctly_hashed_entry_with_a_bad_field_still_chains(board):
    bad = hashed(ROLL, result={**ROLL["result"], "params": "stat 9"})
    good = hashed({**ROLL, "seq": 2, "prev": bad["hash"]})
    send(board, bad)
    send(board, good)
    ledger = board.ledgers["s/t"]
    assert ledger.head_seq == 2 and ledger.problem.startswith("entry 1: result.params is a string")
    card = board.cards()[0]
    assert card["params"] == {"stat": 1, "cv": 7} and card["last"][0]["seq"] == 2


def test_a_failure_inside_the_board_is_a_finding_and_the_tower_goes_on(board, chain, monkeypatch):
    send(board, chain[0])
    calls = []

    def broken(self, *args, **kwargs):
        calls.append(1)
        raise RuntimeError("a bug")

    with monkeypatch.context() as m:
        m.setattr(ledger_module.Ledger, "accept", broken)
        send(board, chain[1])
    ledger = board.ledgers["s/t"]
    assert calls and board.internal_errors == 1
    assert ledger.problem.startswith("a message the board could not handle (RuntimeError: a bug)")
    for e in chain[1:4]:
        send(board, e)
    assert board.ledgers["s/t"].head_seq == 4


def test_a_forgery_first_then_the_honest_entries_out_of_order(board, chain):
    """The tower's entry N+1 arrives before its entry N, after a forged N: the board holds
    N+1 until N comes, sees the conflict, and goes on along the tower's own chain."""
    for e in chain[:3]:
        send(board, e)
    forged = hashed(chain[3], n="forged")
    send(board, forged)
    ledger = board.ledgers["s/t"]
    assert ledger.head_seq == 4 and ledger.problem is None  # nothing to tell it from the real one yet
    send(board, chain[4])  # does not continue the forged entry
    assert ledger.problem.startswith("entry 5: its prev hash does not match entry 4's hash")
    first, last = board.resend_requests(ledger.progress_at + STALL_S)[0][2:]
    assert (first, last) == (4, 5)  # the entry the board holds at 4 is asked for again
    send(board, chain[3])
    assert ledger.problem.startswith("entry 4: conflicting entries at seq 4 (")  # the mismatch was taken back
    assert ledger.problems == 1
    for e in chain[5:]:
        send(board, e)
    assert ledger.head_seq == 12 and ledger.head_hash == chain[-1]["hash"]
    path = list(board._read().path_entries(ledger.id, 1, 12))
    assert path == chain  # the path follows the tower's own entries
    assert ledger.problem.startswith("entry 4: conflicting entries at seq 4")


def test_waiting_entries_are_capped_in_bytes(board, chain, monkeypatch):
    monkeypatch.setattr(ledger_module, "PENDING_BYTES", 20_000)
    send(board, chain[0])
    big = "x" * 5000
    for seq in range(3, 40):
        send(board, hashed({**chain[0], "seq": seq, "pad": big}))
    ledger = board.ledgers["s/t"]
    assert ledger.pending_bytes <= 20_000 and ledger.dropped > 0
    assert len(ledger.pending) == ledger.pending_bytes // len(log_message("s", "t", hashed({**chain[0], "seq": 3,
                                                                                             "pad": big})))


def test_tower_ids_that_never_chain_are_forgotten(tmp_path, chain, monkeypatch):
    clock = [1000.0]
    towers = Towers(tmp_path / "record", None, verifier=False, clock=lambda: clock[0])
    monkeypatch.setattr(towers_module, "MAX_UNCHAINED", 5)
    try:
        for i in range(8):
            towers.handle(f"dicetower/s/junk{i}/log", b"[[[")
        send(towers, chain[0], "real")
        towers._housekept = 0.0
        towers._batch([])
        assert sorted(towers.ledgers) == ["s/junk3", "s/junk4", "s/junk5", "s/junk6", "s/junk7", "s/real"]
        clock[0] += towers_module.EVICT_S + 1
        towers._housekept = 0.0
        towers._batch([])
        assert sorted(towers.ledgers) == ["s/real"]  # it chained: kept however long it is quiet
        (count,) = towers.record.conn.execute("SELECT count(*) FROM towers").fetchone()
        assert count == 1
    finally:
        towers.close()


def test_other_stores_and_topics_are_ignored(board):
    board.handle("dicetower/other/t/log", b"{}")
    board.handle("dicetower/s/t/resend", b"{}")
    board.handle("elsewhere/s/t/log", b"{}")
    assert board.ledgers == {}


def test_stats_sum_the_exact_odds_of_each_rolls_setting():
    stats = Stats()
    params_a = {"stat": 3, "cv": 7}
    p = outcome_odds("d6cv", params_a)
    assert p is not None and p["success"] == pytest.approx(1 / 3)
    for outcome in ("success", "failure", "failure"):
        result = {"system": "d6cv", "params": params_a, "outcome": outcome}
        stats.add({"kind": "roll", "session": "x", "result": result})
    stats.add({"kind": "roll", "session": None, "faces": [6], "result": {"system": "d6cv", "params": params_a,
                                                                         "outcome": "success"}})  # typed in
    stats.add({"kind": "roll", "session": "x", "roll_kind": "test",
               "result": {"system": "d6cv", "params": params_a, "outcome": "success"}})
    stats.add({"kind": "roll", "session": "x", "result": {"system": "d6cv", "params": "cv 7", "outcome": "x"}})
    d = stats.to_dict()["d6cv"]
    assert d["rolls"] == 4 and d["unpriced"] == 1
    assert d["outcomes"]["success"] == {"observed": 1, "expected": 1.0, "sd": pytest.approx(0.816, abs=1e-3),
                                        "z": 0.0}
    assert d["outcomes"]["failure"]["observed"] == 2 and d["outcomes"]["failure"]["expected"] == 2.0
    assert Stats.from_plain(stats.to_plain()).to_dict() == stats.to_dict()


def test_the_records_canonical_bytes_are_what_the_hash_is_over(chain, tmp_path):
    """The board hashes an entry once, over the bytes it stores: the same as the roll log's."""
    import hashlib

    from bench.sim_towers import SimTower
    from hardware.board.record import canonical, pack, unpack

    t = SimTower(tmp_path / "t", "mqtt://127.0.0.1:1", "s", "t", session_rolls=2, start=False)
    for _ in range(5):
        t.roll()
    for entry in [*chain, *(s.entry for s in read_entries(t.log_path))]:
        assert hashlib.sha256(canonical(entry)).hexdigest() == entry_hash(entry) == entry["hash"]
        assert unpack(pack(canonical(entry)), entry["hash"]) == entry


def test_verified_rolls_are_marked_and_counted_and_a_rejected_message_taints_none(board, tmp_path):
    """Rolls of a revealed session replayed clean are verified (and counted in the statistics);
    the open session's are unchecked; a message rejected (not data) that names a seq inside a
    session does not make that session's rolls any less verified."""
    from bench.sim_towers import SimTower

    t = SimTower(tmp_path / "t", "mqtt://127.0.0.1:1", "s", "t", session_rolls=3, start=False)
    for _ in range(7):
        t.roll()
    entries = [s.entry for s in read_entries(t.log_path)]
    for e in entries:
        send(board, e)
    send(board, {**entries[2], "hash": "0" * 64})  # a message claiming seq 3, its hash wrong
    board.check_now()
    card = board.cards()[0]
    assert card["problem"] == "entry 3: its content does not match its own hash: the entry was edited"
    assert card["checked"] == {"verified": 6, "unchecked": 1, "entered": 0, "test": 0, "flags": {"no-table-seed": 2}}
    assert [r["check"] for r in card["last"]] == ["unchecked"] + ["uncoded"] * 6  # sessions without a code
    assert sum(s["rolls"] for s in board.system_stats().values()) == 6


def test_a_batch_the_record_cannot_take_is_kept_and_written_once_it_can(tmp_path, chain, monkeypatch):
    """The record fails mid-batch (a full disk): nothing of the batch is half-kept, the board
    says it is failing, and the batch is written once the record takes it again, in full."""
    towers = Towers(tmp_path / "record", "s", verifier=False)
    logs: list[str] = []
    towers._log = logs.append
    try:
        towers.start()
        for e in chain[:3]:
            send(towers, e)
        wait_for(lambda: (t := towers.ledgers.get("s/t")) and t.head_seq == 3, what="three entries")
        real = towers._save

        def full(ledger):
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(towers, "_save", full)
        for e in chain[3:6]:
            send(towers, e)
        wait_for(lambda: any("failing: cannot write its record: the disk is full" in m for m in logs),
                 what="the failure said")
        assert towers.board_state()["state"] == "failing" and towers.ledgers["s/t"].head_seq == 3
        assert towers.record.path_head(towers.ledgers["s/t"].id)[0] == 3  # nothing of the batch half-kept
        monkeypatch.setattr(towers, "_save", real)
        wait_for(lambda: towers.ledgers["s/t"].head_seq == 6, what="the kept batch written")
        wait_for(lambda: any("its record is written again" in m for m in logs), what="the recovery said")
        for e in chain[6:]:
            send(towers, e)
        wait_for(lambda: towers.ledgers["s/t"].head_seq == 12, what="the rest")
        path = list(towers._read().path_entries(towers.ledgers["s/t"].id, 1, 12))
        assert path == chain and towers.ledgers["s/t"].problem is None
    finally:
        towers.close()


def test_a_conflict_card_never_counts_more_verified_rolls_than_rolls(tmp_path):
    """A conflicting entry in a session: the card's rolls leave the conflict out, and so does
    its verified count (the rolls the board marked verified: the clean sessions' only), also
    after a restart (issue 27)."""
    from bench.sim_towers import SimTower

    t = SimTower(tmp_path / "t", "mqtt://127.0.0.1:1", "s", "t", session_rolls=3, start=False)
    for _ in range(7):
        t.roll()
    entries = [s.entry for s in read_entries(t.log_path)]
    first_roll = next(e for e in entries if e["kind"] == "roll")
    forged = hashed(first_roll, result={**first_roll["result"], "outcome": "forged"})
    board = Towers(tmp_path / "record", "s", verifier=False)
    try:
        send(board, forged)  # published before the tower's own entry at that seq
        for e in entries:
            send(board, e)
        board.check_now()
        card = board.cards()[0]
        assert card["problem"].startswith(f"entry {first_roll['seq']}: conflicting entries")
        assert card["rolls"] == 6  # the conflicting seq's roll is neither's
        assert card["checked"]["verified"] == 3 <= card["rolls"]  # the second session only: the first has the conflict
        assert sum(1 for r in card["last"] if r["check"] in ("verified", "uncoded")) == 3  # uncoded: no table seed
    finally:
        board.close()
    again = Towers(tmp_path / "record", "s", verifier=False)
    try:
        assert again.cards()[0]["checked"]["verified"] == 3
    finally:
        again.close()
