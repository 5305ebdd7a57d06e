"""What a new user hit, tried as a new user would: help that helps, ``--version``, error
lines that name what exists and say it once, numbers as people type them, and a players
file that cannot pass for player 1. Each finding is its own test."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import engine
from engine.errors import ParameterError
from hardware.cli import main
from hardware.files.state import StateError, StateStore


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(capsys, *argv: str, code: int = 2) -> str:
    got, out, err = run(capsys, *argv)
    assert (got, out) == (code, ""), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.rstrip("\n")


def process(*argv: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hardware", *argv], capture_output=True,
                          text=True, timeout=120, stdin=stdin)


# --- help and version ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["roll", "odds"])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_roll_and_odds_help_list_the_systems_and_where_their_parameters_are(capsys, command, flag):
    with pytest.raises(SystemExit) as done:
        main([command, flag])
    out, err = capsys.readouterr()
    assert done.value.code == 0 and err == ""
    assert out.startswith(f"usage: dicetower {command} SYSTEM")
    for spec in engine.all_systems():
        assert f"  {spec.id:<10}" in out
    assert f"dicetower {command} SYSTEM --help" in out and "dicetower systems" in out
    assert max(map(len, out.splitlines())) <= 80


def test_a_systems_own_help_still_lists_its_parameters(capsys):
    with pytest.raises(SystemExit) as done:
        main(["odds", "d6cv", "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    assert "--cv CV" in out and "a whole number from 0 to 35" in out


def test_roll_help_as_a_real_process():
    proc = process("roll", "--help")
    assert proc.returncode == 0 and proc.stderr == ""
    assert "immortal" in proc.stdout and "dicetower roll SYSTEM --help" in proc.stdout


def test_version():
    from importlib.metadata import version

    proc = process("--version")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == f"dicetower {version('dicetower')}\n"


# --- error lines ----------------------------------------------------------------------------------


def test_roll_without_a_system_names_no_flag(capsys):
    err = one_error_line(capsys, "roll")
    assert "--system" not in err
    assert err == ("dicetower roll: error: name a system: infinity, horizons, d6cv, immortal, "
                   "fingers (dicetower roll --help)")


def test_replay_of_a_missing_log_names_no_flag(capsys, tmp_path):
    err = one_error_line(capsys, "replay", str(tmp_path / "nonexistent"))
    assert "--LOG" not in err
    assert err == f"dicetower: error: LOG: no roll log at {tmp_path / 'nonexistent'}"


def test_a_positional_argument_is_never_shown_as_a_flag():
    assert str(ParameterError("LOG", "missing")) == "LOG: missing"
    assert str(ParameterError("cr", "too high")) == "--cr: too high"


def test_a_negative_looking_value_is_a_value_not_an_unknown_option(capsys):
    err = one_error_line(capsys, "roll", "infinity", "--faces", "-3,4")
    assert "expected one argument" not in err
    assert err == "dicetower: error: --faces: face -3 (number 1) is not on a d10; allowed 1..10"
    code, out, _ = run(capsys, "roll", "d6cv", "--modifier", "-3", "--faces", "4")
    assert code == 0 and "- 3 = 6 vs CV 5" in out


def test_a_missing_value_says_so_in_our_words(capsys):
    assert one_error_line(capsys, "roll", "infinity", "--rating") == \
        "dicetower roll infinity: error: --rating: needs a value"
    assert one_error_line(capsys, "nosuch").startswith("dicetower: error: unknown command 'nosuch'")
    assert one_error_line(capsys) == "dicetower: error: name a command (dicetower --help lists them)"


@pytest.mark.parametrize(("argv", "line"), [
    (["sim", "--press", "mode", "--script", "x"], "dicetower sim: error: --script: not allowed with --press"),
    (["systems", "--json=3"], "dicetower systems: error: --json: takes no value, got '3'"),
    (["replay"], "dicetower replay: error: LOG: required (dicetower replay --help)"),
    (["log"], "dicetower log: error: ACTION: required (dicetower log --help)"),
    (["log", "bogus"], "dicetower log: error: ACTION: unknown 'bogus'; choose from 'verify', 'show' "
                       "(dicetower log --help)"),
])
def test_argparse_messages_are_said_flag_first(capsys, argv, line):
    assert one_error_line(capsys, *argv) == line


def test_a_missing_config_file_is_named_once(capsys, tmp_path):
    missing = str(tmp_path / "nonexistent.toml")
    err = one_error_line(capsys, "run", "--config", missing)
    assert err.count(missing) == 1
    assert "No such file or directory" in err


def test_an_entropy_file_that_is_a_directory_is_named_by_its_path(capsys, tmp_path):
    err = one_error_line(capsys, "roll", "d6cv", "--entropy", f"file:{tmp_path}", code=3)
    assert err == f"dicetower: entropy source file:{tmp_path}: {tmp_path} is a directory; give a file or device"


@pytest.mark.parametrize("argv", [
    ["roll", "d6cv", "--stat", "{huge}"],
    ["roll", "d6cv", "--faces", "{huge}"],
    ["roll", "immortal", "--hostile", "{huge}"],
    ["roll", "{huge}"],
    ["{huge}"],
    ["roll", "d6cv", "{huge}"],
])
def test_a_huge_argument_is_clipped_not_echoed(capsys, argv):
    huge = "9" * 5_000_000 + "x" * 5_000_000  # 10 MB
    err = one_error_line(capsys, *[a.replace("{huge}", huge) for a in argv])
    assert len(err) < 400
    assert "characters left out" in err


@pytest.mark.parametrize("argv", [
    ["replay", "{long}"],
    ["log", "show", "{long}"],
    ["log", "verify", "{deep}"],
    ["run", "--config", "{long}"],
])
def test_a_huge_path_in_an_os_error_is_clipped(capsys, argv):
    """The OS names the path it refused (too long a name, too deep a path): one line, cut."""
    values = {"{long}": "a" * 100_000, "{deep}": "a/" * 50_000}
    err = one_error_line(capsys, *[values.get(a, a) for a in argv])
    assert len(err) < 1100
    assert "characters left out" in err or "characters long; at most 4096" in err  # clipped, or refused unread


def test_a_huge_argument_in_a_real_process_is_clipped():
    proc = process("roll", "d6cv", "--stat", "7" * 100_000)  # near the kernel's per-argument limit
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and len(proc.stderr) < 400
    assert proc.stderr.startswith("dicetower: error: --stat: expected a whole number from 0 to 15")


# --- numbers as people type them ---------------------------------------------------------------------


@pytest.mark.parametrize("text", ["８", "1_0", "٣", "+", "", "1.0", "0x1"])
def test_only_ascii_digits_are_numbers(capsys, text):
    err = one_error_line(capsys, "roll", "d6cv", "--stat", text)
    assert err.startswith("dicetower: error: --stat: expected a whole number from 0 to 15")


@pytest.mark.parametrize(("system", "flag", "value"), [
    ("d6cv", "--faces", "６"),
    ("d6cv", "--faces", "1_0"),
    ("infinity", "--helper", "1_0"),
    ("infinity", "--cr", "１０"),
    ("immortal", "--hostile", "1_2:6"),
    ("immortal", "--opponent", "６+2"),
    ("fingers", "--chain", "１/５"),
    ("fingers", "--guess", "３"),
    ("horizons", "--wounds", "1_0"),
])
def test_every_number_parser_refuses_full_width_digits_and_underscores(capsys, system, flag, value):
    command = "roll" if flag in ("--faces", "--guess") else "odds"
    extra = ["--body", "2", "--resolve", "2", "--mitigation", "1"] if flag == "--wounds" else []
    err = one_error_line(capsys, command, system, flag, value, *extra)
    assert err.startswith(f"dicetower: error: {flag}:"), err


def test_plain_numbers_with_spaces_and_signs_still_work():
    resolved = engine.get("d6cv").resolve({"stat": " 7 ", "modifier": "-3", "cv": "+4"})
    assert (resolved["stat"], resolved["modifier"], resolved["cv"]) == (7, -3, 4)


# --- players file ------------------------------------------------------------------------------------


@pytest.mark.parametrize("player", [True, 1.0, "1", None])
def test_a_players_file_must_say_player_1_as_the_number_1(tmp_path, player):
    store = StateStore(tmp_path)
    path = store.player_path(1)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": 1, "player": player, "systems": {}}))
    with pytest.raises(StateError, match=r"1\.json is damaged \(it belongs to player"):
        store.load(1)
    path.write_text(json.dumps({"version": 1, "player": 1, "systems": {}}))
    assert store.load(1).player == 1
