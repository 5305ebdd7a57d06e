"""Two real Mosquitto brokers bridged as deploy/mosquitto ships them: a store's edge broker
(dicetower.acl verbatim, a login per tower) bridged by edge-bridge.conf (its EDIT lines
filled in) to a central broker over TLS (central.acl verbatim), a tower on the edge, the board
on the central broker. Nothing is lost across a central-broker kill and a board restart."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.sim_towers import SimTower
from hardware.files.rolllog import read_entries
from hardware.network.broker import Credentials
from tests.hardware.netparts import Mosquitto, free_port, running_board, wait_for
from tests.support import require_command

REPO = Path(__file__).resolve().parents[2]
MOSQUITTO = REPO / "deploy" / "mosquitto"
STORE = "shop1"  # the store id the shipped bridge config names
EDGE_USERS = {"shop1/table1": "pw-table1", "shop1/table2": "pw-table2"}
CENTRAL_USERS = {"edge-shop1": "pw-edge", "board": "pw-board"}


def passwords(tool: str, path: Path, users: dict[str, str]) -> Path:
    path.touch()
    for user, password in users.items():
        subprocess.run([tool, "-b", str(path), user, password], check=True, capture_output=True)
    return path


def bridge_config(address: str, ca_file: Path, password: str) -> str:
    """deploy/mosquitto/edge-bridge.conf with its EDIT lines filled in (and nothing else changed)."""
    filled = {"address": address, "bridge_cafile": str(ca_file), "remote_password": password}
    lines = []
    for line in (MOSQUITTO / "edge-bridge.conf").read_text().splitlines():
        key = line.split(" ", 1)[0]
        lines.append(f"{key} {filled[key]}" if key in filled else line)
    return "\n".join(lines) + "\n"


@pytest.fixture
def brokers(tmp_path):
    binary = require_command("mosquitto")
    passwd_tool = require_command("mosquitto_passwd")
    openssl = require_command("openssl")
    central_dir, edge_dir = tmp_path / "central", tmp_path / "edge"
    central_dir.mkdir()
    edge_dir.mkdir()
    key, cert = central_dir / "central.key", central_dir / "central.crt"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", str(key),
                    "-out", str(cert), "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    key.chmod(0o644)
    tls_port = free_port()
    central = Mosquitto(binary, central_dir, extra=(
        f"allow_anonymous false\npassword_file {passwords(passwd_tool, central_dir / 'passwd', CENTRAL_USERS)}\n"
        f"acl_file {MOSQUITTO / 'central.acl'}\nper_listener_settings false\n"
        f"listener {tls_port} 127.0.0.1\ncertfile {cert}\nkeyfile {key}\n"))
    edge = Mosquitto(binary, edge_dir, extra=(
        f"allow_anonymous false\npassword_file {passwords(passwd_tool, edge_dir / 'passwd', EDGE_USERS)}\n"
        f"acl_file {MOSQUITTO / 'dicetower.acl'}\nper_listener_settings false\n"
        + bridge_config(f"127.0.0.1:{tls_port}", cert, CENTRAL_USERS["edge-shop1"])))
    central.start()
    try:
        edge.start()
        try:
            yield edge, central
        finally:
            edge.stop()
    finally:
        central.stop()


def head(tower: SimTower) -> int:
    return [s.entry for s in read_entries(tower.log_path)][-1]["seq"]


def holds_all(board, towers: list[SimTower]) -> bool:
    board.towers.check_now()
    for t in towers:
        found = [c for c in board.towers.cards() if c["tower"] == t.tower]
        if not found or found[0]["seq"] != head(t) or found[0]["replay_pending"] or found[0]["missing"]:
            return False
    return True


def test_nothing_is_lost_across_a_central_broker_kill_and_a_board_restart(brokers, tmp_path):
    edge, central = brokers
    board_login = Credentials(username="board", password=CENTRAL_USERS["board"])
    data = tmp_path / "record"
    towers = [SimTower(tmp_path / n.split("/")[1], edge.url, STORE, n.split("/")[1], session_rolls=5,
                       credentials=Credentials(username=n, password=EDGE_USERS[n])) for n in EDGE_USERS]
    for t in towers:
        t.publisher.heartbeat_s = 1.0  # statuses often: the board soon knows each tower's head
    try:
        with running_board(central.url, STORE, data=data, credentials=board_login) as board:
            for _ in range(6):
                for t in towers:
                    t.roll()
            wait_for(lambda: holds_all(board, towers), timeout=30, what="the board holding both towers")
            central.kill()  # SIGKILL: whatever it held is gone
            for _ in range(4):
                for t in towers:
                    t.roll()  # rolled while the central broker is down
            central.start()
            for t in towers:
                t.roll()
            wait_for(lambda: holds_all(board, towers), timeout=60, what="everything after the central broker's kill")
        for _ in range(3):
            for t in towers:
                t.roll()  # rolled while no board listens
        with running_board(central.url, STORE, data=data, credentials=board_login) as board:
            wait_for(lambda: holds_all(board, towers), timeout=60, what="everything after the board's restart")
            assert board.subscriber.resends >= len(towers)  # what no board heard came back over the bridge
            items = {i["tower"]: i for i in board.get("/api/towers")}
            assert sorted(items) == sorted(n.split("/")[1] for n in EDGE_USERS)
            for t in towers:
                assert items[t.tower]["verified"] and items[t.tower]["problem"] is None
                assert items[t.tower]["rolls"] == t.rolls == 6 + 4 + 1 + 3
                logged = [s.entry for s in read_entries(t.log_path) if s.entry["kind"] == "roll"]
                assert board.get(f"/api/towers/{t.tower}/rolls") == logged
    finally:
        for t in towers:
            t.close(timeout=1.0)


def test_a_tower_on_the_edge_publishes_under_no_other_store(brokers, tmp_path):
    """shop1's table1 on its edge broker publishing as another store's tower: refused by the
    edge's ACL (its login is bound to shop1/table1), and the bridge forwards shop1's topics
    only; a central board watching every store shows shop1 alone."""
    from tests.hardware.netparts import Collector

    edge, central = brokers
    login = {"username": "shop1/table1", "password": EDGE_USERS["shop1/table1"]}
    board_login = Credentials(username="board", password=CENTRAL_USERS["board"])
    with running_board(central.url, credentials=board_login) as board:
        watcher = Collector(central.port, "dicetower/#", username="board", password=CENTRAL_USERS["board"])
        rogue = Collector(edge.port, "dicetower/none", **login)
        t = SimTower(tmp_path / "t1", edge.url, STORE, "table1", credentials=Credentials(**login))
        try:
            entry = t.roll()
            wait_for(lambda: holds_all(board, [t]), timeout=30, what="shop1's table1 at the central board")
            for store in ("shop2", "OTHERSTORE"):
                rogue.publish(f"dicetower/{store}/table1/log", {"store": store, "tower": "table1", "entry": entry})
                rogue.publish(f"dicetower/{store}/table1/status", {"state": "online", "store": store,
                                                                   "tower": "table1", "seq": 1})
            # then, from the same client, a status on its own topic: one client's messages stay in
            # order through the edge and the bridge, so once it is at the central broker, the
            # others would have been too
            rogue.publish(f"dicetower/{STORE}/table1/status", {"state": "online", "store": STORE, "tower": "table1",
                                                               "seq": entry["seq"], "marker": True})
            wait_for(lambda: (watcher.last("status") or {}).get("marker"), timeout=30, what="the marker centrally")
            with watcher.lock:
                topics = {topic for topic, _, _ in watcher.messages}
            assert topics <= {f"dicetower/{STORE}/table1/log", f"dicetower/{STORE}/table1/status"}
            assert [(i["store"], i["tower"]) for i in board.get("/api/towers")] == [("shop1", "table1")]
        finally:
            t.close(timeout=1.0)
            rogue.close()
            watcher.close()
