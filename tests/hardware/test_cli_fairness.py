"""`dicetower fairness`: a small deterministic battery produces the full table of p-values."""

from __future__ import annotations

import json

import pytest

from hardware.cli import main
from hardware.entropy import open_dice
from hardware.entropy.battery import DICE, SUBSETS, Battery, CheckResult, run_battery, unlikely_failures

SMALL = ["fairness", "--n", "3000", "--seed", "battery"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_small_deterministic_run_prints_a_table(capsys) -> None:
    code, out, err = run(capsys, *SMALL)
    assert code == 0 and err == ""  # no progress bar when stderr is not a terminal
    lines = out.splitlines()
    assert lines[0] == "fairness battery: 3,000 draws per test, 3,000 DRBG bits; source seed (deterministic)"
    assert lines[2].split() == ["test", "statistic", "p-value", "result"]
    rows = lines[3:-1]
    for sides in DICE:
        assert any(r.startswith(f"chi-square d{sides} ") for r in rows)
    for n, k in SUBSETS:
        assert any(r.startswith(f"chi-square {k} of {n} fingers") for r in rows)
    for test in ("serial correlation d6", "runs above/below d100", "SP 800-22 monobit",
                 "SP 800-22 approximate entropy", "SP 800-22 longest run of ones"):
        assert any(r.startswith(test + " ") for r in rows), test
    assert len(rows) == 28
    for r in rows:
        p = float(r.split()[-2])
        assert 0.0 <= p <= 1.0 and r.split()[-1] == ("pass" if p >= 0.01 else "FAIL")
    assert lines[-1].startswith("28 tests at alpha = 0.01: ")
    assert "about 0.28 failures are expected by chance" in lines[-1]
    # Deterministic: the same seed gives the same table.
    assert run(capsys, *SMALL)[1] == out


def test_json_output(capsys) -> None:
    code, out, _ = run(capsys, *SMALL, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["n"] == 3000 and report["alpha"] == 0.01 and len(report["tests"]) == 28
    assert report["failed"] == sum(not t["pass"] for t in report["tests"])
    assert report["sources"] == ["seed"]


def test_progress_bar_on_request(capsys) -> None:
    code, _, err = run(capsys, *SMALL, "--progress", "always")
    assert code == 0
    assert "%" in err and "chi-square d4" in err and "SP 800-22" in err
    assert err.endswith("\r")  # the bar is wiped at the end


@pytest.mark.parametrize("bad", ["10", "x", "0"])
def test_bad_n(capsys, bad) -> None:
    code, out, err = run(capsys, "fairness", "--n", bad, "--seed", "x")
    assert code == 2 and out == ""
    assert err.startswith("dicetower: error: --n: expected a whole number from 100 to")


def test_a_broken_pipeline_fails_the_battery() -> None:
    class Stuck:
        """Dice that always land on the lowest face; bytes that are all zero."""

        def randbelow(self, n: int) -> int:
            return 0

        def random_bytes(self, n: int) -> bytes:
            return bytes(n)

    battery = run_battery(Stuck(), 500)
    assert battery.failed >= 20
    assert unlikely_failures(battery)


def test_failures_within_chance_are_not_unlikely() -> None:
    results = tuple(CheckResult(f"t{i}", "", 0.5 if i else 0.005, 100) for i in range(28))
    battery = Battery(100, 128, results)
    assert battery.failed == 1 and not unlikely_failures(battery)
    assert battery.tail_probability == pytest.approx(1 - 0.99**28)


def test_battery_on_live_kernel_entropy_runs() -> None:
    battery = run_battery(open_dice("kernel"), 200)
    assert len(battery.results) == 28 and all(0 <= r.p <= 1 for r in battery.results)
