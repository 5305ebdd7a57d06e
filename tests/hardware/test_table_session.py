"""The panel's session is the table's, and the table's night is every roll (issue 37), run for
real: root with the shipped commands against a running tower and players who note what the
docs tell them to (tests/hardware/tablenight.py).

- the stock simulator run on the tower's state directory cannot roll in the table's session;
- a session opened and seeded on the command line (a ground code) is never rolled in by the
  panel: ROLL ends it and asks the table;
- a command-line roll between the table's rolls fails the players' night;
- a log with an eased setting reads otherwise than the photo of its screen.
"""

from __future__ import annotations

import copy
import json

from tests.hardware import forgeries
from tests.hardware.tablenight import MENU_REVEAL, Table

D6CV_HARD = "field field field plus plus plus "


def session_rolls(entries: list[dict], sid: str) -> int:
    return sum(1 for e in entries if e["kind"] == "roll" and e.get("session") == sid)


def test_the_stock_simulator_cannot_roll_in_the_tables_session(tmp_path) -> None:
    state = tmp_path / "tower"
    table = Table(state).start()
    table.press(D6CV_HARD)
    table.set_code("31425512")
    table.press("roll roll")
    ours = table.entries()[0]["session"]
    root = Table(state).start()  # root's stock `dicetower sim` on the tower's state directory
    root.press("roll roll")
    root.stop()
    entries = table.entries()
    assert session_rolls(entries, ours) == 2  # not one roll of root's went into the table's session
    ended = next(e for e in entries if e["kind"] == "reveal" and e["session"] == ours)
    assert ended["by"] == "tower" and ended["rolls"] == 2
    steps = table.press("roll")  # the table's next ROLL: a new session, whose question it sees
    assert steps[-1]["screen"]["kind"] == "seed" and steps[-1]["screen"]["title"].startswith("table seed?")
    table.press("plus 1 2 3 4 5 5 4 3 roll")
    table.noted.codes.append("12345543")
    table.press("roll roll")
    table.press(MENU_REVEAL)
    table.stop()
    # root's own session sits in the table's night, between two of theirs: the table is told
    theirs = {e["session"] for e in table.entries() if e["kind"] == "table_seed"}
    roots = [e["session"] for e in table.entries() if e["kind"] == "session" and e["session"] not in theirs
             and session_rolls(table.entries(), e["session"])]
    code, out = table.replay()
    assert code == 1 and roots and f"unnoted-commitment: session {roots[0]}" in out, out
    problems = [line for line in out.splitlines() if line.startswith("dicetower: ")]
    assert problems and all(roots[0] in line for line in problems), out
    assert table.verify_rolls()[0] == 1


def test_a_session_seeded_on_the_command_line_is_never_the_tables(tmp_path) -> None:
    """Root opens a session before the table arrives and sets a code he ground: the panel ends
    it at the first ROLL and asks the table for a code of its own."""
    state = tmp_path / "tower"
    table = Table(state)
    root = table.cli("session", "open", str(state), "--json")
    table.cli("session", "seed", str(state), "000576")
    table.start()
    table.press(D6CV_HARD)
    steps = table.press("roll")  # ends root's session; the new one's question follows at once
    screen = steps[-1]["screen"]
    assert screen["title"].startswith("table seed?") and root["commitment"][:8] not in screen["title"]
    entries = table.entries()
    ended = next(e for e in entries if e["kind"] == "reveal" and e["session"] == root["session"])
    assert (ended["reason"], ended["by"], ended["rolls"]) == ("not the table's", "tower", 0)
    table.press("plus 3 1 4 2 5 5 1 2 roll")
    table.noted.codes.append("31425512")
    table.press("roll roll roll")
    table.press(MENU_REVEAL)
    table.stop()
    entries = table.entries()
    assert all(e["session"] != root["session"] for e in entries if e["kind"] == "roll")
    assert [e["source"] for e in entries if e["kind"] == "table_seed"] == ["command-line", "panel"]
    assert table.replay()[0] == 0 and table.verify_rolls()[0] == 0
    # the same while the tower runs: a code set from the command line on the tower's fresh session
    table.start()
    table.cli("session", "seed", str(state), "000577")
    table.press("roll")
    table.stop()
    last = [e for e in table.entries() if e["kind"] == "reveal"]
    assert any(e["reason"] == "not the table's" for e in last[1:])


def test_a_command_line_roll_between_the_tables_rolls_fails_their_night(tmp_path) -> None:
    state = tmp_path / "tower"
    table = Table(state).start()
    table.press(D6CV_HARD)
    table.set_code("31425512")
    table.press("roll roll")
    table.cli("roll", "d6cv", "--stat", "5", "--cv", "8", "--state-dir", str(state), "--json")  # root, in between
    table.press("roll roll")
    table.press(MENU_REVEAL)
    table.stop()
    assert [n.split(":")[0] for n in table.noted.results] == ["1", "2", "4", "5"]  # the gap the table saw
    code, out = table.replay()
    assert code == 1 and "unseen-roll: roll(s) #3 of session" in out and "command-line-roll" in out, out
    code, out = table.verify_rolls()
    assert code == 1 and "unseen-roll" in out, out
    # a table that counted 4 rolls fails it as well, with only its last result noted
    table.noted.results = table.noted.results[-1:]
    code, out = table.replay("--count", "4")
    assert code == 1 and "you counted 4 (--count): 1 roll(s) you did not see" in out, out


def test_an_eased_setting_reads_otherwise_than_its_photo(forgery_honest, tmp_path, capsys) -> None:
    """A modified program shows the table its setting (stat 5 against CV 8) but logs a failing
    roll with an easier one (stat 8): the log is consistent, so only the photo can tell, and both
    checkers print the screen line the log gives beside it."""
    from hardware.cli import main

    honest = forgery_honest.panel
    # the honest night's dice are the kernel's: a failing roll is the story, but a night with
    # none (a few in a hundred) eases a success the same way and must read the same
    plain = [e for e in honest if e["kind"] == "roll" and e["result"]["critical"] == "none"]
    failing = next((e for e in plain if not e["result"]["success"]), plain[0])
    shown = f"d6cv {failing['result']['total']} vs {failing['result']['cv']}"  # what the photo shows
    out = copy.deepcopy(honest)
    eased = next(e for e in out if e.get("hash") == failing["hash"])
    eased["result"]["params"]["stat"] += 3
    forged = forgeries.rehash(forgeries.recompute(out, eased["session"]))
    path = tmp_path / "rolls.jsonl"
    forgeries.write(path, forged)
    roll = next(e for e in forged if e["kind"] == "roll" and e["start"] == failing["start"])
    note = forgeries.noted_roll(forged, roll)
    args = ["--expect", forged[0]["commitment"][:16], "--expect", note, "--table-seed", forgeries.PANEL_CODE,
            "--count", str(forgeries.session_rolls(forged))]
    assert main(["replay", str(path), *args]) == 0  # consistent: no checker can see the screen
    printed = capsys.readouterr().out
    logged = f'"d6cv {roll["result"]["total"]} vs {roll["result"]["cv"]}": d6cv success'
    assert logged in printed and f'"{shown}"' not in printed, printed
    assert json.loads(json.dumps(roll["result"]))["success"] is True
    table = Table(tmp_path)
    table.noted.commitments = [forged[0]["commitment"][:16]]
    code, text = table.verify_rolls(*args[2:])
    assert code == 0 and logged in text, text
