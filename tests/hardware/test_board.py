"""The board against a real Mosquitto broker and real simulated towers: the API, dedupe,
late start, forged entries, topic/tower mismatch, the event stream; and its command line."""

from __future__ import annotations

import http.client
import json
import urllib.error
from pathlib import Path

import pytest

from bench.sim_towers import SimTower
from hardware.files.rolllog import entry_hash, read_entries
from hardware.network.topics import log_message
from tests.hardware.netparts import Collector, running_board, sim_towers, wait_for

STORE = "shop1"


@pytest.fixture
def board(broker):
    with running_board(broker.url, STORE) as b:
        yield b


@pytest.fixture
def towers(broker, tmp_path):
    with sim_towers(broker.url, STORE, tmp_path) as make:
        yield make


@pytest.fixture
def raw(broker):
    c = Collector(broker.port, "dicetower/none")
    try:
        yield c
    finally:
        c.close()


def tower_item(board, name: str) -> dict | None:
    return next((t for t in board.get("/api/towers") if t["tower"] == name), None)


def settled(board, name: str, rolls: int) -> dict | None:
    """The tower's API item once it shows ``rolls`` rolls and its replays are done."""
    board.towers.wait_replays()
    item = tower_item(board, name)
    if item is None or item["rolls"] != rolls:
        return None
    card = board.get(f"/api/towers/{name}")
    return item if not card["replay_pending"] and not card["missing"] else None


def test_api_lists_every_tower_verified_with_its_rolls_oldest_first(board, towers, tmp_path):
    a, b = towers("table1", session_rolls=3), towers("table2", session_rolls=4)
    for _ in range(7):
        a.roll()
        b.roll()
    wait_for(lambda: settled(board, "table1", 7) and settled(board, "table2", 7), what="both towers settled")
    items = board.get("/api/towers")
    assert [sorted(i) for i in items] == [["online", "problem", "rolls", "sessions", "state", "store", "tower",
                                           "unchecked", "verified"]] * 2
    assert [(i["tower"], i["store"], i["online"], i["rolls"], i["sessions"], i["verified"], i["state"], i["problem"])
            for i in items] == [("table1", STORE, True, 7, 3, True, "verified", None),
                                ("table2", STORE, True, 7, 2, True, "verified", None)]
    assert [i["unchecked"] for i in items] == [1, 3]  # table1's third session, table2's second, still open
    rolls = board.get("/api/towers/table1/rolls")
    logged = [s.entry for s in read_entries(tmp_path / "table1" / "rolls.jsonl") if s.entry["kind"] == "roll"]
    assert rolls == logged  # the entries exactly as the tower logged them, oldest first
    card = board.get("/api/towers/table1")
    assert card["revealed"] == 2 and card["open_sessions"] == 1  # 3 + 3 rolls revealed, 1 roll open
    assert card["last"][0]["seq"] == logged[-1]["seq"] and card["system"] == logged[-1]["result"]["system"]
    assert len(card["commitment"]) == 64
    # the simulated tower sets no table seed: its sessions are flagged, their rolls shown apart
    assert card["checked"] == {"verified": 6, "unchecked": 1, "entered": 0, "test": 0, "flags": {"no-table-seed": 2}}
    assert [r["check"] for r in card["last"]] == ["unchecked"] + ["uncoded"] * 6
    assert all(r["name"] == f"#{r['number']} {r_hash[:16]}" for r, r_hash in
               zip(card["last"], [e["hash"] for e in reversed(logged)], strict=False))
    stats = board.get("/api/stats")
    assert sum(s["rolls"] for s in stats.values()) == 6 + 4  # verified rolls only: the open sessions' wait
    d6 = stats["d6cv"]["outcomes"]
    assert d6["success"]["observed"] + d6["failure"]["observed"] == stats["d6cv"]["rolls"]
    # d6cv stat 3 against cv 7 succeeds on 4+ on... whatever the engine says: expected = n * p exactly
    assert d6["success"]["expected"] == pytest.approx(stats["d6cv"]["rolls"] / 3, abs=1e-3)


def test_unknown_and_ambiguous_towers_are_named(board):
    with pytest.raises(urllib.error.HTTPError) as err:
        board.get("/api/towers/nobody/rolls")
    assert err.value.code == 404 and "no tower 'nobody'" in json.loads(err.value.read())["error"]


def test_duplicates_are_dropped_by_seq_and_hash(board, towers, raw):
    t = towers("table1")
    entry = t.roll()
    wait_for(lambda: (tower_item(board, "table1") or {}).get("rolls") == 1, what="the roll")
    for _ in range(3):
        raw.client.publish(f"dicetower/{STORE}/table1/log", log_message(STORE, "table1", entry), qos=1)
    wait_for(lambda: board.get("/api/towers/table1")["duplicates"] == 3, what="3 duplicates dropped")
    item = tower_item(board, "table1")  # its one roll's session is open: unchecked, and no problem
    assert (item["state"], item["problem"], item["rolls"]) == ("unchecked", None, 1)
    assert len(board.get("/api/towers/table1/rolls")) == 1


def test_a_forged_entry_turns_the_tower_red_and_is_not_data(board, towers, raw):
    t = towers("table1")
    t.roll()
    entry = t.roll()
    wait_for(lambda: (tower_item(board, "table1") or {}).get("rolls") == 2, what="two rolls")
    forged = json.loads(json.dumps(entry))
    forged["seq"] += 1
    forged["prev"] = entry["hash"]
    forged["result"]["outcome"] = "success"  # a roll nobody rolled, its hash not even recomputed
    raw.client.publish(f"dicetower/{STORE}/table1/log", log_message(STORE, "table1", forged), qos=1)
    item = wait_for(lambda: (i := tower_item(board, "table1")) and i["problem"] and i, what="the red badge")
    assert item["verified"] is False
    assert item["problem"].startswith(f"entry {forged['seq']}: its content does not match its own hash")
    assert len(board.get("/api/towers/table1/rolls")) == 2  # the forged roll is not shown as a roll


def test_a_forgery_sent_first_is_evidence_and_the_honest_tower_goes_on(board, towers, raw):
    """A forged entry with a valid hash, published ahead of the tower's own entry for that
    seq: red with "conflicting entries at seq N", both kept as evidence, neither shown as the
    tower's roll, and the tower's later entries still arrive, chain and show."""
    t = towers("table1", session_rolls=100)
    t.roll()
    real = t.roll()
    wait_for(lambda: (tower_item(board, "table1") or {}).get("rolls") == 2, what="two rolls")
    # the next entry, forged before the tower writes its own: a perfect continuation of the chain
    forged = {**json.loads(json.dumps(real)), "seq": real["seq"] + 1, "prev": real["hash"]}
    forged["result"]["dice"] = [6]
    forged["hash"] = entry_hash(forged)
    raw.client.publish(f"dicetower/{STORE}/table1/log", log_message(STORE, "table1", forged), qos=1)
    wait_for(lambda: (tower_item(board, "table1") or {}).get("rolls") == 3, what="the forgery taken in")
    honest = t.roll()  # the tower's real entry at that seq
    item = wait_for(lambda: (i := tower_item(board, "table1")) and i["problem"] and i, what="the red badge")
    seq = forged["seq"]
    assert item["problem"].startswith(f"entry {seq}: conflicting entries at seq {seq} ")
    assert "both kept as evidence, neither adopted" in item["problem"]
    later = [t.roll() for _ in range(3)]
    wait_for(lambda: board.get("/api/towers/table1")["seq"] == later[-1]["seq"], what="the later entries chained")
    card = board.get("/api/towers/table1")
    assert [r["seq"] for r in card["last"][:3]] == [e["seq"] for e in reversed(later)]
    shown = [e["seq"] for e in board.get("/api/towers/table1/rolls")]
    assert seq not in shown and shown == [2, 3, *(e["seq"] for e in later)]  # neither entry adopted
    evidence = board.get("/api/towers/table1/evidence")
    assert sorted(e["hash"] for e in evidence["conflicting"]) == sorted([forged["hash"], honest["hash"]])
    assert board.get("/api/towers/table1")["problem"] == item["problem"]  # red for good


def test_a_rehashed_forged_log_fails_the_replay(board, broker, tmp_path, raw):
    """A 'tower' that rewrites a roll and re-hashes its whole chain: the chain checks, the
    revealed seed does not give that roll."""
    t = SimTower(tmp_path / "honest", broker.url, STORE, "honest", session_rolls=3, start=False)
    for _ in range(3):
        t.roll()
    t.dice.close()
    entries = [s.entry for s in read_entries(t.log_path)]
    target = next(e for e in entries if e["kind"] == "roll")
    target["result"]["outcome"] = "forged"
    prev = "0" * 64
    for e in entries:
        e["prev"] = prev
        e["hash"] = entry_hash(e)
        prev = e["hash"]
    for e in entries:
        raw.client.publish(f"dicetower/{STORE}/liar/log", log_message(STORE, "liar", e), qos=1)
    item = wait_for(lambda: (i := tower_item(board, "liar")) and i["problem"] and i, what="the replay's verdict")
    assert item["problem"].startswith(f"replay: entry {target['seq']}:")
    assert "does not match the revealed seed" in item["problem"]


def test_a_topic_tower_mismatch_is_red_never_data(board, towers, raw):
    t = towers("table1")
    entry = t.roll()
    wait_for(lambda: tower_item(board, "table1"), what="table1")
    # table2's topic, but the message says it is table1's entry (replaying another tower's log)
    raw.client.publish(f"dicetower/{STORE}/table2/log", log_message(STORE, "table1", entry), qos=1)
    item = wait_for(lambda: (i := tower_item(board, "table2")) and i["problem"] and i, what="table2 red")
    assert item["problem"] == f"entry {entry['seq']}: published on {STORE}/table2's topic but says it is from " \
                              f"{STORE}/table1"
    assert item["rolls"] == 0 and board.get("/api/towers/table2/rolls") == [] and item["state"] == "red"
    assert tower_item(board, "table1")["state"] == "unchecked"  # not red: the lie is table2's finding


def test_a_board_started_late_gets_the_history_by_asking(broker, towers):
    t = towers("table1", session_rolls=2)
    for _ in range(5):
        t.roll()
    head = [s.entry for s in read_entries(t.log_path)][-1]["seq"]  # 3 sessions, 2 reveals, 5 rolls
    wait_for(lambda: t.publisher.cursor.seq == head == 10, what="the tower's log acknowledged")
    with running_board(broker.url, STORE) as board:
        item = wait_for(lambda: settled(board, "table1", 5), timeout=20, what="the history")
        assert item["verified"] and item["sessions"] == 3
        assert board.subscriber.resends >= 1


def test_the_event_stream_sends_a_snapshot_then_changes(board, towers):
    t = towers("table1")
    t.roll()
    wait_for(lambda: tower_item(board, "table1"), what="table1")
    host, port = board.base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", "/events")
        resp = conn.getresponse()
        assert resp.status == 200 and resp.getheader("content-type").startswith("text/event-stream")

        def event() -> tuple[str, object]:
            name, data = "", ""
            while True:
                line = resp.readline().decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif line == "" and name:
                    return name, json.loads(data)

        first = event()
        assert first[0] == "board" and first[1]["state"] == "live", first
        name, cards = event()
        assert name == "snapshot" and [c["tower"] for c in cards] == ["table1"], (name, cards)
        entry = t.roll()
        while True:
            name, card = event()
            if name == "tower" and card["last"] and card["last"][0]["seq"] == entry["seq"]:
                break
        assert card["rolls"] == 2 and card["state"] == "unchecked" and card["problem"] is None, card
    finally:
        conn.close()


def test_page_and_overlay_are_served(board):
    import urllib.request

    with urllib.request.urlopen(board.base + "/") as r:
        page = r.read().decode()
    with urllib.request.urlopen(board.base + "/overlay?tower=table1") as r:
        overlay = r.read().decode()
    assert "/static/board.js" in page and "/static/overlay.js" in overlay
    with urllib.request.urlopen(board.base + "/static/overlay.css") as r:
        assert "background: transparent" in r.read().decode()


# --- the command line ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (["--mqtt", "http://x"], "--mqtt: expected mqtt://HOST[:PORT]"),
    (["--mqtt", "mqtt://x", "--listen", "8080"], "--listen: expected HOST:PORT"),
    (["--mqtt", "mqtt://x", "--listen", "127.0.0.1:99999"], "--listen: expected HOST:PORT"),
    (["--mqtt", "mqtt://x", "--store", "a/b"], "--store: expected 1 to 64 letters"),
    (["--mqtt", "mqtt://x", "--password-file", "/nonexistent/pw"], "--password-file: cannot read /nonexistent/pw"),
    (["--mqtt", "mqtts://x", "--ca-file", "/nonexistent/ca.pem"], "--ca-file: no such file /nonexistent/ca.pem"),
])
def test_board_option_errors_are_one_line(args, message, capsys):
    from hardware.cli import main

    assert main(["board", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_busy_port_is_one_line(capsys):
    import socket

    from hardware.cli import main

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        assert main(["board", "--mqtt", "mqtt://127.0.0.1:1", "--listen", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert f"--listen: cannot listen on 127.0.0.1:{port}: Address already in use" in err


def test_board_defaults_to_localhost():
    from hardware.board.serve import DEFAULT_LISTEN, parse_listen

    assert DEFAULT_LISTEN.startswith("127.0.0.1:")
    assert str(parse_listen("[::1]:8080")) == "[::1]:8080"
    assert Path(__file__).exists()


# --- never deaf --------------------------------------------------------------------------------------------


def test_100000_brackets_never_make_the_board_deaf(board, towers, raw):
    t = towers("table1", session_rolls=4)
    t.roll()
    wait_for(lambda: (tower_item(board, "table1") or {}).get("rolls") == 1, what="the first roll")
    raw.client.publish(f"dicetower/{STORE}/table1/log", b"[" * 100_000, qos=1)
    item = wait_for(lambda: (i := tower_item(board, "table1")) and i["problem"] and i, what="the red badge")
    assert item["problem"] == "a message nested 100000 levels deep, more than the 32 allowed"
    later = [t.roll() for _ in range(5)]
    wait_for(lambda: board.get("/api/towers/table1")["seq"] == later[-1]["seq"], what="the rolls after it")
    assert board.get("/api/towers/table1")["last"][0]["seq"] == later[-1]["seq"]
    assert board.subscriber.restarts == 0 and board.towers.internal_errors == 0


@pytest.mark.parametrize("params", ["stat 3 cv 7", [3, 7]], ids=["string", "list"])
def test_a_hashed_roll_with_params_of_the_wrong_type_is_red_and_the_board_goes_on(board, towers, raw, params):
    t = towers("table1", session_rolls=4)
    t.roll()
    liar = {"seq": 1, "prev": "0" * 64, "kind": "roll", "time": "2026-12-01T20:00:00.000Z",
            "session": "0011223344556677", "roll_kind": "rolled", "mix": "00", "start": 0, "end": 1,
            "result": {"system": "d6cv", "params": params, "dice": [6], "outcome": "success", "total": 9,
                       "success": True}}
    liar["hash"] = entry_hash(liar)
    raw.client.publish(f"dicetower/{STORE}/liar/log", log_message(STORE, "liar", liar), qos=1)
    item = wait_for(lambda: (i := tower_item(board, "liar")) and i["problem"] and i, what="liar red")
    kind = "a string ('stat 3 cv 7')" if isinstance(params, str) else "a list of 2"
    assert item["problem"] == f"entry 1: result.params is {kind}, expected an object"
    later = [t.roll() for _ in range(5)]
    wait_for(lambda: board.get("/api/towers/table1")["seq"] == later[-1]["seq"], what="table1 goes on")
    board.towers.check_now()
    assert tower_item(board, "table1")["verified"] is True
    liar_card = board.get("/api/towers/liar")
    assert liar_card["params"] == {} and liar_card["stats"] == {}  # shown as nothing, counted nowhere
    assert board.get("/api/stats")  # the statistics still answer
    assert board.subscriber.restarts == 0 and board.towers.internal_errors == 0


def test_a_stopped_mqtt_loop_is_started_again_and_the_page_says_so(board, towers):
    t = towers("table1")
    t.roll()
    wait_for(lambda: (tower_item(board, "table1") or {}).get("rolls") == 1, what="the first roll")
    client = board.subscriber._client
    handler = client.on_message
    calls = []

    def fails_once(c, userdata, message):
        if not calls:
            calls.append(message.topic)
            raise RuntimeError("a callback bug")
        handler(c, userdata, message)

    client.on_message = fails_once
    t.roll()  # its message stops paho's loop (the exception leaves loop_forever)
    wait_for(lambda: board.subscriber.restarts == 1, what="the loop started again")
    later = [t.roll() for _ in range(3)]
    wait_for(lambda: board.get("/api/towers/table1")["seq"] == later[-1]["seq"], what="entries after the restart")
    assert board.get("/api/board")["restarts"] == 1


# --- stopping -------------------------------------------------------------------------------------------------


def _children(pid: int) -> set[int]:
    """Every process below ``pid`` (children, grandchildren), from /proc."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = {int(k) for k in (task / "children").read_text().split()}
            except OSError:
                continue
            todo += list(kids - found)
            found |= kids
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_sigterm_and_sigint_stop_the_board_and_every_child(broker, towers, tmp_path, sig):
    import signal
    import subprocess
    import sys
    import urllib.request

    from tests.hardware.netparts import free_port

    t = towers("table1", session_rolls=2)
    for _ in range(3):
        t.roll()
    port = free_port()
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "hardware", "board", "--mqtt", broker.url, "--store", STORE,
                             "--listen", f"127.0.0.1:{port}", "--data", str(tmp_path / "record")],
                            cwd=repo, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        def rolls() -> int:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/towers", timeout=2) as r:
                    return sum(i["rolls"] for i in json.loads(r.read()))
            except OSError:
                return 0

        wait_for(lambda: rolls() == 3, timeout=30, what="the board serving table1's rolls")
        children = wait_for(lambda: _children(proc.pid), what="the verifier's process")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)  # an open event stream too
        conn.request("GET", "/events")
        assert conn.getresponse().status == 200
        proc.send_signal(getattr(signal, sig))  # to the board alone, as `kill` or systemd does
        assert proc.wait(15) == 0
        conn.close()
        wait_for(lambda: not any(_alive(c) for c in children), timeout=5, what="every child gone")
        err = proc.stderr.read().decode()
        assert "Traceback" not in err and "board: stopped" in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        proc.stderr.close()
