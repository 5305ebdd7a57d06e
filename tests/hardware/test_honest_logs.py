"""Honest logs always check: every log the command line and the tower write, also after a
kill -9, a full card or with ``unrecorded = "show"``, and with the tower and the command line
sharing one state directory, passes ``dicetower replay --all-revealed`` and
``tools/verify_rolls.py`` with zero problems (false alarms teach players to ignore failures)."""

from __future__ import annotations

import contextlib
import io
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.panel.model import Button
from hardware.cli import EXIT_UNRECORDED, main
from hardware.entropy import open_dice
from hardware.files.rolllog import LenientLog, RollLog
from hardware.files.state import LOG_NAME
from hardware.session.open_sessions import OpenSessions
from tests.hardware.test_record_first import FullDisk, full_disk  # noqa: F401  # the full-card fixture
from tests.hardware.test_runtime import Rig

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "verify_rolls.py"
D6CV = ["roll", "d6cv", "--stat", "3", "--cv", "7"]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def cli(*argv: str) -> subprocess.CompletedProcess:
    """``dicetower`` in a process of its own (another writer, as on a real tower)."""
    return subprocess.run([sys.executable, "-m", "hardware", *argv], capture_output=True, text=True, cwd=REPO,
                          timeout=300)


def entries(state: Path) -> list[dict]:
    return [json.loads(line) for line in (state / LOG_NAME).read_text().splitlines()]


def both_clean(state: Path, *args: str) -> None:
    """Zero problems from both checkers, every session revealed."""
    code, out, err = run("replay", str(state), "--all-revealed", *args)
    assert code == 0, out + err
    done = subprocess.run([sys.executable, str(TOOL), str(state / LOG_NAME), "--all-revealed", *args],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "all good" in done.stdout, done.stdout


def test_times_runs_check_and_show_their_fingerprints(tmp_path) -> None:
    code, out, _ = run(*D6CV, "--times", "5", "--json", "--state-dir", str(tmp_path), "--mix", "table 3")
    assert code == 0
    printed = [json.loads(line)["recorded"] for line in out.splitlines()]
    rolls = [e for e in entries(tmp_path) if e["kind"] == "roll"]
    assert printed == [{"session": r["session"], "number": i, "entry": r["hash"][:16], "mix": "table 3"}
                       for i, r in enumerate(rolls, start=1)]
    code, out, _ = run(*D6CV, "--times", "40", "--state-dir", str(tmp_path))
    assert code == 0 and out.splitlines()[-1].endswith(f"#40 {entries(tmp_path)[-2]['hash'][:16]}")
    code, out, _ = run(*D6CV, "--state-dir", str(tmp_path))
    assert f"recorded: roll #1 of session #{entries(tmp_path)[-2]['session'][:8]}" in out
    both_clean(tmp_path)


def test_a_times_run_crossing_the_1000_roll_reveal_checks(tmp_path) -> None:
    assert run("session", "open", str(tmp_path))[0] == 0
    assert run("session", "seed", str(tmp_path), "dragon")[0] == 0
    assert run(*D6CV, "--times", "1003", "--summary", "--state-dir", str(tmp_path))[0] == 0
    assert run("session", "close", str(tmp_path))[0] == 0
    reveals = [e for e in entries(tmp_path) if e["kind"] == "reveal"]
    assert [(r["rolls"], r["reason"]) for r in reveals] == [(1000, "rolls"), (3, "reveal")]
    first = entries(tmp_path)[0]["commitment"]
    both_clean(tmp_path)
    # the players' night is the first session (the 1000th roll revealed it): its rolls, counted
    both_clean(tmp_path, "--expect", first[:16], "--table-seed", "dragon", "--count", "1000")
    assert run(*D6CV, "--times", "1001", "--summary", "--state-dir", str(tmp_path / "own"))[0] == 0
    both_clean(tmp_path / "own")


KILLABLE = """
import sys
from hardware.cli import main
sys.exit(main([*sys.argv[1:], "--times", "100000", "--json"]))
"""


def kill_mid_run(args: list[str], rng: random.Random) -> list[dict]:
    """Run ``roll ... --times 100000`` and kill -9 it at a random point; what it printed."""
    proc = subprocess.Popen([sys.executable, "-c", KILLABLE, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=REPO)
    printed = []
    for _ in range(rng.randint(1, 6)):
        printed.append(json.loads(proc.stdout.readline()))
    time.sleep(rng.uniform(0, 0.03))  # a random point inside a later roll (not a wait for anything)
    proc.send_signal(signal.SIGKILL)
    printed += [json.loads(line) for line in proc.stdout.read().split(b"\n")[:-1]]
    proc.wait(timeout=60)
    return printed


def test_a_session_closed_after_kill_9s_reveals_what_the_log_holds(tmp_path) -> None:
    """kill -9 at random points of --times runs (between an append and anything after it,
    too) in an open session with a table seed: `session close` reveals the rolls the log has,
    and both checkers pass, with every printed fingerprint in the log."""
    rng = random.Random(16)
    assert run("session", "open", str(tmp_path))[0] == 0
    assert run("session", "seed", str(tmp_path), "417302")[0] == 0
    printed = []
    for _ in range(4):
        printed += kill_mid_run([*D6CV, "--state-dir", str(tmp_path), "--player", "1"], rng)
    code, out, _ = run("session", "close", str(tmp_path))
    rolls = [e for e in entries(tmp_path) if e["kind"] == "roll"]
    assert code == 0 and f"revealed after {len(rolls)} roll(s)" in out
    hashes = {r["hash"][:16] for r in rolls}
    assert all(p["recorded"]["entry"] in hashes for p in printed)
    last = printed[-1]["recorded"]
    # a kill between a roll's append and its printing leaves a roll nobody saw: the players'
    # tally is the log's here (the checkers would name such a roll: it is what a roll made in
    # between looks like), and every roll they saw is in it
    both_clean(tmp_path, "--table-seed", "417302", "--expect", entries(tmp_path)[0]["commitment"][:16],
               "--expect", f"{last['number']}:{last['entry']}", "--count", str(len(rolls)))


def test_a_killed_commands_own_session_is_revealed_by_the_next_writer(tmp_path) -> None:
    rng = random.Random(17)
    for _ in range(3):
        kill_mid_run([*D6CV, "--state-dir", str(tmp_path)], rng)
    assert run(*D6CV, "--state-dir", str(tmp_path))[0] == 0
    reasons = [e["reason"] for e in entries(tmp_path) if e["kind"] == "reveal"]
    assert reasons.count("restart") >= 1 and reasons[-1] == "end"
    both_clean(tmp_path)


def test_a_full_card_mid_run_then_session_close_checks(tmp_path, full_disk) -> None:  # noqa: F811
    full_disk.allow = 10**6
    assert run("session", "open", str(tmp_path))[0] == 0
    assert run("session", "seed", str(tmp_path), "417302")[0] == 0
    full_disk.allow = 3  # three rolls, then the card is full
    code, out, err = run(*D6CV, "--times", "10", "--state-dir", str(tmp_path), "--player", "1")
    assert code == EXIT_UNRECORDED and len(out.splitlines()) == 3 and "No space left" in err
    full_disk.allow = 10**6  # room again
    code, out, _ = run("session", "close", str(tmp_path))
    assert code == 0 and "revealed after 3 roll(s)" in out
    both_clean(tmp_path, "--table-seed", "417302", "--expect", entries(tmp_path)[0]["commitment"][:16],
               "--count", "3")


def test_a_full_card_at_a_commands_own_reveal_is_revealed_by_the_next_writer(tmp_path, full_disk) -> None:  # noqa: F811
    full_disk.allow = 4  # its session, three rolls; not the reveal
    code, _, err = run(*D6CV, "--times", "3", "--state-dir", str(tmp_path))
    assert code == EXIT_UNRECORDED and "keep this seed" in err
    full_disk.allow = 10**6
    assert run(*D6CV, "--state-dir", str(tmp_path))[0] == 0
    assert [e["reason"] for e in entries(tmp_path) if e["kind"] == "reveal"] == ["restart", "end"]
    both_clean(tmp_path)


def tower(state: Path, *, write=None, show: bool = False) -> Rig:
    """A tower on the state directory (its roll log, its open session kept there)."""
    log = RollLog(state / LOG_NAME, write=write) if write is not None else RollLog(state / LOG_NAME)
    roll_log = LenientLog(log) if show else log
    config = ('[buttons]\nroll = 4\n[display]\nkind = "dummy"\n[panel]\nanimation_seconds = 0.4\n'
              + ('[kiosk]\nunrecorded = "show"\n' if show else ""))
    dice = open_dice("kernel", log=roll_log, keeper=OpenSessions(state), writer="tower")
    return Rig(config, dice=dice, memory=state, roll_log=roll_log)


def roll(rig: Rig, times: int = 1) -> None:
    for _ in range(times):
        rig.roll()
        rig.run(1.0)


def test_unrecorded_show_then_session_close_reveals_what_the_log_holds(tmp_path) -> None:
    seam = FullDisk(10**6)
    rig = tower(tmp_path, write=seam, show=True)
    try:
        roll(rig, 2)
        seam.allow = 0  # the card fills: the next rolls are shown UNRECORDED
        roll(rig, 2)
        assert rig.tower.unrecorded == 2
        seam.allow = 10**6
        done = cli("session", "close", str(tmp_path))  # the session the tower had, as the log has it
        assert done.returncode == 0 and "revealed after 2 roll(s)" in done.stdout, done.stderr
        rig.run(1.5)  # the tower takes in the reveal and opens its next session
        roll(rig, 1)
    finally:
        rig.tower.close()
    both_clean(tmp_path)


def test_the_tower_and_the_command_line_share_one_session(tmp_path) -> None:
    """The tower's session is the state directory's: the table sets its code on the panel,
    `roll --state-dir` rolls in it between the tower's rolls (each starting where the other
    ended), `session close` reveals it and the tower opens the next; one session at a time."""
    rig = tower(tmp_path)
    try:
        first = entries(tmp_path)[0]["session"]
        rig.set_table_seed(*[Button.PLUS, Button.MINUS, Button.ROLL, Button.MODE] * 2)  # 43514351
        roll(rig, 2)
        done = cli(*D6CV, "--times", "3", "--state-dir", str(tmp_path), "--json")
        assert done.returncode == 0 and "no session open" not in done.stderr, done.stderr
        assert {json.loads(line)["recorded"]["session"] for line in done.stdout.splitlines()} == {first}
        assert [json.loads(line)["recorded"]["number"] for line in done.stdout.splitlines()] == [3, 4, 5]
        roll(rig, 1)
        assert cli("session", "close", str(tmp_path)).returncode == 0
        rig.run(1.5)
        roll(rig, 1)
    finally:
        rig.tower.close()
    log = entries(tmp_path)
    assert [e["kind"] for e in log if e["kind"] != "roll"] == ["session", "table_seed", "reveal", "session", "reveal"]
    rolls = [e for e in log if e["kind"] == "roll" and e["session"] == first]
    assert len(rolls) == 6 and [r.get("source") for r in rolls] == ["panel"] * 2 + [None] * 3 + ["panel"]
    assert [r["start"] for r in rolls] == [1, *[r["end"] for r in rolls[:-1]]]
    # The players rolled three times on the command line in the panel's session: they name them.
    assert [(e["table_seed"], e["source"]) for e in log if e["kind"] == "table_seed"] == [("43514351", "panel")]
    both_clean(tmp_path, "--expect", first[:16], "--table-seed", "43514351", "--allow-command-line", "3",
               "--count", "6")
    code, out, err = run("replay", str(tmp_path), "--all-revealed", "--expect", first[:16], "--table-seed", "43514351",
                         "--count", "6")
    assert code == 1 and "command-line-roll" in out + err


@pytest.mark.parametrize("owner", ["command", "tower"])
def test_a_second_session_never_opens_while_one_is_open(tmp_path, owner) -> None:
    """Whatever opened the directory's session, `session open` is refused while it is open."""
    if owner == "tower":
        rig = tower(tmp_path)
    else:
        assert run("session", "open", str(tmp_path))[0] == 0
    try:
        done = cli("session", "open", str(tmp_path))
        assert done.returncode == 2 and "one session at a time" in done.stderr
        assert [e["kind"] for e in entries(tmp_path)] == ["session"]
    finally:
        if owner == "tower":
            rig.tower.close()
        else:
            run("session", "close", str(tmp_path))
    both_clean(tmp_path)


def test_a_long_times_run_lets_the_tower_roll_between_its_rolls(tmp_path) -> None:
    """`roll --times N --state-dir` takes the lock for one roll at a time: the tower's rolls
    land between the command's, in the same session, and the log checks."""
    rig = tower(tmp_path)
    roll(rig, 1)  # the table answers the session's question on the panel (no code) and rolls
    proc = subprocess.Popen([sys.executable, "-m", "hardware", *D6CV, "--times", "300", "--json", "--state-dir",
                             str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    try:
        assert proc.stdout.readline()  # the command is rolling
        roll(rig, 2)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    finally:
        rig.tower.close()
    rolls = [e for e in entries(tmp_path) if e["kind"] == "roll"]
    panel = [i for i, e in enumerate(rolls) if e.get("source") == "panel"]
    assert len(rolls) == 303 and len(panel) == 3 and panel[-1] < len(rolls) - 1  # not after the whole run
    assert len({e["session"] for e in rolls}) == 1
    both_clean(tmp_path)
