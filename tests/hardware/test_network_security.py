"""The sample broker setup (deploy/mosquitto) on a real Mosquitto: logins, the shipped ACL
file as it is, and TLS with a certificate made here with openssl."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.sim_towers import SimTower
from hardware.network.broker import Credentials
from tests.hardware.netparts import Collector, running_board, running_broker, wait_for
from tests.support import require_command

REPO = Path(__file__).resolve().parents[2]
ACL = REPO / "deploy" / "mosquitto" / "dicetower.acl"
STORE = "shop1"
USERS = {"shop1/table1": "pw-table1", "shop1/table2": "pw-table2", "shop2/table1": "pw-shop2-table1",
         "board": "pw-board"}


@pytest.fixture
def secured(tmp_path):
    """A broker configured like deploy/mosquitto/dicetower.conf: no anonymous clients, a
    password file, the shipped ACL file verbatim."""
    binary = require_command("mosquitto")
    passwd_tool = require_command("mosquitto_passwd")
    work = tmp_path / "broker"
    work.mkdir()
    passwd = work / "passwd"
    passwd.touch()
    for user, password in USERS.items():
        subprocess.run([passwd_tool, "-b", str(passwd), user, password], check=True, capture_output=True)
    extra = f"allow_anonymous false\npassword_file {passwd}\nacl_file {ACL}\nper_listener_settings false\n"
    with running_broker(binary, work, extra=extra) as broker:
        yield broker


def creds(user: str) -> Credentials:
    return Credentials(username=user, password=USERS[user])


def as_user(broker, user: str, topic: str = "dicetower/none") -> Collector:
    return Collector(broker.port, topic, username=user, password=USERS[user])


def test_each_tower_publishes_only_under_its_own_topic(secured, tmp_path):
    board = as_user(secured, "board", "dicetower/#")
    table1 = as_user(secured, "shop1/table1")
    try:
        t = SimTower(tmp_path / "t1", secured.url, STORE, "table1", credentials=creds("shop1/table1"))
        try:
            entry = t.roll()
            wait_for(lambda: entry["seq"] in board.unique(), what="table1's own entry at the board")
        finally:
            t.close()
        # table1 publishes into table2's topic, then (a marker) into its own: the broker
        # handles one client's messages in order, so once the marker is there the other
        # would have been too
        forged = {"store": STORE, "tower": "table2", "entry": {**entry, "seq": 1}}
        table1.publish(f"dicetower/{STORE}/table2/log", forged)
        table1.publish(f"dicetower/{STORE}/table1/status", {"state": "marker", "store": STORE, "tower": "table1"})
        wait_for(lambda: (board.last("status") or {}).get("state") == "marker", what="the marker")
        with board.lock:
            topics = {t for t, _, _ in board.messages}
        assert f"dicetower/{STORE}/table2/log" not in topics
    finally:
        board.close()
        table1.close()


def test_a_towers_login_publishes_only_its_own_store_and_tower(secured, tmp_path):
    """shop1's table1 publishing as shop2's table1 (or into a store that does not exist) is
    delivered to nobody: a board watching every store shows no phantom store; shop2's own
    table1 publishes there as always. The login a tower uses unless its config names one is
    STORE/TOWER, what the ACL binds."""
    from hardware.network.publisher import login_name

    assert login_name(STORE, "table1") == "shop1/table1"
    with running_board(secured.url, credentials=creds("board")) as board:
        rogue = as_user(secured, "shop1/table1")
        try:
            honest = SimTower(tmp_path / "s2", secured.url, "shop2", "table1", credentials=creds("shop2/table1"))
            try:
                entry = honest.roll()
                for store in ("shop2", "OTHERSTORE"):
                    rogue.publish(f"dicetower/{store}/table1/log", {"store": store, "tower": "table1",
                                                                    "entry": {**entry, "seq": 2}})
                    rogue.publish(f"dicetower/{store}/table1/status", {"state": "online", "store": store,
                                                                       "tower": "table1", "seq": 99})
                rogue.publish(f"dicetower/{STORE}/table1/status", {"state": "marker", "store": STORE,
                                                                   "tower": "table1"})
                wait_for(lambda: any(i["store"] == STORE for i in board.get("/api/towers")), what="the marker")
                wait_for(lambda: any(i["store"] == "shop2" and i["rolls"] == 1 for i in board.get("/api/towers")),
                         what="shop2's own roll")
            finally:
                honest.close()
            items = board.get("/api/towers")
            assert sorted(i["store"] for i in items) == ["shop1", "shop2"]  # no OTHERSTORE card
            shop2 = next(i for i in items if i["store"] == "shop2")
            # shop1's login put nothing into shop2's chain: its one roll, unchecked (its session open), no problem
            assert (shop2["state"], shop2["problem"], shop2["rolls"]) == ("unchecked", None, 1)
            assert board.get("/api/towers/table1?store=shop2")["missing"] == 0  # nor its seq 99
        finally:
            rogue.close()


def test_the_board_can_ask_for_resends_but_publish_nothing_else(secured):
    """With the shipped ACL, the board's user publishes resend requests and nothing else: not
    another tower's log or status, and not its own as if it were a tower named "board"."""
    board = as_user(secured, "board")
    table1 = as_user(secured, "shop1/table1", "dicetower/+/table1/resend")
    watcher = as_user(secured, "board", "dicetower/#")
    try:
        for tower in ("table1", "board"):
            board.publish(f"dicetower/{STORE}/{tower}/log", {"store": STORE, "tower": tower, "entry": {"seq": 1}})
            board.publish(f"dicetower/{STORE}/{tower}/status", {"state": "online", "store": STORE, "tower": tower})
        board.publish("elsewhere/board", {"state": "anything"})
        board.publish(f"dicetower/{STORE}/table1/resend", {"from": 1})
        wait_for(lambda: table1.last("resend") == {"from": 1}, what="the resend request at table1")
        table1.publish(f"dicetower/{STORE}/table1/status", {"state": "marker", "store": STORE, "tower": "table1"})
        wait_for(lambda: (watcher.last("status") or {}).get("state") == "marker", what="the marker")
        with watcher.lock:
            seen = [(topic, body) for topic, body, _ in watcher.messages]
        assert seen == [(f"dicetower/{STORE}/table1/status", {"state": "marker", "store": STORE, "tower": "table1"})]
    finally:
        for c in (board, table1, watcher):
            c.close()


def test_wrong_or_missing_credentials_are_refused_and_said_once(secured, tmp_path):
    notes: list[str] = []
    t = SimTower(tmp_path / "t1", secured.url, STORE, "table1",
                 credentials=Credentials(username="shop1/table1", password="wrong"), log=notes.append)
    try:
        t.roll()  # rolling goes on regardless
        wait_for(lambda: any("refused the connection" in n for n in notes), what="the refusal in the log")
    finally:
        t.close(timeout=0.2)
    assert t.publisher.cursor.seq == 0
    assert len([n for n in notes if "refused" in n]) == 1  # said once, not at every retry


def test_board_and_towers_over_tls_with_a_self_signed_certificate(tmp_path):
    binary = require_command("mosquitto")
    openssl = require_command("openssl")
    work = tmp_path / "broker"
    work.mkdir()
    key, cert = work / "broker.key", work / "broker.crt"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", str(key),
                    "-out", str(cert), "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    key.chmod(0o644)  # mosquitto may drop root privileges before it reads the key
    from tests.hardware.netparts import free_port

    tls_port = free_port()
    extra = f"listener {tls_port} 127.0.0.1\ncertfile {cert}\nkeyfile {key}\nallow_anonymous true\n" \
            "per_listener_settings false\n"
    with running_broker(binary, work, extra=extra):
        url = f"mqtts://127.0.0.1:{tls_port}"
        tls = Credentials(ca_file=str(cert))
        with running_board(url, STORE, credentials=tls) as board:
            t = SimTower(tmp_path / "t1", url, STORE, "table1", credentials=tls, session_rolls=2)
            notes: list[str] = []
            untrusting = SimTower(tmp_path / "t2", url, STORE, "table2", log=notes.append)  # system CAs only
            try:
                for _ in range(3):
                    t.roll()
                    untrusting.roll()
                item = wait_for(lambda: next((i for i in board.get("/api/towers") if i["rolls"] == 3 and i["verified"]),
                                             None), what="table1 over TLS, its first session verified")
                assert item["tower"] == "table1" and item["verified"]
                wait_for(lambda: any("TLS certificate" in n for n in notes), what="the untrusting tower's note")
                assert [i["tower"] for i in board.get("/api/towers")] == ["table1"]
            finally:
                t.close()
                untrusting.close(timeout=0.2)
