"""engine/ type-checks clean under the project's mypy settings (pyproject.toml): the seams the
rest of the code relies on (SystemSpec, PanelSpec, the results) are checked, not assumed. A
remaining ``type: ignore`` must name its error code (``ignore-without-code``) and is reported
when no longer needed (``warn_unused_ignores``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_engine_is_mypy_clean(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "engine"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
