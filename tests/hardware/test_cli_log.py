"""``dicetower log verify DIR`` and ``log show [DIR] [--last N] [--json]``, and the config's
file checks (``/dev/zero``, deep nesting): one line and a documented exit status each."""

from __future__ import annotations

import json
import os

import pytest

from hardware.cli import EXIT_USAGE, main
from hardware.files.rolllog import RollLog

FINGERS = ["roll", "fingers", "--winners", "1", "--guess", "1"]


@pytest.fixture
def state(tmp_path, capsys):
    assert main([*FINGERS, "--state-dir", str(tmp_path), "--player", "1", "--seed", "s", "--times", "3"]) == 0
    capsys.readouterr()
    return tmp_path


@pytest.mark.parametrize("where", [lambda d: [str(d)], lambda d: [str(d / "rolls.jsonl")],
                                   lambda d: ["--state-dir", str(d)], lambda d: ["--file", str(d / "rolls.jsonl")]])
def test_verify_takes_the_directory_like_replay(state, capsys, where) -> None:
    assert main(["log", "verify", *where(state)]) == 0
    assert "5 entries, chain intact" in capsys.readouterr().out


def test_verify_defaults_to_the_default_state_dir(state, capsys, monkeypatch) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", str(state))
    assert main(["log", "verify"]) == 0 and "chain intact" in capsys.readouterr().out


def test_verify_counts_rotated_files(tmp_path, capsys) -> None:
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False, rotate_bytes=600)
    for i in range(10):
        log.append("roll", result={"dice": [i]}, session="abc")
    assert main(["log", "verify", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["entries"] == 10 and len(report["files"]) > 2


def test_show_prints_every_entry_and_the_last_n(state, capsys) -> None:
    assert main(["log", "show", str(state)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in lines] == ["session", "roll", "roll", "roll", "reveal"]
    assert "P1 fingers" in lines[1]
    assert main(["log", "show", str(state), "--last", "2", "--json"]) == 0
    shown = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["kind"] for e in shown] == ["roll", "reveal"] and shown[1]["seq"] == 5


def test_show_names_damaged_lines(state, capsys) -> None:
    with open(state / "rolls.jsonl", "ab") as f:
        f.write(b"garbage\n")
    assert main(["log", "show", str(state), "--last", "1"]) == 0
    assert "not an entry" in capsys.readouterr().out


@pytest.mark.parametrize("args, option", [
    (["log", "show", "--last", "0"], "--last"),
    (["log", "verify", "DIRX", "--state-dir", "DIRY"], "--state-dir"),
    (["log", "verify", ""], "DIR"),
])
def test_log_mistakes_are_one_line(tmp_path, capsys, args, option) -> None:
    assert main(args) == EXIT_USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and option in err


def test_a_missing_log_is_one_line(tmp_path, capsys) -> None:
    assert main(["log", "show", str(tmp_path)]) == EXIT_USAGE
    assert "no roll log" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "sim"])
def test_dev_zero_as_config_is_one_line(capsys, command) -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    assert main([command, "--config", "/dev/zero"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "not a regular file" in err


@pytest.mark.parametrize("text", ["a = " + "[" * 5000 + "]" * 5000, "a = " + "{x=" * 3000 + "1" + "}" * 3000,
                                  "x = 1\n" * 200_000])
def test_deep_or_huge_toml_is_one_line(tmp_path, capsys, text) -> None:
    path = tmp_path / "tower.toml"
    path.write_text(text)
    assert main(["sim", "--config", str(path), "--press", "roll"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and ("levels deep" in err or "bytes" in err), err


def test_a_deeply_nested_panel_memory_and_log_line_do_not_stop_the_tower(tmp_path, capsys) -> None:
    """The panel's ROLL once ended `run` with a RecursionError from a deeply nested line."""
    state = tmp_path / "state"
    state.mkdir()
    (state / "panel.json").write_text("[" * 100_000)
    (state / "rolls.jsonl").write_text("[" * 100_000 + "\n")
    config = tmp_path / "tower.toml"
    config.write_text(f'[display]\nkind = "dummy"\n[kiosk]\nstate_dir = "{state}"\n')
    assert main(["sim", "--config", str(config), "--seed", "d", "--press", "roll,roll,wait:1", "--json"]) == 0
    steps = json.loads(capsys.readouterr().out)
    assert steps[-1]["screen"]["kind"] == "result"
    assert main(["log", "verify", str(state)]) == 1  # the damage stays visible
    assert "entry 1" in capsys.readouterr().err
