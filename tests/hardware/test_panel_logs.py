"""Honest panel logs always check (issue 16, item 6): every flow script in
docs/screenshots/flows/, played on the simulated tower with a state directory and entropy
(``dicetower sim --config FILE --script FLOW``), leaves a roll log that ``dicetower replay
--all-revealed`` and ``tools/verify_rolls.py`` pass with zero problems, also checked against
every fingerprint the panel showed and the table seed the flow set; the same after a kill -9
between a roll's append and the panel's save (a real process, killed in that very moment,
and the rest of the flow played by the next one), and after the card filled up part way.
Also the table seed on the tower: record-first, "cannot record" when the log cannot take it,
one set by `dicetower session seed` shown as the log has it."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.panel.model import Button
from engine.panel.state import Mode
from hardware.cli import main
from hardware.cli.sim import Simulator, parse_script
from hardware.config import reader
from hardware.entropy import open_dice
from hardware.files.rolllog import RollLog
from hardware.files.state import LOG_NAME
from hardware.session.open_sessions import OpenSessions
from tests.hardware.test_honest_logs import both_clean, cli, entries
from tests.hardware.test_record_first import FullDisk
from tests.hardware.test_runtime import Rig

REPO = Path(__file__).resolve().parents[2]
FLOWS = sorted((REPO / "docs" / "screenshots" / "flows").glob("*.txt"))


def config_file(tmp_path: Path, state: Path) -> Path:
    path = tmp_path / "tower.toml"
    path.write_text(f'[kiosk]\nstate_dir = "{state}"\n[entropy]\nsource = "kernel"\n')
    return path


FOOT = re.compile(r"#?(\d+) ([0-9a-f]{16})|hand ([0-9a-f]{16})")
HEX8 = re.compile(r"[0-9a-f]{8}")


def noted(steps: list[dict]) -> tuple[list[str], set[str]]:
    """What the players could photograph: every session's commitment on its question page
    (16 digits, beside the QR code), every fingerprint on a result (as a player types it:
    ``12:a1b2…``), every table seed the setup screen showed."""
    prints, seeds = [], set()
    for step in steps:
        screen = step["screen"]
        lines = screen["lines"]
        if screen["kind"] == "seed" and "photograph the QR" in lines:
            at = lines.index("photograph the QR") + 1
            if all(HEX8.fullmatch(x) for x in lines[at:at + 2]):
                prints.append(lines[at] + lines[at + 1])
        for line in lines:
            found = FOOT.fullmatch(line)
            if found is not None:
                prints.append(f"{found[1]}:{found[2]}" if found[1] else found[3])
            elif line.startswith("table seed ") and screen["kind"] == "setup":
                seeds.add(line.removeprefix("table seed "))
    return prints, seeds


def expectations(prints: list[str], seeds: set[str]) -> list[str]:
    args = [a for p in dict.fromkeys(prints) for a in ("--expect", p)]
    return args + [a for s in sorted(seeds) for a in ("--table-seed", s)]


@pytest.mark.parametrize("flow", FLOWS, ids=lambda p: p.stem)
def test_a_flow_scripts_log_checks_clean_with_what_the_panel_showed(flow: Path, tmp_path, capsys) -> None:
    state = tmp_path / "state"
    assert main(["sim", "--config", str(config_file(tmp_path, state)), "--script", str(flow), "--json"]) == 0
    steps = json.loads(capsys.readouterr().out)
    prints, seeds = noted(steps)
    log = entries(state)
    rolls = [e for e in log if e["kind"] == "roll"]
    commitments = {e.get("commitment", "")[:16] for e in log}
    results = [p for p in prints if ":" in p or (len(p) == 16 and p not in commitments)]
    assert rolls and len(results) >= len(rolls) // 2  # the results carried their fingerprints
    assert {p.split(":")[-1] for p in results} <= {e["hash"][:16] for e in rolls}
    assert all(e["roll_kind"] == ("entered" if e["session"] is None else "rolled") for e in rolls)
    hands = [e for e in rolls if e["result"]["params"].get("winners_set")]
    assert all(e["session"] is None and e["roll_kind"] == "entered" for e in hands)  # typed in: no session
    both_clean(state)
    if flow.stem == "horizons":  # horizons rolls without one (ROLL on the question): its owner could have chosen
        assert not seeds and "no-table-seed" in cli("replay", str(state), *expectations(prints, seeds)).stderr
        return
    assert len(seeds) == 1 and [e["table_seed"] for e in log if e["kind"] == "table_seed"] == list(seeds)
    # the game master's hands (fingers) are typed in: the table names how many it typed
    both_clean(state, *expectations(prints, seeds), "--allow-entered", str(len(hands)))


def test_the_game_masters_hand_is_logged_entered_outside_the_session(tmp_path) -> None:
    """fingers' hand page (the game master fixes the hidden fingers: no die is drawn) is
    logged as the command line logs --winners-set: ``entered``, ``session`` null; the
    session's own rolls go on where they were (the flow's dice are seeded: the hand is
    played)."""
    from tests.hardware.test_sim_flows import run_flow

    steps = run_flow(REPO / "docs" / "screenshots" / "flows" / "fingers.txt", tmp_path, b"flows")
    rolls = [e for e in entries(tmp_path) if e["kind"] == "roll"]
    hands = [e for e in rolls if e["result"]["params"].get("winners_set")]
    assert hands and all(e["session"] is None and e["roll_kind"] == "entered" for e in hands)
    shown = {line.split()[-1] for step in steps for line in step["screen"]["lines"] if line.startswith("hand ")}
    assert {e["hash"][:16] for e in hands} <= shown  # the reveal showed each one's entry
    in_session = [e for e in rolls if e["session"] is not None]
    assert [e["start"] for e in in_session[1:]] == [e["end"] for e in in_session[:-1]]
    both_clean(tmp_path)


DRIVER = """
import os, signal, sys
from pathlib import Path
from hardware.config import reader
from hardware.files import state as state_files
from hardware.cli.tower import _dice, keep
from hardware.cli.sim import Simulator, parse_script

config_path, script, start, kill_at = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
config = reader.load(config_path)
kept = keep(config)
sim = Simulator(config, dice=_dice(config, None, kept=kept), **kept.tower_options())
recorded = 0
record = sim.tower._record

def counting(rolled, state):
    global recorded
    out = record(rolled, state)
    recorded += out[0] is None
    return out

sim.tower._record = counting
write = state_files.atomic_write_json

def killing(path, data):
    if kill_at and recorded >= kill_at and Path(path).name == "panel.json":
        os.kill(os.getpid(), signal.SIGKILL)  # the roll is in the log; the panel's memory is not saved
    return write(path, data)

state_files.atomic_write_json = killing
actions = parse_script(Path(script).read_text(encoding="utf-8"), option="script")
sim.settle()
for i, action in enumerate(actions[start:], start):
    print(i, flush=True)
    sim.act(action)
sim.close()
"""


def play(config: Path, flow: Path, start: int, kill_at: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", DRIVER, str(config), str(flow), str(start), str(kill_at)],
                          capture_output=True, text=True, cwd=REPO, timeout=600)


@pytest.mark.parametrize("flow", FLOWS, ids=lambda p: p.stem)
def test_a_kill_between_a_panel_rolls_append_and_its_save_leaves_a_log_that_checks(flow: Path, tmp_path) -> None:
    """kill -9 of the tower in the moment after its second roll's entry is appended (before
    the panel's memory is saved); the next tower reveals the session the first left open
    (``restart``), heals the player slot from the log, and plays the rest of the flow."""
    state = tmp_path / "state"
    config = config_file(tmp_path, state)
    killed = play(config, flow, 0, 2)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    last = int(killed.stdout.split()[-1])
    before = entries(state)
    assert before[-1]["kind"] == "roll"  # killed right after the append
    assert [f.name for f in (state / "open-sessions").iterdir()]  # its seed kept for the next start
    rest = play(config, flow, last + 1, 0)
    assert rest.returncode == 0, rest.stderr
    reveals = [e for e in entries(state) if e["kind"] == "reveal"]
    assert reveals[0]["reason"] == "restart" and reveals[0]["session"] == before[-1]["session"]
    assert not list((state / "open-sessions").iterdir())
    both_clean(state)


@pytest.mark.parametrize("flow", FLOWS, ids=lambda p: p.stem)
def test_a_card_that_fills_part_way_through_a_flow_leaves_a_log_that_checks(flow: Path, tmp_path) -> None:
    """The roll log's writes fail like a full card for a while in the middle of the flow (the
    panel says "cannot record", shows no result, closes the session it could not write to),
    then the card has room again and the flow goes on; the log checks clean."""
    state = tmp_path / "state"
    state.mkdir()
    config = reader.loads(f'[kiosk]\nstate_dir = "{state}"\n[entropy]\nsource = "kernel"\n')
    seam = FullDisk(10**6)
    log = RollLog(state / LOG_NAME, write=seam, fsync=False)
    sim = Simulator(config, dice=open_dice("kernel", log=log, keeper=OpenSessions(state)), memory=state,
                    roll_log=log, kept=True)
    refused = 0
    try:
        actions = parse_script(flow.read_text(encoding="utf-8"), option="script")
        rolls = [i for i, a in enumerate(actions) if a.button is Button.ROLL]
        full_from = rolls[len(rolls) // 2]  # the card is full from a ROLL in the middle of the flow ...
        sim.settle()
        for i, action in enumerate(actions):
            if i == full_from:
                seam.allow = 0
            sim.act(action)
            if sim.tower.screen is not None and sim.tower.screen.title == "cannot record":
                refused += 1
                seam.allow = 10**6  # ... until a roll is refused: then it has room again
    finally:
        sim.close()
    assert refused, f"{flow.name}: the card never refused a roll"
    both_clean(state)


# --- the table seed on the tower ---------------------------------------------------------------


def test_the_panel_sets_the_table_seed_record_first_and_it_checks(tmp_path) -> None:
    log = RollLog(tmp_path / LOG_NAME)
    dice = open_dice("kernel", log=log, keeper=OpenSessions(tmp_path))
    rig = Rig(dice=dice, memory=tmp_path, roll_log=log)
    try:
        commitment = entries(tmp_path)[0]["commitment"]
        rig.set_table_seed(Button.FIELD, Button.FIELD, Button.ROLL, Button.MODE, Button.MINUS, Button.PLUS,
                           Button.PLUS, Button.ROLL)
        assert [e["kind"] for e in entries(tmp_path)] == ["session", "table_seed"]
        assert entries(tmp_path)[1]["table_seed"] == "22513445" == dice.table_seed
        assert rig.tower.screen.lines[-1] == "table seed 22513445"
        rig.tap(Button.ROLL)  # no more asking
        rig.run(1.0)
        roll = entries(tmp_path)[-1]
        assert roll["kind"] == "roll" and roll["start"] == 1  # the table seed took generate call 0
        assert rig.tower.screen.foot == f"#1 {roll['hash'][:16]}"
    finally:
        rig.tower.close()
    both_clean(tmp_path, "--expect", commitment[:16], "--expect", f"1:{roll['hash'][:16]}", "--table-seed", "22513445")


def test_a_table_seed_the_log_cannot_take_says_cannot_record_and_is_not_set(tmp_path) -> None:
    seam = FullDisk(1)  # the session entry, then the card is full
    log = RollLog(tmp_path / LOG_NAME, write=seam, fsync=False)
    dice = open_dice("kernel", log=log, keeper=OpenSessions(tmp_path))
    messages: list[str] = []
    rig = Rig(dice=dice, memory=tmp_path, roll_log=log, log=messages.append)
    try:
        rig.set_table_seed(*[Button.MODE, Button.FIELD, Button.MINUS] * 2, Button.MODE, Button.FIELD)
        screen = rig.tower.screen
        assert screen.title == "cannot record" and "No space left" in " ".join(screen.lines)
        assert dice.table_seed is None and rig.tower.state.table_seed is None
        assert [e["kind"] for e in entries(tmp_path)] == ["session"]
        assert any(m.startswith("table seed: roll log:") for m in messages)
        seam.allow = 10**6  # room again: the next ROLL asks again, and it is set
        rig.set_table_seed(*[Button.MODE, Button.FIELD, Button.MINUS] * 2, Button.MODE, Button.FIELD)
        assert [e["kind"] for e in entries(tmp_path)] == ["session", "table_seed"]
        assert rig.tower.screen.lines[-1] == "table seed 12312312"
        commitment = entries(tmp_path)[0]["commitment"]
    finally:
        rig.tower.close()
    both_clean(tmp_path, "--expect", commitment[:16], "--table-seed", "12312312")


def test_a_seed_set_on_the_command_line_makes_the_panel_ask_for_a_new_session(tmp_path) -> None:
    """A code set with `dicetower session seed` on the tower's session is not the table's: the
    setup screen shows it, and the panel's ROLL ends that session (reason "not the table's")
    and asks the table about a new one (docs/fairness.md, "The panel's session is the table's")."""
    log = RollLog(tmp_path / LOG_NAME)
    rig = Rig(dice=open_dice("kernel", log=log, keeper=OpenSessions(tmp_path), writer="tower"), memory=tmp_path,
              roll_log=log)
    try:
        first = entries(tmp_path)[0]["session"]
        assert cli("session", "seed", str(tmp_path), "dragon 7").returncode == 0
        rig.run(1.5)  # the tower follows the log once a second
        assert rig.tower.screen.lines[-1] == "table seed dragon 7"
        rig.tap(Button.ROLL)
        screen = rig.tower.screen
        assert rig.tower.state.mode is Mode.TABLE_SEED and screen.title.startswith("table seed?")
        assert rig.tower.state.commitment[:16] != first and not rig.tower.rolls
        ended = [e for e in entries(tmp_path) if e["kind"] == "reveal"]
        assert [(e["session"], e["reason"], e["by"]) for e in ended] == [(first, "not the table's", "tower")]
        rig.tap(Button.ROLL)  # the table's answer on the keys: no code, and the roll
        assert rig.tower.state.mode in (Mode.ROLLING, Mode.RESULT)
    finally:
        rig.tower.close()
    rolls = [e for e in entries(tmp_path) if e["kind"] == "roll"]
    assert len(rolls) == 1 and rolls[0]["session"] != first
    both_clean(tmp_path)


def test_a_session_that_changed_under_the_page_is_not_seeded(tmp_path) -> None:
    """The players entered a code for the session they saw; another writer revealed it in
    the meantime (the tower has not followed yet): the seed goes nowhere, and the panel says
    why; the new session asks again at its first ROLL."""
    log = RollLog(tmp_path / LOG_NAME)
    dice = open_dice("kernel", log=log, keeper=OpenSessions(tmp_path))
    rig = Rig(dice=dice, memory=tmp_path, roll_log=log)
    try:
        rig.tap(Button.ROLL)
        rig.tap(Button.PLUS)
        for button in (Button.MODE, Button.FIELD, Button.MINUS, Button.PLUS, Button.ROLL, Button.MODE, Button.FIELD):
            rig.tap(button)
        assert cli("session", "close", str(tmp_path)).returncode == 0
        rig.pin(Button.MINUS).drive_low()  # the eighth finger, then ROLL at once
        rig.tower.pump()
        rig.pin(Button.MINUS).drive_high()
        rig.tower.pump()
        rig.clock.t += 30_000_000
        rig.tap(Button.ROLL)
        assert "table_seed" not in [e["kind"] for e in entries(tmp_path)]
        assert rig.tower.state.commitment != ""  # the page was left (the tower followed the log at the press)
        for _ in range(3):
            if rig.tower.state.mode is Mode.SETUP:
                break
            rig.tap(Button.MODE)
        rig.tap(Button.ROLL)
        assert rig.tower.state.mode is Mode.TABLE_SEED and rig.tower.state.seed_for == dice.commitment
    finally:
        rig.tower.close()
    both_clean(tmp_path)



def test_a_session_closed_on_the_command_line_leaves_its_four_facts_on_the_tower(tmp_path) -> None:
    """`dicetower session close` reveals the tower's session; within a second the tower has
    the reveal's four facts from the log (the menu's `revealed` item shows them, QR code and
    all, as `session close` printed them) and opens the next session, which asks again."""
    from engine.fingerprints import reveal_card
    from engine.panel.menu import Item
    from tests.hardware.test_runtime_session import open_menu

    log = RollLog(tmp_path / LOG_NAME)
    rig = Rig(dice=open_dice("kernel", log=log, keeper=OpenSessions(tmp_path)), memory=tmp_path, roll_log=log)
    try:
        rig.set_table_seed(*[Button.PLUS, Button.MINUS, Button.ROLL, Button.MODE] * 2)
        for _ in range(3):
            rig.tap(Button.ROLL)
            rig.run(1.0)
        done = cli("session", "close", str(tmp_path))
        assert done.returncode == 0, done.stderr
        rig.run(1.5)
        reveal = entries(tmp_path)[-2]
        assert reveal["kind"] == "reveal" and entries(tmp_path)[-1]["kind"] == "session"
        card = reveal_card(entries(tmp_path)[0]["commitment"], "43514351", 3, reveal["hash"])
        assert card in done.stdout or card.split("\n", 1)[1] in done.stdout  # what the command printed
        open_menu(rig, Item.REVEALED)
        rig.tap(Button.ROLL)
        assert rig.tower.screen.kind == "card" and rig.tower.screen.qr == card
        rig.tap(Button.MODE)
        rig.tap(Button.MODE)
        rig.tap(Button.ROLL)
        assert rig.tower.state.mode is Mode.TABLE_SEED  # the next session asks again
    finally:
        rig.tower.close()
    first = entries(tmp_path)[0]["commitment"]
    both_clean(tmp_path, "--expect", first[:16], "--expect", reveal["hash"], "--table-seed", "43514351", "--count", "3")


# --- the players' night on the panel (issue 26) ----------------------------------------------------


def _card(rig: Rig) -> tuple[str, str, int, str]:
    """The reveal screen's four facts, read back from its QR code's text."""
    lines = dict(line.split(" ", 1) for line in rig.tower.screen.qr.splitlines()[1:])
    return lines["commitment"], lines["table"].removeprefix("seed "), int(lines["rolls"]), lines["head"]


def test_a_menu_reveal_then_quitting_passes_with_what_the_table_photographed(tmp_path, capsys) -> None:
    """A newcomer's honest night: the code set at the question, three rolls, the reveal from the
    menu, then the tower is stopped. replay and verify_rolls.py, given the commitment noted at
    the question, the code, the last result and the reveal card's head, pass; replay prints
    the head the reveal screen showed."""
    from engine.panel.menu import Item
    from tests.hardware.test_runtime_session import reveal_from_menu

    log = RollLog(tmp_path / LOG_NAME)
    rig = Rig(dice=open_dice("kernel", log=log, keeper=OpenSessions(tmp_path)), memory=tmp_path, roll_log=log)
    try:
        rig.tap(Button.ROLL)  # the question: the commitment's QR code and 16 digits, photographed
        asked = rig.tower.screen
        commitment = asked.qr
        assert asked.kind == "seed" and asked.beside[:2] == (commitment[:8], commitment[8:16])
        rig.tap(Button.PLUS)
        for button in (Button.MODE, Button.FIELD, Button.MINUS, Button.PLUS, Button.ROLL, Button.MODE,
                       Button.FIELD, Button.MINUS):
            rig.tap(button)
        rig.tap(Button.ROLL)
        code = rig.tower.state.table_seed
        assert code == "12345123"
        for _ in range(3):
            rig.roll()
            rig.run(1.0)
        last = rig.tower.screen.foot  # '#3 a1b2…': the last result before the reveal
        reveal_from_menu(rig)
        rig.run(0.5)
        assert rig.tower.screen.kind == "card"
        card = _card(rig)
        assert card[0] == commitment and card[1] == code and card[2] == 3
        rig.tap(Button.MODE)
        assert Item  # the menu was used
    finally:
        rig.tower.close()  # quitting: the session the reveal opened is revealed with no roll
    number, digits = last.lstrip("#").split()
    noted = ["--expect", commitment[:16], "--expect", f"{number}:{digits}", "--expect", card[3], "--table-seed", code,
             "--count", "3"]
    both_clean(tmp_path, *noted)
    assert main(["replay", str(tmp_path), "--all-revealed", *noted]) == 0
    out = capsys.readouterr().out
    assert f"table seed {code}, rolls 3, head {card[3]}" in out  # the head the reveal screen showed


def test_each_session_asks_for_a_new_code_and_refuses_the_last_one(tmp_path) -> None:
    """After a reveal the next session's question comes at the next ROLL (its own QR code), and
    the code of the session before is refused there: one code, one session."""
    from tests.hardware.test_runtime_session import reveal_from_menu

    fingers = (Button.MODE, Button.FIELD, Button.MINUS, Button.PLUS, Button.ROLL, Button.MODE, Button.FIELD,
               Button.MINUS)
    log = RollLog(tmp_path / LOG_NAME)
    rig = Rig(dice=open_dice("kernel", log=log, keeper=OpenSessions(tmp_path)), memory=tmp_path, roll_log=log)
    try:
        rig.set_table_seed(*fingers)
        rig.roll()
        rig.run(1.0)
        first = entries(tmp_path)[0]["commitment"]
        reveal_from_menu(rig)
        rig.run(0.5)
        for _ in range(4):  # the card, the new commitment in full, the menu: back to the setup page
            if rig.tower.state.mode is not Mode.SETUP:
                rig.tap(Button.MODE)
        rig.tap(Button.ROLL)
        screen = rig.tower.screen
        assert rig.tower.state.mode is Mode.TABLE_SEED and screen.qr and screen.qr != first
        rig.tap(Button.PLUS)
        for button in fingers:
            rig.tap(button)
        rig.tap(Button.ROLL)
        message = " ".join(rig.tower.screen.lines)
        assert rig.tower.state.table_seed is None and "one code, one session" in message, message
        assert [e["kind"] for e in entries(tmp_path)].count("table_seed") == 1
    finally:
        rig.tower.close()
    both_clean(tmp_path)
