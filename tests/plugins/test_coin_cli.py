"""The coin plug-in through the command line, with no file of dicetower edited: listed by
``systems``, rolled and its odds computed, played on the simulated panel with speech on, and
its rolls replayed with what the players noted (the plug-in installed), or refused with the
system named (a checker without it)."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from tests.plugins.install import Night, dicetower


def test_systems_lists_the_coin_with_its_parameters(coin_site: Path, tmp_path: Path) -> None:
    done = dicetower(coin_site, ["systems"], tmp_path)
    assert done.returncode == 0, done.stderr
    text = done.stdout.splitlines()
    at = text.index("coin      Coin")
    assert text[at + 1].split() == ["--coins", "a", "whole", "number", "from", "1", "to", "9;", "default", "3"]
    listed = json.loads(dicetower(coin_site, ["systems", "--json"], tmp_path).stdout)["systems"]
    coin = listed[-1]
    assert coin["id"] == "coin" and [p["name"] for p in coin["params"]] == ["coins", "heads"]
    assert [p["panel"] for p in coin["params"]] == ["field", "field"]


def test_roll_help_lists_the_coin(coin_site: Path, tmp_path: Path) -> None:
    done = dicetower(coin_site, ["roll", "--help"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert any(line.split()[:2] == ["coin", "flip"] for line in done.stdout.splitlines()), done.stdout
    done = dicetower(coin_site, ["roll"], tmp_path)
    assert done.returncode == 2
    assert "name a system: infinity, horizons, d6cv, immortal, fingers, coin" in done.stderr


def test_roll_with_typed_faces_counts_the_heads(coin_site: Path, tmp_path: Path) -> None:
    done = dicetower(coin_site, ["roll", "coin", "--coins", "3", "--heads", "2", "--faces", "2,1,2", "--json"],
                     tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["system"], result["dice"], result["total"], result["outcome"]) == ("coin", [2, 1, 2], 2, "success")
    done = dicetower(coin_site, ["roll", "coin", "--faces", "2,1,2"], tmp_path)
    assert done.stdout.splitlines() == ["coins H T H", "2 heads vs 2 needed", "SUCCESS"]


def test_a_setting_the_rules_refuse_is_one_line_naming_it(coin_site: Path, tmp_path: Path) -> None:
    done = dicetower(coin_site, ["roll", "coin", "--coins", "2", "--heads", "3"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "dicetower: error: --heads: at most the number of coins (2), got 3"


@pytest.mark.parametrize(("coins", "heads"), [(1, 1), (5, 3), (9, 0), (9, 9)])
def test_odds_are_the_binomial_tail(coin_site: Path, tmp_path: Path, coins: int, heads: int) -> None:
    done = dicetower(coin_site, ["odds", "coin", "--coins", str(coins), "--heads", str(heads), "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    odds = json.loads(done.stdout)
    want = Fraction(sum(comb(coins, k) for k in range(heads, coins + 1)), 2 ** coins)
    assert Fraction(odds["exact"]["success"]) == want
    assert [Fraction(odds["exact"]["heads"][str(k)]) for k in range(coins + 1)] == [
        Fraction(comb(coins, k), 2 ** coins) for k in range(coins + 1)]


def test_the_panel_plays_the_coin_and_says_it(coin_night: Night) -> None:
    table, steps = coin_night.table, coin_night.steps
    setups = [s for s in steps if s["screen"]["kind"] == "setup" and s["screen"]["title"].startswith("coin")]
    assert setups and setups[0]["screen"]["lines"][1:3] == [">coins 3", " need 2"]
    results = [s for s in steps if s["screen"]["kind"] == "result"]
    assert len(results) == 2 and len(table.noted.results) == 2
    for step in results:
        screen = step["screen"]
        heads = int(screen["title"].split()[1])
        assert screen["title"] == f"coin      {heads} vs 2"
        assert sum(step["leds"]) == heads  # the heads light that many LEDs
        said = " ".join(s["text"] for s in step["said"])
        assert said.startswith(f"coin: {'success' if heads >= 2 else 'failure'}, {heads} against need 2"), said
        fell = ["heads" if c == "H" else "tails" for c in screen["lines"][3].removeprefix("coins ").split()]
        assert f"coins {', '.join(fell[:-1])} and {fell[-1]}." in said  # the plug-in's own phrase


def test_replay_checks_the_coins_night_with_the_players_notes(coin_site: Path, coin_night: Night,
                                                              tmp_path: Path) -> None:
    state, notes = coin_night.state, coin_night.notes
    done = dicetower(coin_site, ["replay", str(state / "rolls.jsonl"), *notes], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "result: all match"
    assert "verified: 2 roll(s) recomputed from revealed seeds" in done.stdout
    # a checker without the plug-in cannot recompute a coin roll, and says which system it lacks
    done = dicetower(None, ["replay", str(state / "rolls.jsonl"), *notes], tmp_path)
    assert done.returncode == 1
    assert "unknown system 'coin'" in done.stdout + done.stderr
