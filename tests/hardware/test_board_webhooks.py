"""The board's roll feeds against real parts: a real Mosquitto broker, simulated towers (real
session dice, logs and publishers), and real HTTP receivers on localhost (tests/hardware/
hookparts.py) that answer 429, 500, 400, are down and come up. Every verified roll is
received once, red verdicts are alerts, nothing unverified is posted, and a board killed
(SIGKILL) or stopped (SIGTERM) and started again posts each roll once."""

from __future__ import annotations

import collections
import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from bench.sim_towers import SimTower
from engine.fingerprints import FINGERPRINT_HEX
from hardware.board import posts
from hardware.board.webhooks import make_webhook
from hardware.network.topics import log_message
from tests.hardware.hookparts import Receiver, too_many, wait_posts
from tests.hardware.netparts import Collector, free_port, running_board, wait_for

STORE = "shop1"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def tower(broker, tmp_path):
    made: list[SimTower] = []

    def make(name: str = "table1", **kwargs) -> SimTower:
        made.append(SimTower(tmp_path / name, broker.url, STORE, name, **kwargs))
        return made[-1]

    try:
        yield make
    finally:
        for t in made:
            t.close(timeout=1.0)


@pytest.fixture
def receivers():
    made: list[Receiver] = []

    def make(*script, start: bool = True) -> Receiver:
        made.append(Receiver(list(script)))
        return made[-1].start() if start else made[-1]

    try:
        yield make
    finally:
        for r in made:
            r.stop()


def hook_status(board, n: int = 0) -> dict:
    return board.get("/api/board")["webhooks"][n]


def settled(board, name: str, seq: int) -> bool:
    """The board holds the tower's entries up to ``seq`` and has checked them."""
    board.towers.check_now()
    card = board.card(name)
    return card is not None and card["seq"] >= seq and not card["replay_pending"]


def seqs(bodies: list[dict]) -> list[int]:
    return [b["entry"]["seq"] for b in bodies]


# --- each verified roll, once; nothing else ---------------------------------------------------------------------


def test_each_verified_roll_is_posted_once_and_nothing_unchecked(broker, tower, receivers):
    plain, discord = receivers(), receivers()
    hooks = [make_webhook(plain.url), make_webhook(discord.url, format="discord", name="table chat")]
    with running_board(broker.url, STORE, webhooks=hooks) as board:
        t = tower(session_rolls=3)
        entries, names = [], []
        for _ in range(7):
            entries.append(t.roll())
            fp = t.dice.last_fingerprint  # what the tower's screen shows beside the result
            names.append(f"#{fp.number} {fp.entry[:FINGERPRINT_HEX]}")
        wait_posts(plain, 6)
        wait_for(lambda: settled(board, "table1", entries[-1]["seq"]), what="the board has checked every entry")
        card = board.get("/api/towers/table1")
        assert card["checked"] == {"verified": 6, "unchecked": 1, "entered": 0, "test": 0,
                                   "flags": {"no-table-seed": 2}}
        assert len(plain.bodies()) == 6  # the open session's roll waits for its reveal
        t.close()  # the reveal
        wait_posts(plain, 7)
        wait_for(lambda: sum(len(p.body["embeds"]) for p in discord.answered()) == 7, what="7 embeds at discord")
        assert [b["entry"] for b in plain.bodies()] == board.get("/api/towers/table1/rolls")  # as logged, in order
        assert plain.keys() == [b["id"] for b in plain.bodies()] and len(set(plain.keys())) == 7
        assert all(b["verdict"] == {"check": "verified", "tower_verified": True, "problem": None, "problems": 0}
                   for b in plain.bodies())
        footers = [e["footer"]["text"] for p in discord.answered() for e in p.body["embeds"]]
        # each named as the OLED named it: its number in its session and 16 digits of its hash
        assert [b["roll"]["name"] for b in plain.bodies()] == names
        assert footers == [f"{n} · ✓ verified by the dicetower board" for n in names]
        assert [n.split()[0] for n in names] == ["#1", "#2", "#3"] * 2 + ["#1"]
        assert all(p.body["allowed_mentions"] == {"parse": []} and "content" not in p.body for p in discord.answered())
        assert all(p.path.endswith("&wait=true") and p.headers["user-agent"].startswith("dicetower-board")
                   for p in discord.answered())
        status = {h["name"]: h for h in board.get("/api/board")["webhooks"]}
        assert status["table chat"]["sent"] == 7 and status["table chat"]["format"] == "discord"
        assert wait_for(lambda: hook_status(board)["waiting"] == 0 and hook_status(board), what="nothing waiting")[
            "sent"] == 7
        assert "s3cret" not in json.dumps(board.get("/api/board"))  # the URL's token is never shown


def test_a_red_verdict_is_one_alert_and_later_rolls_carry_it(broker, tower, receivers):
    plain, discord = receivers(), receivers()
    hooks = [make_webhook(plain.url), make_webhook(discord.url, format="discord")]
    raw = Collector(broker.port, "dicetower/none")
    try:
        with running_board(broker.url, STORE, webhooks=hooks) as board:
            t = tower(session_rolls=3)
            last = [t.roll() for _ in range(3)][-1]
            wait_posts(plain, 3)
            forged = {**json.loads(json.dumps(last)), "seq": last["seq"] + 1, "prev": last["hash"]}
            forged["result"]["outcome"] = "@everyone [won](https://evil.example)"  # hash not recomputed
            for _ in range(3):  # the same lie, three times: one alert
                raw.client.publish(f"dicetower/{STORE}/table1/log", log_message(STORE, "table1", forged), qos=1)
            alert = wait_posts(plain, 1, "alert")[0]
            problem = f"entry {forged['seq']}: its content does not match its own hash: the entry was edited"
            assert alert["verdict"] == {"check": "red", "tower_verified": False, "problem": problem,
                                        "problems": alert["verdict"]["problems"]}
            assert 1 <= alert["verdict"]["problems"] <= 3  # as many as the batch that turned it red held
            assert alert["seq"] == forged["seq"] and alert["type"] == "alert"
            later = [t.roll() for _ in range(3)]
            wait_posts(plain, 6)
            other = {**forged, "result": {**forged["result"], "outcome": "another lie"}}  # after the three, in order
            raw.client.publish(f"dicetower/{STORE}/table1/log", log_message(STORE, "table1", other), qos=1)
            wait_for(lambda: board.get("/api/towers/table1")["problems"] >= 2, what="the other lie's finding")
            assert board.get("/api/towers/table1")["problems"] == 2  # the same lie three times is one finding
            assert len(plain.bodies("alert")) == 1
            rolls = plain.bodies("roll")
            assert seqs(rolls) == [r["seq"] for r in board.get("/api/towers/table1/rolls")]
            assert rolls[-1]["entry"]["seq"] == later[-1]["seq"]
            assert rolls[-1]["verdict"]["tower_verified"] is False and rolls[-1]["verdict"]["problem"] == problem
            assert "won" not in json.dumps(plain.bodies())  # the forged roll itself is never posted
            embeds = [e for p in discord.answered() for e in p.body["embeds"]]
            red = [e for e in embeds if e.get("title") == "This tower's verdict is red"]
            assert len(red) == 1 and red[0]["description"].startswith(f"entry {forged['seq']}\\: its content")
    finally:
        raw.close()


# --- receivers that refuse, throttle, fail, are down ---------------------------------------------------------------


@pytest.mark.parametrize("discord", [False, True], ids=["retry-after-header", "discord-retry_after"])
def test_429_and_500_are_retried_as_the_receiver_asks_and_delivered_once(broker, tower, receivers, discord):
    r = receivers(too_many(1.0, discord=discord), (500, {}, b"oops"))
    hook = make_webhook(r.url, format="discord" if discord else "json")
    logs: list[str] = []
    with running_board(broker.url, STORE, webhooks=[hook], log=logs.append):
        t = tower(session_rolls=3)
        for _ in range(6):
            t.roll()
        if discord:
            wait_for(lambda: sum(len(p.body["embeds"]) for p in r.answered()) == 6, what="6 rolls at the receiver")
        else:
            wait_posts(r, 6)
    first, second, third = r.posts[:3]
    assert [p.status for p in r.posts[:3]] == [429, 500, 204]
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"] == third.headers["idempotency-key"]
    assert second.at - first.at >= 0.95  # the receiver asked for a second
    keys = [k for p in r.answered() for k in p.headers["idempotency-key"].split(", ")]
    assert len(keys) == len(set(keys)) == 6
    said = [line for line in logs if "webhook" in line and "trying again" in line]
    assert len(said) == 1 and "429 Too Many Requests" in said[0]
    assert any("delivering again, after 2 retries" in line for line in logs)


def test_a_400_is_given_up_with_one_line_and_the_next_post_goes_on(broker, tower, receivers):
    r = receivers((400, {"Content-Type": "application/json"}, b'{"message": "Invalid Form Body", "code": 50035}'))
    logs: list[str] = []
    with running_board(broker.url, STORE, webhooks=[make_webhook(r.url, name="vtt")], log=logs.append) as board:
        t = tower(session_rolls=3)
        entries = [t.roll() for _ in range(3)]
        wait_posts(r, 2)
        status = wait_for(lambda: (s := hook_status(board))["waiting"] == 0 and s, what="nothing waiting")
    assert (status["sent"], status["failed"], status["dropped"]) == (2, 1, 0)
    assert [p.status for p in r.posts] == [400, 204, 204]  # never sent again
    assert seqs(r.bodies()) == [e["seq"] for e in entries[1:]]
    given_up = [line for line in logs if "given up" in line]
    assert given_up == [f"board: webhook vtt: 400 Bad Request for the roll {STORE}/table1 seq {entries[0]['seq']}: "
                        '{"message": "Invalid Form Body", "code": 50035}; this post is given up, not sent again']


def test_a_receiver_that_is_down_gets_everything_in_order_once_it_is_up(broker, tower, receivers):
    r = receivers(start=False)  # its port refuses connections
    logs: list[str] = []
    with running_board(broker.url, STORE, webhooks=[make_webhook(r.url)], log=logs.append) as board:
        t = tower(session_rolls=3)
        entries = [t.roll() for _ in range(6)]
        status = wait_for(lambda: (s := hook_status(board))["waiting"] == 6 and s["state"] == "retrying" and s,
                          what="six posts waiting, retrying")
        assert status["detail"] == "connection refused" and status["sent"] == 0
        r.start()
        wait_posts(r, 6)
    assert seqs(r.bodies()) == [e["seq"] for e in entries]
    assert len(set(r.keys())) == 6 == len(r.answered())
    assert any("connection refused; trying again" in line for line in logs)


def test_a_batch_hook_sends_what_waits_in_requests_of_up_to_batch_posts(broker, tower, receivers):
    r = receivers(start=False)
    with running_board(broker.url, STORE, webhooks=[make_webhook(r.url, batch=4)]) as board:
        t = tower(session_rolls=3)
        entries = [t.roll() for _ in range(9)]
        wait_for(lambda: hook_status(board)["waiting"] == 9, what="nine posts waiting")
        r.start()
        wait_for(lambda: sum(len(p.body["posts"]) for p in r.answered()) == 9, what="nine posts in batches")
    requests = r.answered()
    assert all(p.body["version"] == 1 and p.body["type"] == "batch" and 1 <= len(p.body["posts"]) <= 4
               for p in requests)
    assert any(len(p.body["posts"]) == 4 for p in requests)  # what waited goes four at a time
    batched = [post for p in requests for post in p.body["posts"]]
    assert seqs(batched) == [e["seq"] for e in entries] and len({b["id"] for b in batched}) == 9
    assert all(p.headers["idempotency-key"].startswith("batch/") for p in requests)


def test_a_full_queue_drops_the_oldest_rolls_waiting_and_counts_them(broker, tower, receivers):
    r = receivers(start=False)
    logs: list[str] = []
    hook = make_webhook(r.url, name="small", queue=2)
    with running_board(broker.url, STORE, webhooks=[hook], log=logs.append) as board:
        t = tower(session_rolls=3)
        entries = [t.roll() for _ in range(6)]
        wait_for(lambda: hook_status(board)["dropped"] == 4, what="four rolls dropped")
        r.start()
        wait_posts(r, 2)
        status = wait_for(lambda: (s := hook_status(board))["waiting"] == 0 and s, what="nothing waiting")
    got = seqs(r.bodies())  # the newest, and the one being tried when the queue filled (never dropped)
    assert len(got) == 2 and got == sorted(got) and got[-1] == entries[-1]["seq"]
    assert (status["sent"], status["dropped"]) == (2, 4)
    assert any("webhook small: 2 posts waiting, its queue is full" in line for line in logs)


# --- across a restart ---------------------------------------------------------------------------------------------


class BoardProcess:
    """``dicetower board`` in its own process, its record in ``data``, its webhooks from ``config``."""

    def __init__(self, broker_url: str, data: Path, config: Path) -> None:
        self.port = free_port()
        self.args = [sys.executable, "-m", "hardware", "board", "--mqtt", broker_url, "--store", STORE,
                     "--listen", f"127.0.0.1:{self.port}", "--data", str(data), "--config", str(config)]
        self.proc: subprocess.Popen[bytes] | None = None
        self.err = b""

    def start(self) -> BoardProcess:
        self.proc = subprocess.Popen(self.args, cwd=REPO, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        wait_for(self._up, 30, "the board answering")
        return self

    def _up(self) -> bool:
        try:
            self.get("/api/board")
            return True
        except OSError:
            assert self.proc is not None and self.proc.poll() is None, self.proc.stderr.read().decode()
            return False

    def get(self, path: str):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as resp:
            return json.loads(resp.read())

    def hook(self) -> dict:
        return self.get("/api/board")["webhooks"][0]

    def stop(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)
        self.proc.wait(20)
        self.err += self.proc.stderr.read()
        self.proc.stderr.close()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.stop(signal.SIGKILL)


def webhook_config(tmp_path: Path, receiver: Receiver, format: str = "auto") -> Path:
    url_file = tmp_path / "hook-url"
    url_file.write_text(receiver.url + "\n")
    conf = tmp_path / "board.toml"
    conf.write_text(f'[[board.webhook]]\nurl_file = "{url_file}"\nname = "vtt"\nformat = "{format}"\n')
    return conf


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_across_a_restart_each_verified_roll_is_posted_once(broker, tower, receivers, tmp_path, sig):
    r = receivers()
    board = BoardProcess(broker.url, tmp_path / "record", webhook_config(tmp_path, r)).start()
    try:
        t = tower(session_rolls=3)
        before = [t.roll() for _ in range(3)]
        wait_posts(r, 3)
        wait_for(lambda: board.hook()["waiting"] == 0, what="the three acknowledged in the record")
        r.stop()  # the receiver goes down: the next session's rolls wait in the outbox
        waiting = [t.roll() for _ in range(3)]
        wait_for(lambda: board.hook()["waiting"] == 3, what="three posts waiting")
        board.stop(sig)
        down = [t.roll() for _ in range(3)]  # revealed while the board is down: verified after it starts
        r.start()
        board.start()  # it asks the tower for what it missed, checks it, and posts what waited and the new
        wait_posts(r, 9)
        wait_for(lambda: board.hook()["waiting"] == 0 and board.hook()["sent"] == 9, what="nine sent in all")
    finally:
        board.kill()
    keys = collections.Counter(r.keys())
    assert set(keys.values()) == {1} and len(keys) == 9
    assert seqs(r.bodies()) == [e["seq"] for e in before + waiting + down]
    assert b"Traceback" not in board.err


def test_a_post_in_flight_when_the_board_dies_comes_again_with_the_same_key(broker, tower, receivers, tmp_path):
    """The one duplicate HTTP cannot rule out: the receiver has the post, the board dies before
    it has the answer in its record. The post comes again after the restart, with the same
    idempotency key (header and body), so the receiver can drop it."""
    import threading

    r = receivers()
    r.hold = threading.Event()
    r.hold.set()  # the receiver keeps the request and never answers
    board = BoardProcess(broker.url, tmp_path / "record", webhook_config(tmp_path, r)).start()
    try:
        t = tower(session_rolls=1)
        t.roll()
        held = wait_for(lambda: [p for p in r.posts if p.status == 0], what="the post in flight")[0]
        board.kill()
        r.hold.clear()
        board.start()
        again = wait_posts(r, 1)[0]
    finally:
        board.kill()
    assert again["id"] == held.body["id"] and r.answered()[0].headers["idempotency-key"] == again["id"]
    assert again == held.body  # the same post, byte for byte the same body


def test_delivery_is_at_least_once_a_post_kept_as_the_board_dies_comes_again_with_its_key(broker, tower,
                                                                                          receivers, tmp_path):
    """Between the receiver's keeping a post (it answers 2xx) and the board's recording that
    answer, the board is killed (SIGKILL): after the restart the same post comes again, with
    the same Idempotency-Key. That is at-least-once delivery, and docs/network.md says so and
    that receivers deduplicate on the key."""
    r = receivers()
    board = BoardProcess(broker.url, tmp_path / "record", webhook_config(tmp_path, r)).start()
    killed: list[int] = []

    def kill_the_board(body: object) -> None:  # the post is kept; the board dies before it hears 2xx
        if not killed and board.proc is not None:
            killed.append(board.proc.pid)
            board.proc.kill()
            board.proc.wait(20)

    r.on_post = kill_the_board
    try:
        t = tower(session_rolls=1)
        t.roll()
        first = wait_posts(r, 1)[0]
        wait_for(lambda: board.proc is not None and board.proc.poll() is not None, what="the board killed")
        board.stop(signal.SIGKILL)
        board.start()
        again = wait_posts(r, 2)
        wait_for(lambda: board.hook()["waiting"] == 0 and board.hook()["sent"] == 1, what="recorded as sent once")
    finally:
        board.kill()
    keys = r.keys()
    assert keys == [first["id"], first["id"]] and again[1] == first  # the same post, the same key, twice
    doc = " ".join((REPO / "docs" / "network.md").read_text().split())
    assert "Delivery is *at-least-once*" in doc and "A receiver must deduplicate on that key" in doc


def test_a_discord_post_in_flight_when_the_board_dies_comes_again_marked_as_a_repeat(broker, tower, receivers,
                                                                                    tmp_path):
    """Discord keeps no idempotency key (its webhooks ignore one, and offer no way to find a
    message whose id the board never got), so the repeat cannot be dropped there: it is shown
    as a repeat. Posts that were never handed to Discord before go out as they are."""
    import threading

    r = receivers()
    r.hold = threading.Event()
    r.hold.set()
    board = BoardProcess(broker.url, tmp_path / "record", webhook_config(tmp_path, r, "discord")).start()
    try:
        t = tower(session_rolls=1)
        t.roll()
        held = wait_for(lambda: [p for p in r.posts if p.status == 0], what="the post in flight")[0]
        board.kill()
        r.hold.clear()
        board.start()
        again = wait_for(lambda: r.answered(), what="the post again")[0]
        t.roll()  # a roll never handed to Discord before
        later = wait_for(lambda: r.answered()[1:], what="the next post")[0]
    finally:
        board.kill()
    footer = again.body["embeds"][0]["footer"]["text"]
    assert footer == held.body["embeds"][0]["footer"]["text"] + " · " + posts.REPEAT
    assert again.body["embeds"][0]["description"] == held.body["embeds"][0]["description"]
    assert posts.REPEAT not in later.body["embeds"][0]["footer"]["text"]


def test_the_journal_counts_every_try_again_and_a_429_starts_the_backoff_again(broker, tower, receivers):
    r = receivers(*[(500, {}, b"oops")] * 3, too_many(0.2), *[(503, {}, b"busy")] * 2)
    logs: list[str] = []
    with running_board(broker.url, STORE, webhooks=[make_webhook(r.url)], log=logs.append):
        t = tower(session_rolls=1)
        t.roll()
        wait_posts(r, 1, timeout=60)
    assert [p.status for p in r.posts] == [500, 500, 500, 429, 503, 503, 204]
    wait_for(lambda: any("delivering again, after 6 retries" in line for line in logs), what="the count said")
    # (that the 503 after the 429 waits the backoff's first step again is
    # tests/hardware/test_board_posts.py::test_a_429_starts_the_5xx_backoff_again_from_its_first_step)


# --- the live stream, for a virtual tabletop's page ------------------------------------------------------------------


def read_events(port: int, path: str, origin: str, want: int, kinds: tuple[str, ...] = ("roll", "alert")):
    """Read ``/events...`` as a browser on ``origin`` would, until ``want`` events of ``kinds``
    arrived; returns the response's headers and those events (name, JSON)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request("GET", path, headers={"Origin": origin, "Accept": "text/event-stream"})
        resp = conn.getresponse()
        headers = {k.lower(): v for k, v in resp.getheaders()}
        got, name = [], ""
        while len(got) < want:
            line = resp.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: ") and name in kinds:
                got.append((name, json.loads(line[6:])))
        return headers, got
    finally:
        conn.close()


def test_the_event_stream_feeds_each_verified_roll_to_an_allowed_origin(broker, tower):
    import threading

    with running_board(broker.url, STORE, allow_origins=["https://vtt.example"]) as board:  # no webhook at all
        port = int(board.base.rsplit(":", 1)[1])
        t = tower(session_rolls=3)
        result: dict = {}
        reader = threading.Thread(target=lambda: result.update(zip(("headers", "events"), read_events(
            port, "/events?tower=table1&feed=1", "https://vtt.example", 3), strict=True)), daemon=True)
        reader.start()
        wait_for(lambda: board.towers._post_listeners, what="the stream listening")
        entries = [t.roll() for _ in range(3)]
        reader.join(20)
        assert result["headers"]["access-control-allow-origin"] == "https://vtt.example"
        assert [name for name, _ in result["events"]] == ["roll"] * 3
        bodies = [body for _, body in result["events"]]
        assert [b["entry"] for b in bodies] == entries and all(b["verdict"]["check"] == "verified" for b in bodies)
        headers, _ = read_events(port, "/events", "https://elsewhere.example", 0)
        assert "access-control-allow-origin" not in headers  # another origin's page cannot read it


@pytest.mark.parametrize(("origin", "message"), [
    ("https://vtt.example/", "--allow-origin: expected an origin such as https://vtt.example.com"),
    ("vtt.example", "--allow-origin: expected an origin"),
    ("https://vtt.example/game", "--allow-origin: expected an origin"),
])
def test_a_bad_origin_is_one_line(origin, message, capsys):
    from hardware.cli import main

    assert main(["board", "--mqtt", "mqtt://x", "--allow-origin", origin]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
