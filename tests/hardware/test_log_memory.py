"""A log that grows for years: `log verify` and `log show --last` read it in constant memory
(peak RSS of a fresh process measured with getrusage, against the same process doing no
reading as the baseline). bench/bench_roll_log.py does the same on a 1 GiB log."""

from __future__ import annotations

from hardware.files.rolllog import verify
from tests.hardware.logfiles import peak_rss_mib, write_log

LOG_MIB = 64


def test_verify_and_show_of_a_large_log_stay_small(tmp_path) -> None:
    path = tmp_path / "rolls.jsonl"
    entries = write_log(path, LOG_MIB << 20)
    baseline = peak_rss_mib("from hardware.cli import main\nmain(['systems', '--json'])")
    verified = peak_rss_mib("import sys\nfrom hardware.cli import main\nmain(['log', 'verify', sys.argv[1]])",
                            str(path))
    shown = peak_rss_mib("import sys\nfrom hardware.cli import main\n"
                         "main(['log', 'show', sys.argv[1], '--last', '100'])", str(path))
    print(f"{LOG_MIB} MiB log ({entries} entries): baseline {baseline:.1f} MiB, verify {verified:.1f} MiB, "
          f"show --last 100 {shown:.1f} MiB")
    assert verified - baseline < 16, (baseline, verified)  # the whole log would be 64 MiB more
    assert shown - baseline < 16, (baseline, shown)
    assert verify(path).entries == entries
