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
import subprocess
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
    board.towers.check_now()  # every revealed session replayed, so the screenshot shows verified rolls
    wait_for(lambda: "✓ chain ok" in cards(browser)["table1"]["badge"] and "verified" in browser.execute_script(
        "return document.querySelector('article.card li.roll').title"), what="verified rolls on the page")
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


def live_text(driver) -> str:
    return driver.execute_script("return document.getElementById('live').textContent")


def test_the_page_says_live_reconnecting_and_stale(tmp_path, browser):
    """The status line tells the truth: reconnecting while the broker is down, stale when
    nothing came for longer than the towers' status interval though a tower is online."""
    binary = require_command("mosquitto")
    (tmp_path / "broker").mkdir()
    with running_broker(binary, tmp_path / "broker") as broker, \
            running_board(broker.url, STORE, stale_s=3.0) as board:
        t = SimTower(tmp_path / "t1", broker.url, STORE, "table1")
        try:
            t.roll()
            browser.get(board.base + "/")
            wait_for(lambda: live_text(browser) == "● live" and cards(browser), what="live with a card")
            broker.kill()
            wait_for(lambda: live_text(browser).startswith("reconnecting…: cannot reach "), what="reconnecting")
            assert "(broker down, wrong address, or a TLS certificate" in live_text(browser)
            broker.start()
            wait_for(lambda: live_text(browser) == "● live", timeout=20, what="live again")
            t.publisher.heartbeat_s = 3600.0  # the tower goes quiet (it stays online)
            wait_for(lambda: live_text(browser).startswith("stale: no message for"), timeout=20, what="stale")
            t.roll()
            wait_for(lambda: live_text(browser) == "● live", what="live after a roll")
        finally:
            t.close(timeout=1.0)


def test_the_page_says_live_within_a_second_or_so_of_the_broker_coming_back(tmp_path, browser):
    """The board tries its broker again at most a second after the last try, however long it
    was away: once the broker is back, the status line says live within a second or two (it
    said "reconnecting" 4 s later when the board waited up to 5 s between tries)."""
    binary = require_command("mosquitto")
    (tmp_path / "broker").mkdir()
    with running_broker(binary, tmp_path / "broker") as broker, running_board(broker.url, STORE) as board:
        browser.get(board.base + "/")
        wait_for(lambda: live_text(browser) == "● live", what="live")
        broker.kill()
        wait_for(lambda: live_text(browser).startswith("reconnecting…"), what="reconnecting")
        failed = board.subscriber.failed_connects
        wait_for(lambda: board.subscriber.failed_connects >= failed + 6, timeout=30,
                 what="six tries more: the waits between tries at their longest")
        failed = board.subscriber.failed_connects
        wait_for(lambda: board.subscriber.failed_connects > failed, timeout=30, what="one more try")
        broker.start()  # just after a try: the next one is the longest wait away
        wait_for(lambda: live_text(browser) == "● live", timeout=3.0, what="live within a second or two")


def test_a_broker_that_refuses_the_board_is_said_on_the_page_as_in_the_journal(tmp_path, browser):
    """A wrong password: the journal says "refused the connection: Not authorized", and so does
    the page (not paho's "Unspecified error" from the disconnect that follows)."""
    from hardware.network.broker import Credentials

    binary = require_command("mosquitto")
    passwd_tool = require_command("mosquitto_passwd")
    work = tmp_path / "broker"
    work.mkdir()
    passwd = work / "passwd"
    passwd.touch()
    subprocess.run([passwd_tool, "-b", str(passwd), "board", "pw-board"], check=True, capture_output=True)
    logs: list[str] = []
    with running_broker(binary, work, extra=f"allow_anonymous false\npassword_file {passwd}\n") as broker, \
            running_board(broker.url, STORE, connected=False, log=logs.append,
                          credentials=Credentials(username="board", password="wrong")) as board:
        browser.get(board.base + "/")
        said = wait_for(lambda: next((line for line in logs if "refused" in line), None), what="the journal's line")
        assert said == f"board: {broker.url} refused the connection: Not authorized; retrying"
        shown = wait_for(lambda: (s := live_text(browser)) and "refused" in s and s, what="the refusal on the page")
        assert shown == f"reconnecting…: {broker.url} refused the connection: Not authorized"
        assert board.get("/api/board")["detail"] == f"{broker.url} refused the connection: Not authorized"
        before = board.subscriber.failed_connects
        wait_for(lambda: board.subscriber.failed_connects >= before + 2, what="two more refusals")
        assert live_text(browser) == shown  # the disconnect after each refusal does not overwrite it


HOSTILE = [None, True, False, 0, -7, 1.5, 10**30, "", "<img src=x onerror=\"document.title='owned'\">",
           "x" * 5000, "\u202eevil", [], [1, "a", None, {"b": 2}], {}, {"a": {"b": [1, {"c": "d"}]}}]
ROLL_FIELDS = ["time", "session", "roll_kind", "player", "faces", "result", "result.system", "result.params",
               "result.dice", "result.outcome", "result.total", "result.success"]
SESSION_FIELDS = ["session", "commitment"]
STATUS_FIELDS = ["state", "seq", "rolls", "head", "system", "params", "session", "commitment"]


def hostile_logs() -> dict[str, list[dict]]:
    """One tower per (field, value): a session entry and a roll, one field hostile, hashed."""
    from hardware.files.rolllog import entry_hash

    base_session = {"kind": "session", "session": "0123456789abcdef", "commitment": "ab" * 32,
                    "time": "2026-12-01T20:00:00.000Z"}
    base_roll = {"kind": "roll", "session": "0123456789abcdef", "roll_kind": "rolled", "player": 1,
                 "time": "2026-12-01T20:00:01.000Z", "mix": "00", "start": 0, "end": 1,
                 "result": {"system": "d6cv", "params": {"stat": 3, "cv": 7, "opponent": [1, 2]}, "dice": [5],
                            "outcome": "success", "total": 8, "success": True}}
    logs = {}
    for where, fields in (("roll", ROLL_FIELDS), ("session", SESSION_FIELDS)):
        for field in fields:
            for i, value in enumerate(HOSTILE):
                session, roll = json.loads(json.dumps(base_session)), json.loads(json.dumps(base_roll))
                target = roll if where == "roll" else session
                if field.startswith("result."):
                    target["result"][field[7:]] = value
                else:
                    target[field] = value
                chain, prev = [], "0" * 64
                for seq, e in enumerate((session, roll), start=1):
                    e = {**e, "seq": seq, "prev": prev}
                    e["hash"] = entry_hash(e)
                    prev = e["hash"]
                    chain.append(e)
                logs[f"h-{where}-{field.replace('.', '-')}-{i}"] = chain
    return logs


def test_hostile_values_in_every_field_never_hide_a_card(setup, browser):
    """Every field a card shows, with a value of every JSON type (and HTML, huge and
    right-to-left text), each from its own tower through the broker: every card is on the
    page, none is drawn as HTML, and the honest tower's card is whole."""
    broker, board, tower = setup
    honest = tower("honest")
    honest.roll()
    logs = hostile_logs()
    sender = Collector(broker.port, "dicetower/none")
    try:
        for name, chain in logs.items():
            for e in chain:
                sender.client.publish(f"dicetower/{STORE}/{name}/log", log_message(STORE, name, e), qos=1)
        statuses = 0
        for field in STATUS_FIELDS:
            for i, value in enumerate(HOSTILE):
                name = f"s-{field}-{i}"
                status = {"state": "online", "store": STORE, "tower": name, "seq": 0, field: value}
                sender.client.publish(f"dicetower/{STORE}/{name}/status", json.dumps(status), qos=1, retain=True)
                statuses += 1
        total = len(logs) + statuses + 1
        wait_for(lambda: len(board.get("/api/towers")) == total, timeout=60, what="every tower at the board")
        browser.get(board.base + "/")
        shown = wait_for(lambda: (c := cards(browser)) and len(c) == total and c, timeout=60,
                         what="every card on the page")
    finally:
        sender.close()
    html = "return document.querySelectorAll('article.card img, article.card script').length"
    assert browser.execute_script(html) == 0
    assert browser.title == "dicetower board"
    assert not [n for n, c in shown.items() if "could not be shown" in c["badge"]]
    assert shown["honest"]["rolls"] == 1 and "chain ok" in shown["honest"]["badge"]
    red = {n for n, c in shown.items() if c["red"]}
    # a wrong type in a field the board reads is red (naming the entry); the rest is shown as text
    assert "h-session-commitment-3" in red and "h-roll-result-params-9" in red
    assert shown["h-session-commitment-3"]["badge"].startswith("✗ entry 1: commitment is a number (0), expected a "
                                                               "string")
    assert shown["s-seq-8"]["badge"].startswith("✗ a status message whose seq is a string ('<img src=x")
    assert not shown["s-system-8"]["red"]  # a field the board does not read is not its business


def test_a_card_that_cannot_be_drawn_never_removes_another(setup, browser):
    """The page draws each card on its own: a card whose every field is hostile, and one whose
    fields throw when read, are each said on their own card; the others stay and update."""
    _, board, tower = setup
    names = ["a-first", "m-middle", "z-last"]
    towers = {n: tower(n) for n in names}
    for t in towers.values():
        t.roll()
    browser.get(board.base + "/")
    wait_for(lambda: len(cards(browser)) == 3, what="three cards")
    browser.execute_script("""
        const hostile = [null, true, 0, 1e308, "", "<b>x</b>", [], [null, {}], {}, {a: {b: []}}];
        let i = 0;
        for (const value of hostile) {
          const card = {key: "shop1/bad" + i, tower: "bad" + i};
          for (const f of ["online", "verified", "problem", "problems", "rolls", "sessions", "system", "params",
                           "commitment", "seq", "missing", "duplicates", "conflicts", "revealed", "replay_pending",
                           "checked", "last", "stats", "store"]) card[f] = value;
          later(card);
          i += 1;
        }
        const throwing = {key: "shop1/throws"};
        for (const f of ["tower", "verified", "last", "stats", "commitment"])
          Object.defineProperty(throwing, f, {get() { throw new Error("no " + f); }});
        later(throwing);
        later({key: "shop1/bad-last", tower: "bad-last", last: [{dice: {}, check: "x", seq: {}}, 5, null]});
    """)
    shown = wait_for(lambda: (c := cards(browser)) and len(c) == 3 + 10 + 2 and c, what="every card drawn")
    assert "could not be shown: Error: no" in shown["a tower"]["badge"]  # the card whose fields throw
    entry = towers["m-middle"].roll()  # the others still update
    wait_for(lambda: cards(browser)["m-middle"]["first"] == str(entry["seq"]), what="an update after them")
    assert {"a-first", "z-last"} <= set(cards(browser))


# --- what a store owner reads is unambiguous (issue 27) ----------------------------------------------------------


def badges(driver, tower: str) -> list[tuple[str, str]]:
    """(class, text) of every badge on a tower's card."""
    return [tuple(b) for b in driver.execute_script(
        "return [...document.querySelectorAll(`article.card[data-tower='${arguments[0]}'] .badge`)]"
        ".map(b => [b.className, b.textContent])", tower)]


def test_no_card_is_green_while_the_board_is_not_verifying(tmp_path, browser):
    """The verifier stopped (SIGSTOP): the status line says stalled, and every card's verdict
    is "not verified now", never green, until it goes on."""
    import signal

    binary = require_command("mosquitto")
    (tmp_path / "broker").mkdir()
    with running_broker(binary, tmp_path / "broker") as broker, \
            running_board(broker.url, STORE, verify_stall_s=1.0) as board:
        t = SimTower(tmp_path / "t1", broker.url, STORE, "table1", session_rolls=2)
        try:
            for _ in range(3):
                t.roll()
            browser.get(board.base + "/")
            wait_for(lambda: any("badge green" in c for c, _ in badges(browser, "table1")), what="green, verified")
            pid = board.towers.verifier_pid
            os.kill(pid, signal.SIGSTOP)
            try:
                t.roll()
                wait_for(lambda: live_text(browser).startswith("✗ stalled: not verifying: the verifier has not "
                                                               "answered"), timeout=20, what="stalled on the page")
                shown = wait_for(lambda: (b := badges(browser, "table1")) and "paused" in b[0][0] and b,
                                 what="the card paused")
                assert shown[0][1].startswith("‖ not verified now (the board is stalled): as last checked, chain ok")
                assert not browser.execute_script("return document.querySelectorAll('.badge.green, .card.ok').length")
            finally:
                os.kill(pid, signal.SIGCONT)
            wait_for(lambda: live_text(browser) == "● live", timeout=20, what="live again")
            wait_for(lambda: any("badge green" in c for c, _ in badges(browser, "table1")), what="green again")
        finally:
            t.close(timeout=1.0)


def hashed(entries: list[dict]) -> list[dict]:
    from hardware.files.rolllog import entry_hash

    out, prev = [], "0" * 64
    for seq, e in enumerate(entries, start=1):
        e = {**e, "seq": seq, "prev": prev}
        e["hash"] = prev = entry_hash(e)
        out.append(e)
    return out


def test_what_a_card_says_cannot_be_misread(setup, browser):
    """Nothing verified yet is not green; a red badge keeps what is missing; a tower's bidi
    and format characters are shown escaped, never reversing the page's text; a long outcome
    wraps inside its card; each roll is named as the tower's screen names it."""
    broker, board, tower = setup
    quiet = tower("quiet", session_rolls=50)
    quiet.roll()
    fingerprint = quiet.dice.last_fingerprint
    session = {"kind": "session", "session": "0123456789abcdef", "commitment": "ab" * 32,
               "time": "2026-12-01T20:00:00.000Z"}
    roll = {"kind": "roll", "session": "0123456789abcdef", "roll_kind": "rolled", "time": "2026-12-01T20:00:01.000Z",
            "result": {"system": "d6cv", "params": {"stat": 3}, "dice": [5], "success": True,
                       "outcome": "\u202eSSECCUS" + "W" * 300, "total": 8}}
    long = hashed([session, roll])
    liar = hashed([session, roll, roll])
    liar[2] = {**liar[2], "result": {**liar[2]["result"], "outcome": "failure"}}  # edited, its hash not redone
    sender = Collector(broker.port, "dicetower/none")
    try:
        for name, chain in (("long", long), ("liar", liar)):
            for e in chain:
                sender.client.publish(f"dicetower/{STORE}/{name}/log", log_message(STORE, name, e), qos=1)
        sender.client.publish(f"dicetower/{STORE}/liar/status", json.dumps(
            {"state": "online", "store": STORE, "tower": "liar", "seq": 6}), qos=1)
        browser.get(board.base + "/")
        wait_for(lambda: len(cards(browser)) == 3 and cards(browser)["liar"]["red"], what="three cards, one red")
    finally:
        sender.close()
    board.towers.check_now()
    # the two badges are drawn one after another: read them once both are there
    quiet_badges = wait_for(lambda: (b := badges(browser, "quiet")) and len(b) >= 2 and b, what="quiet's two badges")
    assert quiet_badges[0] == ("badge none", "… nothing verified yet: chain ok · 2 entries · no session revealed and "
                                             "replayed")
    assert quiet_badges[1][1] == "? 1 roll unchecked until the session is revealed"
    meta = browser.execute_script("return document.querySelector(\"article.card[data-tower='quiet'] .meta\")"
                                  ".textContent")
    assert meta == f"d6cv #{fingerprint.number} {fingerprint.entry[:16]}"  # system, then as the OLED names it
    # the verifier's findings arrive one after another: read the badge once it counts all three
    liar_badges = wait_for(lambda: (b := badges(browser, "liar")) and len(b) >= 2 and "(and 2 more)" in b[0][1] and b,
                           what="liar's badges with its three problems")
    assert liar_badges[0][0] == "badge red" and "(and 2 more)" in liar_badges[0][1]  # its edited entry 3 among them
    # its status says 6 entries: 4 to 6 are missing (the edited entry 3 waits for the one that names it)
    assert ("badge amber missing", "… 3 entries missing, asked again") in liar_badges
    outcome = browser.execute_script("return document.querySelector(\"article.card[data-tower='long'] .outcome\")"
                                     ".textContent")
    assert outcome.startswith("\\u202eSSECCUS") and "\u202e" not in outcome
    inside = browser.execute_script("""
        const card = document.querySelector("article.card[data-tower='long']").getBoundingClientRect();
        return [...document.querySelectorAll("article.card[data-tower='long'] *")].every(
            n => n.getBoundingClientRect().right <= card.right + 1);""")
    assert inside  # the long outcome wraps inside its card


def test_the_overlay_takes_the_store(tmp_path, browser):
    """Two stores each have a table1: /overlay?store=S&tower=T shows that store's; without the
    store, the overlay says the id is ambiguous instead of mixing them."""
    binary = require_command("mosquitto")
    (tmp_path / "broker").mkdir()
    with running_broker(binary, tmp_path / "broker") as broker, running_board(broker.url) as board:
        made = [SimTower(tmp_path / store, broker.url, store, "table1") for store in ("shop1", "shop2")]
        try:
            for t in made:
                t.roll()
            entry = made[1].roll()
            wait_for(lambda: len(board.get("/api/towers")) == 2, what="both stores' table1")
            browser.get(board.base + "/overlay?store=shop2&tower=table1")
            wait_for(lambda: browser.execute_script("return document.getElementById('overlay').dataset.seq")
                     == str(entry["seq"]), what="shop2's roll")
            shop1 = made[0].roll()
            later = made[1].roll()
            wait_for(lambda: browser.execute_script("return document.getElementById('overlay').dataset.seq")
                     == str(later["seq"]), what="shop2's next roll")
            assert shop1["seq"] == later["seq"] - 1  # shop1's roll came first and was not shown
            browser.get(board.base + "/overlay?tower=table1")
            wait_for(lambda: "is in several stores (shop1, shop2): add &store=STORE" in browser.execute_script(
                "return document.getElementById('badge').textContent"), what="the ambiguity said")
            assert overlay_text(browser) == AMBIGUOUS
        finally:
            for t in made:
                t.close(timeout=1.0)


AMBIGUOUS = ('table1\n"table1" is in several stores (shop1, shop2): add &store=STORE to the address', "")


def overlay_text(driver) -> tuple[str, str]:
    """What the overlay shows (its visible text, line by line) and the seq of the roll it shows."""
    text, seq = driver.execute_script("const o = document.getElementById('overlay');"
                                      "return [o.innerText.trim(), o.dataset.seq];")
    return text, seq


def test_the_overlay_of_a_tower_id_that_a_second_store_takes_says_so_in_words(tmp_path, browser):
    """The overlay without a store shows shop1's table1; then shop2's table1 publishes: the
    overlay shows neither store's roll (it could be either), only the tower id and what to add
    to the address, in words (no "undefined": no roll is shown, and its seq is empty)."""
    binary = require_command("mosquitto")
    (tmp_path / "broker").mkdir()
    with running_broker(binary, tmp_path / "broker") as broker, running_board(broker.url) as board:
        shop1 = SimTower(tmp_path / "shop1", broker.url, "shop1", "table1")
        shop2: SimTower | None = None
        try:
            entry = shop1.roll()
            wait_for(lambda: len(board.get("/api/towers")) == 1, what="shop1's table1")
            browser.get(board.base + "/overlay?tower=table1")
            wait_for(lambda: overlay_text(browser)[1] == str(entry["seq"]), what="shop1's roll")
            shop2 = SimTower(tmp_path / "shop2", broker.url, "shop2", "table1")
            shop2.roll()
            shown = wait_for(lambda: (s := overlay_text(browser)) and "several stores" in s[0] and s,
                             what="the ambiguity said")
            assert shown == AMBIGUOUS
            assert "undefined" not in browser.execute_script("return document.body.innerText")
            shop2.roll()  # a later roll of either store changes nothing
            shop1.roll()
            wait_for(lambda: board.get("/api/towers/table1?store=shop1")["seq"] == entry["seq"] + 1,
                     what="shop1's next roll at the board")
            assert overlay_text(browser) == AMBIGUOUS
            browser.get(board.base + "/overlay?store=shop2&tower=table1")  # the address with its store
            wait_for(lambda: overlay_text(browser)[1] != "", what="shop2's roll")
            assert "several stores" not in overlay_text(browser)[0]
        finally:
            shop1.close(timeout=1.0)
            if shop2 is not None:
                shop2.close(timeout=1.0)
