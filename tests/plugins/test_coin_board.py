"""The store's board (``dicetower board``) with the coin plug-in installed: a tower rolls the
coin and publishes its log over MQTT, the board replays the revealed session, and its page
shows the tower's coin rolls, verified. A board without the plug-in cannot replay them and
turns the tower's card red, naming the system."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.hardware.netparts import free_port, running_broker, wait_for
from tests.hardware.test_board_browser import browser, cards  # noqa: F401  # the page in headless Chromium
from tests.plugins.install import with_plugin
from tests.support import require_command

ROOT = Path(__file__).resolve().parents[2]
STORE, TOWER, ROLLS = "shop1", "coin-table", 3


def get(base: str, path: str) -> Any:
    with urllib.request.urlopen(base + path, timeout=10) as r:
        return json.loads(r.read())


class Board:
    """``dicetower board`` in a process of its own, seeing the plug-in in ``site`` (or not)."""

    def __init__(self, site: Path | None, url: str, data: Path) -> None:
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        command = Path(sys.executable).with_name("dicetower")
        self.proc = subprocess.Popen([str(command), "board", "--mqtt", url, "--listen", f"127.0.0.1:{port}",
                                      "--store", STORE, "--data", str(data)], env=with_plugin(site),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_for(self._up, timeout=60, what="the board's web server")

    def _up(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"the board exited: {self.proc.stderr.read() if self.proc.stderr else ''}")
        try:
            get(self.base, "/api/board")
        except OSError:
            return False
        return True

    def tower(self) -> dict[str, Any] | None:
        return next((t for t in get(self.base, "/api/towers") if t["tower"] == TOWER), None)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        finally:
            if self.proc.stderr is not None:
                self.proc.stderr.close()


@pytest.fixture
def broker(tmp_path):
    (tmp_path / "broker").mkdir()
    with running_broker(require_command("mosquitto"), tmp_path / "broker") as b:
        yield b


def roll_coins(site: Path, url: str, state: Path) -> None:
    """A tower rolling the coin ROLLS times and revealing (tests/plugins/coin_tower.py)."""
    env = with_plugin(site)
    env["PYTHONPATH"] = f"{env['PYTHONPATH']}:{ROOT}"
    done = subprocess.run([sys.executable, "-m", "tests.plugins.coin_tower", str(state), url, STORE, TOWER,
                           str(ROLLS)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def test_the_board_verifies_the_coins_rolls_and_its_page_shows_them(coin_site: Path, broker, browser,  # noqa: F811
                                                                    tmp_path: Path) -> None:
    board = Board(coin_site, broker.url, tmp_path / "board")
    try:
        roll_coins(coin_site, broker.url, tmp_path / "tower")
        item = wait_for(lambda: (t := board.tower()) is not None and t["rolls"] == ROLLS
                        and get(board.base, f"/api/towers/{TOWER}")["replay_pending"] is False and t,
                        timeout=60, what="the coin tower's rolls at the board")
        card = get(board.base, f"/api/towers/{TOWER}")
        assert item["verified"] is True and card["checked"]["verified"] == ROLLS, card
        # replayed from the revealed seed; "uncoded": the table set no code (the simulated tower has no keys)
        assert [(r["system"], r["check"]) for r in card["last"]] == [("coin", "uncoded")] * ROLLS, card["last"]
        assert card["stats"]["coin"]["unpriced"] == 0  # the board priced each roll by the coin's own odds
        browser.get(board.base + "/")
        shown = wait_for(lambda: cards(browser).get(TOWER), timeout=30, what="the coin tower's card")
        assert not shown["red"] and shown["rolls"] == ROLLS, shown
        assert "coin" in shown["text"] and card["last"][0]["name"] in shown["text"], shown["text"]
        zipped = urllib.request.urlopen(board.base + "/phone/engine.zip", timeout=10).read()
        assert b"dicetower_coin/verify_rules.py" in zipped  # the board's phone page checks coins too
    finally:
        board.stop()


def test_a_board_without_the_plugin_names_the_system_it_cannot_replay(coin_site: Path, broker,
                                                                      tmp_path: Path) -> None:
    board = Board(None, broker.url, tmp_path / "board")
    try:
        roll_coins(coin_site, broker.url, tmp_path / "tower")
        card = wait_for(lambda: board.tower() is not None
                        and (c := get(board.base, f"/api/towers/{TOWER}"))["replay_pending"] is False
                        and c.get("problem") and c, timeout=60, what="the coin tower's verdict")
        assert "unknown system 'coin'" in json.dumps(card), card
    finally:
        board.stop()
