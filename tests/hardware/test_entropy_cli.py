"""`--entropy` on the command line: a failed source exits 3 with one line and prints no roll."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

import engine
from engine.estimators import ESTIMATORS
from engine.rng import DrbgDice
from engine.seeds import RollStream, SeedMaterial
from hardware.cli import main
from tests.hardware.test_entropy_sources import good_bytes

D6CV = ["roll", "d6cv", "--stat", "3", "--cv", "7", "--json"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_dev_zero_exits_3_naming_the_source_and_the_test_and_prints_no_roll(capsys) -> None:
    code, out, err = run(capsys, *D6CV, "--entropy", "file:/dev/zero")
    assert code == 3
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("dicetower: entropy source file:/dev/zero: failed the repetition count test")


def test_dev_zero_exit_3_as_a_real_process() -> None:
    proc = subprocess.run([sys.executable, "-m", "hardware", *D6CV, "--entropy", "file:/dev/zero"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "file:/dev/zero" in proc.stderr
    assert "repetition count test" in proc.stderr


def test_a_failed_source_is_logged_and_no_roll_is(tmp_path, capsys) -> None:
    code, out, _ = run(capsys, *D6CV, "--entropy", "file:/dev/zero", "--state-dir", str(tmp_path))
    assert code == 3 and out == ""
    (entry,) = [json.loads(line) for line in (tmp_path / "rolls.jsonl").read_text().splitlines()]
    assert entry["kind"] == "source_failed" and entry["source"] == "file:/dev/zero"


def test_kernel_and_a_good_file_roll(tmp_path, capsys) -> None:
    capture = tmp_path / "capture.bin"
    capture.write_bytes(good_bytes(4096))
    for source in ("kernel", f"file:{capture}", "auto"):
        # a capture is read on from where it was last read, kept in the state directory
        state = ["--state-dir", str(tmp_path / "state")] if source.startswith("file:") else []
        code, out, err = run(capsys, *D6CV, "--entropy", source, *state)
        assert code == 0, err
        assert json.loads(out)["system"] == "d6cv"


def test_buttons_on_the_command_line_exits_3(capsys) -> None:
    code, out, err = run(capsys, *D6CV, "--entropy", "buttons")
    assert code == 3 and out == ""
    assert err.startswith("dicetower: entropy source buttons: no button panel here")


def test_a_bad_source_name_is_a_usage_error(capsys) -> None:
    code, out, err = run(capsys, *D6CV, "--entropy", "lava-lamp")
    assert code == 2 and out == ""
    assert err.strip() == (
        "dicetower: error: --entropy: expected auto, kernel, hwrng, buttons, bridge, file:PATH, "
        "or a comma list such as hwrng,kernel, got 'lava-lamp'"
    )


def test_seed_is_still_drbg_from_seed_one_generate_call_per_roll(capsys) -> None:
    code, out, _ = run(capsys, *D6CV, "--seed", "42", "--times", "20")
    assert code == 0
    stream = RollStream(SeedMaterial.from_seed(b"42"))
    expected = [engine.roll("d6cv", rng=stream.begin(b""), stat=3, cv=7) for _ in range(20)]
    assert expected[0] == engine.roll("d6cv", rng=DrbgDice.from_seed(b"42"), stat=3, cv=7)
    printed = [json.loads(line) for line in out.splitlines()]
    assert all(p.pop("verifiable") is False for p in printed)
    assert printed == expected


def test_a_different_mix_gives_a_different_roll_and_both_replay(tmp_path, capsys) -> None:
    rolls = {}
    for mix in ("table 7", "table 8"):
        state = tmp_path / mix.replace(" ", "")
        code, out, err = run(capsys, "roll", "horizons", "--pool", "12", "--seed", "same", "--mix", mix,
                             "--state-dir", str(state), "--json")
        assert code == 0, err
        rolls[mix] = json.loads(out)["dice"]
        (roll,) = [json.loads(line) for line in (state / "rolls.jsonl").read_text().splitlines()
                   if json.loads(line)["kind"] == "roll"]
        assert roll["start"] == 0 and bytes.fromhex(roll["mix"]) == mix.encode()
        code, out, err = run(capsys, "replay", str(state))
        assert code == 0 and "1 test roll" in out, out + err
    assert rolls["table 7"] != rolls["table 8"]


def test_seed_with_entropy_is_a_usage_error(capsys) -> None:
    code, _, err = run(capsys, *D6CV, "--seed", "1", "--entropy", "kernel")
    assert code == 2 and "--seed" in err


ENGLISH = (b"It was the best of times, it was the worst of times, it was the age of wisdom, it was the age "
           b"of foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season "
           b"of Light, it was the season of Darkness, it was the spring of hope, it was the winter of despair. ")


@pytest.mark.parametrize(("name", "data"), [
    ("counter", bytes(i % 256 for i in range(4096))),
    ("00 ff", b"\x00\xff" * 2048),
    ("16-byte ASCII pattern", b"dicetower rolls!" * 256),
    ("English text", ENGLISH * 12),
])
def test_predictable_files_exit_3_naming_the_estimator(tmp_path, capsys, name, data) -> None:
    path = tmp_path / "capture.bin"
    path.write_bytes(data)
    code, out, err = run(capsys, *D6CV, "--entropy", f"file:{path}", "--state-dir", str(tmp_path / "state"))
    assert code == 3 and out == "", name
    (line,) = err.strip().splitlines()
    assert re.search(rf"failed the SP 800-90B ({'|'.join(ESTIMATORS)}) estimate", line), line
    assert "a pattern, not noise" in line


def test_kernel_and_hwrng_pass_their_estimates(capsys) -> None:
    sources = ["kernel"] + (["hwrng"] if os.access("/dev/hwrng", os.R_OK) else [])
    for source in sources:
        code, out, err = run(capsys, *D6CV, "--entropy", source)
        assert code == 0, err
        assert json.loads(out)["system"] == "d6cv"
