"""The board's own trouble, for real (issue 27): its record on a full disk and on a read-only
filesystem (a small tmpfs this test mounts and unmounts itself), its verifier stopped
(SIGSTOP), and a damaged record at start-up. The board says so on the API and in the journal
("failing", "stalled"), never "live"; when the trouble ends it carries on and holds and
verifies every entry, nothing lost.

The mounts need root (CAP_SYS_ADMIN): without it these tests are skipped, saying why, except
under CI (``CI=true``), where that is a failure, like every other must-run test."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bench.sim_towers import SimTower
from hardware.board.towers import Towers
from hardware.network.topics import log_message
from tests.hardware import netparts
from tests.hardware.forgeries import read
from tests.hardware.logfiles import write_log
from tests.hardware.netparts import finish, running_board, sim_towers, wait_for

STORE = "shop1"
REPO = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def small_disk(where: Path, size: str = "16m"):
    """A tmpfs of ``size`` mounted at ``where`` for the test, unmounted after it."""
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        why = f"cannot mount a tmpfs here ({done.stderr.strip() or 'mount failed'}): it needs root"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    try:
        yield where
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(where)], capture_output=True)
        if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(disk: Path) -> Path:
    """Fill ``disk`` to the last byte; the filler file (delete it to free the disk)."""
    filler = disk / "filler"
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * (1 << 16))
                f.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    with contextlib.suppress(OSError), open(disk / "filler-tail", "wb") as f:  # the last partial block
        while True:
            f.write(b"\0" * 512)
            f.flush()
    return filler


def all_verified(board, tower: SimTower) -> bool:
    return netparts.all_verified(board, tower, STORE)



def roll_until(board, tower: SimTower, state: str, most: int = 4000) -> int:
    """Roll until the board's state is ``state``; how many rolls it took."""
    for n in range(1, most + 1):
        tower.roll()
        if n % 20 == 0 and board.get("/api/board")["state"] == state:
            return n
    return wait_for(lambda: board.get("/api/board")["state"] == state and most, timeout=20, what=state)


@pytest.fixture
def towers(broker, tmp_path):
    with sim_towers(broker.url, STORE, tmp_path) as make:
        yield make


def test_a_full_disk_is_a_failing_board_and_freeing_it_loses_nothing(broker, towers, tmp_path):
    notes: list[str] = []
    with small_disk(tmp_path / "disk", "16m") as disk, \
            running_board(broker.url, STORE, data=disk / "board", log=notes.append) as board:
        table1, table2 = towers("table1", session_rolls=50), towers("table2", session_rolls=50)
        for _ in range(10):
            table1.roll()
            table2.roll()
        wait_for(lambda: board.get("/api/towers/table1")["seq"] >= 11, what="the first entries held")
        assert board.get("/api/board")["state"] == "live"
        filler = fill(disk)
        roll_until(board, table1, "failing")
        for _ in range(30):
            table2.roll()
        said = board.get("/api/board")
        assert said["state"] == "failing" and "the disk is full" in said["detail"]
        wait_for(lambda: any("failing: cannot write its record: the disk is full" in n for n in notes),
                 what="the journal's line")
        assert board.get("/api/towers/table1")["seq"] < len(read(table1.log_path))  # not written, not lost
        filler.unlink()
        (disk / "filler-tail").unlink(missing_ok=True)
        for t in (table1, table2):
            finish(t)
        for t in (table1, table2):
            wait_for(lambda t=t: all_verified(board, t), timeout=60, what=f"{t.tower} caught up and verified")
        assert board.get("/api/board")["state"] == "live"
        assert any("its record is written again" in n for n in notes)
        wait_for(lambda: any("board: live again (was failing)" in n for n in notes), what="live again, said")
        assert board.get("/api/board")["internal_errors"] == 0


def test_a_record_on_a_read_only_filesystem_is_one_line_and_exit_status_4(tmp_path):
    """A filesystem that went read-only (Linux remounts one so after disk errors): the board
    says so at start-up, one line, exit 4. (While the board runs, the kernel refuses to make a
    filesystem read-only under its open files, so that case is the same code as the full disk:
    SQLite's "readonly" is a failing record, hardware/board/record.py.)"""
    with small_disk(tmp_path / "disk", "4m") as disk:
        Towers(disk / "board", verifier=False).close()
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        done = subprocess.run([sys.executable, "-m", "hardware", "board", "--mqtt", "mqtt://127.0.0.1:1", "--data",
                               str(disk / "board"), "--listen", "127.0.0.1:0"], cwd=REPO, capture_output=True,
                              text=True, timeout=60)
    assert done.returncode == 4, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("dicetower: cannot record: --data: cannot ")
    assert "Read-only file system" in done.stderr or "read-only" in done.stderr


def test_a_stopped_verifier_is_a_stalled_board_never_live(broker, towers):
    notes: list[str] = []
    with running_board(broker.url, STORE, log=notes.append, verify_stall_s=1.0) as board:
        table1 = towers("table1", session_rolls=3)
        table1.roll()
        wait_for(lambda: board.get("/api/towers/table1")["seq"] >= 2, what="the first entries held")
        pid = board.towers.verifier_pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)
        try:
            for _ in range(3):
                table1.roll()
            said = wait_for(lambda: (b := board.get("/api/board"))["state"] == "stalled" and b, timeout=20,
                            what="the board stalled")
            assert "the verifier has not answered" in said["detail"]
            wait_for(lambda: any("board: stalled: the verifier" in n for n in notes), what="the journal's line")
        finally:
            os.kill(pid, signal.SIGCONT)
        finish(table1)
        wait_for(lambda: all_verified(board, table1), timeout=30, what="verified once it goes on")
        wait_for(lambda: board.get("/api/board")["state"] == "live", what="live again")


# --- a damaged record ---------------------------------------------------------------------------------------


def record_with_entries(directory: Path, tmp_path: Path) -> Path:
    """A record of 3 towers' entries (a few MB), closed as a stopped board leaves it."""
    towers = Towers(directory, verifier=False)
    try:
        for n in range(3):
            log = tmp_path / f"log{n}.jsonl"
            write_log(log, 1 << 20)
            for line in log.read_text().splitlines():
                towers.handle(f"dicetower/{STORE}/t{n}/log", log_message(STORE, f"t{n}", json.loads(line)))
    finally:
        towers.close()
    return directory / "board.sqlite3"


def zero_the_middle(db: Path) -> None:
    size = db.stat().st_size
    with open(db, "r+b") as f:
        f.seek(size // 2 // 4096 * 4096)
        f.write(b"\0" * 8192)


def random_tail(db: Path) -> None:
    with open(db, "r+b") as f:
        f.seek(-16384, os.SEEK_END)
        f.write(os.urandom(16384))


@pytest.mark.parametrize("damage", [zero_the_middle, random_tail], ids=["8 KB zeroed mid-file", "random tail"])
def test_a_damaged_record_is_one_line_and_exit_status_4(tmp_path, damage):
    db = record_with_entries(tmp_path / "record", tmp_path)
    damage(db)
    done = subprocess.run([sys.executable, "-m", "hardware", "board", "--mqtt", "mqtt://127.0.0.1:1", "--data",
                           str(tmp_path / "record"), "--listen", "127.0.0.1:0"], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 4, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"dicetower: cannot record: --data: cannot use the board's record {db}: the "
                                  "record is damaged")
    assert "keep it as evidence" in done.stderr and "empty --data" in done.stderr


def test_a_home_directory_of_nobody_is_one_line(tmp_path, capsys):
    from hardware.cli import main

    assert main(["board", "--mqtt", "mqtt://127.0.0.1:1", "--data", "~nosuchuser/b"]) == 2
    err = capsys.readouterr().err
    assert err == ("dicetower: error: --data: '~nosuchuser/b' names the home of user 'nosuchuser', and there is no "
                   "such user on this machine\n")
    config = tmp_path / "board.toml"
    config.write_text('[board]\nmqtt = "mqtt://127.0.0.1:1"\ndata = "~nosuchuser/b"\n')
    assert main(["board", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dicetower: error: {config}: board.data: '~nosuchuser/b' names the home of user") \
        and err.count("\n") == 1
