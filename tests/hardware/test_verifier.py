"""The incremental verifier (engine.verify.Verifier): fed one entry at a time, it
reports each problem at the entry that decides it, its state between entries is small JSON
(one session's pending rolls, a short digest per session), and a verifier resumed from that
state at any point reaches exactly the verdict of one that read the whole log."""

from __future__ import annotations

import json

import pytest

from engine.verify import Verifier
from hardware.entropy.replay import replay_log
from hardware.files.rolllog import StoredEntry, read_entries
from tests.hardware import forgeries
from tests.hardware.test_replay_forgeries import cases, honest, logged  # noqa: F401  # the corpus fixtures


def stored(entries) -> list[StoredEntry]:
    raw = [json.dumps(e, sort_keys=True, separators=(",", ":")).encode() for e in entries]
    return [StoredEntry(i, r, e, True) for i, (r, e) in enumerate(zip(raw, entries, strict=True), start=1)]


def verdict(report) -> tuple:
    d = report.to_dict()
    d.pop("log")
    return tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in d.items()))


@pytest.mark.parametrize("name", ["honest", *forgeries.NAMES[:8]])
def test_a_verifier_resumed_from_its_saved_state_at_any_entry_reaches_the_same_verdict(honest, cases, name) -> None:  # noqa: F811
    if name == "honest":
        entries = honest.two
        expect = tuple(e["commitment"][:16] for e in honest.two if e["kind"] == "session")
        seeds = (forgeries.TABLE_SEED, forgeries.TABLE_SEED_2)
    else:
        entries, expect, seeds = list(cases[name].entries), cases[name].expect, cases[name].table_seeds
    lines = stored(entries)
    whole = Verifier(expect=expect, table_seeds=seeds)
    for s in lines:
        whole.feed(s)
    expected = verdict(whole.report())
    for cut in range(0, len(lines), 7):
        first = Verifier(expect=expect, table_seeds=seeds)
        for s in lines[:cut]:
            first.feed(s)
        saved = json.loads(json.dumps(first.state()))  # through JSON, as the board keeps it
        second = Verifier.resume(saved)
        for s in lines[cut:]:
            second.feed(s)
        assert verdict(second.report()) == expected, cut


def test_problems_come_at_the_entry_that_decides_them(honest) -> None:  # noqa: F811
    forged = forgeries.rehash(forgeries.session_before_the_reveal(honest.two))
    second = next(i for i, e in enumerate(forged) if e["kind"] == "session" and i > 0)
    verifier = Verifier()
    for i, s in enumerate(stored(forged)):
        step = verifier.feed(s)
        if i == second:
            assert [f.line_no for f in step.findings] == [second + 1]
            assert "opened while session" in step.findings[0].message
        elif i < second:
            assert step.findings == ()


def test_the_state_holds_one_sessions_rolls_and_is_small(honest) -> None:  # noqa: F811
    verifier = Verifier()
    sizes = []
    verified = 0
    for s in stored(honest.two):
        verified += len(verifier.feed(s).verified)
        sizes.append(len(json.dumps(verifier.state())))
    assert verified == 60
    # after the reveals no rolls are held: what is left is a digest per session and the latest
    # flags (at most FLAGS_KEPT: here the ten mixed rolls)
    assert max(sizes) < 60_000 and sizes[-1] < 4_000


def test_replay_log_is_the_verifier_over_the_file(honest, tmp_path) -> None:  # noqa: F811
    path = logged(tmp_path / "rolls.jsonl", honest.table)
    verifier = Verifier(table_seeds=[forgeries.TABLE_SEED])
    for s in read_entries(path):
        verifier.feed(s)
    assert verdict(verifier.report(path)) == verdict(replay_log(path, table_seeds=[forgeries.TABLE_SEED]))


def test_a_state_that_is_not_one_is_refused() -> None:
    from engine.verify.verifier import _STATE_VERSION

    with pytest.raises(ValueError, match=f"not a version {_STATE_VERSION} verifier state"):
        Verifier.resume({"version": 99})
    with pytest.raises(ValueError, match="not a verifier state"):
        Verifier.resume({"version": _STATE_VERSION, "bogus": 1})
