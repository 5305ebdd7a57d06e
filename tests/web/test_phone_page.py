"""The phone page in a real headless Chromium (selenium + the system's chromedriver), at a phone's
size: opened from a running tower's page server, from a running board and from a static file
server, it gives every case of the forgery corpus replay's first problem and passes the honest
nights; following a tower live, it sounds its alarm for a roll made between two of the table's
before the next one is shown.

docs/phone.md's screenshots come from these tests: regenerate them with
``DICETOWER_SCREENSHOTS=1 ./run-tests tests/web/test_phone_page.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from hardware.web.assets import PYODIDE_FILES, PageAssets
from hardware.web.server import PageServer
from tests.engine.verify.test_night import notes_of, text_of
from tests.hardware import forgeries
from tests.hardware.netparts import free_port, wait_for
from tests.hardware.tablenight import MENU_REVEAL, Table
from tests.support import require_command
from tests.web.test_pyodide import pyodide_dir

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "docs" / "screenshots" / "phone"
PHONE = "--window-size=412,915"  # a phone's CSS pixels (a Pixel 7)
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", PHONE)
#: Loading Pyodide on a busy two-core machine takes a while; the page says when it is ready.
READY_SECONDS = 240


@pytest.fixture
def browser(tmp_path):
    chromium = shutil.which("chromium") or require_command("chromium")
    driver_path = require_command("chromedriver")
    pyodide_dir()  # skipped (or failed under CI) without Pyodide
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    driver.set_script_timeout(READY_SECONDS)
    try:
        yield driver
    finally:
        driver.quit()


def opened(driver: Any, url: str) -> dict[str, str]:
    """Open the page (loaded afresh, whatever was open) and wait until it has checked what it
    fetched: its verdict and status."""
    driver.get("about:blank")
    driver.get(url)
    wait_for(lambda: driver.execute_script("return document.body.dataset.ready") == "1", READY_SECONDS,
             f"the phone page at {url} to load Pyodide and check the log")
    return {"verdict": driver.find_element("id", "verdict").text, "status": driver.find_element("id", "status").text}


def corpus_in_page(driver: Any, cases: dict[str, forgeries.Case]) -> dict[str, str]:
    """Every case through the page's own checker (window.dicetower.check), in one call."""
    payload = [[name, text_of(c.entries), notes_of(c)] for name, c in cases.items()]
    return driver.execute_script(
        "const out = {}; for (const [name, text, notes] of arguments[0]) "
        "out[name] = window.dicetower.check(text, notes).verdict; return out;", payload)


def shot(driver: Any, name: str) -> None:
    if os.environ.get("DICETOWER_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SHOTS / name))


def honest_panel(state: Path, honest: forgeries.Honest) -> None:
    state.mkdir(parents=True, exist_ok=True)
    (state / "rolls.jsonl").write_text(text_of(honest.panel))


def fragment(honest: forgeries.Honest) -> str:
    """What the players noted, in the URL's fragment (as the reveal's QR code would carry it)."""
    from urllib.parse import urlencode

    notes = [("expect", honest.panel_noted["panel commitment"]), *(("expect", n) for n in honest.panel_shown),
             ("table_seed", forgeries.PANEL_CODE)]
    return "#" + urlencode(notes)


def test_from_a_running_tower_the_corpus_fails_as_replay_and_the_night_passes(browser, forgery_honest,
                                                                              forgery_cases, tmp_path) -> None:
    state = tmp_path / "tower"
    honest_panel(state, forgery_honest)
    with PageServer(state) as server:
        seen = opened(browser, server.url + fragment(forgery_honest))
        assert seen["verdict"] == "pass", seen
        rows = browser.find_elements("css selector", "#rolls tr")
        assert len(rows) == len(forgery_honest.panel_shown)
        assert "✓" in rows[0].text and "d6cv " in rows[0].text and forgery_honest.panel_shown[-1].split(":")[1] in \
            rows[0].text  # the newest first, as the OLED showed it: number, fingerprint, first line, dice
        shot(browser, "green.png")
        verdicts = corpus_in_page(browser, forgery_cases)
        assert verdicts == {name: f"fail: {c.code}" for name, c in forgery_cases.items()}
        forged = forgery_cases["root rolls between the table's rolls with the stock simulator (every result noted)"]
        (state / "rolls.jsonl").write_text(text_of(forged.entries))
        from urllib.parse import urlencode

        seen = opened(browser, server.url + "#" + urlencode([("expect", e) for e in forged.expect]
                                                             + [("table_seed", s) for s in forged.table_seeds]))
        assert seen["verdict"] == "fail: unseen-roll", seen
        assert "unseen-roll" in browser.find_element("id", "problems").text
        shot(browser, "red.png")


@contextmanager
def board_serving(entries: list[dict[str, Any]], where: Path) -> Iterator[str]:
    """A board (its web app, fed the entries as a tower's messages) on a free port: its URL."""
    import uvicorn

    from hardware.board.towers import Towers
    from hardware.board.web import create_app
    from hardware.network.topics import log_message

    towers = Towers(where, "s", verifier=False)
    for entry in entries:
        towers.handle("dicetower/s/t/log", log_message("s", "t", entry))
    towers.check_now()
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(towers), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, 30, "the board's web server")
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        towers.close()


def test_from_a_running_board_the_page_checks_the_towers_log(browser, forgery_honest, forgery_cases,
                                                            tmp_path) -> None:
    with board_serving(forgery_honest.panel, tmp_path / "board") as url:
        seen = opened(browser, url + "phone/?log=../api/towers/t/log&events=" + fragment(forgery_honest))
        assert seen["verdict"] == "pass", seen
        assert len(browser.find_elements("css selector", "#rolls tr")) == len(forgery_honest.panel_shown)
        verdicts = corpus_in_page(browser, forgery_cases)
        assert verdicts == {name: f"fail: {c.code}" for name, c in forgery_cases.items()}


def test_from_a_static_file_server_and_a_picked_file(browser, forgery_honest, forgery_cases, tmp_path) -> None:
    """The page and its assets copied to a folder any web server serves (here Python's own),
    with a log beside them; and a log picked from the phone's files, offline."""
    site = tmp_path / "site"
    assets = PageAssets.find()
    (site / "pyodide").mkdir(parents=True)
    (site / "api").mkdir()
    for name in ("verify.html", "verify.js"):
        (site / name).write_bytes(assets.page(name))
    for name in PYODIDE_FILES:
        (site / "pyodide" / name).write_bytes(assets.pyodide_file(name))
    (site / "engine.zip").write_bytes(assets.engine())
    (site / "api" / "hashes").write_text(json.dumps(assets.hashes()))
    (site / "rolls.jsonl").write_text(text_of(forgery_honest.panel))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"], cwd=site,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_for(lambda: _answers(url + "verify.html"), 30, "the static file server")
        seen = opened(browser, url + "verify.html?log=rolls.jsonl&events=" + fragment(forgery_honest))
        assert seen["verdict"] == "pass", seen
        verdicts = corpus_in_page(browser, forgery_cases)
        assert verdicts == {name: f"fail: {c.code}" for name, c in forgery_cases.items()}
        # offline: no log fetched; the players pick the file they copied from the tower
        seen = opened(browser, url + "verify.html?offline=1&events=" + fragment(forgery_honest))
        browser.execute_script("document.getElementById('notes-box').open = true")
        browser.find_element("id", "file").send_keys(str(site / "rolls.jsonl"))
        wait_for(lambda: browser.find_element("id", "verdict").text == "pass", 60, "the picked log's verdict")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _answers(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def test_live_a_roll_made_between_the_tables_sounds_the_alarm_before_the_next(browser, tmp_path) -> None:
    state = tmp_path / "tower"
    table = Table(state).start()
    with PageServer(state) as server:
        try:
            opened(browser, server.url)
            browser.execute_script("document.getElementById('code').value = '31425512'")
            table.press("field field field plus plus plus ")
            table.set_code("31425512")
            table.press("roll roll")
            wait_for(lambda: len(browser.find_elements("css selector", "#rolls tr")) == 2, 60, "the table's two rolls")
            assert not browser.find_element("id", "alarm").is_displayed()
            table.cli("roll", "d6cv", "--stat", "5", "--cv", "8", "--state-dir", str(state), "--json")  # root
            alarm = wait_for(lambda: browser.find_element("id", "alarm").is_displayed()
                             and browser.find_element("id", "alarm").text, 60, "the alarm")
            assert "not made on the tower's panel" in alarm and "#3" in alarm, alarm
            shot(browser, "alarm.png")
            table.press("roll")  # the table's next roll comes only now
            wait_for(lambda: len(browser.find_elements("css selector", "#rolls tr")) == 4, 60, "the next roll")
            table.press(MENU_REVEAL)
        finally:
            table.stop()
        wait_for(lambda: browser.find_element("id", "verdict").text.startswith("fail: "), 60, "the night's verdict")
        assert browser.find_element("id", "verdict").text in ("fail: command-line-roll", "fail: unseen-roll")
