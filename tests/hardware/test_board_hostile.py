"""Hostile towers on a real Mosquitto against the board: nothing a tower sends stops the board
or another tower's verification (issue 27).

The three messages that once silenced the board are regression cases here: a roll whose
``result.system`` is a lone surrogate (valid hash, the rogue tower's own topic), a status
whose ``tower`` is ``"\\ud800"`` sent every 0.1 s, and an entry with ``seq`` 10**30; retained
and repeated ones too. Then a property test: hypothesis-generated hostile messages between
honest towers' rolls, and every honest tower must still end with every entry held and every
revealed roll verified (its example count is small so CI stays quick; it takes about
half a minute)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.sim_towers import SimTower
from hardware.board.verdict import check_tower
from hardware.files.rolllog import GENESIS, entry_hash
from hardware.files.state import MAX_PLAYER
from tests.hardware import netparts
from tests.hardware.forgeries import read, rehash
from tests.hardware.netparts import Collector, finish, running_board, running_broker, sim_towers, wait_for
from tests.support import require_command

STORE = "shop1"
#: Examples of the property test: few, for CI (``DICETOWER_HOSTILE_EXAMPLES=200`` for a long run).
EXAMPLES = int(os.environ.get("DICETOWER_HOSTILE_EXAMPLES", "8"))


@pytest.fixture
def raw(broker):
    c = Collector(broker.port, "dicetower/none")
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def towers(broker, tmp_path):
    with sim_towers(broker.url, STORE, tmp_path) as make:
        yield make


def rogue_log(tmp_path: Path, edit, *, rolls: int = 4) -> list[dict[str, Any]]:
    """A real tower's log (not published), one roll edited by ``edit`` and the chain rehashed:
    every hash valid, as a rogue tower that wrote it would publish it."""
    t = SimTower(tmp_path / "rogue-state", "mqtt://127.0.0.1:1", STORE, "rogue", session_rolls=3, start=False)
    for _ in range(rolls):
        t.roll()
    t.dice.close()
    t.publisher.close(0.0)
    entries = read(tmp_path / "rogue-state" / "rolls.jsonl")
    edit(next(e for e in entries if e["kind"] == "roll"))
    return rehash(entries)


def publish(raw: Collector, tower: str, kind: str, payload: bytes | dict[str, Any], *, retain: bool = False) -> None:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    raw.client.publish(f"dicetower/{STORE}/{tower}/{kind}", body, qos=1, retain=retain).wait_for_publish(10)


def log_payload(tower: str, entry: dict[str, Any]) -> dict[str, Any]:
    return {"store": STORE, "tower": tower, "entry": entry}


def all_verified(board, tower: SimTower) -> bool:
    return netparts.all_verified(board, tower, STORE)



def replay_problem(entries: list[dict[str, Any]]) -> str | None:
    """What ``dicetower replay``'s verifier says first of these entries (None: clean)."""
    class Entries:
        def between(self, first: int, last: int):
            return [e for e in entries if first <= e["seq"] <= last]

    checked = check_tower(Entries(), None, len(entries))
    return str(checked.problems[0]) if checked.problems else None


# --- the three messages ------------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_roll_is_the_rogue_towers_finding_and_stops_nobody(board, towers, raw, tmp_path):
    honest = [towers(name, session_rolls=3) for name in ("table1", "table2")]
    for t in honest:
        for _ in range(2):
            t.roll()
    rogue = rogue_log(tmp_path, lambda e: e["result"].__setitem__("system", "\udfff"))
    for entry in rogue:
        publish(raw, "rogue", "log", log_payload("rogue", entry))
    for t in honest:
        for _ in range(4):
            t.roll()
        finish(t)
    for t in honest:
        wait_for(lambda t=t: all_verified(board, t), timeout=30, what=f"{t.tower} verified")
    item = wait_for(lambda: next((i for i in board.get("/api/towers") if i["tower"] == "rogue" and i["problem"]),
                                 None), what="the rogue tower red")
    assert item["rolls"] == sum(1 for e in rogue if e["kind"] == "roll")  # stored faithfully, all of it
    said = replay_problem(rogue)  # replay's own words; the board's are the same, the surrogate shown escaped
    assert said is not None and "\udfff" in said
    assert item["problem"] == "replay: " + said.replace("\udfff", "\\udfff")
    state = board.get("/api/board")
    assert state["state"] == "live" and state["internal_errors"] == 0
    assert board.get("/api/towers/rogue/rolls")[0]["result"]["system"] == "\udfff"  # exactly as logged


def test_a_status_naming_a_surrogate_tower_every_tenth_of_a_second_never_makes_the_board_deaf(board, towers, raw):
    honest = towers("table1", session_rolls=10)
    stop = threading.Event()
    sent = [0]

    def flood() -> None:
        while not stop.wait(0.1):
            publish(raw, "rogue", "status", {"state": "online", "store": STORE, "tower": "\ud800"})
            sent[0] += 1

    flooder = threading.Thread(target=flood, daemon=True)
    flooder.start()
    try:
        wait_for(lambda: sent[0] >= 3, what="the flood under way")
        for _ in range(30):
            honest.roll()
        finish(honest)
        wait_for(lambda: all_verified(board, honest), timeout=30, what="every honest entry held and verified")
    finally:
        stop.set()
        flooder.join(5)
    rogue = board.get("/api/towers/rogue")
    assert "\\ud800" in rogue["problem"] and not rogue["verified"]  # the rogue's own finding, escaped
    assert board.get("/api/board")["internal_errors"] == 0


def test_an_entry_with_seq_10_to_the_30_is_refused_as_the_rogue_towers_finding(board, towers, raw):
    honest = towers("table1", session_rolls=3)
    honest.roll()
    entry = {"seq": 10**30, "prev": GENESIS, "kind": "roll", "time": "2026-12-01T08:00:00.000Z",
             "result": {"system": "d6cv", "params": {}, "outcome": "success"}}
    entry["hash"] = entry_hash(entry)
    publish(raw, "rogue", "log", log_payload("rogue", entry))
    publish(raw, "rogue", "status", {"state": "online", "store": STORE, "tower": "rogue", "seq": 10**30})
    for _ in range(3):
        honest.roll()
    finish(honest)
    wait_for(lambda: all_verified(board, honest), timeout=30, what="the honest tower verified")
    rogue = wait_for(lambda: (r := board.get("/api/towers/rogue")) and r["problems"] >= 2 and r, what="two findings")
    assert "1000000000000000000000000000000" in rogue["problem"] and not rogue["verified"]
    evidence = board.get("/api/towers/rogue/evidence")
    assert len(evidence["rejected"]) == 2 and board.get("/api/board")["internal_errors"] == 0


def test_retained_and_repeated_hostile_messages_drop_nothing_of_their_batch(broker, raw, tmp_path):
    """Retained messages all arrive at once when the board subscribes: one hostile message
    among them keeps nothing else out (the issue's 7 of 14)."""
    honest = [SimTower(tmp_path / f"table{i}", broker.url, STORE, f"table{i}", session_rolls=2) for i in range(4)]
    try:
        for t in honest:
            for _ in range(3):
                t.roll()
            finish(t)
        for n in range(5):
            publish(raw, f"rogue{n}", "status", {"state": "online", "store": STORE, "tower": "\ud800", "seq": 10**30},
                    retain=True)
        with running_board(broker.url) as board:
            for t in honest:
                wait_for(lambda t=t: all_verified(board, t), timeout=30, what=f"{t.tower} verified")
            for n in range(3):  # three more: each is the rogue's finding too, bounded
                publish(raw, "rogue0", "status", {"state": "online", "store": STORE, "tower": "\ud800", "n": n})
            publish(raw, "rogue0", "status", {"state": "online", "store": STORE, "tower": "\ud800", "n": 0})  # again
            publish(raw, "rogue0", "status", {"state": "online", "store": STORE, "tower": "\ud800", "n": 3})
            wait_for(lambda: board.get("/api/towers/rogue0")["problems"] >= 5, what="the repeats counted")
            assert board.get("/api/towers/rogue0")["problems"] == 5  # the same message again is not a new one
            assert board.get("/api/board")["internal_errors"] == 0
            assert all(not board.get(f"/api/towers/rogue{n}")["verified"] for n in range(5))
    finally:
        for t in honest:
            t.close(timeout=1.0)
        for n in range(5):
            raw.client.publish(f"dicetower/{STORE}/rogue{n}/status", b"", qos=1, retain=True).wait_for_publish(10)


# --- values no tower can send (issue 43) ------------------------------------------------------------------------


def test_a_status_claiming_seq_10_to_the_9_is_a_finding_not_a_missing_count(board, towers, raw):
    """A tower's log grows by one entry per roll, session and reveal: a status saying it reached
    seq 10**9 while the board holds 7 of its entries is no status a tower can send. It is a
    finding against that tower (not "missing 999,999,993"), and the tower next to it verifies."""
    liar, honest = towers("liar", session_rolls=3), towers("table1", session_rolls=3)
    for t in (liar, honest):
        for _ in range(3):
            t.roll()
    finish(liar)
    wait_for(lambda: all_verified(board, liar), timeout=30, what="the liar verified first")
    publish(raw, "liar", "status", {"state": "online", "store": STORE, "tower": "liar", "seq": 10**9,
                                    "rolls": 10**9, "head": "0" * 64})
    card = wait_for(lambda: (c := board.get("/api/towers/liar")) and c["problem"] and c, what="the liar's finding")
    assert card["problem"] == ("a status message whose seq is 1000000000, more than 1,000,000 entries past the last "
                               f"entry the board holds of this tower (entry {card['seq']}): no tower can be that far "
                               "ahead")
    assert card["missing"] == 0 and card["state"] == "red" and not card["verified"]
    finish(honest)
    wait_for(lambda: all_verified(board, honest), timeout=30, what="the honest tower verified")
    assert not board.get("/api/towers/liar")["verified"]  # a later honest status does not take it back
    assert board.get("/api/board")["internal_errors"] == 0


def test_an_entry_a_million_past_the_head_is_a_finding_and_nothing_waits_for_it(board, towers, raw):
    liar = towers("liar", session_rolls=3)
    liar.roll()
    finish(liar)
    wait_for(lambda: all_verified(board, liar), timeout=30, what="the liar verified first")
    head = board.get("/api/towers/liar")["seq"]
    entry = {"seq": head + 1_000_001, "prev": "0" * 64, "kind": "roll", "time": "2026-12-01T08:00:00.000Z",
             "result": {"system": "d6cv", "params": {}, "outcome": "success"}}
    entry["hash"] = entry_hash(entry)
    publish(raw, "liar", "log", log_payload("liar", entry))
    card = wait_for(lambda: (c := board.get("/api/towers/liar")) and c["problem"] and c, what="the liar's finding")
    assert card["problem"].startswith(f"entry {head + 1_000_001}: its seq is {head + 1_000_001}, more than 1,000,000 "
                                      "entries past the last entry")
    assert card["missing"] == 0 and card["state"] == "red"


def test_a_board_started_empty_beside_a_longer_log_catches_up_and_takes_the_finding_back(broker, tmp_path,
                                                                                         monkeypatch):
    """The window is counted from what the board holds: a board started with an empty record
    beside a tower whose log is longer than the window (here 5 entries, for the test) finds
    its status too far ahead, asks for its log a window at a time, and takes the finding back
    once it holds enough of it; the tower ends verified."""
    import hardware.board.ledger
    import hardware.board.messages

    monkeypatch.setattr(hardware.board.ledger, "MAX_AHEAD", 5)
    monkeypatch.setattr(hardware.board.messages, "MAX_AHEAD", 5)
    old = SimTower(tmp_path / "old", broker.url, STORE, "old", session_rolls=3)
    try:
        for _ in range(9):
            old.roll()
        finish(old)  # 3 sessions: 15 entries, published before any board listens
        with running_board(broker.url, STORE) as board:
            wait_for(lambda: all_verified(board, old), timeout=30, what="the old tower caught up and verified")
            card = board.get("/api/towers/old")
            assert card["problem"] is None and card["problems"] == 0 and card["state"] == "verified"
            kept = board.get("/api/towers/old/evidence")["rejected"]  # the status it did not believe at first
            assert [e["seq"] for e in kept] == [15] and json.loads(kept[0]["message"])["seq"] == 15
    finally:
        old.close(timeout=1.0)


def test_a_roll_whose_player_is_10_to_the_40_is_a_finding_and_stops_nobody(board, towers, raw, tmp_path):
    """A tower logs its player slot, 1 to hardware.files.state.MAX_PLAYER (99): a roll with player
    10**40 (its hash valid) is the rogue tower's finding; the honest tower verifies."""
    honest = towers("table1", session_rolls=3)
    honest.roll()
    rogue = rogue_log(tmp_path, lambda e: e.__setitem__("player", 10**40))
    for entry in rogue:
        publish(raw, "rogue", "log", log_payload("rogue", entry))
    for _ in range(3):
        honest.roll()
    finish(honest)
    wait_for(lambda: all_verified(board, honest), timeout=30, what="the honest tower verified")
    board.towers.check_now()
    card = wait_for(lambda: (c := board.get("/api/towers/rogue")) and c["problem"] and c, what="the rogue red")
    seq = next(e["seq"] for e in rogue if e.get("player") == 10**40)
    assert card["problem"] == (f"entry {seq}: player is a number ({'1' + '0' * 18}…), expected a player from 1 "
                               f"to {MAX_PLAYER} or null")
    assert card["state"] == "red" and card["checked"]["verified"] < card["rolls"]
    assert board.get("/api/board")["internal_errors"] == 0


def test_a_retained_junk_status_is_one_finding_across_restarts(broker, raw, tmp_path):
    """The broker hands a retained message to every new subscription: the board restarted on
    its record hears it again, and it is the same message, so the same one finding."""
    junk = {"state": "online", "store": STORE, "tower": "\ud800"}
    publish(raw, "rogue", "status", junk, retain=True)
    try:
        for run in range(1, 3):
            with running_board(broker.url, data=tmp_path / "record") as board:
                wait_for(lambda run=run: board.towers.find("rogue")
                         and board.get("/api/towers/rogue")["problems"] >= run, what="the retained junk heard")
                # a new message after the retained one (one topic: in order): counted, and the
                # retained one has certainly come by then
                publish(raw, "rogue", "status", {**junk, "run": run})
                wait_for(lambda run=run: board.get("/api/towers/rogue")["problems"] >= run + 1, what="the new message")
                assert board.get("/api/towers/rogue")["problems"] == run + 1  # 1 + one new per run: never 2 + ...
                assert len(board.get("/api/towers/rogue/evidence")["rejected"]) == run + 1
    finally:
        raw.client.publish(f"dicetower/{STORE}/rogue/status", b"", qos=1, retain=True).wait_for_publish(10)


# --- an edited entry (issue 43) ------------------------------------------------------------------------------


def edited_log(tmp_path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """A real tower's log (sessions of 10 rolls, 14 rolls), and the same log with its 8th roll's
    dice edited and nothing rehashed (as an edited card would publish it); the edited seq."""
    t = SimTower(tmp_path / "edited-state", "mqtt://127.0.0.1:1", STORE, "edited", session_rolls=10, start=False)
    for _ in range(14):
        t.roll()
    t.dice.close()
    t.publisher.close(0.0)
    honest = read(tmp_path / "edited-state" / "rolls.jsonl")
    edited = json.loads(json.dumps(honest))
    target = [e for e in edited if e["kind"] == "roll"][7]
    target["result"]["dice"] = [d % 6 + 1 for d in target["result"]["dice"]] or [1]
    return honest, edited, target["seq"]


def replay_json(tmp_path: Path, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """``dicetower replay --json`` of these entries, as a player would run it."""
    import subprocess
    import sys

    from tests.hardware.forgeries import write

    path = tmp_path / f"replayed-{len(list(tmp_path.glob('replayed-*')))}.jsonl"
    write(path, entries)
    done = subprocess.run([sys.executable, "-m", "hardware", "replay", "--json", str(path)], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parents[2])
    return json.loads(done.stdout)


def settled_card(board, name: str, seq: int) -> dict[str, Any] | None:
    board.towers.check_now()
    card = board.card(name)
    if card is None or card["seq"] != seq or card["missing"] or card["replay_pending"]:
        return None
    return card


def test_an_edited_entry_the_board_verifies_what_replay_verifies_before_it_and_settles(board, towers, raw, tmp_path):
    """One entry of a tower's log edited (its hash not recomputed): the board says so, keeps
    the chain going through it (the tower's next entry names its hash), verifies the rolls
    replay verifies before it (7, in the edited roll's own session, and none from it on) and
    the later sessions, and settles: nothing missing, nothing waiting."""
    honest_tower = towers("table1", session_rolls=3)
    honest_tower.roll()
    _, edited, at = edited_log(tmp_path)
    for entry in edited:
        publish(raw, "edited", "log", log_payload("edited", entry))
    for _ in range(3):
        honest_tower.roll()
    finish(honest_tower)
    card = wait_for(lambda: settled_card(board, "edited", edited[-1]["seq"]), timeout=30, what="the edited log settled")
    replayed = replay_json(tmp_path, edited)
    assert not replayed["ok"] and replayed["problems"][0]["entry"] == at
    assert card["checked"]["verified"] == replayed["rolls_checked"]
    before = [e for e in edited if e["kind"] == "roll" and e["seq"] < at and e["session"] == edited[0]["session"]]
    assert len(before) == 7  # the rolls before the edit in its own session: verified, as replay does
    assert card["problem"] == f"entry {at}: its content does not match its own hash: the entry was edited"
    assert card["state"] == "red"
    rolls = board.get("/api/towers/edited/rolls")
    assert [r["seq"] for r in rolls] == [e["seq"] for e in edited if e["kind"] == "roll"]  # all of it, as logged
    assert next(r for r in rolls if r["seq"] == at) == edited[at - 1]
    wait_for(lambda: all_verified(board, honest_tower), timeout=30, what="the honest tower verified")


def test_the_entry_as_written_takes_the_place_of_an_edited_copy(board, raw, tmp_path):
    """The edited entry was kept in its place; the tower's own entry (the same hash, its
    content matching) comes after: it replaces the edited one and every roll verifies (the
    tower stays red: the edited message was published on its topic)."""
    honest, edited, at = edited_log(tmp_path)
    for entry in edited:
        publish(raw, "edited", "log", log_payload("edited", entry))
    card = wait_for(lambda: settled_card(board, "edited", edited[-1]["seq"]), timeout=30, what="the edited log settled")
    assert card["checked"]["verified"] < 14
    publish(raw, "edited", "log", log_payload("edited", honest[at - 1]))
    card = wait_for(lambda: (c := settled_card(board, "edited", honest[-1]["seq"])) and c["checked"]["verified"] == 14
                    and c, timeout=30, what="every roll verified")
    assert replay_json(tmp_path, honest)["rolls_checked"] == 14
    assert card["problems"] == 1 and card["state"] == "red"
    assert next(r for r in board.get("/api/towers/edited/rolls") if r["seq"] == at) == honest[at - 1]


@pytest.fixture
def board(broker):
    with running_board(broker.url) as b:  # every store: a phantom store would show here
        yield b


# --- the property: generated hostile messages between honest rolls --------------------------------------------

#: Text a hostile tower may send: lone surrogates, bidi and format characters, NUL, long text.
HOSTILE_TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["\ud800", "\udfff", "a\udfffb", "\u202e", "\u2066x\u2069", "\x00", "\u2028", "x" * 5000]),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=4),
)
#: Numbers a hostile tower may send: past 64 bits, negative, floats (NaN and infinities are
#: sent as raw text below: JSON has no literal for them).
HOSTILE_NUMBER = st.one_of(st.integers(min_value=-(10**40), max_value=10**40), st.sampled_from(
    [2**63, 2**63 - 1, -(2**63) - 1, 10**30, 0, -1]), st.floats(allow_nan=False, allow_infinity=False))
HOSTILE_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), HOSTILE_NUMBER, HOSTILE_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(HOSTILE_TEXT, inner, max_size=4)),
    max_leaves=12)
ENTRY_FIELDS = ("seq", "kind", "session", "time", "result", "roll_kind", "player", "faces", "commitment")
RESULT_FIELDS = ("system", "params", "outcome", "dice", "total", "success")


@st.composite
def hostile_message(draw) -> tuple[str, str, bytes, bool]:
    """(tower, topic kind, payload, retained) from a rogue tower on its own topics."""
    tower = draw(st.sampled_from(["rogue1", "rogue2"]))
    kind = draw(st.sampled_from(["log", "status"]))
    shape = draw(st.sampled_from(["hashed entry", "any value", "raw bytes", "deep", "status"]))
    if shape == "hashed entry":  # a valid hash over hostile fields: it chains only by accident
        entry: dict[str, Any] = {"seq": draw(st.one_of(st.integers(1, 3), HOSTILE_NUMBER)), "prev": GENESIS,
                                 "kind": draw(st.one_of(st.sampled_from(["roll", "session", "reveal"]), HOSTILE_TEXT))}
        for name in draw(st.lists(st.sampled_from(ENTRY_FIELDS[2:]), max_size=4, unique=True)):
            entry[name] = draw(HOSTILE_VALUE)
        if draw(st.booleans()):
            entry["result"] = {name: draw(HOSTILE_VALUE) for name in draw(
                st.lists(st.sampled_from(RESULT_FIELDS), max_size=6, unique=True))}
        entry["hash"] = entry_hash(entry)
        payload = json.dumps({"store": STORE, "tower": draw(st.sampled_from([tower, "\ud800", tower + "x"])),
                              "entry": entry}).encode()
        kind = "log"
    elif shape == "status":
        body = {"state": draw(st.one_of(st.sampled_from(["online", "offline"]), HOSTILE_TEXT)), "store": STORE,
                "tower": draw(st.sampled_from([tower, "\ud800"])), "seq": draw(HOSTILE_NUMBER),
                "system": draw(HOSTILE_VALUE), "params": draw(HOSTILE_VALUE)}
        payload = json.dumps(body).encode()
        kind = "status"
    elif shape == "any value":
        payload = json.dumps(draw(HOSTILE_VALUE)).encode()
    elif shape == "deep":
        depth = draw(st.integers(30, 3000))
        lists = draw(st.booleans())
        payload = ("[" * depth + "]" * depth).encode() if lists else b'{"a":' * depth + b"1" + b"}" * depth
    else:
        payload = draw(st.one_of(st.binary(max_size=64), st.sampled_from(
            [b'{"seq": NaN}', b'{"store": "shop1", "tower": "rogue1", "entry": {"seq": Infinity}}', b"-Infinity",
             b'{"seq": 1e999}', b"\xff\xfe", b'"\\ud800"', b"1" * 5000])))
    return tower, kind, payload, draw(st.booleans()) and kind == "status"


def test_generated_hostile_messages_between_honest_rolls_never_stop_an_honest_towers_verification(tmp_path):
    binary = require_command("mosquitto")
    (tmp_path / "broker").mkdir()
    rounds = [0]
    with running_broker(binary, tmp_path / "broker") as broker, running_board(broker.url) as board:
        raw = Collector(broker.port, "dicetower/none")
        try:
            @settings(max_examples=EXAMPLES, deadline=None, database=None,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
            @given(st.lists(st.lists(hostile_message(), min_size=1, max_size=4), min_size=3, max_size=3))
            def example(hostile: list[list[tuple[str, str, bytes, bool]]]) -> None:
                rounds[0] += 1
                honest = [SimTower(tmp_path / f"r{rounds[0]}-t{i}", broker.url, STORE, f"r{rounds[0]}-t{i}",
                                   session_rolls=2) for i in range(2)]
                try:
                    for burst in hostile:  # each burst between two honest rolls of every tower
                        for t in honest:
                            t.roll()
                        for tower, kind, payload, retain in burst:
                            publish(raw, tower, kind, payload, retain=retain)
                    for t in honest:
                        finish(t)
                    for t in honest:
                        wait_for(lambda t=t: all_verified(board, t), timeout=30, what=f"{t.tower} verified")
                    assert board.get("/api/board")["state"] == "live"
                    assert board.get("/api/board")["internal_errors"] == 0
                finally:
                    for t in honest:
                        t.close(timeout=0.5)

            example()
        finally:
            for n in (1, 2):
                raw.client.publish(f"dicetower/{STORE}/rogue{n}/status", b"", qos=1, retain=True).wait_for_publish(10)
            raw.close()
    assert rounds[0] >= EXAMPLES
