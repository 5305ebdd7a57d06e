"""A ``file:`` entropy source is never read twice (issue 42): each start of the tower, each
command, reads a capture on from where the state directory says it was last read
(``DIR/entropy-files.json``), never from its start again. A capture that is exhausted, that
was replaced by a shorter one, or that is a copy of one read already is a one-line error
naming it (exit 3, no roll; the tower shows it), and so is a regular file with no state
directory to keep the offset in. Real files, the real command line and the simulated tower."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from pathlib import Path

import pytest

from hardware.cli import main
from hardware.entropy.file_offsets import OFFSETS_FILE
from tests.hardware.tablenight import ROOT

D6CV = ["roll", "d6cv", "--stat", "3", "--cv", "7"]
TOOL = ROOT / "tools" / "verify_rolls.py"


def good_bytes(n: int, label: bytes = b"capture") -> bytes:
    """Bytes that look random (SHA-256 in counter mode), a capture's stand-in."""
    return b"".join(hashlib.sha256(label + i.to_bytes(4, "big")).digest() for i in range(-(-n // 32)))[:n]


def run(*argv: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def one_error(code: int, out: str, err: str) -> str:
    assert code == 3 and out == "", (code, out, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("dicetower: entropy source file:") and "Traceback" not in err
    return line


def offsets(state: Path) -> dict[str, dict[str, object]]:
    return json.loads((state / OFFSETS_FILE).read_text())["files"]


def sessions(state: Path) -> list[dict[str, object]]:
    log = state / "rolls.jsonl"
    lines = log.read_text().splitlines() if log.exists() else []
    return [e for e in map(json.loads, lines) if e["kind"] == "session"]


def test_each_run_reads_a_capture_on_from_where_the_last_stopped(tmp_path) -> None:
    capture = tmp_path / "capture.bin"
    capture.write_bytes(good_bytes(3 * 1024))
    state = tmp_path / "state"
    for n in range(1, 4):
        code, out, err = run(*D6CV, "--entropy", f"file:{capture}", "--state-dir", state, "--json")
        assert code == 0, err
        assert offsets(state)[str(capture.resolve())]["offset"] == n * 1024
    assert len(sessions(state)) == 3
    code, out, err = run("replay", state, "--all-revealed")
    assert code == 0 and "reused-entropy" not in out + err, out + err  # three sessions, no byte twice
    # the fourth finds it exhausted: one line naming it, no roll, nothing logged
    line = one_error(*run(*D6CV, "--entropy", f"file:{capture}", "--state-dir", state, "--json"))
    assert line.endswith(f"{capture}: capture.bin is exhausted: 0 of its 3072 bytes are left unread, a session "
                         "needs 1024; a capture is never read twice: give a new one")
    assert len(sessions(state)) == 3


def test_a_capture_replaced_by_a_shorter_one_is_never_read_from_its_start(tmp_path) -> None:
    capture = tmp_path / "capture.bin"
    capture.write_bytes(good_bytes(2048))
    state = tmp_path / "state"
    assert run(*D6CV, "--entropy", f"file:{capture}", "--state-dir", state)[0] == 0
    capture.write_bytes(good_bytes(512, b"another"))
    line = one_error(*run(*D6CV, "--entropy", f"file:{capture}", "--state-dir", state))
    assert "capture.bin is 512 bytes, fewer than the 1024 read from it already (replaced?)" in line
    assert len(sessions(state)) == 1


def test_a_capture_copied_under_another_name_is_refused(tmp_path) -> None:
    capture = tmp_path / "capture.bin"
    capture.write_bytes(good_bytes(4096))
    state = tmp_path / "state"
    assert run(*D6CV, "--entropy", f"file:{capture}", "--state-dir", state)[0] == 0
    copy = tmp_path / "copy.bin"
    copy.write_bytes(capture.read_bytes())
    line = one_error(*run(*D6CV, "--entropy", f"file:{copy}", "--state-dir", state))
    assert f"{copy}: copy.bin starts with the same bytes as {capture.resolve()}, read already" in line


def test_a_regular_file_without_a_state_directory_is_refused_and_a_device_is_read_on(tmp_path) -> None:
    capture = tmp_path / "capture.bin"
    capture.write_bytes(good_bytes(4096))
    line = one_error(*run(*D6CV, "--entropy", f"file:{capture}"))
    assert "no state directory to keep how far it was read" in line and "--state-dir DIR" in line
    code, out, err = run(*D6CV, "--entropy", "file:/dev/urandom", "--json")  # a stream: never read from a start
    assert code == 0 and json.loads(out)["system"] == "d6cv", err


def test_the_offset_is_kept_before_the_bytes_are_used(tmp_path, monkeypatch) -> None:
    """Offsets that cannot be written: the bytes read are not used (no session, no roll)."""
    import errno
    import os

    from hardware.files import state as state_module

    capture = tmp_path / "capture.bin"
    capture.write_bytes(good_bytes(4096))
    state = tmp_path / "state"
    state.mkdir()

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(state_module, "atomic_write_json", full)
    line = one_error(*run(*D6CV, "--entropy", f"file:{capture}", "--state-dir", state))
    assert "cannot keep how far it was read in" in line and "the bytes read are not used" in line
    assert sessions(state) == []


@pytest.mark.parametrize("content", ["{not json", '{"version": 1, "files": {"x": {"offset": -3}}}'])
def test_damaged_offsets_are_one_line_and_no_file_is_read(tmp_path, content) -> None:
    capture = tmp_path / "c"
    capture.write_bytes(good_bytes(4096))
    state = tmp_path / "s"
    state.mkdir()
    (state / OFFSETS_FILE).write_text(content)
    line = one_error(*run(*D6CV, "--entropy", f"file:{capture}", "--state-dir", state))
    assert f"{state / OFFSETS_FILE} (how far captures were read) is " in line
    assert sessions(state) == []


def test_the_tower_reads_its_capture_on_across_starts_and_shows_when_it_is_exhausted(tmp_path) -> None:
    """``[entropy] source = "file:PATH"``: each start opens its session from the capture's next
    bytes; once it is exhausted, the panel says so, naming the file, and nothing is rolled."""
    from hardware.cli.sim import Simulator, parse_script
    from hardware.cli.tower import _dice, keep
    from hardware.config import reader

    capture = tmp_path / "capture.bin"
    capture.write_bytes(good_bytes(2 * 1024))
    state = tmp_path / "state"
    config = reader.loads(f'[kiosk]\nstate_dir = "{state}"\n[entropy]\nsource = "file:{capture}"\n'
                          '[panel]\nsystems = ["d6cv"]\nanimation_seconds = 0\n')
    screens: list[dict[str, object]] = []
    for _ in range(3):
        kept = keep(config)
        sim = Simulator(config, dice=_dice(config, None, kept=kept), **kept.tower_options())
        try:
            screens = [s["screen"] for s in sim.run_script(parse_script("roll roll roll"))]
        finally:
            sim.close()
    assert len(sessions(state)) == 2 and offsets(state)[str(capture.resolve())]["offset"] == 2048
    shown = " ".join(" ".join(map(str, s["lines"])) for s in screens)
    assert "capture.bin is exhausted: 0 of its 2048 bytes are left unread" in shown, screens
    assert not [s for s in screens if s["kind"] == "result"]
