"""The board's bookkeeping without a broker: out-of-order arrival, gaps, conflicts, stats."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.board.ledger import TowerLedger
from hardware.board.stats import Stats, outcome_odds
from hardware.board.towers import ASK_AGAIN_S, STALL_S, Towers
from hardware.network.topics import log_message
from hardware.rolllog import RollLog, read_entries


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "rolls.jsonl"
    log = RollLog(path, fsync=False)
    for i in range(12):
        log.append("note", n=i)
    return [s.entry for s in read_entries(path)]


@settings(max_examples=60, deadline=None)
@given(order=st.permutations(range(12)), dupes=st.lists(st.integers(0, 11), max_size=8))
def test_any_arrival_order_with_duplicates_keeps_the_chain_once(chain, order, dupes):
    ledger = TowerLedger("s", "t")
    kept = []
    for i in [*order, *dupes]:
        kept += ledger.accept(json.loads(json.dumps(chain[i])))
    assert kept == chain and ledger.entries == chain
    assert ledger.problem is None and ledger.duplicates == len(dupes) and not ledger.pending


def test_a_gap_waits_and_is_asked_for_after_a_stall(chain):
    towers = Towers("s", replay_in_thread=False)
    for e in chain[:3] + chain[5:7]:
        towers.handle("dicetower/s/t/log", log_message("s", "t", e))
    ledger = towers.ledgers["s/t"]
    assert len(ledger.entries) == 3 and sorted(ledger.pending) == [6, 7] and ledger.missing == 2
    now = ledger.progress_at
    assert towers.resend_requests(now) == []  # entries may still be on their way
    assert towers.resend_requests(now + STALL_S) == [("s", "t", 4, 5)]  # just the gap
    assert towers.resend_requests(now + STALL_S + 0.1) == []  # asked; the answer may be on its way
    assert towers.resend_requests(now + STALL_S + ASK_AGAIN_S) == [("s", "t", 4, 5)]
    for e in chain[3:5]:
        towers.handle("dicetower/s/t/log", log_message("s", "t", e))
    assert len(ledger.entries) == 7 and not ledger.pending and ledger.problem is None


def test_status_says_what_exists_and_the_will_keeps_the_rest(chain):
    towers = Towers(None, replay_in_thread=False)
    body = {"state": "online", "store": "s", "tower": "t", "seq": 12}
    towers.handle("dicetower/s/t/status", json.dumps(body).encode())
    ledger = towers.ledgers["s/t"]
    assert ledger.online and ledger.wanted == 12
    towers.handle("dicetower/s/t/status", json.dumps({"state": "offline", "store": "s", "tower": "t"}).encode())
    assert not ledger.online and ledger.wanted == 12
    towers.handle("dicetower/s/t/status", b"not json")
    assert ledger.problem == "a status message that is not a JSON object"


@pytest.mark.parametrize(("payload", "problem"), [
    (b"{}", "a log message that is not {store, tower, entry}"),
    (json.dumps({"store": "s", "tower": "t", "entry": {"seq": "1"}}).encode(), "a log message without a log entry"),
    (json.dumps({"store": "x", "tower": "t", "entry": {"seq": 1}}).encode(),
     "entry 1: published on s/t's topic but says it is from x/t"),
])
def test_malformed_messages_are_problems(payload, problem):
    towers = Towers(None, replay_in_thread=False)
    towers.handle("dicetower/s/t/log", payload)
    assert towers.ledgers["s/t"].problem.startswith(problem)
    assert towers.ledgers["s/t"].entries == []


def test_other_stores_and_topics_are_ignored():
    towers = Towers("s", replay_in_thread=False)
    towers.handle("dicetower/other/t/log", b"{}")
    towers.handle("dicetower/s/t/resend", b"{}")
    towers.handle("elsewhere/s/t/log", b"{}")
    assert towers.ledgers == {}


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
    d = stats.to_dict()["d6cv"]
    assert d["rolls"] == 3
    assert d["outcomes"]["success"] == {"observed": 1, "expected": 1.0, "sd": pytest.approx(0.816, abs=1e-3),
                                        "z": 0.0}
    assert d["outcomes"]["failure"]["observed"] == 2 and d["outcomes"]["failure"]["expected"] == 2.0
