"""The log is the truth in the tower too (issue 42): a damaged or edited session cache never
changes what the table is shown.

Every field of an open session's kept file (``open-sessions/ID.json``) is damaged in turn:
flipped, zeroed, deleted, or taken from another session's file. Then the next writer starts:
a ``roll`` command and ``session close`` on a night the command line plays, and the tower
(the simulated panel, the real runtime) after a power cut. In every case the numbers shown
are the log's, the card's count is the log's, and the players' honest night passes both
checkers (``dicetower replay --all-revealed`` and ``tools/verify_rolls.py``) with what they
noted, or the session is ended as ``damaged`` with its reason said, in the log and to the
table, and the checkers name exactly that.

Real parts throughout: real session dice from the kernel's entropy, a real roll log, the real
command line and the simulated tower on a real state directory.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import shutil
import string
from pathlib import Path
from typing import Any

import pytest

from engine.fingerprints import reveal_card
from hardware.cli import main
from hardware.session.open_sessions import OPEN_SESSIONS_DIR
from tests.hardware.tablenight import MENU_REVEAL, Noted, Table
from tests.hardware.test_board_verdict import board_verdict

CODE = "417302"
D6CV = ["roll", "d6cv", "--stat", "3", "--cv", "7"]
#: Every field of a kept session file (a dotted name is a field inside one).
FIELDS = ("version", "commitment", "seed", "drbg", "drbg.key", "drbg.v", "drbg.counter", "rolls", "opened_ns",
          "block_bytes", "mode", "sources", "credited_bits", "table_seed", "log_seq", "logged", "owner",
          "owner.kind", "owner.pid", "owner.boot", "owner.token")
DAMAGES = ("flip", "zero", "delete", "other")
CASES = [(f, d) for f in FIELDS for d in DAMAGES]
#: The tower's start takes the same path as every other writer (each case above is played on
#: the command line): here each field once, the four damages in turn, and the seed and who
#: opened it (the two that end a session) in all four ways.
TOWER_CASES = sorted({*((f, DAMAGES[i % len(DAMAGES)]) for i, f in enumerate(FIELDS)),
                      *((f, d) for f in ("seed", "owner.kind") for d in DAMAGES)})


def fate(field: str, damage: str) -> str:
    """What the log makes of a damaged field: ``goes on`` (the log decides it, the cache is
    rewritten), ``revealed`` (who opened it is unknown, its seed is good: revealed as damaged)
    or ``lost`` (its seed is unusable: ended as damaged, no seed to reveal)."""
    if field == "seed":
        return "lost"
    if field in ("owner", "owner.kind") and damage != "other":
        return "revealed"
    return "goes on"


# --- damage ------------------------------------------------------------------------------------

def _is_hex(text: str) -> bool:
    return bool(text) and set(text) <= set(string.hexdigits)


def _flip(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value ^ 1
    if isinstance(value, str):
        if _is_hex(value):
            return value[:-1] + format(int(value[-1], 16) ^ 1, "x")
        return value[:-1] + chr(ord(value[-1]) ^ 1) if value else "x"
    if isinstance(value, list):
        return list(reversed(value)) if len(value) > 1 else [*value, "flipped"]
    if isinstance(value, dict):
        return {k: _flip(v) for k, v in value.items()}
    return 1


def _zero(value: Any) -> Any:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0
    if isinstance(value, str):
        return "0" * len(value) if _is_hex(value) else ""
    return type(value)() if isinstance(value, (list, dict)) else 0


def damaged(data: dict[str, Any], field: str, damage: str, other: dict[str, Any]) -> dict[str, Any]:
    """``data`` with ``field`` damaged (``other``: another session's file, for ``other``)."""
    data = copy.deepcopy(data)
    *outer, last = field.split(".")
    parent = data
    for key in outer:
        parent = parent[key]
    if damage == "delete":
        del parent[last]
    elif damage == "other":
        source = other
        for key in field.split("."):
            source = source[key]
        parent[last] = copy.deepcopy(source)
    else:
        parent[last] = (_flip if damage == "flip" else _zero)(parent[last])
    return data


def kept(state: Path) -> Path:
    (path,) = sorted((state / OPEN_SESSIONS_DIR).glob("*.json"))
    return path


def damage_file(state: Path, field: str, damage: str, other: dict[str, Any]) -> None:
    path = kept(state)
    before = json.loads(path.read_text())
    after = damaged(before, field, damage, other)
    path.write_text(json.dumps(after))


# --- the command line's night ------------------------------------------------------------------

def run(*argv: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def ok(*argv: str | Path) -> dict[str, Any]:
    code, out, err = run(*argv)
    assert code == 0, err
    return json.loads(out.strip().splitlines()[-1])


def opened(state: Path, code: str = CODE, *, entropy: str = "auto", rolls: int = 2) -> Noted:
    """``session open``, its code, ``rolls`` rolls: what the players noted of it."""
    noted = Noted()
    noted.commitments.append(ok("session", "open", state, "--json", "--entropy", entropy)["commitment"][:16])
    ok("session", "seed", state, code, "--json")
    noted.codes.append(code)
    for _ in range(rolls):
        recorded = ok(*D6CV, "--state-dir", state, "--json")["recorded"]
        noted.results.append(f"{recorded['number']}:{recorded['entry']}")
    return noted


@pytest.fixture(scope="module")
def nights(tmp_path_factory) -> tuple[Path, dict[str, Any]]:
    """A night two rolls in (copied for each case) and another session's file, opened
    otherwise (its entropy named, its code another) in another state directory."""
    root = tmp_path_factory.mktemp("nights")
    opened(root / "night")
    opened(root / "other", "99887766", entropy="kernel", rolls=3)
    return root / "night", json.loads(kept(root / "other").read_text())


def checked(state: Path, noted: Noted) -> tuple[tuple[int, str], tuple[int, str]]:
    t = Table(state)
    t.noted = noted
    return t.replay(), t.verify_rolls()


def entries(state: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (state / "rolls.jsonl").read_text().splitlines()]


def both_pass(state: Path, noted: Noted) -> None:
    (code, out), (tool, said) = checked(state, noted)
    assert code == 0 and "result: all match" in out, out
    assert tool == 0 and "all good" in said, said


def only_damaged(state: Path, noted: Noted, why: str) -> None:
    """Both checkers name the damaged session and why, and nothing else."""
    (code, out), (tool, said) = checked(state, noted)
    problems = [line for line in out.splitlines() if line.startswith("dicetower: ")]
    assert code == 1 and problems and all("damaged-session" in p for p in problems), out
    assert why in out, out
    found = [line for line in said.splitlines() if line.startswith(("entry ", "log: "))]
    assert tool == 1 and found and all("damaged-session" in p for p in found), said
    assert why in said, said


@pytest.mark.parametrize(("field", "damage"), CASES)
def test_a_damaged_field_on_the_command_line(nights, tmp_path, field, damage) -> None:
    """Two rolls, the field damaged, then the third roll and ``session close``: roll #3 and a
    card of 3 rolls, as the log has them; or the session ended as damaged, said, and no card."""
    template, other = nights
    state = tmp_path / "night"
    shutil.copytree(template, state, symlinks=True)
    noted = Table(state).noted
    noted.commitments.append(entries(state)[0]["commitment"][:16])
    noted.codes.append(CODE)
    noted.results += [f"{n}:{e['hash'][:16]}" for n, e in enumerate(
        (e for e in entries(state) if e["kind"] == "roll"), start=1)]
    sid = entries(state)[0]["session"]
    damage_file(state, field, damage, other)
    how = fate(field, damage)
    if how == "goes on":
        recorded = ok(*D6CV, "--state-dir", state, "--json")["recorded"]
        assert (recorded["session"], recorded["number"]) == (sid, 3)  # the log's third roll
        noted.results.append(f"3:{recorded['entry']}")
        closed = ok("session", "close", state, "--json")
        assert (closed["session"], closed["rolls"], closed["table_seed"]) == (sid, 3, CODE)  # the card: the log's
        noted.cards.append(reveal_card(closed["commitment"], closed["table_seed"], closed["rolls"], closed["head"]))
        both_pass(state, noted)
        return
    code, _, err = run("session", "close", state)
    (line,) = err.strip().splitlines()
    assert code == 1 and f"session #{sid[:8]} ended as damaged: " in line, err
    end = entries(state)[-1]
    assert end["session"] == sid and end["reason"] == "damaged" and end["rolls"] == 2 and end["why"] in line
    if how == "revealed":  # its seed is good: revealed, every roll checks
        assert end["kind"] == "reveal" and "owner" in end["why"]
        both_pass(state, noted)
    else:
        assert end["kind"] == "session_damaged" and "seed" not in end
        only_damaged(state, noted, end["why"])
    assert not list((state / OPEN_SESSIONS_DIR).glob("*.json"))  # ended: the next roll opens a new session


@pytest.mark.parametrize(("what", "why"), [
    ("garbage", "its kept file is damaged (not JSON)"),
    ("empty", "its kept file is damaged (not JSON)"),
    ("cut in half", "its kept file is damaged (not JSON)"),
    ("a list", "its kept file is damaged (not a JSON object)"),
    ("another session's", "its seed is not the one its commitment in the log was made to"),
    ("removed", "its kept file is missing (its seed is lost)"),
])
def test_a_file_that_cannot_be_trusted_at_all_ends_its_session_as_damaged(nights, tmp_path, what, why) -> None:
    """The whole file damaged: the session is ended as damaged (the log says why), the file is
    set aside for a person, ``session show`` says so in one line before, and the next roll
    opens a new session; the checkers name the damaged session, and nothing else."""
    template, other = nights
    state = tmp_path / "night"
    shutil.copytree(template, state, symlinks=True)
    path = kept(state)
    text = path.read_text()
    content = {"garbage": "\x00\x07 not a session {", "empty": "", "cut in half": text[: len(text) // 2],
               "a list": "[1, 2]", "another session's": json.dumps(other), "removed": None}[what]
    if content is None:
        path.unlink()
    else:
        path.write_text(content)
    code, out, err = run("session", "show", state)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "ends it as damaged" in err, err
    sid = path.stem
    code, out, err = run(*D6CV, "--state-dir", state, "--json")
    assert code == 0 and f"session #{sid[:8]} ended as damaged: {why}" in err, err
    assert json.loads(out)["recorded"]["session"] != sid  # a session of its own: the damaged one is over
    (damage,) = [e for e in entries(state) if e["kind"] == "session_damaged"]
    assert (damage["session"], damage["why"], damage["rolls"], damage["end"]) == (sid, why, 2, 3)
    if content is not None:
        assert (path.parent / f"{path.name}.damaged").read_text() == content  # kept for a person
    noted = Noted(commitments=[entries(state)[0]["commitment"][:16]], codes=[CODE],
                  results=[f"{n}:{e['hash'][:16]}" for n, e in enumerate(
                      (e for e in entries(state) if e["kind"] == "roll" and e["session"] == sid), start=1)])
    only_damaged(state, noted, why)


# --- the tower ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def plugged(tmp_path_factory) -> tuple[Path, Noted, dict[str, Any]]:
    """The tower after a power cut two rolls into the table's session (copied for each case),
    what the players noted, and another tower session's file (another night's)."""
    root = tmp_path_factory.mktemp("towers")
    notes = []
    for name, code in (("night", "31425512"), ("other", "12121212")):
        t = Table(root / name).start()
        t.set_code(code)
        t.press("roll roll")
        t.pull_the_plug()
        notes.append(t.noted)
    return root / "night", notes[0], json.loads(kept(root / "other").read_text())


def tower_after(template: Path, noted: Noted, state: Path, damage: Any) -> tuple[Table, list[dict[str, Any]]]:
    """The plugged night copied to ``state``, damaged by ``damage(state)``, then the tower
    started again: a new code, a roll, a reveal from the menu, stopped. Returns the table
    and the screens it saw at the start."""
    shutil.copytree(template, state, symlinks=True)
    damage(state)
    t = Table(state)
    t.noted = copy.deepcopy(noted)
    t.start()
    seen = len(t.screens)
    t.set_code("54321123")
    t.press("roll")
    t.press(MENU_REVEAL)
    t.stop()
    return t, t.screens[seen:]


def told(screens: list[dict[str, Any]]) -> str:
    """The one message the table was told of a damaged session ("" if none)."""
    said = [" ".join(s["lines"][1:]) for s in screens if s["kind"] == "message" and s["title"] == "session damaged"]
    assert len(said) <= 1
    return said[0] if said else ""


@pytest.mark.parametrize(("field", "damage"), TOWER_CASES)
def test_a_damaged_field_when_the_tower_starts(plugged, tmp_path, field, damage) -> None:
    """After the power cut the tower reveals the session it left with the log's count (its
    reveal checks), or ends it as damaged and tells the table in one line; the next session
    asks for a new code; the numbers on every screen are the log's."""
    template, noted, other = plugged
    sid = kept(template).stem
    t, screens = tower_after(template, noted, tmp_path / "tower", lambda s: damage_file(s, field, damage, other))
    log = t.entries()
    (first,) = [e for e in log if e.get("session") == sid and e["kind"] in ("reveal", "session_damaged")]
    assert first["rolls"] == 2, first  # the log's count, whatever the file said
    how = fate(field, damage)
    # every result the table saw is numbered as its entry is in the log
    rolls = [e for e in log if e["kind"] == "roll"]
    numbers = {e["hash"][:16]: n for s in {e["session"] for e in rolls}
               for n, e in enumerate((e for e in rolls if e["session"] == s), start=1)}
    assert all(numbers[r.split(":")[1]] == int(r.split(":")[0]) for r in t.noted.results), t.noted.results
    assert len(t.noted.results) == 3 and len(t.noted.codes) == 2
    board = board_verdict(log)  # the store's board, a witness without the players' notes
    assert board["problems"] == [] and board["board"] == [], board
    assert board["counts"]["flags"] == ({"damaged-session": 1} if how == "lost" else {}), board["counts"]
    if how == "goes on":
        assert (first["kind"], first["reason"]) == ("reveal", "restart") and not told(screens)
        both_pass(t.state, t.noted)
        return
    line = told(screens)
    assert f"#{sid[:8]} ended, damaged: {first['why']}" in line, screens
    assert first["reason"] == "damaged"
    if how == "revealed":
        assert first["kind"] == "reveal"
        both_pass(t.state, t.noted)
    else:
        assert first["kind"] == "session_damaged"
        only_damaged(t.state, t.noted, first["why"])


def test_a_tower_file_cut_in_half_is_told_and_the_next_session_asks_for_a_code(plugged, tmp_path) -> None:
    template, noted, _ = plugged

    def cut(state: Path) -> None:
        path = kept(state)
        path.write_text(path.read_text()[:100])

    t, screens = tower_after(template, noted, tmp_path / "tower", cut)
    assert "ended, damaged: its kept file is damaged (not JSON)" in told(screens)
    asked = [s for s in screens if s["kind"] == "seed" and str(s["title"]).startswith("table seed?")]
    assert asked, "the next session asks for a new code"
    only_damaged(t.state, t.noted, "its kept file is damaged (not JSON)")


def test_the_tower_joining_a_session_opened_elsewhere_shows_the_logs_code(tmp_path) -> None:
    """A session opened and seeded on the command line, its cached table seed edited: the
    tower joins it and shows the code the log holds, never the file's."""
    state = tmp_path / "tower"
    opened(state, rolls=1)
    path = kept(state)
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "table_seed": "666666", "rolls": 0}))
    t = Table(state).start()
    try:
        shown = t.sim.tower.sessions.dice.describe()
        assert (shown["table_seed"], shown["rolls"]) == (CODE, 1)  # the log's code and count
        assert t.sim.tower.sessions.table_seed == CODE  # what the panel was told
    finally:
        t.stop()  # the session stays open (opened by session open), its file rewritten from the log
    data = json.loads(path.read_text())
    assert (data["table_seed"], data["rolls"]) == (CODE, 1)


# --- a crash between the log and the cache -----------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
#: ``dicetower ARGS`` killed with SIGKILL at one point between the log and the cache:
#: ``entry``: the session's file is kept, its ``session`` entry not yet appended (the order a
#: session opens in); ``cache``: the roll is appended, the session's cache not yet written (the
#: order a roll in a joined session goes in).
KILLED_AT = """
import os, signal, sys
from hardware.session import file as session_file
from hardware.files.rolllog import RollLog

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

if sys.argv[1] == "entry":
    append = RollLog.append
    RollLog.append = lambda self, kind, **fields: die() if kind == "session" else append(self, kind, **fields)
else:
    session_file.save_file = die
from hardware.cli import main
sys.exit(main(sys.argv[2:]))
"""


def killed_at(point: str, *argv: str | Path) -> None:
    import signal
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", KILLED_AT, point, *map(str, argv)], cwd=REPO, capture_output=True,
                          timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr


def clean(state: Path) -> None:
    """Both checkers, every session revealed, zero problems."""
    both_pass(state, Noted())


def test_kill_9_after_the_roll_is_logged_and_before_its_cache_is_written_loses_nothing(tmp_path) -> None:
    state = tmp_path / "night"
    opened(state, rolls=1)
    behind = kept(state).read_bytes()
    killed_at("cache", *D6CV, "--state-dir", state)
    assert [e["kind"] for e in entries(state)][-1] == "roll" and kept(state).read_bytes() == behind
    recorded = ok(*D6CV, "--state-dir", state, "--json")["recorded"]
    assert recorded["number"] == 3  # the killed command's roll is the log's second
    closed = ok("session", "close", state, "--json")
    assert (closed["rolls"], closed["table_seed"]) == (3, CODE)
    clean(state)


def test_kill_9_after_the_file_is_kept_and_before_the_session_is_logged_loses_nothing(tmp_path) -> None:
    state = tmp_path / "night"
    state.mkdir()
    killed_at("entry", "session", "open", state)
    stray = kept(state)  # a session that never made the log
    assert not (state / "rolls.jsonl").exists() or "session" not in (state / "rolls.jsonl").read_text()
    assert run("session", "show", state)[0] == 1  # no session is open: the log has none
    noted = opened(state, rolls=2)
    assert not stray.exists()  # forgotten: nothing of it was ever in the log
    closed = ok("session", "close", state, "--json")
    assert (closed["rolls"], closed["table_seed"]) == (2, CODE)
    noted.cards.append(reveal_card(closed["commitment"], closed["table_seed"], closed["rolls"], closed["head"]))
    both_pass(state, noted)
    assert [e["kind"] for e in entries(state)].count("session") == 1


def test_a_full_card_after_the_roll_is_logged_and_before_its_cache_is_written_loses_nothing(tmp_path,
                                                                                            monkeypatch) -> None:
    import errno
    import os

    from hardware.session import file as session_file

    state = tmp_path / "night"
    opened(state, rolls=1)

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as m:
        m.setattr(session_file, "atomic_write_bytes", full)
        code, out, err = run(*D6CV, "--state-dir", state, "--json")
    assert code == 0 and json.loads(out)["recorded"]["number"] == 2, err  # in the log: shown
    assert "No space left on device" in err
    recorded = ok(*D6CV, "--state-dir", state, "--json")["recorded"]
    assert recorded["number"] == 3
    closed = ok("session", "close", state, "--json")
    assert (closed["rolls"], closed["table_seed"]) == (3, CODE)
    clean(state)


def test_a_full_card_after_the_file_is_kept_and_before_the_session_is_logged_loses_nothing(tmp_path,
                                                                                           monkeypatch) -> None:
    from hardware.cli import EXIT_UNRECORDED
    from hardware.files.rolllog import RollLog
    from tests.hardware.test_record_first import FullDisk

    state = tmp_path / "night"
    state.mkdir()
    original = RollLog.__init__

    def init(self: RollLog, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("write", FullDisk())
        original(self, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(RollLog, "__init__", init)
        code, out, err = run("session", "open", state)
    assert code == EXIT_UNRECORDED and out == "" and "cannot record" in err, err
    stray = kept(state)  # kept first, never logged
    noted = opened(state, rolls=2)
    assert not stray.exists()
    closed = ok("session", "close", state, "--json")
    assert (closed["rolls"], closed["table_seed"]) == (2, CODE)
    noted.cards.append(reveal_card(closed["commitment"], closed["table_seed"], closed["rolls"], closed["head"]))
    both_pass(state, noted)
