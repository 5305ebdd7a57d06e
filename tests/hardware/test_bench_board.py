"""The board's load and fault bench, small: 4 towers x 5 rolls/s for 6 s with the broker
killed and restarted, a tower killed mid-roll and restarted, and a forged entry. The full run
(50 towers x 10 rolls/s for 60 s) is ``bench/bench_board.py``; its figures are in docs/network.md."""

from __future__ import annotations

from bench.bench_board import run_load
from tests.support import require_command


def test_small_load_with_faults_loses_nothing_and_catches_the_forgery():
    require_command("mosquitto")
    lines: list[str] = []
    f = run_load(towers=4, rate=5, seconds=6, faults=True, session_rolls=10, workers=1, out=lines.append)
    report = "\n".join(lines)
    assert f["settled"] and f["missing"] == 0 and f["entries_received"] == f["entries_sent"] > 100, report
    assert f["problems_on_honest_towers"] == [] and f["towers_verified"] == 3, report
    assert f["towers_red"] == ["t00"] and f["forged_red_ms"] is not None, report
    assert f["sessions_replayed"] + f["sessions_open"] == f["sessions"], report
    assert f["sessions_open"] <= 1, report  # at most the killed tower's session, whose seed died with it
    killed = f["victim_killed"]
    assert killed["cursor_seq"] <= killed["entries_in_log"]
    assert f["latency_all_samples"] > 0
    assert any(line.startswith("  entries sent") for line in lines)
