"""engine/verify/night.py, the call the phone page makes: a log as text and the notes as plain
data in, the same verdict as ``dicetower replay`` out, with each roll as the OLED showed it."""

from __future__ import annotations

import json

import pytest

from engine.verify.night import Night, check_text, notes_from
from tests.hardware import forgeries


def text_of(entries) -> str:
    return "".join(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n" for e in entries)


def notes_of(case: forgeries.Case) -> dict:
    notes: dict = {"expect": list(case.expect), "table_seed": list(case.table_seeds), "allow_mix": list(case.allow_mix),
                   "card": list(case.cards)}
    if case.count is not None:
        notes["count"] = case.count
    return notes


@pytest.mark.parametrize("name", forgeries.NAMES)
def test_every_forgery_gets_replays_first_problem(forgery_cases, name) -> None:
    from engine.verify import Verifier
    from engine.verify.night import verdict

    case = forgery_cases[name]
    view = json.loads(check_text(text_of(case.entries), notes_of(case)))
    assert view["verdict"] == f"fail: {case.code}", view["problems"][:3]
    verifier = Verifier(notes=case.notes())
    night = Night(case.notes())
    night.add(text_of(case.entries).splitlines())
    assert night.view()["verdict"] == verdict(night.report()[1]) == view["verdict"]
    assert verifier.notes == night.notes


def test_an_honest_night_passes_and_shows_each_roll_as_the_oled_did(forgery_honest) -> None:
    honest = forgery_honest
    notes = {"expect": [honest.panel_noted["panel commitment"], *honest.panel_shown],
             "table_seed": [forgeries.PANEL_CODE]}
    view = json.loads(check_text(text_of(honest.panel), notes, all_revealed=True))
    assert view["verdict"] == "pass" and view["problems"] == []
    rows = view["rolls"]
    assert [f"{r['number']}:{r['fingerprint']}" for r in rows] == list(honest.panel_shown)
    assert all(r["state"] == "verified" and r["screen"].startswith("d6cv ") and r["dice"] for r in rows)
    assert view["night_rolls"] == len(rows) and view["player_mode"]


def test_a_log_fed_a_line_at_a_time_gets_the_whole_logs_verdict(forgery_honest) -> None:
    night = Night(notes_from({"expect": [forgery_honest.panel_noted["panel commitment"]],
                              "table_seed": [forgeries.PANEL_CODE]}))
    lines = text_of(forgery_honest.panel).splitlines()
    for line in lines:
        night.add([line])
    assert night.view()["verdict"] == "fail: unseen-roll"  # every roll noted, or a count: neither
    assert [r["state"] for r in night.view()["rolls"]] == ["problem"] + ["verified"] * (len(night.view()["rolls"]) - 1)


@pytest.mark.parametrize(("notes", "words"), [
    ({"expect": "a1b2c3d4e5f6a7b8"}, "expect must be a list of text"),
    ({"count": -1}, "count must be a whole number from 0"),
    ({"count": True}, "count must be a whole number from 0"),
    ({"table-seed": ["x"]}, "unknown key 'table-seed'"),
    ({"expect": ["12:zz"]}, "16 to 64 hex digits"),
])
def test_bad_notes_are_one_line_naming_the_key(notes, words) -> None:
    with pytest.raises(ValueError, match=words):
        notes_from(notes)


def test_a_torn_or_damaged_line_is_the_chains_problem_not_a_crash() -> None:
    view = json.loads(check_text('{"seq": 1, "kind": "note"\n'))
    assert view["verdict"] == "fail: chain"
