"""The phone page's cost: what a phone downloads on its first visit and on later ones (cached),
and the time from opening the page to its verdict on a 200-roll session in headless Chromium,
next to ``dicetower replay`` on the same log (the baseline, measured in the same run).

Run: .venv/bin/python bench/bench_phone.py [--rolls 200] [--runs 3]
(needs the system's chromium and chromedriver, and Pyodide: python3 tools/fetch_pyodide.py)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hardware.cli import main as dicetower
from hardware.web.server import PageServer

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=412,915")


def quiet(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return dicetower(list(argv))


def night(state: Path, rolls: int) -> None:
    quiet("session", "open", str(state))
    quiet("session", "seed", str(state), "417302")
    quiet("roll", "d6cv", "--stat", "3", "--cv", "7", "--times", str(rolls), "--state-dir", str(state))
    quiet("session", "close", str(state))


def browser(profile: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


def visit(driver, url: str) -> tuple[float, int, str]:
    """Seconds from the request to the verdict, bytes transferred, the verdict."""
    driver.get("about:blank")
    began = time.perf_counter()
    driver.get(url)
    while driver.execute_script("return document.body && document.body.dataset.ready") != "1":
        if time.perf_counter() - began > 600:
            raise TimeoutError("the page did not get to its verdict in 600 s")
        time.sleep(0.05)
    took = time.perf_counter() - began
    sent = driver.execute_script(
        "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
        ".reduce((n, e) => n + (e.transferSize || 0), 0)")
    return took, int(sent), driver.find_element("id", "verdict").text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as where:
        state = Path(where) / "tower"
        night(state, args.rolls)
        replays = []
        for _ in range(args.runs):
            began = time.perf_counter()
            quiet("replay", str(state / "rolls.jsonl"), "--all-revealed")
            replays.append(time.perf_counter() - began)
        with PageServer(state) as server:
            driver = browser(Path(where) / "profile")
            try:
                first = visit(driver, server.url)
                later = [visit(driver, server.url) for _ in range(args.runs)]
            finally:
                driver.quit()
    replay = statistics.median(replays)
    warm = statistics.median(t for t, _, _ in later)
    print(f"phone page on a {args.rolls}-roll session (one revealed session, d6cv), headless Chromium at 412x915:")
    print(f"  first visit: {first[1] / 1e6:.2f} MB downloaded, {first[0]:.1f} s to the verdict ({first[2]})")
    print(f"  later visits (cached): {statistics.median(s for _, s, _ in later) / 1e3:.1f} kB downloaded, "
          f"{warm:.1f} s to the verdict (median of {args.runs})")
    print(f"  dicetower replay on the same log (baseline): {replay * 1000:.0f} ms; the page takes "
          f"{first[0] / replay:.0f}x that on a first visit, {warm / replay:.0f}x on a later one")


if __name__ == "__main__":
    main()
