"""Many towers, one board, one broker: load and faults, measured.

N simulated towers (real session dice, real roll logs, real publishers; in worker processes)
roll R times a second for S seconds through one local Mosquitto to ``dicetower board`` (its
own process). Meanwhile, unless ``--no-faults``: the broker is killed (SIGKILL) and restarted,
one tower's process is killed mid-roll and restarted from its state directory (its cursor),
and one tower publishes a forged entry. At the end every tower closes its session (a reveal)
and the run waits until the board holds every entry. Printed:

- entries written by the towers, kept by the board, duplicates the board dropped, missing;
- whether every tower verified and every revealed session was replayed;
- publish-to-page latency p50/p99: from an entry's ``time`` (written when it was logged) to
  its arrival in the page's event stream (the same stream the browser reads), and as a
  baseline, measured in the same run, the broker alone: a probe message's round trip through
  the same broker;
- the fault results: entries lost over the broker restart, how the killed tower resumed, how
  long the forged entry took to turn its tower red.

    .venv/bin/python bench/bench_board.py [--towers 50] [--rate 10] [--seconds 60] [--no-faults]

The test suite runs a small version (``tests/hardware/test_bench_board.py``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STORE = "bench"


# --- the towers' side (worker processes) ----------------------------------------------------------------


def tower_worker(url: str, root: str, names: list[str], rate: float, seconds: float, session_rolls: int,
                 ready: Any) -> None:
    """Roll every tower in ``names`` ``rate`` times a second for ``seconds``, then close them."""
    from bench.sim_towers import SimTower

    towers = [SimTower(Path(root) / n, url, STORE, n, session_rolls=session_rolls) for n in names]
    ready.set()
    start = time.monotonic()
    tick = 0
    while True:
        due = start + tick / rate
        if due - start >= seconds:
            break
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        for t in towers:
            t.roll()
        tick += 1
    for t in towers:
        t.dice.close()  # the reveal: every session can be replayed
    for t in towers:
        t.publisher.close(10.0)


def forge_once(url: str, tower: str, entry: dict[str, Any]) -> None:
    """Publish, on a tower's topic, the entry after ``entry`` with a roll nobody rolled."""
    from hardware.network.topics import log_message
    from tests.hardware.netparts import Collector

    forged = {**json.loads(json.dumps(entry)), "seq": entry["seq"] + 1, "prev": entry["hash"]}
    forged["result"] = {**forged.get("result", {}), "outcome": "success", "dice": [6, 6]}
    port = int(url.rsplit(":", 1)[1])
    c = Collector(port, "dicetower/none")
    c.client.publish(f"dicetower/{STORE}/{tower}/log", log_message(STORE, tower, forged), qos=1).wait_for_publish(5)
    c.close()


# --- the page's side: the event stream -------------------------------------------------------------------


@dataclass
class PageClient:
    """Reads ``/events`` like the page does and notes when each roll first arrives."""

    host: str
    port: int
    latencies: list[float] = field(default_factory=list)
    steady: list[float] = field(default_factory=list)  # rolls logged before the first fault
    fault_at: float = float("inf")  # wall clock of the first fault
    seen: set[tuple[str, int]] = field(default_factory=set)
    red_at: dict[str, float] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self._read()
            except (OSError, http.client.HTTPException):
                self.stop.wait(0.2)

    def _read(self) -> None:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=1)
        try:
            self._events(conn)
        finally:
            conn.close()

    def _events(self, conn: http.client.HTTPConnection) -> None:
        conn.request("GET", "/events")
        resp = conn.getresponse()
        data = ""
        while not self.stop.is_set():
            line = resp.readline()
            if not line:
                return
            text = line.decode().rstrip("\n")
            if text.startswith("data: "):
                data = text[6:]
            elif text == "" and data:
                now = time.time()
                payload = json.loads(data)
                for card in payload if isinstance(payload, list) else [payload]:
                    self._card(card, now)
                data = ""

    def _card(self, card: dict[str, Any], now: float) -> None:
        if not card["verified"] and card["tower"] not in self.red_at:
            self.red_at[card["tower"]] = time.monotonic()
        for roll in card["last"]:
            key = (card["key"], roll["seq"])
            if key in self.seen:
                continue
            self.seen.add(key)
            logged = datetime.fromisoformat(roll["time"].replace("Z", "+00:00")).timestamp()
            self.latencies.append(now - logged)
            if logged < self.fault_at:
                self.steady.append(now - logged)


class BrokerProbe:
    """The baseline: a message's round trip through the same broker, every 50 ms."""

    def __init__(self, port: int) -> None:
        from paho.mqtt.client import CallbackAPIVersion, Client

        self.latencies: list[float] = []
        self.client = Client(CallbackAPIVersion.VERSION2, client_id="bench-probe")
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe("bench/probe", qos=1)
        self.client.on_message = lambda c, u, m: self.latencies.append(time.time() - float(m.payload))
        self.client.reconnect_delay_set(0.1, 1)
        self.client.connect_async("127.0.0.1", port)
        self.client.loop_start()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(0.05):
            if self.client.is_connected():
                self.client.publish("bench/probe", repr(time.time()), qos=1)

    def close(self) -> None:
        from hardware.network.broker import release

        self.stop.set()
        self.thread.join(1)
        release(self.client)


# --- the run --------------------------------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def api(host: str, port: int, path: str) -> Any:
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request("GET", path)
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def log_head(path: Path) -> tuple[int, dict[str, Any] | None]:
    """(entries, last entry) of a roll log."""
    from hardware.rolllog import read_entries

    entries = [s.entry for s in read_entries(path) if s.entry is not None and s.complete]
    return len(entries), (entries[-1] if entries else None)


def wait_until(condition: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def run_load(towers: int = 50, rate: float = 10.0, seconds: float = 60.0, *, faults: bool = True,
             session_rolls: int = 100, workers: int = 2, out: Any = print) -> dict[str, Any]:
    """Run the load (and the faults); returns the figures (also printed through ``out``)."""
    from tests.hardware.netparts import Mosquitto, free_port

    binary = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/sbin")
    if binary is None:
        raise SystemExit("bench_board: needs mosquitto (apt install mosquitto)")
    work = Path(tempfile.mkdtemp(prefix="bench-board-"))
    (work / "broker").mkdir()
    broker = Mosquitto(binary, work / "broker").start()
    board_port = free_port()
    board = subprocess.Popen([sys.executable, "-m", "hardware", "board", "--mqtt", broker.url, "--store", STORE,
                              "--listen", f"127.0.0.1:{board_port}"], cwd=ROOT, stderr=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    ctx = multiprocessing.get_context("spawn")
    procs: list[Any] = []
    figures: dict[str, Any] = {"towers": towers, "rate": rate, "seconds": seconds}
    page = PageClient("127.0.0.1", board_port)
    reader: threading.Thread | None = None
    probe = BrokerProbe(broker.port)
    try:
        if not wait_until(lambda: _up(board_port), 30):
            raise SystemExit("bench_board: the board did not start")
        reader = threading.Thread(target=page.run, daemon=True)
        reader.start()
        names = [f"t{i:02d}" for i in range(towers)]
        victim = names[-1] if faults else None  # in its own process: killed and restarted
        groups = [names[i::workers] for i in range(workers)]
        if victim:
            groups = [[n for n in g if n != victim] for g in groups] + [[victim]]
        readies = []
        for group in groups:
            if not group:
                continue
            ready = ctx.Event()
            p = ctx.Process(target=tower_worker, args=(broker.url, str(work), group, rate, seconds, session_rolls,
                                                       ready))
            p.start()
            procs.append((p, group))
            readies.append(ready)
        for r in readies:
            r.wait(60)
        t0 = time.monotonic()
        if faults:
            _faults(figures, broker, procs, victim, work, ctx, rate, seconds, session_rolls, board_port, page, t0, out)
        for p, _ in procs:
            p.join(seconds + 120)
        _settle(figures, work, names, board_port, out)
        figures["latency_p50_ms"] = round(percentile(page.steady, 50) * 1000, 1)
        figures["latency_p99_ms"] = round(percentile(page.steady, 99) * 1000, 1)
        figures["latency_samples"] = len(page.steady)
        figures["latency_all_p50_ms"] = round(percentile(page.latencies, 50) * 1000, 1)
        figures["latency_all_p99_ms"] = round(percentile(page.latencies, 99) * 1000, 1)
        figures["latency_all_samples"] = len(page.latencies)
        figures["baseline_broker_p50_ms"] = round(percentile(probe.latencies, 50) * 1000, 1)
        figures["baseline_broker_p99_ms"] = round(percentile(probe.latencies, 99) * 1000, 1)
    finally:
        page.stop.set()
        if reader is not None:
            reader.join(5)
        probe.close()
        for p, _ in procs:
            if p.is_alive():
                p.kill()
        board.send_signal(signal.SIGINT)
        try:
            board.wait(15)
        except subprocess.TimeoutExpired:
            board.kill()
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    _report(figures, out)
    return figures


def _up(port: int) -> bool:
    try:
        api("127.0.0.1", port, "/api/towers")
        return True
    except OSError:
        return False


def _faults(figures: dict[str, Any], broker: Any, procs: list[Any], victim: str | None, work: Path, ctx: Any,
            rate: float, seconds: float, session_rolls: int, board_port: int, page: PageClient, t0: float,
            out: Any) -> None:
    """A third of the way: kill the broker, restart it 2 s later; half-way: kill the victim
    tower's process mid-roll and restart it; at two thirds: a forged entry from tower t00."""
    time.sleep(max(0.0, t0 + seconds / 3 - time.monotonic()))
    page.fault_at = time.time()
    broker.kill()
    figures["broker_killed_at_s"] = round(time.monotonic() - t0, 1)
    time.sleep(min(2.0, seconds / 6))
    broker.start()
    out(f"  broker killed (SIGKILL) at {figures['broker_killed_at_s']} s and restarted")
    time.sleep(max(0.0, t0 + seconds / 2 - time.monotonic()))
    if victim is not None:
        idx = next(i for i, (_, g) in enumerate(procs) if g == [victim])
        proc = procs[idx][0]
        proc.kill()  # SIGKILL, mid-roll (10 rolls a second)
        proc.join(10)
        from hardware.network.cursor import CURSOR_NAME, load_cursor

        cursor, _ = load_cursor(work / victim / CURSOR_NAME, STORE, victim)
        entries, _ = log_head(work / victim / "rolls.jsonl")
        figures["victim_killed"] = {"entries_in_log": entries, "cursor_seq": cursor.seq}
        left = max(1.0, seconds - (time.monotonic() - t0))
        ready = ctx.Event()
        p = ctx.Process(target=tower_worker, args=(str(broker.url), str(work), [victim], rate, left, session_rolls,
                                                   ready))
        p.start()
        procs[idx] = (p, [victim])
        out(f"  tower {victim} killed (SIGKILL) with {entries} entries logged, cursor at {cursor.seq}; restarted")
    time.sleep(max(0.0, t0 + 2 * seconds / 3 - time.monotonic()))
    _, last = log_head(work / "t00" / "rolls.jsonl")
    if last is not None:
        sent = time.monotonic()
        forge_once(broker.url, "t00", last)
        ok = wait_until(lambda: "t00" in page.red_at, 10)
        figures["forged_red_ms"] = round((page.red_at["t00"] - sent) * 1000, 1) if ok else None
        item = next((i for i in api("127.0.0.1", board_port, "/api/towers") if i["tower"] == "t00"), {})
        figures["forged_problem"] = item.get("problem")
        out(f"  forged entry on t00: red on the page after {figures['forged_red_ms']} ms: {item.get('problem')}")


def _settle(figures: dict[str, Any], work: Path, names: list[str], board_port: int, out: Any) -> None:
    """Wait until the board holds every tower's whole log and has replayed every reveal."""
    heads = {n: log_head(work / n / "rolls.jsonl")[0] for n in names}
    figures["entries_sent"] = sum(heads.values())

    def done() -> bool:
        cards = {c["tower"]: c for c in (api("127.0.0.1", board_port, f"/api/towers/{n}") for n in names)}
        figures["_cards"] = cards
        return all(cards[n]["seq"] == heads[n] and not cards[n]["replay_pending"] for n in names)

    start = time.monotonic()
    settled = wait_until(lambda: _safe(done), 120)
    figures["settle_s"] = round(time.monotonic() - start, 1)
    cards = figures.pop("_cards", {})
    figures["settled"] = settled
    figures["entries_received"] = sum(c["seq"] for c in cards.values())
    figures["duplicates_dropped"] = sum(c["duplicates"] for c in cards.values())
    figures["missing"] = figures["entries_sent"] - figures["entries_received"]
    figures["rolls"] = sum(c["rolls"] for c in cards.values())
    figures["sessions"] = sum(c["sessions"] for c in cards.values())
    figures["sessions_replayed"] = sum(c["revealed"] for c in cards.values())
    figures["sessions_open"] = figures["sessions"] - figures["sessions_replayed"]
    honest = [c for n, c in cards.items() if n != "t00" or "forged_red_ms" not in figures]
    figures["towers_verified"] = sum(1 for c in honest if c["verified"])
    figures["towers_red"] = sorted(n for n, c in cards.items() if not c["verified"])
    figures["problems_on_honest_towers"] = [c["problem"] for c in honest if c["problem"]]


def _safe(check: Any) -> bool:
    try:
        return bool(check())
    except (OSError, KeyError, ValueError):
        return False


def _report(f: dict[str, Any], out: Any) -> None:
    out(f"towers {f['towers']} x {f['rate']} rolls/s for {f['seconds']} s (one broker, one board)")
    if "entries_sent" not in f:
        return
    out(f"  entries sent {f['entries_sent']}, received {f['entries_received']} (missing {f['missing']}), "
        f"duplicates dropped {f['duplicates_dropped']}, settled {f['settled']} after {f['settle_s']} s")
    out(f"  rolls {f['rolls']}, sessions {f['sessions']}, revealed and replayed {f['sessions_replayed']}, "
        f"never revealed {f['sessions_open']} (a killed tower's session dies with it); "
        f"honest towers verified {f['towers_verified']}/{f['towers'] - (1 if 'forged_red_ms' in f else 0)}, "
        f"red {f['towers_red']}")
    out(f"  publish-to-page latency p50 {f['latency_p50_ms']} ms, p99 {f['latency_p99_ms']} ms "
        f"({f['latency_samples']} rolls before the first fault); whole run incl. the outage: "
        f"p50 {f['latency_all_p50_ms']} ms, p99 {f['latency_all_p99_ms']} ms ({f['latency_all_samples']} rolls)")
    out(f"  baseline, the broker alone (a probe's round trip, same run): p50 {f['baseline_broker_p50_ms']} ms, "
        f"p99 {f['baseline_broker_p99_ms']} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--towers", type=int, default=50)
    parser.add_argument("--rate", type=float, default=10.0, help="rolls per second per tower")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--session-rolls", type=int, default=100, help="rolls per session before a reveal")
    parser.add_argument("--workers", type=int, default=2, help="processes the towers run in")
    parser.add_argument("--no-faults", action="store_true", help="load only: no broker kill, tower kill, forgery")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    figures = run_load(args.towers, args.rate, args.seconds, faults=not args.no_faults,
                       session_rolls=args.session_rolls, workers=args.workers)
    if args.json:
        print(json.dumps(figures, indent=2))
    ok = figures.get("settled") and figures.get("missing") == 0 and not figures.get("problems_on_honest_towers")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
