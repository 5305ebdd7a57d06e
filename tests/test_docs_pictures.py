"""Every picture the docs show is there: the README's and docs/*.md's image links point at
files in the repository (the simulator's frames are renumbered when a flow script changes;
a reference left behind would show a broken image or the wrong screen's number)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_image_link_is_a_file(doc: Path) -> None:
    missing = [link for link in IMAGE.findall(doc.read_text(encoding="utf-8"))
               if not link.startswith(("http://", "https://")) and not (doc.parent / link).is_file()]
    assert not missing, f"{doc.relative_to(REPO)}: no such picture {missing}"
