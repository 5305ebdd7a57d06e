"""`dicetower systems | roll | odds`: the JSON contract, the library equivalence, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import engine
from hardware.cli import main

# One valid setting per system, as command-line arguments and as library keywords.
SETTINGS = {
    "infinity": ["--rating", "8", "--cr", "difficult"],
    "horizons": ["--trait", "3", "--skill", "2", "--need", "3"],
    "d6cv": ["--stat", "5", "--cv", "7"],
    "immortal": ["--attribute", "6", "--skill", "4", "--tn", "15"],
    "fingers": ["--choices", "5", "--winners", "2", "--guess", "3"],
}


NOT_RECORDED = "dicetower: note: not recorded (no --state-dir): nobody can verify this roll later\n"

def kwargs(args: list[str]) -> dict[str, str]:
    return {args[i][2:].replace("-", "_"): args[i + 1] for i in range(0, len(args), 2)}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_systems_json_lists_every_parameter_with_type_range_default_and_help(capsys) -> None:
    code, out, _ = run(capsys, "systems", "--json")
    assert code == 0
    listing = json.loads(out)["systems"]
    assert [s["id"] for s in listing] == list(engine.ids())
    for system in listing:
        assert system["params"], system["id"]
        for p in system["params"]:
            assert {"name", "type", "default", "help", "required"} <= p.keys()
            assert p["help"]
            if p["type"] == "int":
                assert "min" in p and "max" in p


def test_systems_human_listing_names_every_system(capsys) -> None:
    code, out, _ = run(capsys, "systems")
    assert code == 0
    for sid in engine.ids():
        assert sid in out


@pytest.mark.parametrize("system", list(SETTINGS))
def test_roll_json_has_the_contract_fields_and_matches_the_library(capsys, system: str) -> None:
    args = SETTINGS[system]
    code, out, err = run(capsys, "roll", system, *args, "--seed", "abc", "--json")
    assert (code, err) == (0, NOT_RECORDED)
    printed = json.loads(out)
    assert printed.pop("verifiable") is False  # not recorded: nobody can check it later
    assert {"system", "params", "dice", "total", "outcome", "success"} <= printed.keys()
    assert printed["system"] == system
    assert isinstance(printed["success"], bool)
    from engine.rng import DrbgDice

    library = engine.roll(system, rng=DrbgDice.from_seed(b"abc"), **kwargs(args))
    assert library == printed


@pytest.mark.parametrize("system", list(SETTINGS))
def test_same_seed_same_roll(capsys, system: str) -> None:
    first = run(capsys, "roll", system, *SETTINGS[system], "--seed", "7", "--json")
    second = run(capsys, "roll", system, *SETTINGS[system], "--seed", "7", "--json")
    assert first == second


@pytest.mark.parametrize("system", list(SETTINGS))
def test_human_roll_output_is_short(capsys, system: str) -> None:
    code, out, err = run(capsys, "roll", system, *SETTINGS[system], "--seed", "1")
    assert (code, err) == (0, NOT_RECORDED)
    assert 1 <= len(out.strip().splitlines()) <= 6


@pytest.mark.parametrize("system", list(SETTINGS))
def test_odds_json_matches_the_library_and_sums_to_one(capsys, system: str) -> None:
    args = [a for a in SETTINGS[system]]
    if system == "fingers":
        args = args[:4]  # the guess is not part of the odds
    code, out, err = run(capsys, "odds", system, *args, "--json")
    assert (code, err) == (0, "")
    printed = json.loads(out)
    assert printed == engine.odds(system, **kwargs(args))
    assert {"system", "params", "success", "outcomes"} <= printed.keys()
    assert sum(printed["outcomes"].values()) == pytest.approx(1.0, abs=1e-12)
    assert 0.0 <= printed["success"] <= 1.0


def test_times_json_prints_one_object_per_line(capsys) -> None:
    code, out, _ = run(
        capsys, "roll", "infinity", "--rating", "8", "--cr", "8", "--seed", "x", "--times", "5", "--json"
    )
    lines = out.strip().splitlines()
    assert code == 0 and len(lines) == 5
    assert all(json.loads(line)["system"] == "infinity" for line in lines)


def test_times_summary_json_counts_outcomes(capsys) -> None:
    code, out, _ = run(
        capsys, "roll", "d6cv", "--stat", "5", "--cv", "7", "--seed", "s", "--times", "200", "--summary", "--json"
    )
    summary = json.loads(out)
    assert code == 0 and summary["n"] == 200
    assert sum(summary["outcomes"].values()) == 200
    assert set(summary["outcomes"]) >= {"success", "failure"}


def test_faces_reproduce_a_physical_roll(capsys) -> None:
    code, out, _ = run(capsys, "roll", "infinity", "--rating", "8", "--cr", "10", "--faces", "3,4", "--json")
    result = json.loads(out)
    assert code == 0
    assert result["dice"] == [3, 4] and result["total"] == 11


BAD_INPUT = [
    (["roll", "nosuch"], "system"),
    (["odds", "nosuch"], "system"),
    (["roll"], "system"),
    (["roll", "infinity", "--rating", "8", "--cr", "ludicrous"], "--cr"),
    (["roll", "infinity", "--rating", "eight", "--cr", "10"], "--rating"),
    (["roll", "infinity", "--rating", "9999", "--cr", "10"], "--rating"),
    (["roll", "infinity", "--rating", "8", "--cr", "10", "--faces", "3"], "--faces"),
    (["roll", "infinity", "--rating", "8", "--cr", "10", "--faces", "3,4,5"], "--faces"),
    (["roll", "infinity", "--rating", "8", "--cr", "10", "--faces", "3,11"], "--faces"),
    (["roll", "infinity", "--rating", "8", "--cr", "10", "--faces", "three"], "--faces"),
    (["roll", "infinity", "--rating", "8", "--cr", "10", "--bogus", "1"], "--bogus"),
    (["roll", "infinity", "--rating", "8", "--cr", "10", "--times", "0"], "--times"),
    (["roll", "infinity", "--rating", "8", "--cr", "10", "--summary"], "--summary"),
    (["roll", "infinity", "--rating", "8", "--cr", "10", "--faces", "3,4", "--seed", "1"], "--faces"),
    (["roll", "horizons", "--trait", "-1", "--skill", "2"], "--trait"),
    (["roll", "d6cv", "--stat", "5", "--cv", "7", "--skill", "9"], "--skill"),
    (["roll", "d6cv", "--stat", "5", "--cv", "7", "--faces", "7"], "--faces"),
    (["roll", "immortal", "--attribute", "6", "--tn", "15", "--faces", "0"], "--faces"),
    (["roll", "fingers", "--choices", "5", "--winners", "2", "--guess", "6"], "--guess"),
    (["roll", "fingers", "--choices", "9", "--winners", "2", "--guess", "1"], "--choices"),
    (
        ["roll", "fingers", "--choices", "5", "--winners", "2", "--guess", "1", "--karma", "0", "--spend", "1"],
        "--spend",
    ),
    (["bogus-command"], "bogus-command"),
]


@pytest.mark.parametrize(("argv", "named"), BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_exits_2_with_one_line_naming_the_parameter(capsys, argv: list[str], named: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert named in err
    assert "Traceback" not in err


def test_a_real_process_prints_no_traceback_for_a_user_mistake() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "hardware", "roll", "infinity", "--rating", "8", "--cr", "9000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "--cr" in proc.stderr


def test_odds_shows_the_chance_with_and_without_automatic_success(capsys) -> None:
    argv = ["odds", "immortal", "--attribute", "6", "--skill", "5", "--tn", "15", "--hostile", "14:6"]
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    assert "chance of success 42.0000%" in out
    assert "auto_success: yes 30.0000%, no 42.0000%" in out
    code, out, _ = run(capsys, *argv, "--auto-success", "yes", "--json")
    assert json.loads(out)["success"] == 0.3 and json.loads(out)["auto_success"] == {"yes": 0.3, "no": 0.42}
    # An exact 0 is shown, not hidden as a far tail.
    code, out, _ = run(capsys, "odds", "immortal", "--attribute", "20", "--skill", "10", "--tn", "1",
                       "--hostile", "31,25,25,25,25,25")
    assert "auto_success: yes 0.0000%, no 100.0000%" in out


def test_roll_says_when_best_rolled_instead_of_declaring(capsys) -> None:
    argv = ["roll", "immortal", "--attribute", "6", "--skill", "5", "--tn", "15", "--hostile", "14:6"]
    code, out, err = run(capsys, *argv, "--faces", "9,5")
    assert code == 0 and "error" not in err
    assert out.splitlines()[0] == "orange roll (strength): 9 + 6 + 5 = 20 vs TN 15"
    assert "rolled instead of automatic success" in out
    code, out, _ = run(capsys, *argv, "--faces", "5", "--auto-success", "yes")
    assert out.splitlines()[0] == "orange roll (strength): skill 5 x 3 >= TN 15, no roll"
    code, out, err = run(capsys, *argv, "--auto-success", "maybe")
    assert code == 2 and err == "dicetower: error: --auto-success: expected one of best, yes, no, got 'maybe'\n"
