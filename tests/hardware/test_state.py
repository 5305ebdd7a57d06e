"""Player state: atomic writes that survive a crash, and `roll --state-dir --player`."""

from __future__ import annotations

import itertools
import json
import os

import pytest

import hardware.files.state as state_mod
from engine.errors import ParameterError
from hardware.cli import main
from hardware.files.rolllog import verify
from hardware.files.state import PlayerState, StateError, StateStore, atomic_write_bytes

FINGERS = ["roll", "fingers", "--choices", "5", "--winners", "1", "--json"]


def test_atomic_write_replaces_the_file(tmp_path) -> None:
    path = tmp_path / "s.json"
    atomic_write_bytes(path, b"old")
    atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"new"
    assert os.listdir(tmp_path) == ["s.json"]


def test_a_crash_before_replace_leaves_the_old_file_whole_and_no_temp_file(tmp_path, monkeypatch) -> None:
    path = tmp_path / "s.json"
    atomic_write_bytes(path, b'{"karma": 2}')

    def power_cut(src, dst, **dir_fds):
        raise OSError("simulated power cut before the rename")

    monkeypatch.setattr(state_mod.os, "replace", power_cut)
    with pytest.raises(OSError, match="simulated power cut"):
        atomic_write_bytes(path, b'{"karma": 5, "half-written')
    assert path.read_bytes() == b'{"karma": 2}'
    assert os.listdir(tmp_path) == ["s.json"]


def test_the_temp_file_is_fsynced_before_the_rename(tmp_path, monkeypatch) -> None:
    calls: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(state_mod.os, "fsync", lambda fd: (calls.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(state_mod.os, "replace",
                        lambda a, b, **kw: (calls.append("replace"), real_replace(a, b, **kw))[1])
    atomic_write_bytes(tmp_path / "s.json", b"x")
    assert calls == ["fsync", "replace", "fsync"]  # file, rename, directory


def test_store_round_trip_and_fresh_players(tmp_path) -> None:
    store = StateStore(tmp_path)
    assert store.load(3) == PlayerState(3)
    store.save(PlayerState(3).with_value("fingers", "karma", 4))
    assert store.load(3).get("fingers", "karma") == 4
    assert json.loads((tmp_path / "players" / "3.json").read_text())["systems"] == {"fingers": {"karma": 4}}


def test_a_damaged_state_file_names_the_file(tmp_path) -> None:
    (tmp_path / "players").mkdir()
    (tmp_path / "players" / "1.json").write_text("{nope")
    with pytest.raises(StateError, match=r"players/1.json is damaged"):
        StateStore(tmp_path).load(1)


def test_a_state_file_that_is_not_utf8_is_damaged_not_a_traceback(tmp_path, capsys) -> None:
    (tmp_path / "players").mkdir()
    (tmp_path / "players" / "1.json").write_bytes(b'{"player": 1, "systems": {"\xff": {}}}')
    with pytest.raises(StateError, match=r"players/1.json is damaged"):
        StateStore(tmp_path).load(1)
    code = main([*FINGERS, "--state-dir", str(tmp_path), "--player", "1", "--seed", "s"])
    err = capsys.readouterr().err
    assert code == 2 and "is damaged" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("bad", ["0", "100", "x"])
def test_player_numbers_are_checked(tmp_path, bad) -> None:
    with pytest.raises(ParameterError, match="--player: expected a whole number from 1 to 99"):
        StateStore(tmp_path).player_path(bad)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_roll_carries_karma_in_the_players_state(tmp_path, capsys) -> None:
    d = str(tmp_path)
    karmas = []
    for guess in ("1", "2", "3", "4", "5", "1", "2"):
        code, out, err = run(capsys, *FINGERS, "--guess", guess, "--state-dir", d, "--player", "2")
        assert code == 0, err
        result = json.loads(out)
        karmas.append((result["params"]["karma"], result["karma_after"]))
    for (_, after), (before, _) in itertools.pairwise(karmas):
        assert before == after  # each roll starts from the karma the last one left
    assert karmas[0][0] == 0 and any(after > 0 for _, after in karmas)
    stored = json.loads((tmp_path / "players" / "2.json").read_text())
    assert stored["systems"]["fingers"]["karma"] == karmas[-1][1]
    assert verify(tmp_path / "rolls.jsonl").ok


def test_karma_given_on_the_command_line_wins_and_is_stored(tmp_path, capsys) -> None:
    d = str(tmp_path)
    code, out, _ = run(capsys, *FINGERS, "--guess", "1", "--karma", "4", "--state-dir", d, "--player", "1")
    assert code == 0 and json.loads(out)["params"]["karma"] == 4
    after = json.loads(out)["karma_after"]
    assert StateStore(tmp_path).load(1).get("fingers", "karma") == after


def test_times_carries_karma_from_roll_to_roll(tmp_path, capsys) -> None:
    code, out, _ = run(capsys, *FINGERS, "--guess", "3", "--times", "6", "--state-dir", str(tmp_path), "--player", "1",
                       "--seed", "karma")
    assert code == 0
    results = [json.loads(line) for line in out.splitlines()]
    for before, after in itertools.pairwise(results):
        assert after["params"]["karma"] == before["karma_after"]


def test_player_needs_a_state_dir(capsys) -> None:
    code, _, err = run(capsys, *FINGERS, "--guess", "1", "--player", "1")
    assert code == 2 and err.startswith("dicetower: error: --player: needs --state-dir")


def test_state_dir_without_player_only_logs(tmp_path, capsys) -> None:
    code, _, _ = run(capsys, "roll", "d6cv", "--stat", "3", "--cv", "7", "--state-dir", str(tmp_path))
    assert code == 0
    kinds = [json.loads(line)["kind"] for line in (tmp_path / "rolls.jsonl").read_text().splitlines()]
    assert kinds == ["session", "roll", "reveal"]
    assert not (tmp_path / "players").exists()


def test_typed_in_faces_are_logged_as_such(tmp_path, capsys) -> None:
    code, _, _ = run(capsys, "roll", "d6cv", "--stat", "3", "--cv", "7", "--faces", "4", "--state-dir", str(tmp_path))
    assert code == 0
    (entry,) = [json.loads(line) for line in (tmp_path / "rolls.jsonl").read_text().splitlines()]
    assert entry["kind"] == "roll" and entry["roll_kind"] == "entered" and entry["session"] is None
    assert entry["result"]["dice"] == [4]


def test_horizons_stability_track_is_carried_for_the_roller(tmp_path, capsys) -> None:
    d = str(tmp_path)
    # Two failed rolls (a 1 on one die), each marking 2 Stability boxes: 3 -> 5 -> 7.
    base = ["roll", "horizons", "--pool", "1", "--stability-loss", "2", "--state-dir", d, "--player", "1", "--json"]
    code, out, err = run(capsys, *base, "--stability", "3", "--faces", "1")
    assert code == 0, err
    assert json.loads(out)["stability_after"]["marked"] == 5
    code, out, err = run(capsys, *base, "--faces", "1")
    assert code == 0, err
    result = json.loads(out)
    assert result["params"]["stability"] == 5 and result["stability_after"]["marked"] == 7
    assert StateStore(tmp_path).load(1).get("horizons", "stability") == 7


def test_a_roll_that_does_not_use_a_track_leaves_the_state_alone(tmp_path, capsys) -> None:
    code, _, err = run(capsys, "roll", "horizons", "--pool", "2", "--faces", "1,2", "--state-dir", str(tmp_path),
                       "--player", "4")
    assert code == 0, err
    assert StateStore(tmp_path).load(4).get("horizons", "stability") is None


def test_a_bad_stored_value_names_the_file_not_a_flag(tmp_path, capsys) -> None:
    (tmp_path / "players").mkdir()
    (tmp_path / "players" / "2.json").write_text(json.dumps({"player": 2, "systems": {"fingers": {"karma": 99}}}))
    code, out, err = run(capsys, *FINGERS, "--guess", "1", "--state-dir", str(tmp_path), "--player", "2")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "players/2.json: stored fingers karma" in err and "--karma" not in err
