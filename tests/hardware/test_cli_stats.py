"""``dicetower stats``: a log written by real ``roll --state-dir`` commands, counted per system
and setting against the exact odds; typed-in rolls not counted; --today; errors in one line."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

import engine
from engine.stats import Tally
from hardware.cli import main
from hardware.files.rolllog import RollLog


@pytest.fixture
def state(tmp_path, capsys):
    d = tmp_path / "state"
    for argv in (["infinity", "--rating", "8", "--cr", "difficult", "--times", "120"],
                 ["d6cv", "--stat", "5", "--cv", "7", "--times", "40"],
                 ["d6cv", "--stat", "5", "--cv", "7", "--faces", "6"]):  # typed in: not counted
        assert main(["roll", *argv, "--state-dir", str(d)]) == 0
    capsys.readouterr()
    return d


def logged_results(d) -> list[dict]:
    lines = [json.loads(line) for line in (d / "rolls.jsonl").read_text().splitlines()]
    return [e["result"] for e in lines if e["kind"] == "roll" and e.get("roll_kind", "rolled") == "rolled"
            and e.get("session")]


def test_json_counts_every_roll_of_the_towers_dice(state, capsys) -> None:
    assert main(["stats", str(state), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rolls"] == 160 and out["not_counted"] == {"entered": 1}
    systems = {s["system"]: s for s in out["systems"]}
    assert systems["infinity"]["rolls"] == 120 and systems["d6cv"]["rolls"] == 40
    setting = systems["infinity"]["settings"][0]
    assert setting["label"] == "rating 8, cr 10"
    assert setting["probabilities"] == engine.odds("infinity", rating=8, cr=10)["outcomes"]
    assert sum(setting["observed"].values()) == 120
    # the same figures as the library computes from the same results
    expected = {r.system: r.to_dict() for r in Tally().add_all(logged_results(state)).reports()}
    assert systems == expected


def test_text_names_each_system_and_setting_with_its_p_value(state, capsys) -> None:
    assert main(["stats", str(state / "rolls.jsonl")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"stats {state / 'rolls.jsonl'}: 160 rolls counted (not counted: 1 typed in)"
    assert lines[1].startswith("infinity: 120 rolls, ") and ", p = " in lines[1]
    assert lines[2].startswith("  rating 8, cr 10: 120 rolls, p = ")
    assert lines[3].lstrip().startswith("failure ")
    assert any(line.startswith("d6cv: 40 rolls, ") for line in lines)


def test_today_leaves_out_yesterdays_rolls(tmp_path, capsys) -> None:
    log_file = tmp_path / "rolls.jsonl"
    yesterday = datetime.now(UTC) - timedelta(days=1, hours=1)
    when = [int(yesterday.timestamp() * 1e9)]
    log = RollLog(log_file, clock=lambda: when[0], fsync=False)
    result = engine.roll("d6cv", stat=5, cv=7, faces=[4])
    log.append("roll", session="s1", roll_kind="rolled", result=result)
    when[0] = int(datetime.now(UTC).timestamp() * 1e9)
    log.append("roll", session="s1", roll_kind="rolled", result=result)
    log.append("roll", session="s1", roll_kind="rolled", result=result)
    assert main(["stats", str(tmp_path), "--today", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rolls"] == 2
    assert main(["stats", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rolls"] == 3


def test_an_empty_log_and_a_torn_line(tmp_path, capsys) -> None:
    (tmp_path / "rolls.jsonl").write_bytes(b'{"kind":"roll","ses')
    assert main(["stats", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"stats {tmp_path / 'rolls.jsonl'}: 0 rolls counted\n"


@pytest.mark.parametrize("arg", ["", "missing"])
def test_no_log_is_one_line_and_status_2(tmp_path, capsys, arg) -> None:
    target = "" if arg == "" else str(tmp_path / arg)
    assert main(["stats", target]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dicetower: error: DIR: ") and len(err.splitlines()) == 1


def test_default_dir_is_the_state_directory(state, capsys, monkeypatch) -> None:
    monkeypatch.setenv("DICETOWER_STATE_DIR", str(state))
    assert main(["stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rolls"] == 160
