"""Many towers, one board, one broker: load and faults, memory, restart and the rate one
board keeps up with, measured. Four parts (``--part``, default all):

``load``: N simulated towers (real session dice, real roll logs, real publishers; in worker processes)
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
  long the forged entry took to turn its tower red;
- with ``--browser`` (the default where Chromium is installed): the same rolls' latency to the
  board page as rendered by a real headless Chromium (a roll counts when it is drawn).

``rss``: the board's resident memory as its record grows: honest towers' logs (generated once
into ``--cache``) are fed through the board's own message path (:meth:`Towers.handle`, the
verifier in its process) and the RSS of the board's process (and of the verifier's) is read at
each checkpoint (default 10k, 100k, 1M entries). Target: flat within 50 MB after warm-up.

``restart``: the time from opening a record with 50 towers' history (what ``rss`` left) to
every tower's verdict: in the process (open the record, list the towers), and from starting
``dicetower board`` to its first ``/api/towers`` answer, against the same for an empty record.

``rate``: the entries per second one board keeps up with: pre-generated honest entries of 50
towers published through a local Mosquitto at rising rates (10 s each); a rate is kept up with
when the board holds every entry within 2 s of the last one published.

``webhook`` (not in the default set: ``--part webhook``): the load above without faults, run
twice, the board posting to local receivers (tests/hardware/hookparts.py, in this process):
first to one, *fast* (plain JSON, always up: verified-roll-to-POST latency p50/p99 from the
batch that verified the roll, its ``decided_at``, to the receiver; every verified roll
received exactly once; rolls per second), then to two at once: *late*
(plain JSON, down for the first two thirds of the run, then up: the rate its backlog drains
at, what its full queue dropped) and *throttled* (Discord's format, a receiver that answers
like Discord: 5 requests per 2 s announced in its rate-limit headers, and 30 messages a
minute per channel that no header announces, each then 429 with ``retry_after``: the rolls
per second that get through, the 429s, what was dropped). Baseline in the same run: a
probe's POST round trip to the fast receiver.

    .venv/bin/python bench/bench_board.py [--part load,rss,restart,rate,webhook] [--towers 50] [--rate 10]
        [--seconds 60] [--no-faults] [--no-browser] [--rss-entries 10000,100000,1000000]
        [--cache DIR] [--json]

The test suite runs a small version of ``load`` (``tests/hardware/test_bench_board.py``).
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
from types import SimpleNamespace
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
        name, data = "", ""
        while not self.stop.is_set():
            line = resp.readline()
            if not line:
                return
            text = line.decode().rstrip("\n")
            if text.startswith("event: "):
                name = text[7:]
            elif text.startswith("data: "):
                data = text[6:]
            elif text == "" and data:
                now = time.time()
                payload = json.loads(data)
                if name in ("snapshot", "tower"):
                    for card in payload if isinstance(payload, list) else [payload]:
                        self._card(card, now)
                name, data = "", ""

    def _card(self, card: dict[str, Any], now: float) -> None:
        # red, not merely "not verified yet": a tower whose rolls wait for their reveal is unchecked
        if card.get("state") == "red" and card["tower"] not in self.red_at:
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


class BrowserPage:
    """The board page in a real headless Chromium; notes when each roll is first drawn (a
    MutationObserver, read at the next animation frame: when the browser paints it)."""

    FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--window-size=1700,1000",
             "--disable-renderer-backgrounding", "--disable-background-timer-throttling")
    SCRIPT = """
        window.__seen = []; const seen = new Set();
        new MutationObserver(() => requestAnimationFrame(() => {
          const now = Date.now();
          for (const li of document.querySelectorAll('li.roll[data-seq]')) {
            const key = li.closest('article').dataset.key + '#' + li.dataset.seq;
            if (!seen.has(key)) { seen.add(key); window.__seen.push([key, now]); }
          }
        })).observe(document, {childList: true, subtree: true});
    """

    def __init__(self, url: str, profile: Path) -> None:
        import shutil as _shutil

        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = _shutil.which("chromium") or "chromium"
        for flag in (*self.FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        self.driver = webdriver.Chrome(options=options, service=Service(_shutil.which("chromedriver")))
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": self.SCRIPT})
        self.driver.execute_cdp_cmd("Performance.enable", {})
        self.driver.get(url)
        self.started = time.monotonic()

    def busy(self) -> dict[str, float]:
        """How much of the run the page's main thread spent in tasks, scripts, layout, style."""
        wall = time.monotonic() - self.started
        metrics = {m["name"]: m["value"] for m in self.driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}
        return {k: round(metrics.get(v, 0.0) / wall * 100, 1) for k, v in
                (("task_pct", "TaskDuration"), ("script_pct", "ScriptDuration"), ("layout_pct", "LayoutDuration"),
                 ("style_pct", "RecalcStyleDuration"))}

    def seen(self) -> list[tuple[str, int, float]]:
        """(store/tower, seq, when drawn as a Unix time) of every roll drawn so far."""
        out = []
        for key, ms in self.driver.execute_script("return window.__seen.splice(0)"):
            card, seq = key.rsplit("#", 1)
            out.append((card, int(seq), ms / 1000))
        return out

    def close(self) -> None:
        self.driver.quit()


def browser_available() -> bool:
    return shutil.which("chromium") is not None and shutil.which("chromedriver") is not None


def entry_times(work: Path, names: list[str]) -> dict[tuple[str, int], float]:
    """(store/tower, seq) -> when the roll was logged, from the towers' logs."""
    from hardware.files.rolllog import read_entries

    out = {}
    for n in names:
        for s in read_entries(work / n / "rolls.jsonl"):
            if s.entry is not None and s.entry.get("kind") == "roll":
                out[(f"{STORE}/{n}", s.entry["seq"])] = datetime.fromisoformat(
                    s.entry["time"].replace("Z", "+00:00")).timestamp()
    return out


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
    from hardware.files.rolllog import read_entries

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
             session_rolls: int = 100, workers: int = 2, browser: bool = False, out: Any = print) -> dict[str, Any]:
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
                              "--listen", f"127.0.0.1:{board_port}", "--data", str(work / "record")], cwd=ROOT,
                             stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    ctx = multiprocessing.get_context("spawn")
    procs: list[Any] = []
    figures: dict[str, Any] = {"towers": towers, "rate": rate, "seconds": seconds}
    page = PageClient("127.0.0.1", board_port)
    reader: threading.Thread | None = None
    probe = BrokerProbe(broker.port)
    chromium: BrowserPage | None = None
    try:
        if not wait_until(lambda: _up(board_port), 30):
            raise SystemExit("bench_board: the board did not start")
        reader = threading.Thread(target=page.run, daemon=True)
        reader.start()
        if browser:
            chromium = BrowserPage(f"http://127.0.0.1:{board_port}/", work / "chromium")
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
        if chromium is not None:
            _page_latency(figures, chromium.seen(), entry_times(work, names), page.fault_at)
            figures["page_busy"] = chromium.busy()
    finally:
        if chromium is not None:
            chromium.close()
        page.stop.set()
        if reader is not None:
            reader.join(5)
        probe.close()
        for p, _ in procs:
            if p.is_alive():
                p.kill()
        _stop(board, signal.SIGINT, 15)
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    _report(figures, out)
    return figures


def _page_latency(figures: dict[str, Any], seen: list[tuple[str, int, float]],
                  logged: dict[tuple[str, int], float], fault_at: float) -> None:
    """Logged-to-drawn latency of every roll the Chromium page drew (steady: before the first fault)."""
    steady, every = [], []
    for card, seq, drawn in seen:
        when = logged.get((card, seq))
        if when is None:
            continue
        every.append(drawn - when)
        if when < fault_at:
            steady.append(drawn - when)
    figures["page_p50_ms"] = round(percentile(steady, 50) * 1000, 1)
    figures["page_p99_ms"] = round(percentile(steady, 99) * 1000, 1)
    figures["page_samples"] = len(steady)
    figures["page_all_p50_ms"] = round(percentile(every, 50) * 1000, 1)
    figures["page_all_p99_ms"] = round(percentile(every, 99) * 1000, 1)
    figures["page_all_samples"] = len(every)


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
        # the child reads ``ready`` by name once it has started: the Event must outlive that
        # (Process.start drops its own reference to the arguments), so wait for it here
        ready.wait(60)
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
    figures["towers_red"] = sorted(n for n, c in cards.items() if c.get("state") == "red")
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
        f"never revealed {f['sessions_open']} (the killed tower reveals its session when it starts again); "
        f"honest towers verified {f['towers_verified']}/{f['towers'] - (1 if 'forged_red_ms' in f else 0)}, "
        f"red {f['towers_red']}")
    out(f"  publish-to-page latency p50 {f['latency_p50_ms']} ms, p99 {f['latency_p99_ms']} ms "
        f"({f['latency_samples']} rolls before the first fault); whole run incl. the outage: "
        f"p50 {f['latency_all_p50_ms']} ms, p99 {f['latency_all_p99_ms']} ms ({f['latency_all_samples']} rolls)")
    if "page_p50_ms" in f:
        out(f"  logged-to-drawn in a headless Chromium page: p50 {f['page_p50_ms']} ms, p99 {f['page_p99_ms']} ms "
            f"({f['page_samples']} rolls before the first fault); whole run: p50 {f['page_all_p50_ms']} ms, "
            f"p99 {f['page_all_p99_ms']} ms ({f['page_all_samples']} rolls)")
        b = f["page_busy"]
        out(f"  the page's main thread was busy {b['task_pct']}% of the run (script {b['script_pct']}%, "
            f"layout {b['layout_pct']}%, style {b['style_pct']}%)")
    out(f"  baseline, the broker alone (a probe's round trip, same run): p50 {f['baseline_broker_p50_ms']} ms, "
        f"p99 {f['baseline_broker_p99_ms']} ms")


# --- honest logs, generated once --------------------------------------------------------------------------


def _generate(root: str, names: list[str], entries: int, session_rolls: int) -> None:
    """Roll each tower in ``names`` until its log holds at least ``entries`` entries (worker)."""
    from bench.sim_towers import SimTower
    from hardware.files.rolllog import read_entries

    for name in names:
        path = Path(root) / name
        have = sum(1 for _ in read_entries(path / "rolls.jsonl")) if (path / "rolls.jsonl").exists() else 0
        if have >= entries:
            continue
        t = SimTower(path, "mqtt://127.0.0.1:1", STORE, name, session_rolls=session_rolls, start=False)
        while have < entries:
            t.roll()
            have += 1 + (1 if t.rolls % session_rolls == 0 else 0) * 2
        t.dice.close()


def honest_logs(cache: Path, towers: int, entries: int, *, session_rolls: int = 100, out: Any = print) -> list[Path]:
    """``towers`` honest roll logs of at least ``entries`` entries each under ``cache`` (kept
    for the next run), made in two worker processes."""
    names = [f"t{i:02d}" for i in range(towers)]
    start = time.monotonic()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_generate, args=(str(cache), names[i::2], entries, session_rolls)) for i in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        if p.exitcode:
            raise SystemExit("bench_board: generating the towers' logs failed")
    if time.monotonic() - start > 1:
        out(f"  generated {towers} towers' logs of {entries} entries in {time.monotonic() - start:.0f} s ({cache})")
    return [cache / n / "rolls.jsonl" for n in names]


def _interleaved(logs: list[Path], limit: int) -> Any:
    """(tower, entry) from every log in turn, like towers rolling side by side, ``limit`` in all."""
    from hardware.files.rolllog import read_entries

    streams = [(p.parent.name, (s.entry for s in read_entries(p) if s.entry is not None)) for p in logs]
    sent = 0
    while streams and sent < limit:
        alive = []
        for name, stream in streams:
            entry = next(stream, None)
            if entry is None:
                continue
            alive.append((name, stream))
            yield name, entry
            sent += 1
            if sent >= limit:
                return
        streams = alive


# --- memory as the record grows -------------------------------------------------------------------------


def rss_kb(pid: int | str = "self") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def rss_child(data: str, logs: list[str], checkpoints: list[int]) -> None:
    """In its own process: a board (record, verifier process) fed the logs through its message
    path; one JSON line per checkpoint."""
    from hardware.board.towers import Towers
    from hardware.network.topics import log_message

    towers = Towers(data, STORE).start()
    fed, start = 0, time.monotonic()
    try:
        for name, entry in _interleaved([Path(p) for p in logs], max(checkpoints)):
            while towers._inbox.bytes > 4 << 20:  # the writer's pace: a board fed as fast as it can write
                time.sleep(0.005)
            towers.handle(f"dicetower/{STORE}/{name}/log", log_message(STORE, name, entry))
            fed += 1
            if fed in checkpoints:
                while not towers._inbox.empty():
                    time.sleep(0.01)
                pid = towers.verifier_pid
                with towers.lock:
                    behind = sum(1 for v in towers.ledgers.values() if v.check_due or v.checking)
                print(json.dumps({"entries": fed, "board_kb": rss_kb(), "verifier_kb": rss_kb(pid) if pid else 0,
                                  "seconds": round(time.monotonic() - start, 1), "kept": towers.kept,
                                  "towers_waiting_for_checks": behind,
                                  "record_mb": round(sum(f.stat().st_size for f in Path(data).glob("board.*"))
                                                     / 1e6, 1)}), flush=True)
        towers.check_now(timeout=3600)
        print(json.dumps({"checked_s": round(time.monotonic() - start, 1)}), flush=True)
    finally:
        towers.close()


def run_rss(cache: Path, data: Path, checkpoints: list[int], towers: int = 50, out: Any = print) -> dict[str, Any]:
    logs = honest_logs(cache, towers, -(-max(checkpoints) // towers) + 2, out=out)
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--rss-child", str(data),
                           ",".join(map(str, checkpoints)), *map(str, logs)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode:
        raise SystemExit(f"bench_board: the rss run failed: {proc.stderr[-2000:]}")
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    points = [r for r in rows if "entries" in r]
    figures = {"rss": points, "checked_s": next((r["checked_s"] for r in rows if "checked_s" in r), None)}
    out(f"board RSS as the record grows ({towers} towers, entries fed through the board's message path):")
    for r in points:
        out(f"  {r['entries']:>9,} entries: board {r['board_kb'] / 1024:6.1f} MB, "
            f"verifier {r['verifier_kb'] / 1024:6.1f} MB, record on disk {r['record_mb']} MB, fed in {r['seconds']} s")
    if len(points) >= 2:
        growth = (points[-1]["board_kb"] - points[0]["board_kb"]) / 1024
        figures["growth_mb"] = round(growth, 1)
        out(f"  growth after warm-up ({points[0]['entries']:,} -> {points[-1]['entries']:,}): {growth:+.1f} MB "
            f"(target: within 50 MB); every check done after {figures['checked_s']} s")
    return figures


# --- restart to verdicts --------------------------------------------------------------------------------


def run_restart(data: Path, out: Any = print) -> dict[str, Any]:
    """From opening a record with history to every tower's verdict, in the process and through
    ``dicetower board`` (against an empty record)."""
    from hardware.board.towers import Towers
    from tests.hardware.netparts import free_port

    start = time.perf_counter()
    towers = Towers(data, STORE, verifier=False)
    items = towers.summaries()
    opened = time.perf_counter() - start
    towers.close()
    figures: dict[str, Any] = {"towers": len(items), "open_record_ms": round(opened * 1000, 1),
                               "entries": 0}
    with sqlite3_connect(data) as conn:
        figures["entries"] = conn.execute("SELECT count(*) FROM entries").fetchone()[0]

    def first_answer(record: Path) -> float:
        port = free_port()
        t0 = time.perf_counter()
        board = subprocess.Popen([sys.executable, "-m", "hardware", "board", "--mqtt", "mqtt://127.0.0.1:1",
                                  "--store", STORE, "--listen", f"127.0.0.1:{port}", "--data", str(record)],
                                 cwd=ROOT, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            while True:
                try:
                    answer = api("127.0.0.1", port, "/api/towers")
                    if len(answer) == figures["towers"] or record != data:
                        return time.perf_counter() - t0
                except OSError:
                    time.sleep(0.01)
        finally:
            board.send_signal(signal.SIGTERM)
            board.wait(20)

    with tempfile.TemporaryDirectory() as empty:
        figures["cli_empty_ms"] = round(min(first_answer(Path(empty)) for _ in range(3)) * 1000)
    figures["cli_history_ms"] = round(min(first_answer(data) for _ in range(3)) * 1000)
    out(f"restart to verdicts ({figures['towers']} towers, {figures['entries']:,} entries on disk): "
        f"record opened and every verdict listed in {figures['open_record_ms']} ms in the process; "
        f"`dicetower board` start to its first /api/towers answer {figures['cli_history_ms']} ms "
        f"(an empty record: {figures['cli_empty_ms']} ms, best of 3)")
    return figures


def sqlite3_connect(data: Path) -> Any:
    import contextlib
    import sqlite3

    return contextlib.closing(sqlite3.connect(f"file:{data / 'board.sqlite3'}?mode=ro", uri=True))


# --- the rate one board keeps up with ---------------------------------------------------------------------


def _blast(url: str, logs: list[str], rate: float, seconds: float, skip: int, done: Any) -> None:
    """Publish ``rate`` entries a second (all towers together) for ``seconds``, after ``skip``."""
    from paho.mqtt.client import CallbackAPIVersion, Client

    from hardware.network.topics import log_message

    port = int(url.rsplit(":", 1)[1])
    client = Client(CallbackAPIVersion.VERSION2, client_id=f"bench-blast-{os.getpid()}")
    client.max_inflight_messages_set(2000)
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", port)
    client.loop_start()
    feed = _interleaved([Path(p) for p in logs], skip + int(rate * seconds))
    for _ in range(skip):
        next(feed)
    start = time.monotonic()
    infos = []
    for sent, (name, entry) in enumerate(feed):
        delay = start + sent / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        infos.append(client.publish(f"dicetower/{STORE}/{name}/log", log_message(STORE, name, entry), qos=1))
    done.value = time.monotonic() - start
    for info in infos:  # every message in the broker's hands before this client goes (it is no tower: no resends)
        info.wait_for_publish(60)
    client.disconnect()
    client.loop_stop()


def run_rate(cache: Path, rates: list[float], seconds: float = 10.0, towers: int = 50,
             out: Any = print) -> dict[str, Any]:
    from tests.hardware.netparts import Mosquitto, free_port

    needed = int(sum(rates) * seconds)
    logs = [str(p) for p in honest_logs(cache, towers, -(-needed // towers) + 2, out=out)]
    work = Path(tempfile.mkdtemp(prefix="bench-rate-"))
    (work / "broker").mkdir()
    binary = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/sbin")
    broker = Mosquitto(binary, work / "broker", extra="allow_anonymous true\nmax_queued_messages 1000000\n"
                       "max_inflight_messages 0\n").start()
    port = free_port()
    board = subprocess.Popen([sys.executable, "-m", "hardware", "board", "--mqtt", broker.url, "--store", STORE,
                              "--listen", f"127.0.0.1:{port}", "--data", str(work / "record")], cwd=ROOT,
                             stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    ctx = multiprocessing.get_context("spawn")
    figures: dict[str, Any] = {"steps": []}
    try:
        wait_until(lambda: _up(port), 30)
        skip = 0
        for rate in rates:
            done = ctx.Value("d", 0.0)
            before = _held(port)
            p = ctx.Process(target=_blast, args=(broker.url, logs, rate, seconds, skip, done))
            p.start()
            p.join(seconds * 10 + 60)
            ended = time.monotonic()
            want = before + int(rate * seconds)
            caught = wait_until(lambda w=want: _held(port) >= w, 30)
            drain = time.monotonic() - ended
            step = {"rate": rate, "sent": int(rate * seconds), "publish_s": round(done.value, 2),  # handed to paho
                    "held": _held(port) - before, "drain_s": round(drain, 2), "kept_up": caught and drain <= 2.0,
                    "board": api("127.0.0.1", port, "/api/board")}
            figures["steps"].append(step)
            b = step["board"]
            out(f"  {rate:>6.0f} entries/s for {seconds:.0f} s: published in {step['publish_s']} s, board held all "
                f"{step['drain_s']} s after the last one" + ("" if step["kept_up"] else "  <- falls behind")
                + (f" (dropped: queue {b['queue_dropped']}, waiting {b['waiting_dropped']})"
                   if b.get("queue_dropped") or b.get("waiting_dropped") else ""))
            skip += int(rate * seconds)
            if not step["kept_up"]:
                break
        kept = [s["rate"] for s in figures["steps"] if s["kept_up"]]
        figures["kept_up_with"] = max(kept) if kept else 0
        out(f"  one board keeps up with {figures['kept_up_with']:.0f} entries/s ({towers} towers, one broker, "
            "the publisher on the same 2 cores)")
    finally:
        board.send_signal(signal.SIGTERM)
        board.wait(30)
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    return figures


def _held(port: int) -> int:
    """Entries the board holds, all towers together (the heads of their chains)."""
    try:
        return sum(api("127.0.0.1", port, f"/api/towers/{i['tower']}")["seq"] for i in api("127.0.0.1", port,
                                                                                             "/api/towers"))
    except (OSError, ValueError, KeyError):
        return 0


def _stop(proc: subprocess.Popen[bytes], sig: int, timeout: float) -> None:
    """Stop a board process with ``sig`` as a user would, killing it if it has not ended in ``timeout`` s."""
    proc.send_signal(sig)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# --- webhooks: verified roll to POST ---------------------------------------------------------------------


class PostProbe:
    """The baseline: a POST's round trip to the same receiver, every 50 ms (its posts are
    told apart by their ``type``)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.latencies: list[float] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        while not self.stop.wait(0.05):
            start = time.perf_counter()
            try:
                conn.request("POST", "/probe", body=b'{"type":"probe"}', headers={"Content-Type": "application/json"})
                conn.getresponse().read()
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                continue
            self.latencies.append(time.perf_counter() - start)
        conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


def _rate(times: list[float], window: float = 1.0) -> float:
    """The most posts that arrived within any ``window`` seconds, per second."""
    best, first = 0, 0
    ordered = sorted(times)
    for last, t in enumerate(ordered):
        while t - ordered[first] > window:
            first += 1
        best = max(best, last - first + 1)
    return best / window


def run_webhook(towers: int = 50, rate: float = 10.0, seconds: float = 60.0, *, session_rolls: int = 100,
                workers: int = 2, out: Any = print) -> dict[str, Any]:
    """The load with webhooks (see the module docstring): first one hook alone (latency,
    exactly once, throughput), then a board with a late and a throttled hook; the figures."""
    from tests.hardware.hookparts import DiscordLimit, Receiver

    figures: dict[str, Any] = {"towers": towers, "rate": rate, "seconds": seconds, "session_rolls": session_rolls}
    fast = Receiver()
    probe: list[PostProbe] = []

    def with_probe(board_port: int, t0: float) -> None:
        probe.append(PostProbe(fast.port))

    one = _hooked_run([(fast, "fast", "json")], towers, rate, seconds, session_rolls, workers, with_probe, out)
    for pr in probe:
        pr.close()
    figures["baseline_post_p50_ms"] = round(percentile(probe[0].latencies if probe else [], 50) * 1000, 2)
    figures["baseline_post_p99_ms"] = round(percentile(probe[0].latencies if probe else [], 99) * 1000, 2)
    figures["fast"] = _fast_figures(one["posts"]["fast"], one["verified"])
    figures["fast_hook"] = one["hooks"]["fast"]
    figures["board_log"] = one["log"]

    batched = Receiver()
    three = _hooked_run([(batched, "batched", "json")], towers, rate, seconds, session_rolls, workers,
                        lambda port, t0: None, out)
    figures["batched"] = _fast_figures(three["posts"]["batched"], three["verified"])
    figures["batched"]["requests"] = len(three["posts"]["batched"])
    figures["board_log"] += three["log"]

    late, limit = Receiver(), DiscordLimit()
    throttled = Receiver(answer=limit)

    def late_up(board_port: int, t0: float) -> None:
        time.sleep(max(0.0, t0 + 2 * seconds / 3 - time.monotonic()))
        late.start()
        figures["late_up_at_s"] = round(time.monotonic() - t0, 1)

    two = _hooked_run([(late, "late", "json"), (throttled, "throttled", "discord")], towers, rate, seconds,
                      session_rolls, workers, late_up, out, started=[throttled])
    figures["late"] = _drain_figures(two["posts"]["late"], two["hooks"]["late"])
    thr = two["posts"]["throttled"]
    rolls = sum(len(p.body["embeds"]) for p in thr)
    hook = two["hooks"]["throttled"]
    figures["throttled"] = {"posts": len(thr), "rolls": rolls, "refused_429": limit.refused,
                            "dropped": hook["dropped"], "waiting": hook["waiting"], "failed": hook["failed"],
                            "rolls_per_s": round(rolls / max(1e-9, two["ended"] - thr[0].at), 1) if thr else 0.0,
                            "verified": two["verified"], "seconds": round(two["ended"] - thr[0].at, 1) if thr else 0}
    figures["board_log_2"] = two["log"]
    _webhook_report(figures, out)
    return figures


def _hooked_run(hooks: list[tuple[Any, str, str]], towers: int, rate: float, seconds: float, session_rolls: int,
                workers: int, during: Any, out: Any, started: list[Any] | None = None) -> dict[str, Any]:
    """One board with ``hooks`` ((receiver, name, format)) under the load; ``during(port, t0)``
    runs while the towers roll. Returns what each receiver got, the hooks' status, the count
    of verified rolls, the board's webhook log lines."""
    from tests.hardware.netparts import Mosquitto, free_port

    binary = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/sbin")
    if binary is None:
        raise SystemExit("bench_board: needs mosquitto (apt install mosquitto)")
    work = Path(tempfile.mkdtemp(prefix="bench-webhook-"))
    (work / "broker").mkdir()
    broker = Mosquitto(binary, work / "broker").start()
    for r in started if started is not None else [r for r, _, _ in hooks]:
        r.start()
    config = work / "board.toml"
    config.write_text("".join(f'[[board.webhook]]\nurl = "{r.url}"\nname = "{name}"\nformat = "{fmt}"\n'
                              f'batch = {100 if name == "batched" else 1}\n\n' for r, name, fmt in hooks))
    board_port = free_port()
    board = subprocess.Popen([sys.executable, "-m", "hardware", "board", "--mqtt", broker.url, "--store", STORE,
                              "--listen", f"127.0.0.1:{board_port}", "--data", str(work / "record"),
                              "--config", str(config)], cwd=ROOT, stderr=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    ctx = multiprocessing.get_context("spawn")
    procs: list[Any] = []
    result: dict[str, Any] = {}
    try:
        if not wait_until(lambda: _up(board_port), 30):
            raise SystemExit("bench_board: the board did not start")
        names = [f"t{i:02d}" for i in range(towers)]
        readies = []
        for group in (names[i::workers] for i in range(workers)):
            ready = ctx.Event()
            p = ctx.Process(target=tower_worker, args=(broker.url, str(work), group, rate, seconds, session_rolls,
                                                       ready))
            p.start()
            procs.append(p)
            readies.append(ready)
        for r in readies:
            r.wait(60)
        during(board_port, time.monotonic())
        for p in procs:
            p.join(seconds + 120)
        settle: dict[str, Any] = {}
        _settle(settle, work, names, board_port, out)
        result["verified"] = sum(api("127.0.0.1", board_port, f"/api/towers/{n}")["checked"]["verified"]
                                 for n in names)
        wait_until(lambda: all(h["waiting"] == 0 or h["name"] == "throttled" for h in _hooks(board_port).values()),
                   180)
        if any(name == "throttled" for _, name, _ in hooks):
            time.sleep(5)  # the throttled hook never catches up: what 5 more seconds bring
        result["hooks"] = _hooks(board_port)
        result["posts"] = {name: r.answered() for r, name, _ in hooks}
        result["ended"] = time.time()
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
        _stop(board, signal.SIGTERM, 30)
        result["log"] = [line for line in board.stderr.read().decode().splitlines() if "webhook" in line][:12]
        for r, _, _ in hooks:
            r.stop()
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    return result


def _hooks(port: int) -> dict[str, dict[str, Any]]:
    return {h["name"]: h for h in api("127.0.0.1", port, "/api/board")["webhooks"]}


def _when(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _fast_figures(requests: list[Any], verified: int) -> dict[str, Any]:
    """Latency, exactly-once and rate of the roll posts in ``requests`` (batches unpacked)."""
    arrived = [(p.at, body) for p in requests
               for body in (p.body["posts"] if p.body.get("type") == "batch" else [p.body])]
    rolls = [SimpleNamespace(at=at, body=body) for at, body in arrived if body.get("type") == "roll"]
    keys = [p.body["id"] for p in rolls]
    latency = [p.at - _when(p.body["decided_at"]) for p in rolls]
    since_logged = [p.at - _when(p.body["entry"]["time"]) for p in rolls]
    return {
        "rolls": len(rolls), "unique": len(set(keys)), "verified_at_board": verified,
        "exactly_once": len(keys) == len(set(keys)) == verified,
        "p50_ms": round(percentile(latency, 50) * 1000, 1), "p99_ms": round(percentile(latency, 99) * 1000, 1),
        "max_ms": round(max(latency, default=float("nan")) * 1000, 1),
        "logged_p50_s": round(percentile(since_logged, 50), 2), "logged_p99_s": round(percentile(since_logged, 99), 2),
        "peak_rolls_per_s": _rate([p.at for p in rolls]),
        "rolls_per_s": round(len(rolls) / _busy(rolls), 1),
    }


def _busy(posts: list[Any]) -> float:
    """The seconds in which posts arrived (a second with none is not counted)."""
    return max(1.0, float(len({int(p.at) for p in posts})))


def _drain_figures(posts: list[Any], hook: dict[str, Any]) -> dict[str, Any]:
    rolls = [p for p in posts if p.body.get("type") == "roll"]
    span = rolls[-1].at - rolls[0].at if len(rolls) > 1 else 0.0
    return {"rolls": len(rolls), "dropped": hook["dropped"], "seconds": round(span, 2),
            "rolls_per_s": round(len(rolls) / span, 1) if span else 0.0,
            "peak_rolls_per_s": _rate([p.at for p in rolls])}


def _webhook_report(f: dict[str, Any], out: Any) -> None:
    out(f"webhooks: {f['towers']} towers x {f['rate']} rolls/s for {f['seconds']} s, sessions of "
        f"{f['session_rolls']} rolls (the towers reveal together: bursts of {f['towers'] * f['session_rolls']} "
        "verified rolls)")
    if "fast" not in f:
        return
    a = f["fast"]
    out(f"  one hook (plain JSON, always up): {a['rolls']} rolls posted, {a['unique']} different, "
        f"{a['verified_at_board']} verified at the board: exactly once {a['exactly_once']}")
    out(f"  verified-roll-to-POST latency p50 {a['p50_ms']} ms, p99 {a['p99_ms']} ms (max {a['max_ms']} ms); "
        f"{a['rolls_per_s']} rolls/s while posting, peak {a['peak_rolls_per_s']:.0f}/s; from the roll's logging "
        f"(it waits for its session's reveal): p50 {a['logged_p50_s']} s, p99 {a['logged_p99_s']} s")
    out(f"  baseline, a POST's round trip to the same receiver (same run): p50 {f['baseline_post_p50_ms']} ms, "
        f"p99 {f['baseline_post_p99_ms']} ms")
    d = f["batched"]
    out(f"  one hook with batch = 100 (plain JSON, up to 100 posts a request): {d['rolls']} rolls in "
        f"{d['requests']} requests, {d['unique']} different, {d['verified_at_board']} verified: exactly once "
        f"{d['exactly_once']}; latency p50 {d['p50_ms']} ms, p99 {d['p99_ms']} ms (max {d['max_ms']} ms); "
        f"{d['rolls_per_s']} rolls/s while posting, peak {d['peak_rolls_per_s']:.0f}/s")
    b = f["late"]
    out(f"  a late hook (down until {f['late_up_at_s']} s, then up): {b['rolls']} rolls posted in {b['seconds']} s "
        f"({b['rolls_per_s']} rolls/s, peak {b['peak_rolls_per_s']:.0f}/s); dropped with its queue full: "
        f"{b['dropped']}")
    c = f["throttled"]
    out(f"  beside it, a throttled hook (Discord format and limits: 5 requests per 2 s, 30 a minute, then "
        f"429): {c['rolls']} of {c['verified']} rolls in {c['posts']} posts over {c['seconds']} s "
        f"({c['rolls_per_s']} rolls/s), {c['refused_429']} answers "
        f"429, dropped {c['dropped']}, still waiting {c['waiting']}, given up {c['failed']}")
    for line in f["board_log"] + f["board_log_2"]:
        out(f"    {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", default="load,rss,restart,rate",
                        help="which parts, comma-separated (also: webhook)")
    parser.add_argument("--towers", type=int, default=50)
    parser.add_argument("--rate", type=float, default=10.0, help="rolls per second per tower (load)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--session-rolls", type=int, default=100, help="rolls per session before a reveal")
    parser.add_argument("--workers", type=int, default=2, help="processes the towers run in")
    parser.add_argument("--no-faults", action="store_true", help="load only: no broker kill, tower kill, forgery")
    parser.add_argument("--no-browser", action="store_true", help="no Chromium page latency")
    parser.add_argument("--rss-entries", default="10000,100000,1000000", help="rss checkpoints (entries)")
    parser.add_argument("--rates", default="250,500,1000,1250,1500,1750,2000,3000",
                        help="rate steps (entries/s, all towers)")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "dicetower-bench-board-logs"),
                        help="where the generated towers' logs are kept between runs")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    parser.add_argument("--rss-child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        data, checkpoints, *logs = args.rss_child
        rss_child(data, logs, [int(c) for c in checkpoints.split(",")])
        return 0
    parts = set(args.part.split(","))
    figures: dict[str, Any] = {}
    ok = True
    if "load" in parts:
        figures["load"] = run_load(args.towers, args.rate, args.seconds, faults=not args.no_faults,
                                   session_rolls=args.session_rolls, workers=args.workers,
                                   browser=not args.no_browser and browser_available())
        f = figures["load"]
        ok = bool(f.get("settled") and f.get("missing") == 0 and not f.get("problems_on_honest_towers"))
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-board-record-") as record:
        if "rss" in parts or "restart" in parts:
            checkpoints = [int(c) for c in args.rss_entries.split(",")] if "rss" in parts else [100_000]
            figures["rss"] = run_rss(cache, Path(record), checkpoints, args.towers)
        if "restart" in parts:
            figures["restart"] = run_restart(Path(record))
    if "rate" in parts:
        print("the rate one board keeps up with:")
        figures["rate"] = run_rate(cache, [float(r) for r in args.rates.split(",")], towers=args.towers)
    if "webhook" in parts:
        figures["webhook"] = run_webhook(args.towers, args.rate, args.seconds, session_rolls=args.session_rolls,
                                         workers=args.workers)
        ok = ok and bool(figures["webhook"].get("batched", {}).get("exactly_once"))
    if args.json:
        print(json.dumps(figures, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
