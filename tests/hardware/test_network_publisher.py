"""The tower's publisher against a real Mosquitto broker: order, exactly once after dedupe,
broker killed and restarted, publisher killed and resumed from its cursor, bounded shutdown,
the ``[network]`` config and its hook in ``run``/``sim``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hardware.files.rolllog import RollLog, read_entries
from hardware.network import NetworkError
from hardware.network.broker import Credentials, parse_url
from hardware.network.cursor import CURSOR_NAME, load_cursor
from hardware.network.publisher import Publisher
from tests.hardware.netparts import Collector, wait_for
from tests.support import require_command

STORE, TOWER = "shop1", "table3"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def collector(broker):
    c = Collector(broker.port)
    try:
        yield c
    finally:
        c.close()


def publisher(broker, state: Path, **kwargs) -> Publisher:
    return Publisher(parse_url(broker.url), store=STORE, tower=TOWER, log_path=state / "rolls.jsonl",
                     cursor_path=state / CURSOR_NAME, **kwargs)


def append(log: RollLog, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        log.append("note", n=i)


def all_arrived(collector: Collector, n: int, *, resend: bool = False):
    """Whether entries 1..n all arrived; with ``resend``, ask for the first missing one again
    (as the board does after a broker lost messages)."""
    have = collector.unique()
    missing = [s for s in range(1, n + 1) if s not in have]
    if missing and resend and collector.last("status") is not None:
        collector.publish(f"dicetower/{STORE}/{TOWER}/resend", {"from": missing[0]})
    return not missing


def test_entries_arrive_in_order_exactly_once(broker, collector, tmp_path):
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    append(log, 20)  # written before the publisher starts: published from the start
    pub = publisher(broker, tmp_path).start()
    try:
        append(log, 30, 20)
        wait_for(lambda: all_arrived(collector, 50), what="50 entries")
    finally:
        assert pub.close() == 0
    seqs = collector.seqs()
    assert seqs == sorted(seqs) and len(set(seqs)) == 50  # in order, each once (no reconnect here)
    logged = [s.entry for s in read_entries(tmp_path / "rolls.jsonl")]
    assert list(collector.unique().values()) == logged
    with collector.lock:
        bodies = [b for t, b, _ in collector.messages if t == f"dicetower/{STORE}/{TOWER}/log"]
    assert {(b["store"], b["tower"]) for b in bodies} == {(STORE, TOWER)}
    cursor, note = load_cursor(tmp_path / CURSOR_NAME, STORE, TOWER)
    assert (cursor.seq, cursor.hash, note) == (50, logged[-1]["hash"], "")
    status = collector.last("status")
    assert status["state"] == "offline" and status["seq"] == 50


def test_status_is_retained_with_the_session_and_rolls(broker, tmp_path):
    from hardware.entropy import open_dice

    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    dice = open_dice("kernel", log=log)
    from engine.systems import get

    spec = get("d6cv")
    params = spec.resolve({"stat": 3, "cv": 7})
    for _ in range(3):
        dice.record(spec.roll(dice, params))
    pub = publisher(broker, tmp_path).start()
    try:
        wait_for(lambda: pub.cursor.seq == 4, what="the session and 3 rolls acknowledged")
        late = Collector(broker.port, f"dicetower/{STORE}/+/status")  # comes later: gets the retained status
        try:
            status = wait_for(lambda: late.last("status"), what="the retained status")
        finally:
            late.close()
    finally:
        pub.close()
        dice.close()
    assert status["state"] == "online" and status["rolls"] == 3 and status["system"] == "d6cv"
    session = next(s.entry for s in read_entries(tmp_path / "rolls.jsonl") if s.entry["kind"] == "session")
    assert status["commitment"] == session["commitment"] and status["session"] == session["session"]
    assert status["params"]["cv"] == 7 and status["seq"] == 4


def test_broker_killed_and_restarted_loses_nothing(broker, collector, tmp_path):
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    pub = publisher(broker, tmp_path).start()
    total = 300
    killed = threading.Event()
    try:
        wait_for(lambda: pub.connected, what="the publisher connected")

        def writer() -> None:
            for i in range(total):
                log.append("note", n=i)  # rolling goes on whatever the broker does
                if i == 100:
                    killed.wait(10)
                pub.wake()

        t = threading.Thread(target=writer)
        t.start()
        wait_for(lambda: len(collector.unique()) >= 50, what="50 entries before the kill")
        broker.kill()
        killed.set()
        wait_for(lambda: not pub.connected, what="the publisher noticing")
        t.join(30)
        assert len(list(read_entries(tmp_path / "rolls.jsonl"))) == total  # nothing waited for the network
        broker.start()  # same port
        wait_for(lambda: all_arrived(collector, total, resend=True), timeout=30, what=f"all {total} entries")
        wait_for(lambda: pub.cursor.seq == total, what="the cursor at the last entry")
    finally:
        assert pub.close() == 0
    seqs = collector.seqs()
    assert set(seqs) == set(range(1, total + 1))


PUBLISHER_SCRIPT = """
import sys, threading
from hardware.network.broker import parse_url
from hardware.network.publisher import Publisher
pub = Publisher(parse_url(sys.argv[1]), store=sys.argv[2], tower=sys.argv[3], log_path=sys.argv[4],
                cursor_path=sys.argv[5], log=lambda m: print(m, flush=True))
pub.start()
threading.Event().wait()
"""


def spawn_publisher(broker, state: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-c", PUBLISHER_SCRIPT, broker.url, STORE, TOWER,
                             str(state / "rolls.jsonl"), str(state / CURSOR_NAME)], env=env,
                            stdout=subprocess.DEVNULL, cwd=REPO)


def test_publisher_killed_mid_stream_resumes_from_its_cursor(broker, collector, tmp_path):
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    first = spawn_publisher(broker, tmp_path)
    second = None
    try:
        append(log, 200)
        wait_for(lambda: load_cursor(tmp_path / CURSOR_NAME, STORE, TOWER)[0].seq >= 50, what="a cursor")
        first.send_signal(signal.SIGKILL)  # mid-stream: no goodbye, no last cursor write
        first.wait(10)
        # the broker publishes the last will as soon as the killed process's socket closes
        wait_for(lambda: (collector.last("status") or {}).get("state") == "offline", what="the last will")
        cursor, _ = load_cursor(tmp_path / CURSOR_NAME, STORE, TOWER)
        append(log, 100, 200)  # rolls go on while no publisher runs
        mark = len(collector.messages)
        second = spawn_publisher(broker, tmp_path)
        wait_for(lambda: all_arrived(collector, 300), timeout=30, what="all 300 entries")
        assert collector.last("status")["state"] == "online"
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(10)
    with collector.lock:
        after = [b["entry"]["seq"] for t, b, _ in collector.messages[mark:] if t.endswith("/log")]
    assert after[0] == cursor.seq + 1  # resumed from the cursor, not from the start
    assert after == list(range(cursor.seq + 1, 301))


def test_rolling_never_waits_for_a_missing_broker_and_close_is_bounded(tmp_path):
    binary = require_command("mosquitto")
    from tests.hardware.netparts import Mosquitto

    (tmp_path / "b").mkdir()
    broker = Mosquitto(binary, tmp_path / "b")  # configured, not started: nobody listens
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    pub = publisher(broker, tmp_path, log=lambda m: None).start()
    append(log, 5)
    assert pub.close(timeout=0.3) == 5  # nothing acknowledged: they go out at the next start
    assert load_cursor(tmp_path / CURSOR_NAME, STORE, TOWER)[0].seq == 0
    broker.start()
    try:
        c = Collector(broker.port)
        pub = publisher(broker, tmp_path).start()
        try:
            wait_for(lambda: all_arrived(c, 5), what="the 5 entries after the broker came")
        finally:
            assert pub.close() == 0
            c.close()
    finally:
        broker.stop()


def test_a_consumer_can_ask_for_the_log_again(broker, collector, tmp_path):
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    append(log, 10)
    pub = publisher(broker, tmp_path).start()
    try:
        wait_for(lambda: all_arrived(collector, 10), what="10 entries")
        collector.publish(f"dicetower/{STORE}/{TOWER}/resend", {"from": 4})
        wait_for(lambda: len(collector.seqs()) == 17, what="entries 4..10 again")
    finally:
        pub.close()
    assert collector.seqs() == [*range(1, 11), *range(4, 11)]
    pub = publisher(broker, tmp_path).start()  # a range: just those entries
    try:
        wait_for(lambda: pub.connected, what="connected")
        collector.publish(f"dicetower/{STORE}/{TOWER}/resend", {"from": 2, "to": 3})
        wait_for(lambda: len(collector.seqs()) == 19, what="entries 2..3 again")
    finally:
        pub.close()
    assert collector.seqs()[17:] == [2, 3]


def test_a_cursor_for_another_log_starts_from_the_beginning(broker, collector, tmp_path):
    (tmp_path / CURSOR_NAME).write_text(json.dumps({"store": STORE, "tower": TOWER, "seq": 3, "hash": "ab" * 32}))
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    append(log, 6)
    notes: list[str] = []
    pub = publisher(broker, tmp_path, log=notes.append).start()
    try:
        wait_for(lambda: all_arrived(collector, 6), what="the whole log")
    finally:
        pub.close()
    assert any("not the one the cursor names" in n for n in notes)
    assert collector.seqs() == list(range(1, 7))


# --- config and the hook in run/sim -------------------------------------------------------------------


@pytest.mark.parametrize(("url", "message"), [
    ("http://host", "expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT], got 'http://host'"),
    ("mqtt://", "no host in 'mqtt://'"),
    ("mqtt://host:1883/x", "with nothing after the port"),
    ("mqtt://host:70000", "Port out of range"),
])
def test_bad_broker_urls_are_named(url, message):
    with pytest.raises(NetworkError, match="mqtt: ") as err:
        parse_url(url)
    assert message in str(err.value)


def test_urls_default_ports_and_tls():
    assert parse_url("mqtt://broker.local") == parse_url("mqtt://broker.local:1883")
    u = parse_url("mqtts://t1:s%40cret@broker:8884")
    assert (u.host, u.port, u.tls, u.username, u.password) == ("broker", 8884, True, "t1", "s@cret")
    assert str(u) == "mqtts://t1@broker:8884"  # never the password


def network_config(tmp_path: Path, url: str, **extra: str) -> str:
    lines = [f'mqtt = "{url}"', f'store = "{STORE}"', f'tower = "{TOWER}"', *(f'{k} = "{v}"' for k, v in extra.items())]
    return ("[network]\n" + "\n".join(lines) + f'\n[kiosk]\nstate_dir = "{tmp_path / "state"}"\n'
            '[display]\nkind = "dummy"\n[entropy]\nsource = "kernel"\n')


@pytest.mark.parametrize(("toml", "message"), [
    ('[network]\nmqtt = "mqtt://h"\nstore = "s"\ntower = "t"\n', "network.mqtt: needs kiosk.state_dir"),
    ('[network]\nmqtt = "mqtt://h"\nstore = "a/b"\ntower = "t"\n[kiosk]\nstate_dir = "/x"\n',
     "network.store: expected"),
    ('[network]\nmqtt = "mqtt://h"\nstore = "s"\ntower = "#"\n[kiosk]\nstate_dir = "/x"\n',
     "network.tower: expected"),
    ('[network]\nmqtt = "tcp://h"\n', "network.mqtt: expected mqtt://"),
    ('[network]\nbroker = "mqtt://h"\n', "network.broker: unknown key"),
])
def test_network_config_errors_name_the_key(toml, message):
    from hardware.config import ConfigError
    from hardware.config.reader import loads

    with pytest.raises(ConfigError, match="network") as err:
        loads(toml)
    assert message in str(err.value)


def test_sim_with_a_network_config_publishes_and_says_offline_at_the_end(broker, collector, tmp_path, capsys):
    """The hook where ``sim --config`` builds its tower: the publisher starts before it and,
    when the simulation ends, gets a bounded wait for the broker and says offline."""
    from hardware.cli import main

    conf = tmp_path / "tower.toml"
    conf.write_text(network_config(tmp_path, broker.url), encoding="utf-8")
    assert main(["sim", "--config", str(conf), "--press", "roll", "--seed", "1"]) == 0
    status = wait_for(lambda: collector.last("status"), what="the status")
    wait_for(lambda: collector.last("status")["state"] == "offline", what="offline at the end")
    assert status["tower"] == TOWER and status["store"] == STORE


def test_tower_with_session_dice_publishes_its_rolls(broker, collector, tmp_path):
    """A simulated tower whose rolls go to the roll log, with the publisher as ``run`` opens it."""
    from hardware.cli.sim import Simulator, parse_script
    from hardware.config.reader import loads
    from hardware.entropy import open_dice
    from hardware.network.publisher import publishing

    config = loads(network_config(tmp_path, broker.url))
    (tmp_path / "state").mkdir()
    with publishing(config) as pub:
        assert pub is not None
        dice = open_dice("kernel", log=RollLog(tmp_path / "state" / "rolls.jsonl"))
        sim = Simulator(config, dice=dice)
        try:
            # the table's seed (asked at the first ROLL, eight finger presses, ROLL), then two rolls
            sim.run_script(parse_script("roll plus 1 2 3 4 5 1 2 3 roll roll roll"))
        finally:
            sim.close()
    # the publisher has handed the last entry to the broker; the collector's copy follows
    wait_for(lambda: all_arrived(collector, 5), what="the session, its table seed, two rolls and the reveal")
    entries = collector.unique()
    kinds = [entries[s]["kind"] for s in sorted(entries)]
    assert kinds == ["session", "table_seed", "roll", "roll", "reveal"]  # the reveal at shutdown went out too
    assert entries[2]["table_seed"] == "12345123"


def test_a_missing_password_file_is_one_line(tmp_path):
    from hardware.config.reader import loads
    from hardware.network.publisher import publisher_for

    config = loads(network_config(tmp_path, "mqtt://127.0.0.1:1", password_file=str(tmp_path / "nope")))
    with pytest.raises(NetworkError, match=r"network.password_file: cannot read .*nope"):
        publisher_for(config)
    assert Credentials().username is None


def test_the_status_is_published_again_every_heartbeat_even_unchanged(broker, collector, tmp_path):
    """A quiet tower still says it is there (the board's "stale" means no message for much
    longer than this), with nothing new to say."""
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    append(log, 2)
    p = publisher(broker, tmp_path, heartbeat_s=0.3).start()
    try:
        wait_for(lambda: len(collector.entries()) == 2, what="the entries")
        with collector.lock:
            before = sum(1 for t, _, _ in collector.messages if t.endswith("/status"))
        wait_for(lambda: sum(1 for t, _, _ in collector.messages if t.endswith("/status")) >= before + 3,
                 what="three more status messages")
        assert collector.last("status")["seq"] == 2 and collector.last("status")["state"] == "online"
    finally:
        p.close()
