"""The board's verdict is ``dicetower replay``'s: over every case of the forgery corpus
(tests/hardware/forgeries.py), honest logs of every kind and the invented-roll cases, fed to
the board in any number of pieces, the board's findings and counts equal the replay's of the
same entries (the board knows nothing the players noted: replay runs without ``--expect`` and
``--table-seed`` here). The board checks through one seam (hardware/board/verdict.py)."""

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
                       "unchecked": report.rolls_open, "sessions": report.sessions, "revealed": report.revealed,
                       "flags": dict(report.flag_counts)}}


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


@pytest.mark.parametrize("kind", ["table", "two", "seeded", "entered"])
def test_honest_logs_verify_the_same(forgery_honest, tmp_path, kind):
    board = same(forgery_honest.log(kind), tmp_path)
    assert board["problems"] == [] and board["card"]["problem"] is None
    # verified: at least one verified roll and no problem (a --seed test night verifies none: its rolls are test rolls)
    assert board["card"]["verified"] == (board["counts"]["verified"] > 0) == (kind != "seeded")


@pytest.mark.parametrize("name", forgeries.NAMES)
def test_every_case_of_the_corpus_gets_the_replays_verdict(forgery_cases, tmp_path, name):
    case = forgery_cases[name]
    board = same(list(case.entries), tmp_path)
    if not case.player_mode:  # what only the players' notes can show, the board cannot
        assert board["problems"] and not board["card"]["verified"], name
        assert f": {case.code}: " in board["problems"][0], (case.code, board["problems"])


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
def test_invented_rolls_get_the_replays_verdict_and_are_never_verified(forgery_honest, tmp_path, case):
    entries = forgery_honest.table
    board = same(invented(entries, case), tmp_path)
    counts = board["counts"]
    assert counts["verified"] <= sum(1 for e in entries if e["kind"] == "roll")
    assert board["problems"], case  # every one of them is a problem for replay, so for the board
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
def test_the_verdict_does_not_depend_on_how_the_entries_arrive_in_pieces(forgery_honest, forgery_cases,
                                                                         sessions_log, data):
    """Checked after any pieces (a check between any two entries), the board's verdict is the
    replay's of the whole log: where it saves the verifier's state changes nothing."""
    name = data.draw(st.sampled_from(["two", "many sessions", *forgeries.NAMES, "roll naming an unknown session",
                                      "session abandoned without a reveal", "many sessions, grinding",
                                      "many sessions, one abandoned"]))
    if name == "two":
        entries = forgery_honest.two
    elif name == "many sessions":
        entries = sessions_log
    elif name == "many sessions, grinding":
        entries = forgeries.grind_offsets(sessions_log, claim_continuity=True)
    elif name == "many sessions, one abandoned":
        entries = [e for e in sessions_log if not (e["kind"] == "reveal" and e["seq"] < len(sessions_log) // 2)]
    elif name in forgery_cases:
        entries = list(forgery_cases[name].entries)
    else:
        entries = invented(forgery_honest.table, name)
    cuts = data.draw(st.lists(st.integers(1, len(entries)), max_size=6))
    with tempfile.TemporaryDirectory() as tmp:
        same(entries, Path(tmp), cuts)


def test_a_replay_that_breaks_is_a_finding_not_a_crash(tmp_path, monkeypatch):
    import engine.verify as replay

    def broken(self, stored):
        if stored.line_no == 1:
            raise AttributeError("'str' object has no attribute 'get'")
        return feed(self, stored)

    feed = replay.Verifier.feed
    monkeypatch.setattr(replay.Verifier, "feed", broken)
    entries = [{"seq": 1, "prev": "0" * 64, "kind": "note"}, {"seq": 2, "prev": "", "kind": "note"}]
    path = tmp_path / "rolls.jsonl"
    forgeries.write(path, entries)
    board = board_verdict(forgeries.read(path))
    assert board["problems"] == ["entry 1: unverifiable: the verifier could not check this entry: AttributeError: "
                                 "'str' object has no attribute 'get'"]
    assert board["card"]["seq"] == 2 and json.dumps(board["card"])


class ListEntries:
    """A tower's entries from a list (hardware.board.verdict.TowerEntries)."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries

    def between(self, first: int, last: int) -> list[dict[str, Any]]:
        return [e for e in self.entries if first <= e["seq"] <= last]


def test_the_seam_goes_on_from_its_state_and_starts_again_when_it_cannot(sessions_log):
    from hardware.board.verdict import check_tower

    entries = ListEntries(sessions_log)
    half = len(sessions_log) // 2
    first = check_tower(entries, None, half)
    assert not first.restarted and 0 < first.through <= half and json.loads(json.dumps(first.state)) == first.state
    assert len(json.dumps(first.state)) < 4000  # saved where no session is open: small
    second = check_tower(entries, first.state, len(sessions_log))
    whole = check_tower(entries, None, len(sessions_log))
    assert not second.restarted and second.counts == whole.counts and second.problems == whole.problems == ()
    assert set(first.verified) | set(second.verified) == set(whole.verified)
    assert len(whole.verified) == whole.counts.verified
    assert {s.session for s in first.settled} | {s.session for s in second.settled} == \
           {s.session for s in whole.settled}
    for unusable in ({"v": 999}, {"v": 2, "through": "x", "verifier": {}}, {"v": 2}):
        again = check_tower(entries, unusable, len(sessions_log))
        assert again.restarted and again.counts == whole.counts


def test_the_seam_never_goes_past_entries_it_was_not_given(sessions_log):
    """Entries not in the record yet (a check started before they were written): the verifier
    stops before the gap and takes them up next time, never skipping them."""
    from hardware.board.verdict import check_tower

    head = len(sessions_log)
    gap = ListEntries([e for e in sessions_log if e["seq"] != 3])
    early = check_tower(gap, None, head)
    assert early.through <= 2 and early.problems == ()
    later = check_tower(ListEntries(sessions_log), early.state, head)
    whole = check_tower(ListEntries(sessions_log), None, head)
    assert later.counts == whole.counts and later.problems == whole.problems == ()


# --- what the board posts (webhooks, /events?feed=1) from a forged log -----------------------------------------


def board_posts(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The posts (plain bodies, in order) a board decides for ``entries``: what every webhook
    and the event stream's feed would be sent."""
    heard: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        towers = Towers(tmp, "s", verifier=False)
        towers.add_post_listener(lambda post: heard.append(json.loads(post.body)))
        try:
            for entry in entries:
                towers.handle("dicetower/s/t/log", log_message("s", "t", entry))
            towers.check_now()
        finally:
            towers.close()
    return heard


def assert_posts_follow_the_replay(entries: list[dict[str, Any]], tmp: Path) -> list[dict[str, Any]]:
    """A forger's way into a Discord channel: rolls posted as verified are exactly as many as
    replay verifies, each an entry of the log as it was written, each once; a log replay finds a
    problem in is one alert, and a clean one none."""
    path = tmp / "rolls.jsonl"
    forgeries.write(path, entries)
    written = forgeries.read(path)
    report = replay_log(path)
    heard = board_posts(written)
    rolls = [p for p in heard if p["type"] == "roll"]
    alerts = [p for p in heard if p["type"] == "alert"]
    assert len(rolls) == report.rolls_verified
    assert all(p["entry"] in written and p["entry"]["kind"] == "roll" for p in rolls)
    assert len({p["id"] for p in rolls}) == len(rolls)
    assert all(p["verdict"]["check"] == "verified" for p in rolls)
    assert len(alerts) == (1 if report.problems else 0)
    return heard


@pytest.mark.parametrize("name", forgeries.NAMES)
def test_no_forged_roll_is_posted_as_verified(forgery_cases, tmp_path, name):
    case = forgery_cases[name]
    heard = assert_posts_follow_the_replay(list(case.entries), tmp_path)
    if not case.player_mode:  # the board alone sees the forgery: it says so
        assert any(p["type"] == "alert" for p in heard), name


@pytest.mark.parametrize("case", ["roll naming an unknown session", "rolled roll with no session",
                                  "roll after its session was revealed", "session abandoned without a reveal"])
def test_invented_rolls_are_never_posted(forgery_honest, tmp_path, case):
    entries = invented(forgery_honest.table, case)
    heard = assert_posts_follow_the_replay(entries, tmp_path)
    honest_rolls = [e for e in forgery_honest.table if e["kind"] == "roll"]
    assert all(p["entry"] in honest_rolls for p in heard if p["type"] == "roll")


def test_an_honest_log_is_posted_whole_and_raises_no_alert(forgery_honest, tmp_path):
    heard = assert_posts_follow_the_replay(forgery_honest.table, tmp_path)
    assert [p["entry"] for p in heard] == [e for e in forgery_honest.table if e["kind"] == "roll"]
