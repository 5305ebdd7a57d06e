"""The repository's docs and code stand alone: nothing points at a path outside it (a rules
text or design note that only exists next to the checkout), so every citation names a game
and a section, or a document in the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = re.compile(r"\bshared/|DESIGN(?:\.md| §)|\b[0-9]{3}_[0-9a-f]{16}\.txt\b")
CHECKED = ("docs", "engine", "hardware", "firmware_bridge", "bench", "tests", "README.md")


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z", *CHECKED], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    return [ROOT / name for name in listed
            if name and name.endswith((".py", ".md", ".txt", ".toml", ".json", ".service"))]


def test_no_file_points_outside_the_repository() -> None:
    this = Path(__file__).resolve()
    hits = []
    for path in tracked_text_files():
        if path == this or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if OUTSIDE.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "paths outside the repository:\n" + "\n".join(hits)
