"""docs/phone.md names the page's own hash: the sha256 of the two files the tower serves. When
either file changes, put the new hashes in the doc (this test prints them)."""

from __future__ import annotations

import re
from pathlib import Path

from hardware.web.assets import engine_zip

DOC = Path(__file__).resolve().parents[2] / "docs" / "phone.md"


def test_the_docs_name_the_pages_own_hash() -> None:
    import hashlib

    from hardware.web.assets import STATIC

    text = DOC.read_text()
    for name in ("verify.html", "verify.js"):
        digest = hashlib.sha256((STATIC / name).read_bytes()).hexdigest()
        assert re.search(rf"\| {re.escape(name)} \| `{digest}` \|", text), f"docs/phone.md: {name} is now {digest}"


def test_the_engine_zip_is_the_engine_and_its_systems_the_same_bytes_every_time() -> None:
    import io
    import zipfile

    import engine

    data = engine_zip()
    assert data == engine_zip()
    names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
    root = Path(engine.__file__).parent
    info = f"dicetower-{engine_version()}.dist-info"
    assert names == {f"engine/{p.relative_to(root).as_posix()}" for p in root.rglob("*.py")
                     if "__pycache__" not in p.parts} | {"engine/py.typed", f"{info}/METADATA",
                                                         f"{info}/entry_points.txt"}
    # the systems' entry points go in, so the page finds the systems as the tower does
    points = zipfile.ZipFile(io.BytesIO(data)).read(f"{info}/entry_points.txt").decode().splitlines()
    assert points[0] == "[dicetower_systems]" and len(points) == 1 + len(engine.ids())


def engine_version() -> str:
    from importlib import metadata

    return metadata.version("dicetower")
