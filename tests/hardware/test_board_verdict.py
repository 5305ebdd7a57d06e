"""The board's verdict is ``dicetower replay``'s: over every forgery in the corpus
(tests/hardware/forgeries.py), honest logs of every kind and the invented-roll cases, fed to
the board in any number of pieces, the board's findings and counts equal the replay's of the
same entries. The board checks through one seam (hardware/board/verdict.py)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hardware.board.towers import Towers
from hardware.entropy.replay import replay_log
from hardware.network.topics import log_message
from tests.hardware import forgeries
from tests.hardware.test_replay_forgeries import genuine  # noqa: F401 - the corpus's genuine logs


def board_verdict(entries: list[dict[str, Any]], cuts: list[int] = ()) -> dict[str, Any]:
    """Feed ``entries`` to a board (checking after each piece ends at a cut), then its verdict."""
    with tempfile.TemporaryDirectory() as tmp:
        towers = Towers(tmp, "s", verifier=False)
        try:
            for i, entry in enumerate(entries):
                towers.handle("dicetower/s/t/log", log_message("s", "t", entry))
                if i + 1 in cuts:
                    towers.check_now()
            towers.check_now()
            ledger = towers.ledgers["s/t"]
            board_findings = [f["message"] for f in towers._read().findings(ledger.id, 10_000)
                              if f["source"] != "verifier"]
            findings = [f["message"] for f in towers._read().findings(ledger.id, 10_000) if f["source"] == "verifier"]
            return {"problems": findings, "board": board_findings, "counts": ledger.counts.to_dict(),
                    "headline": ledger.problem, "card": towers.cards()[0]}
        finally:
            towers.close()


def replay_verdict(path: Path) -> dict[str, Any]:
    report = replay_log(path)
    return {"problems": [str(p) for p in report.problems],
            "counts": {"verified": report.rolls_verified, "entered": report.rolls_entered, "test": report.rolls_test,
                       "unchecked": report.rolls_open, "sessions": report.sessions, "revealed": report.revealed}}


def same(entries: list[dict[str, Any]], tmp: Path, cuts: list[int] = ()) -> dict[str, Any]:
    path = tmp / "rolls.jsonl"
    forgeries.write(path, entries)
    written = forgeries.read(path)
    board, replay = board_verdict(written, cuts), replay_verdict(path)
    assert board["board"] == []  # a whole chain: nothing for the board's own checks
    assert board["problems"] == replay["problems"]
    assert board["counts"] == replay["counts"]
    assert board["headline"] == (f"replay: {replay['problems'][0]}" if replay["problems"] else None)
    return board


@pytest.mark.parametrize("kind", ["random", "seeded", "entered"])
def test_honest_logs_verify_the_same(genuine, tmp_path, kind):  # noqa: F811
    board = same(forgeries.read(genuine[kind] / "rolls.jsonl"), tmp_path)
    assert board["problems"] == [] and board["card"]["verified"]


@pytest.mark.parametrize("name", list(forgeries.FORGERIES))
def test_every_forgery_in_the_corpus_gets_the_replays_verdict(genuine, tmp_path, name):  # noqa: F811
    source, forge = forgeries.FORGERIES[name]
    board = same(forge(forgeries.read(genuine[source] / "rolls.jsonl")), tmp_path)
    assert board["problems"] and not board["card"]["verified"], name


def invented(entries: list[dict[str, Any]], case: str) -> list[dict[str, Any]]:
    """The invented-roll cases of issue 17: rolls the replay must not count as verified."""
    roll = dict(next(e for e in entries if e["kind"] == "roll"))
    session = dict(next(e for e in entries if e["kind"] == "session"))
    if case == "roll naming an unknown session":
        return [*entries, {**roll, "session": "0123456789abcdef"}]
    if case == "rolled roll with no session":
        return [*entries, {**roll, "session": None, "roll_kind": "rolled"}]
    if case == "roll after its session was revealed":
        return [*entries, roll]
    if case == "session abandoned without a reveal":
        reveal_at = max(i for i, e in enumerate(entries) if e["kind"] == "reveal")
        return [*entries[:reveal_at], {**session, "session": "fedcba9876543210"}]
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["roll naming an unknown session", "rolled roll with no session",
                                  "roll after its session was revealed", "session abandoned without a reveal"])
def test_invented_rolls_get_the_replays_verdict_and_are_never_verified(genuine, tmp_path, case):  # noqa: F811
    entries = forgeries.read(genuine["random"] / "rolls.jsonl")
    board = same(invented(entries, case), tmp_path)
    counts = board["counts"]
    assert counts["verified"] <= sum(1 for e in entries if e["kind"] == "roll")
    if case == "session abandoned without a reveal":
        assert counts["unchecked"] > 0 and counts["verified"] == 0  # its rolls are unchecked, not verified


@pytest.fixture(scope="module")
def sessions_log(tmp_path_factory) -> list[dict[str, Any]]:
    """A tower's log of many short sessions (every system), the last one open."""
    from bench.sim_towers import SimTower

    t = SimTower(tmp_path_factory.mktemp("many"), "mqtt://127.0.0.1:1", "s", "t", session_rolls=3, start=False)
    for _ in range(20):
        t.roll()
    return forgeries.read(t.log_path)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_verdict_does_not_depend_on_how_the_entries_arrive_in_pieces(genuine, sessions_log, data):  # noqa: F811
    """Checked after any pieces (a check between any two entries), the board's verdict is the
    replay's of the whole log: its window over the entries changes nothing."""
    name = data.draw(st.sampled_from(["honest", "many sessions", *forgeries.FORGERIES,
                                      "roll naming an unknown session", "session abandoned without a reveal",
                                      "many sessions, grinding", "many sessions, one abandoned"]))
    if name == "honest":
        entries = forgeries.read(genuine["random"] / "rolls.jsonl")
    elif name == "many sessions":
        entries = sessions_log
    elif name == "many sessions, grinding":
        entries = forgeries.grind_claiming_continuity(sessions_log)
    elif name == "many sessions, one abandoned":
        entries = [e for e in sessions_log if not (e["kind"] == "reveal" and e["seq"] < len(sessions_log) // 2)]
    elif name in forgeries.FORGERIES:
        source, forge = forgeries.FORGERIES[name]
        entries = forge(forgeries.read(genuine[source] / "rolls.jsonl"))
    else:
        entries = invented(forgeries.read(genuine["random"] / "rolls.jsonl"), name)
    cuts = data.draw(st.lists(st.integers(1, len(entries)), max_size=6))
    with tempfile.TemporaryDirectory() as tmp:
        same(entries, Path(tmp), cuts)


def test_a_replay_that_breaks_is_a_finding_not_a_crash(tmp_path, monkeypatch):
    import hardware.entropy.replay as replay

    def broken(*args, **kwargs):
        raise AttributeError("'str' object has no attribute 'get'")

    monkeypatch.setattr(replay, "replay_entries", broken)
    entries = [{"seq": 1, "prev": "0" * 64, "kind": "note"}]
    path = tmp_path / "rolls.jsonl"
    forgeries.write(path, entries)
    board = board_verdict(forgeries.read(path))
    assert board["problems"] == ["entry 1: the verifier could not check entries 1..1: AttributeError: 'str' object "
                                 "has no attribute 'get'"]
    assert json.dumps(board["card"])


class ListEntries:
    """A tower's entries from a list (hardware.board.verdict.TowerEntries)."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries

    def between(self, first: int, last: int) -> list[dict[str, Any]]:
        return [e for e in self.entries if first <= e["seq"] <= last]

    def sessions_started(self, ids, through: int) -> bool:
        return any(e["kind"] == "session" and str(e.get("session")) in ids and e["seq"] <= through
                   for e in self.entries)


def test_the_seam_goes_on_from_its_state_and_starts_again_when_it_cannot(sessions_log):
    from hardware.board.verdict import check_tower

    entries = ListEntries(sessions_log)
    half = len(sessions_log) // 2
    first = check_tower(entries, None, half)
    assert not first.restarted and 0 < first.through <= half and json.loads(json.dumps(first.state)) == first.state
    second = check_tower(entries, first.state, len(sessions_log))
    whole = check_tower(entries, None, len(sessions_log))
    assert not second.restarted and second.counts == whole.counts and second.problems == whole.problems == ()
    assert {s.session for s in first.settled} | {s.session for s in second.settled} == \
           {s.session for s in whole.settled}
    for unusable in ({"v": 999}, {"v": 1, "through": "x"}, {"v": 1}):
        again = check_tower(entries, unusable, len(sessions_log))
        assert again.restarted and again.counts == whole.counts
    late_reveal = [*sessions_log, {**sessions_log[0], "kind": "reveal", "seq": len(sessions_log) + 1}]
    named = check_tower(ListEntries(late_reveal), whole.state, len(late_reveal))
    assert named.restarted  # an entry naming a session from before the window: back to the start
