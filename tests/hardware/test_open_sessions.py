"""A power cut never leaves a session unrevealed: the tower keeps each open session's seed in
``DIR/open-sessions`` (0600) until its reveal is in the log, and the next start reveals what a
stopped tower left open, so every roll it made still replays. Real session dice, a real roll
log, the real loop (gpiozero MockFactory, luma's dummy device, a simulated clock)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from hardware.entropy import open_dice
from hardware.entropy.replay import replay_log
from hardware.files.rolllog import LenientLog, RollLog
from hardware.files.state import LOG_NAME
from hardware.session.open_sessions import OPEN_SESSIONS_DIR, OpenSessions
from tests.hardware.test_runtime import Rig


def entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def kept_files(state: Path) -> list[Path]:
    folder = state / OPEN_SESSIONS_DIR
    return sorted(folder.glob("*.json")) if folder.exists() else []


def start(state: Path, messages: list[str] | None = None, **dice_options) -> Rig:
    log = RollLog(state / LOG_NAME)
    keeper = OpenSessions(state)
    dice = open_dice("kernel", log=log, keeper=keeper, **dice_options)
    return Rig(dice=dice, memory=state, roll_log=log, log=(messages.append if messages is not None else None))


def roll(rig: Rig, times: int) -> None:
    for _ in range(times):
        rig.roll()
        rig.run(1.0)


def pull_the_plug(rig: Rig) -> None:
    """What a power cut leaves: no reveal, no save; only the pins are let go (a new process
    gets new ones) so the next tower can start in this test."""
    rig.tower.io.close()


def test_the_open_session_is_kept_secret_and_forgotten_once_revealed(tmp_path) -> None:
    rig = start(tmp_path)
    try:
        [kept] = kept_files(tmp_path)
        session = entries(tmp_path / LOG_NAME)[0]
        assert session["kind"] == "session" and kept.stem == session["session"]
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        assert json.loads(kept.read_text())["commitment"] == session["commitment"]
        roll(rig, 2)
    finally:
        rig.tower.close()  # reveals
    assert kept_files(tmp_path) == []
    assert [e["kind"] for e in entries(tmp_path / LOG_NAME)] == ["session", "roll", "roll", "reveal"]


def test_a_power_cut_session_is_revealed_at_the_next_start_and_replays(tmp_path) -> None:
    messages: list[str] = []
    first = start(tmp_path)
    roll(first, 3)
    cut = entries(tmp_path / LOG_NAME)[0]["session"]
    pull_the_plug(first)
    assert [f.stem for f in kept_files(tmp_path)] == [cut]
    second = start(tmp_path, messages)
    try:
        log = entries(tmp_path / LOG_NAME)
        reveal = next(e for e in log if e["kind"] == "reveal")
        assert (reveal["session"], reveal["reason"], reveal["rolls"]) == (cut, "restart", 3)
        assert reveal["end"] == [e for e in log if e["kind"] == "roll"][-1]["end"]
        # revealed before the new session opened, and the new one is kept in its place
        assert [e["kind"] for e in log][-2:] == ["reveal", "session"]
        assert [f.stem for f in kept_files(tmp_path)] == [log[-1]["session"]]
        assert any(cut in m and "revealed" in m for m in messages)
        roll(second, 1)
    finally:
        second.tower.close()
    report = replay_log(tmp_path / LOG_NAME)
    assert report.ok, [str(p) for p in report.problems]
    assert (report.sessions, report.revealed, report.rolls_checked) == (2, 2, 4)


def test_a_session_cut_before_its_first_roll_is_revealed_with_none(tmp_path) -> None:
    pull_the_plug(start(tmp_path))
    second = start(tmp_path)
    second.tower.close()
    reveals = [e for e in entries(tmp_path / LOG_NAME) if e["kind"] == "reveal"]
    assert [(r["reason"], r["rolls"], r["end"]) for r in reveals] == [("restart", 0, 0), ("end", 0, 0)]
    assert replay_log(tmp_path / LOG_NAME).ok


def test_a_cut_after_the_reveal_but_before_the_file_went_is_not_revealed_twice(tmp_path) -> None:
    first = start(tmp_path)
    roll(first, 1)
    [kept] = kept_files(tmp_path)
    saved = kept.read_bytes()
    first.tower.close()
    kept.write_bytes(saved)  # as if the power went between the reveal and the removal
    second = start(tmp_path)
    second.tower.close()
    reveals = [e for e in entries(tmp_path / LOG_NAME) if e["kind"] == "reveal"]
    assert [r["reason"] for r in reveals] == ["end", "end"]
    assert kept_files(tmp_path) == []
    assert replay_log(tmp_path / LOG_NAME).ok


def test_the_rotation_keeps_the_next_session_and_forgets_the_last(tmp_path) -> None:
    rig = start(tmp_path, session_rolls=2)
    roll(rig, 2)  # the first session closes after its second roll; the next one opens
    pull_the_plug(rig)
    sessions = [e["session"] for e in entries(tmp_path / LOG_NAME) if e["kind"] == "session"]
    assert len(sessions) == 2
    assert [f.stem for f in kept_files(tmp_path)] == [sessions[1]]
    start(tmp_path).tower.close()
    reveals = [(e["session"], e["reason"]) for e in entries(tmp_path / LOG_NAME) if e["kind"] == "reveal"]
    assert reveals[:2] == [(sessions[0], "rolls"), (sessions[1], "restart")]
    assert replay_log(tmp_path / LOG_NAME).ok


def test_a_damaged_kept_file_is_reported_and_left_and_the_tower_still_plays(tmp_path) -> None:
    (tmp_path / OPEN_SESSIONS_DIR).mkdir()
    damaged = tmp_path / OPEN_SESSIONS_DIR / "0123456789abcdef.json"
    damaged.write_text("{not json")
    messages: list[str] = []
    rig = start(tmp_path, messages)
    try:
        roll(rig, 1)
        assert rig.tower.rolls == 1
    finally:
        rig.tower.close()
    assert damaged.exists()
    assert any("cannot be revealed" in m and "damaged" in m for m in messages)


def test_a_log_that_cannot_take_the_reveal_keeps_the_file_for_the_next_start(tmp_path) -> None:
    first = start(tmp_path)
    roll(first, 1)
    pull_the_plug(first)
    [kept] = kept_files(tmp_path)
    state = OpenSessions(tmp_path)

    class Full:
        def append(self, kind, **fields):
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        state.reveal_left_open(Full(), tmp_path / LOG_NAME)
    assert kept.exists()
    def full(fd: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    lenient = LenientLog(RollLog(tmp_path / LOG_NAME, write=full))
    assert state.reveal_left_open(lenient, tmp_path / LOG_NAME) == []  # unrecorded: kept
    assert kept.exists()
    assert state.reveal_left_open(RollLog(tmp_path / LOG_NAME), tmp_path / LOG_NAME) == [kept.stem]
    assert not kept.exists()
    assert replay_log(tmp_path / LOG_NAME).ok


def test_news_reads_the_log_back_only_to_the_entry_asked_for(tmp_path) -> None:
    log = RollLog(tmp_path / LOG_NAME, rotate_bytes=600)  # rotated files too
    log.append("session", session="aaaa", commitment="aaaa")
    log.append("roll", session="aaaa", start=0, end=2)
    log.append("roll", session="bbbb", start=0, end=1)
    log.append("roll", session="aaaa", start=2, end=5)
    log.append("reveal", session="bbbb", rolls=1, end=1)
    keeper = OpenSessions(tmp_path)
    news = keeper.news("aaaa", 2)
    assert news.head == 5 and [e["seq"] for e in news.entries] == [4]
    assert [e["kind"] for e in keeper.news("aaaa", None).entries] == ["session", "roll", "roll"]
    assert keeper.news("aaaa", 5).entries == () and keeper.head() == 5
    (tmp_path / LOG_NAME).write_bytes((tmp_path / LOG_NAME).read_bytes() + b'{"torn')  # a torn tail is skipped
    assert keeper.head() == 5


def test_a_session_the_last_release_left_open_is_revealed_at_the_next_start(tmp_path) -> None:
    """Version 1 files (the last release's) hold no log position and no owner: a tower's is
    revealed at the next start with the rolls the log has, rebuilt from its session entry."""
    first = start(tmp_path)
    roll(first, 2)
    pull_the_plug(first)
    [kept] = kept_files(tmp_path)
    data = json.loads(kept.read_text())
    old = {k: data[k] for k in ("commitment", "seed", "drbg", "opened_ns", "block_bytes", "mode", "sources",
                                "credited_bits")}
    kept.write_text(json.dumps({**old, "version": 1, "rolls": 0}))
    start(tmp_path).tower.close()
    reveal = next(e for e in entries(tmp_path / LOG_NAME) if e["kind"] == "reveal")
    assert (reveal["session"], reveal["reason"], reveal["rolls"]) == (kept.stem, "restart", 2)
    assert replay_log(tmp_path / LOG_NAME).ok


# --- the log read back from its end, by the one rule ------------------------------------------

@pytest.mark.parametrize("plant", ["fifo", "zero", "link"])
def test_the_log_read_backwards_is_never_waited_on_or_followed(tmp_path, plant) -> None:
    """A FIFO at rolls.jsonl would block an open for ever, a link to /dev/zero read for ever,
    a link to another log follow it: each is refused in one LogError before anything is read."""
    import os

    from hardware.files.rolllog import LogError
    from hardware.session.open_sessions import log_head

    other = tmp_path / "other"
    other.mkdir()
    RollLog(other / LOG_NAME).append("note", text="another tower's log")
    path = tmp_path / LOG_NAME
    if plant == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero" if plant == "zero" else other / LOG_NAME)
    with pytest.raises(LogError, match=r"cannot read the roll log .*(FIFO|symbolic link)"):
        log_head(path)
    with pytest.raises(LogError):
        OpenSessions(tmp_path).news("0123456789abcdef", None)


def test_an_over_long_line_read_backwards_is_skipped_and_the_entries_around_it_found(tmp_path) -> None:
    from hardware.files.rolllog import MAX_LINE_BYTES
    from hardware.session.open_sessions import _backwards

    path = tmp_path / LOG_NAME
    log = RollLog(path, fsync=False)
    for n in range(3):
        log.append("note", n=n)
    with open(path, "ab") as f:
        f.write(b"{" + b"x" * (3 * MAX_LINE_BYTES) + b"\n")
    log.append("note", n=3)  # bridges the damage with a `recovered` entry, then this one
    found = [e.get("n") for e in _backwards(path) if e["kind"] == "note"]
    assert found == [3, 2, 1, 0]
