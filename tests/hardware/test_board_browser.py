"""The board's page and overlay in a real headless Chromium (selenium + chromedriver): the
cards appear, update live without a reload, turn red on a forged entry; the overlay is
transparent and shows the latest roll.

The screenshot docs/screenshots/board.png comes from this test: regenerate it with
``DICETOWER_SCREENSHOTS=1 ./run-tests tests/hardware/test_board_browser.py``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bench.sim_towers import SimTower
from hardware.network.topics import log_message
from tests.hardware.netparts import Collector, running_board, running_broker, wait_for
from tests.support import require_command

REPO = Path(__file__).resolve().parents[2]
STORE = "shop1"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1700,1000", "--hide-scrollbars")


@pytest.fixture
def browser(tmp_path):
    chromium = shutil.which("chromium") or require_command("chromium")
    driver_path = require_command("chromedriver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def setup(tmp_path):
    binary = require_command("mosquitto")
    (tmp_path / "broker").mkdir()
    with running_broker(binary, tmp_path / "broker") as broker, running_board(broker.url, STORE) as board:
        made: list[SimTower] = []
        try:
            yield broker, board, lambda name, **kw: made.append(
                SimTower(tmp_path / name, broker.url, STORE, name, **kw)) or made[-1]
        finally:
            for t in made:
                t.close(timeout=1.0)


def cards(driver) -> dict[str, dict]:
    script = """return [...document.querySelectorAll('article.card')].map(c => ({
        tower: c.dataset.tower, rolls: Number(c.dataset.rolls), verified: c.dataset.verified,
        red: c.classList.contains('red'), first: c.querySelector('li.roll')?.dataset.seq || null,
        badge: c.querySelector('.badge').textContent, text: c.textContent}))"""
    return {c["tower"]: c for c in driver.execute_script(script)}


def test_the_page_shows_every_tower_and_updates_live(setup, browser, tmp_path):
    broker, board, tower = setup
    names = ["bar-counter", "table1", "table2", "table3"]
    towers = {n: tower(n, session_rolls=4) for n in names}
    for i, t in enumerate(towers.values()):
        for _ in range(3 + 2 * i):
            t.roll()
    wait_for(lambda: all(i["rolls"] >= 3 for i in board.get("/api/towers")) and len(board.get("/api/towers")) == 4,
             what="four towers at the board")
    browser.get(board.base + "/")
    shown = wait_for(lambda: (c := cards(browser)) and len(c) == 4 and all(v["rolls"] >= 3 for v in c.values())
                     and c, what="four cards")
    assert list(shown) == names  # sorted, one card per tower
    assert all("chain ok" in c["badge"] for c in shown.values())
    page_id = browser.execute_script("return window.boardPageId")

    entry = towers["table2"].roll()  # a new roll appears on its card without a reload
    wait_for(lambda: cards(browser)["table2"]["first"] == str(entry["seq"]), what="the new roll on the card")
    assert browser.execute_script("return window.boardPageId") == page_id
    assert int(browser.execute_script("return document.body.dataset.updates")) > 4

    forger = Collector(broker.port, "dicetower/none")
    try:
        forged = {**json.loads(json.dumps(entry)), "seq": entry["seq"] + 1, "prev": entry["hash"]}
        forged["result"]["dice"] = [9, 9]
        forger.client.publish(f"dicetower/{STORE}/table3/log", log_message(STORE, "table2", forged), qos=1)
        red = wait_for(lambda: (c := cards(browser)["table3"]) and c["red"] and c, what="table3 red")
    finally:
        forger.close()
    assert "published on shop1/table3's topic but says it is from shop1/table2" in red["badge"]
    assert browser.execute_script("return window.boardPageId") == page_id
    for t in towers.values():  # more rolls, so the screenshot shows full cards
        t.roll()
    wait_for(lambda: all(c["rolls"] >= 4 for n, c in cards(browser).items() if n != "table3"), what="last rolls")
    browser.execute_script("document.querySelector('article.card details.stats')?.setAttribute('open', '')")
    shot = tmp_path / "board.png"
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    if os.environ.get("DICETOWER_SCREENSHOTS"):
        shutil.copyfile(shot, REPO / "docs" / "screenshots" / "board.png")


def test_the_overlay_is_transparent_and_shows_the_latest_roll(setup, browser):
    _, board, tower = setup
    t = tower("table1")
    t.roll()
    browser.get(board.base + "/overlay?tower=table1")
    entry = t.roll()
    wait_for(lambda: browser.execute_script("return document.getElementById('overlay').dataset.seq")
             == str(entry["seq"]), what="the latest roll on the overlay")
    background = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background == "rgba(0, 0, 0, 0)"
    dice = browser.execute_script("return [...document.querySelectorAll('#dice .die')].map(d => Number(d.textContent))")
    assert dice == entry["result"]["dice"]
    outcome = browser.execute_script("return document.getElementById('outcome').textContent")
    assert outcome.startswith(str(entry["result"]["outcome"]).upper())
