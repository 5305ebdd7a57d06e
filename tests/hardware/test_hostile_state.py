"""Wrong statuses of issue 20, item 4, each as its user met it: a full card while saving the
session file, a state directory removed during ``--times``, a killed roll's temp file, a bridge
Pico that does not answer; and ``log show --last N`` in bounded memory."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hardware.cli import main
from hardware.files.rolllog import RollLog, last_lines, read_entries, verify
from tests.hardware.planted import REPO, cli, lock_is_free

FINGERS = ["roll", "fingers", "--guess", "2", "--json"]


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


# --- a full card and the open session's file -------------------------------------------------
# A session's seed must be kept (open-sessions/ID.json) before its `session` entry is logged:
# a card that cannot take it is "cannot record", exit 4, and nothing is appended. A session
# already open only refreshes its file's cache after a roll; the log is the truth, so a card
# that cannot take that refresh loses nothing: the roll is in the log, shown, and said.


def _full(monkeypatch) -> None:
    import hardware.session.file as session_file

    def full(path, data, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(session_file, "atomic_write_bytes", full)


@pytest.mark.parametrize("command", [[*FINGERS, "--state-dir", "{dir}"], ["session", "open", "{dir}"]])
def test_a_full_card_while_keeping_a_new_sessions_seed_is_cannot_record(tmp_path, capsys, monkeypatch,
                                                                        command) -> None:
    assert main(["roll", "d6cv", "--cv", "4", "--state-dir", str(tmp_path)]) == 0  # a log to keep intact
    before = (tmp_path / "rolls.jsonl").read_bytes()
    capsys.readouterr()
    _full(monkeypatch)
    code = main([a.replace("{dir}", str(tmp_path)) for a in command])
    out, err = capsys.readouterr()
    assert code == 4, err
    assert one_line(err).startswith(f"dicetower: cannot record: cannot keep the new session's seed in {tmp_path}/"
                                    "open-sessions: No space left on device"), err
    assert out == ""
    assert (tmp_path / "rolls.jsonl").read_bytes() == before  # no session entry without its seed kept
    assert lock_is_free(tmp_path) and verify(tmp_path / "rolls.jsonl").ok
    assert list((tmp_path / "open-sessions").iterdir()) == []


def test_a_full_card_while_refreshing_an_open_sessions_file_loses_nothing(tmp_path, capsys, monkeypatch) -> None:
    from hardware.entropy.replay import replay_log

    assert main(["session", "open", str(tmp_path)]) == 0
    capsys.readouterr()
    _full(monkeypatch)
    code = main([*FINGERS, "--state-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert one_line(err).startswith("dicetower: note: session ") and "No space left on device" in err
    shown = json.loads(out)
    logged = [e for e in read_entries(tmp_path / "rolls.jsonl") if e.entry and e.entry.get("kind") == "roll"]
    assert [e.entry["hash"][:16] for e in logged] == [shown["recorded"]["entry"]]  # shown, and in the log
    monkeypatch.undo()
    assert lock_is_free(tmp_path)
    # the file's cache is behind the log: the next writer catches up from the log, and it checks
    assert main([*FINGERS, "--state-dir", str(tmp_path)]) == 0
    assert main(["session", "close", str(tmp_path)]) == 0
    report = replay_log(tmp_path / "rolls.jsonl")
    assert report.ok and report.rolls_verified == 2, report.problems


def _unshare() -> str | None:
    path = shutil.which("unshare")
    if path is None or subprocess.run([path, "-rm", "true"], capture_output=True, timeout=30).returncode != 0:
        return None
    return path


def test_a_real_full_card_is_cannot_record_in_one_line(tmp_path) -> None:
    """A tiny tmpfs, filled: a roll whose session's seed cannot be kept (no session is open,
    so the command must open one) cannot be recorded: one line, exit 4, and what is in the log
    verifies."""
    unshare = _unshare()
    if unshare is None:
        pytest.skip("cannot mount a tmpfs here (no private mount namespace)")
    state = tmp_path / "card"
    state.mkdir()
    script = (
        'set -e; mount -t tmpfs -o size=128k tmpfs "$1"; py="$2"; shift 2\n'
        '"$py" -m hardware roll d6cv --cv 4 --state-dir "$0" >/dev/null 2>&1\n'
        'dd if=/dev/zero of="$0/filler" bs=4096 2>/dev/null || true\n'
        'set +e; "$py" -m hardware "$@"; code=$?\n'
        'echo "status $code" >&2\n'
        '"$py" -m hardware log verify "$0" >&2\n'
        'exit $code\n'
    )
    done = subprocess.run([unshare, "-rm", "sh", "-c", script, str(state), str(state), sys.executable,
                           *FINGERS, "--state-dir", str(state)], cwd=REPO, capture_output=True, timeout=120)
    err = done.stderr.decode()
    lines = err.strip().splitlines()
    assert done.returncode == 4, err
    assert lines[0].startswith("dicetower: cannot record: ") and "No space left on device" in lines[0], err
    assert lines[1] == "status 4" and "chain intact" in lines[2], err
    assert done.stdout == b""


# --- a state directory removed during --times: exit 4, no new chain --------------------------


@pytest.mark.parametrize("made_again", [False, True])
def test_a_state_dir_removed_during_times_stops_with_cannot_record(tmp_path, capsys, monkeypatch,
                                                                  made_again) -> None:
    state = tmp_path / "s"
    real = RollLog.append
    rolls = 0

    def append(self, kind, **fields):
        nonlocal rolls
        entry = real(self, kind, **fields)
        if kind == "roll":
            rolls += 1
            if rolls == 3:
                shutil.rmtree(state)
                if made_again:
                    state.mkdir()
        return entry

    monkeypatch.setattr(RollLog, "append", append)
    code = main(["roll", "d6cv", "--cv", "4", "--json", "--times", "10", "--seed", "s", "--state-dir", str(state)])
    out, err = capsys.readouterr()
    assert code == 4, err
    assert one_line(err).startswith("dicetower: cannot record: cannot write the roll log ")
    assert "was removed or replaced" in err
    assert len(out.splitlines()) == 3  # the three rolls that were logged, none after
    assert not (state / "rolls.jsonl").exists()  # no new chain at seq 1


def test_a_state_dir_removed_under_a_running_times_process(tmp_path) -> None:
    state = tmp_path / "s"
    proc = subprocess.Popen([sys.executable, "-m", "hardware", "roll", "d6cv", "--cv", "4", "--times", "1000000",
                             "--seed", "s", "--state-dir", str(state), "--summary"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not (state / "rolls.jsonl").exists() or (state / "rolls.jsonl").stat().st_size < 10_000:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        # gone at once (renamed away, then removed): the run takes the lock for each roll, and
        # a removal file by file would race with the lock file it makes between two rolls
        os.rename(state, tmp_path / "gone")
        shutil.rmtree(tmp_path / "gone")
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 4, err
    assert one_line(err.decode()).startswith("dicetower: cannot record: ")
    assert not (state / "rolls.jsonl").exists()


# --- temp files of a killed roll --------------------------------------------------------------

@pytest.mark.parametrize("command", [["session", "close", "{dir}"], ["session", "open", "{dir}"],
                                     [*FINGERS, "--state-dir", "{dir}"]])
def test_a_killed_rolls_session_temp_file_is_removed_by_any_command_taking_the_lock(tmp_path, capsys,
                                                                                    command) -> None:
    assert main(["session", "open", str(tmp_path)]) == 0
    if command[:2] == ["session", "open"]:
        assert main(["session", "close", str(tmp_path)]) == 0
    stale = tmp_path / ".session.json.k1ll3d00.tmp"  # an earlier version's session file
    stale.write_text('{"half": ')
    player_stale = tmp_path / "players" / ".1.json.k1ll3d00.tmp"
    player_stale.parent.mkdir()
    player_stale.write_text("{")
    # open sessions are kept, refreshed and forgotten under the lock: a temp file there is a
    # killed writer's however fresh it is
    session_stale = tmp_path / "open-sessions" / ".0123456789abcdef.json.k1ll3d00.tmp"
    session_stale.write_text('{"seed": ')
    capsys.readouterr()
    assert main([a.replace("{dir}", str(tmp_path)) for a in command]) == 0, capsys.readouterr().err
    assert not stale.exists() and not player_stale.exists() and not session_stale.exists()


def test_a_times_run_cleans_once_though_it_takes_the_lock_for_every_roll(tmp_path, capsys, monkeypatch) -> None:
    """Each roll of --times is its own turn under the lock (the tower waits one roll at most);
    only the first turn lists the folders for a killed writer's temp files."""
    import hardware.files.locking as locking
    import hardware.files.state as state

    taken, cleaned = [], []
    real_lock, real_clean = locking.state_lock, state.clean_temp

    def lock(directory, **kwargs):
        taken.append(kwargs.get("clean", True))
        return real_lock(directory, **kwargs)

    def clean(directory):
        cleaned.append(directory)
        return real_clean(directory)

    monkeypatch.setattr("hardware.cli.dice_source.state_lock", lock)
    monkeypatch.setattr(state, "clean_temp", clean)
    assert main(["roll", "d6cv", "--cv", "4", "--times", "5", "--state-dir", str(tmp_path)]) == 0
    assert len(taken) >= 5 and taken[0] is True and not any(taken[1:])
    assert cleaned == [tmp_path]


def test_a_fresh_temp_file_of_a_writer_without_the_lock_is_left_alone(tmp_path, capsys) -> None:
    """The tower's panel memory and the MQTT cursor are written without the lock: a temp file
    of theirs may be live, so it is removed only once it is old."""
    live = tmp_path / ".panel.json.a1b2c3d4.tmp"
    live.write_text("{")
    old = tmp_path / ".mqtt-cursor.json.a1b2c3d4.tmp"
    old.write_text("{")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    assert main([*FINGERS, "--state-dir", str(tmp_path)]) == 0
    assert live.exists() and not old.exists()


# --- log show --last N: a ring of offsets -----------------------------------------------------

def test_last_lines_match_the_end_of_read_entries_across_rotations_and_damage(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    log = RollLog(path, fsync=False, rotate_bytes=2000)
    for n in range(40):
        log.append("roll", n=n)
    with open(path, "ab") as f:  # damage: an over-long line, a blank line, a torn tail
        f.write(b"x" * (1 << 20 | 7) + b"\n\nnot json\n{\"torn\"")
    everything = list(read_entries(path))
    assert len(list(tmp_path.glob("rolls.*.jsonl"))) >= 3
    for n in (1, 2, 3, 5, 17, len(everything) - 1, len(everything), len(everything) + 10):
        assert list(last_lines(path, n)) == everything[-n:], n


def test_log_show_last_prints_the_last_n(tmp_path, capsys) -> None:
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    for n in range(30):
        log.append("roll", n=n)
    assert main(["log", "show", str(tmp_path), "--last", "4", "--json"]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert [line.split('"n":')[1].split(",")[0] for line in shown] == ["26", "27", "28", "29"]


# --- a bridge Pico that does not answer: run carries on ---------------------------------------

def test_run_with_a_bridge_pico_that_does_not_answer_carries_on(tmp_path) -> None:
    """The Pico's port opens, but nothing answers the handshake: after the start-up wait the
    tower says so in one line and runs (its pins are sent once the Pico answers)."""
    import pty

    master, slave = pty.openpty()
    config = tmp_path / "tower.toml"
    config.write_text(
        f'[gpio]\nfactory = "bridge"\n[bridge]\nport = "{os.ttyname(slave)}"\n[display]\nkind = "none"\n'
        f'[kiosk]\nstate_dir = "{tmp_path / "state"}"\n[entropy]\nsource = "kernel"\nbutton_timing = false\n')
    proc = subprocess.Popen([sys.executable, "-m", "hardware", "run", "--config", str(config)], cwd=REPO,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stderr is not None
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 90  # a guard: the tower waits START_TIMEOUT_S (10 s) for the Pico
        while time.monotonic() < deadline:
            line = proc.stderr.readline().decode()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if line.startswith("dicetower: running ("):
                proc.send_signal(signal.SIGTERM)
                break
        _, rest = proc.communicate(timeout=60)
        lines += rest.decode().splitlines()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        os.close(master)
        os.close(slave)
    text = "\n".join(lines)
    assert proc.returncode == 0, text
    carry = [line for line in lines if "carrying on without the Pico" in line]
    assert len(carry) == 1 and carry[0].startswith("dicetower: bridge: "), text
    assert any(line.startswith("dicetower: running (") for line in lines), text
    assert "Traceback" not in text


def test_the_template_lock_helper_sees_a_held_lock(tmp_path) -> None:
    """lock_is_free (used by the fault suite) is not trivially true."""
    from hardware.files.locking import state_lock

    with state_lock(tmp_path):
        assert not lock_is_free(tmp_path)
    assert lock_is_free(tmp_path)
    assert cli(["--version"]).returncode == 0
    assert Path(REPO, "hardware").is_dir()
