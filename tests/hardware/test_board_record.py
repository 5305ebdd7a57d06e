"""The board's record on disk (SQLite under --data): a restart keeps every verdict and every
tower's history, shows offline towers, and asks each tower only for what it lacks; a second
board on the same record is refused; the record's memory does not grow with the entries."""

from __future__ import annotations

import json

import pytest

from bench.sim_towers import SimTower
from hardware.board import BoardError
from hardware.board.towers import Towers
from hardware.files.rolllog import read_entries
from hardware.network.topics import log_message
from tests.hardware.netparts import Collector, running_board, wait_for

STORE = "shop1"


def settled(board, name: str, seq: int) -> bool:
    board.towers.check_now()
    card = board.card(name)
    return card is not None and card["seq"] == seq and not card["replay_pending"] and not card["missing"]


def test_a_restart_keeps_verdicts_and_history_and_asks_only_for_what_is_missing(broker, tmp_path):
    data = tmp_path / "record"
    honest = SimTower(tmp_path / "honest", broker.url, STORE, "honest", session_rolls=3)
    gone = SimTower(tmp_path / "gone", broker.url, STORE, "gone", session_rolls=3)
    asks = Collector(broker.port, "dicetower/+/+/resend")
    forger = Collector(broker.port, "dicetower/none")
    try:
        with running_board(broker.url, STORE, data=data) as board:
            for _ in range(7):
                honest.roll()
                gone.roll()
            last = honest.roll()
            wait_for(lambda: settled(board, "honest", last["seq"]), what="honest settled")
            forged = {**json.loads(json.dumps(last)), "seq": last["seq"] + 1, "prev": last["hash"], "kind": "roll"}
            forger.client.publish(f"dicetower/{STORE}/liar/log", log_message(STORE, "liar", forged), qos=1)
            wait_for(lambda: any(i["tower"] == "liar" for i in board.get("/api/towers")), what="liar")
            gone.close()  # reveals its session and says offline
            gone_head = [s.entry for s in read_entries(gone.log_path)][-1]["seq"]
            wait_for(lambda: settled(board, "gone", gone_head), what="gone settled")
            before = {c["tower"]: c for c in (board.get(f"/api/towers/{n}") for n in ("honest", "gone", "liar"))}
            summary_before = board.get("/api/towers")
            stats_before = board.get("/api/stats")
            rolls_before = board.get("/api/towers/gone/rolls")
        head = before["honest"]["seq"]
        for _ in range(4):  # rolls while no board listens
            honest.roll()
        with asks.lock:
            asks.messages.clear()
        with running_board(broker.url, STORE, data=data) as board:
            after = board.get("/api/towers")
            assert [(i["tower"], i["verified"], i["problem"], i["rolls"]) for i in after] == \
                   [(i["tower"], i["verified"], i["problem"], i["rolls"]) for i in summary_before]
            assert board.get("/api/towers/gone/rolls") == rolls_before  # an offline tower keeps its history
            gone_card = board.get("/api/towers/gone")
            assert not gone_card["online"] and gone_card["checked"] == before["gone"]["checked"]
            assert board.get("/api/stats") == stats_before
            assert board.get("/api/towers/liar")["problem"] == before["liar"]["problem"]
            now_head = [s.entry for s in read_entries(honest.log_path)][-1]["seq"]
            wait_for(lambda: settled(board, "honest", now_head), what="the rolls made meanwhile")
            with asks.lock:
                requests = [body for topic, body, _ in asks.messages if topic.endswith("/honest/resend")]
            # only what it lacks: the first ask starts right after the head it kept; a roll that
            # arrives live meanwhile may split the rest into more asks, none for what it holds
            assert requests and min(r["from"] for r in requests) == head + 1, requests
            assert all(r["from"] > head for r in requests), requests
            assert not [t for t, _, _ in asks.messages if t.endswith("/gone/resend")]
    finally:
        honest.close(timeout=1.0)
        asks.close()
        forger.close()


def test_a_second_board_on_the_same_record_is_refused(tmp_path):
    first = Towers(tmp_path / "record", verifier=False)
    try:
        with pytest.raises(BoardError, match=r"another board is using .*; give each board its own --data"):
            Towers(tmp_path / "record", verifier=False)
    finally:
        first.close()
    Towers(tmp_path / "record", verifier=False).close()  # free again


def test_a_record_that_is_not_a_database_is_one_line(tmp_path, capsys):
    from hardware.cli import main

    (tmp_path / "record").mkdir()
    (tmp_path / "record" / "board.sqlite3").write_bytes(b"not a database, just some bytes" * 100)
    assert main(["board", "--mqtt", "mqtt://127.0.0.1:1", "--data", str(tmp_path / "record")]) == 4
    err = capsys.readouterr().err
    assert err.startswith("dicetower: cannot record: --data: cannot use the board's record ") and err.count("\n") == 1
    assert "damaged (not an SQLite database)" in err and "keep it as evidence" in err
