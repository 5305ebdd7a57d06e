"""Five honest nights (issue 37): each played on the simulated tower and the command line with
real commands, its players noting what docs/fairness.md tells them to, must pass
``dicetower replay`` and ``tools/verify_rolls.py`` with what they noted and give the store's
board no problem and no flag (no amber on an honest night):

- the panel only;
- several systems and two codes (a reveal from the menu between them);
- the command line with mixes and typed-in rolls;
- early reveals by the table itself;
- a night across a restart (a power cut: the next start reveals the session it left).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.fingerprints import reveal_card
from tests.hardware.tablenight import MENU_REVEAL, Table
from tests.hardware.test_board_verdict import board_verdict

D6CV_HARD = "field field field plus plus plus "  # the panel's d6cv at stat 5, cv 8


def panel_only(state: Path) -> Table:
    t = Table(state).start()
    t.press(D6CV_HARD)
    t.set_code("31425512")
    t.press("roll " * 10)
    t.press(MENU_REVEAL)
    t.stop()
    return t


def several_systems_two_codes(state: Path) -> Table:
    t = Table(state, ("d6cv", "infinity", "horizons")).start()
    t.set_code("31425512")
    t.press("roll roll mode roll roll mode roll")
    t.press(MENU_REVEAL)
    t.set_code("12345543")
    t.press("roll mode roll mode roll")
    t.press(MENU_REVEAL)
    t.stop()
    return t


def command_line_mixes_and_typed_in(state: Path) -> Table:
    t = Table(state)
    opened = t.cli("session", "open", str(state), "--json")
    t.noted.commitments.append(opened["commitment"][:16])
    t.cli("session", "seed", str(state), "417302")
    t.noted.codes.append("417302")
    for n in range(6):
        mix = ["--mix", f"player {n} says hi"] if n % 2 else []
        roll = t.cli("roll", "d6cv", "--stat", "2", "--cv", "7", *mix, "--state-dir", str(state), "--json")
        t.noted.results.append(f"{roll['recorded']['number']}:{roll['recorded']['entry']}")
        t.noted.mixes += mix[1:]
    for _ in range(2):  # a game master's hand, typed in
        t.cli("roll", "fingers", "--choices", "5", "--winners", "1", "--guess", "3", "--winners-set", "4",
              "--state-dir", str(state), "--player", "1", "--json")
        t.noted.entered += 1
    closed = t.cli("session", "close", str(state), "--json")
    t.noted.cards.append(reveal_card(closed["commitment"], closed["table_seed"], closed["rolls"], closed["head"]))
    return t


def early_reveals_by_the_table(state: Path) -> Table:
    t = Table(state).start()
    for code in ("31425512", "12345543", "54321123"):
        t.set_code(code)
        t.press("roll roll roll")
        t.press(MENU_REVEAL)
    t.stop()
    return t


def across_a_restart(state: Path) -> Table:
    t = Table(state).start()
    t.set_code("31425512")
    t.press("roll " * 4)
    t.pull_the_plug()
    t.start()  # the next start reveals the session the power cut left open, and opens another
    t.set_code("12345543")
    t.press("roll " * 4)
    t.press(MENU_REVEAL)
    t.stop()
    return t


NIGHTS = {"panel only": panel_only, "several systems and two codes": several_systems_two_codes,
          "command line with mixes and typed-in rolls": command_line_mixes_and_typed_in,
          "early reveals by the table": early_reveals_by_the_table, "a night across a restart": across_a_restart}


@pytest.mark.parametrize("night", NIGHTS)
def test_an_honest_night_passes_both_checkers_and_turns_the_board_nothing_but_green(night, tmp_path) -> None:
    t = NIGHTS[night](tmp_path / "tower")
    assert t.noted.results and t.noted.commitments and t.noted.codes
    code, out = t.replay()
    assert code == 0 and "result: all match" in out, out
    code, out = t.verify_rolls()
    assert code == 0 and "all good" in out, out
    board = board_verdict(t.entries())
    assert board["problems"] == [] and board["board"] == [], board
    assert board["counts"]["flags"] == {}, board["counts"]
    assert board["card"]["verified"] is True, board["card"]


def test_the_players_tally_passes_where_their_notes_are_few(tmp_path) -> None:
    """Players who kept a tally instead of photographing each result: their count passes."""
    t = panel_only(tmp_path / "tower")
    rolls = len(t.noted.results)
    t.noted.results = t.noted.results[-1:]  # only the last result photographed
    code, out = t.replay("--count", str(rolls))
    assert code == 0, out
    assert t.verify_rolls("--count", str(rolls))[0] == 0
    code, out = t.replay()  # neither every result nor a tally: a roll nobody saw could be in it
    assert code == 1 and "unseen-roll" in out, out


def test_each_reveal_says_who_ended_the_session(tmp_path) -> None:
    t = across_a_restart(tmp_path / "tower")
    reveals = [(e["reason"], e.get("by"), e["rolls"]) for e in t.entries() if e["kind"] == "reveal"]
    assert reveals == [("restart", "tower", 4), ("reveal", "table", 4), ("end", "tower", 0)]
