"""What the phone page is made of: its HTML and JS (package data), Pyodide (installed from the
npm registry by tools/fetch_pyodide.py, never a CDN) and the engine as a zip of its source,
built from the installed package so the page runs exactly the code ``dicetower replay`` runs.

Every asset has a sha256 the page shows, so a player can compare the page they run with the
one docs/phone.md names.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import engine
from hardware.errors import HardwareError

__all__ = ["PAGE_FILES", "PYODIDE_FILES", "PageAssets", "PageError", "find_pyodide"]

STATIC = Path(__file__).with_name("static")
#: The page's own files, by the name it is served under.
PAGE_FILES = {"verify.html": "text/html; charset=utf-8", "verify.js": "text/javascript; charset=utf-8"}
#: Pyodide's files the page loads (everything else of the npm package stays unserved).
PYODIDE_FILES = {"pyodide.mjs": "text/javascript", "pyodide.asm.mjs": "text/javascript",
                 "pyodide.asm.wasm": "application/wasm", "python_stdlib.zip": "application/zip",
                 "pyodide-lock.json": "application/json"}
#: Where Pyodide is looked for when the config names no folder: $DICETOWER_PYODIDE, the
#: checkout's .pyodide (./run-tests, ./tower), the installed tower's.
SEARCHED = ("$DICETOWER_PYODIDE", "<checkout>/.pyodide", "/opt/dicetower/pyodide")
#: A fixed time for the zip's members, so the same engine gives the same bytes (and hash).
_ZIP_TIME = (2026, 1, 1, 0, 0, 0)


class PageError(HardwareError, OSError):
    """What the page needs is missing (Pyodide not installed, a file unreadable): one line
    saying how to install it."""


def find_pyodide(configured: str = "") -> Path:
    """The folder holding Pyodide's files; :class:`PageError` naming where it looked."""
    checkout = Path(__file__).resolve().parents[2] / ".pyodide"
    candidates = [Path(configured)] if configured else [
        *([Path(os.environ["DICETOWER_PYODIDE"])] if os.environ.get("DICETOWER_PYODIDE") else []),
        checkout, Path("/opt/dicetower/pyodide")]
    for folder in candidates:
        if all((folder / name).is_file() for name in PYODIDE_FILES):
            return folder
    where = ", ".join(str(c) for c in candidates)
    raise PageError(f"the phone page needs Pyodide, not found in {where}: install it with "
                    "python3 tools/fetch_pyodide.py DIR (deploy/install.sh does)")


def engine_zip() -> bytes:
    """The installed ``engine`` package's source as a zip (``engine/...``), with every
    installed system in it: each distribution that registers one gets a ``NAME.dist-info``
    holding its METADATA and its ``dicetower_systems`` entry points (Pyodide finds the systems
    through them, as the tower does), and a plug-in's own Python files (its package, its rules
    module) beside the engine. Members sorted and dated alike: the same code gives the same
    bytes; a plug-in installed or removed changes them (and the hash the page shows)."""
    root = Path(engine.__file__).resolve().parent
    members: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".py", ".typed") or "__pycache__" in path.parts:
            continue
        members[f"engine/{path.relative_to(root).as_posix()}"] = path.read_bytes()
    members.update(_systems_members())
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, _ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, members[name])
    return out.getvalue()


def _systems_members() -> dict[str, bytes]:
    """The zip's members that make the installed systems findable: per distribution its
    ``.dist-info`` (METADATA, entry_points.txt with the systems' group only), and a plug-in's
    ``.py`` files as its RECORD lists them (dicetower's own are the engine's, already in)."""
    from importlib import metadata

    from engine.systems import registry

    by_dist: dict[str, list[registry.Installed]] = {}
    for entry in registry.installed().values():
        by_dist.setdefault(entry.distribution, []).append(entry)
    out: dict[str, bytes] = {}
    for name, entries in sorted(by_dist.items()):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise PageError(f"the phone page's engine zip: the distribution {name} of system {entries[0].id} "
                            "is not installed") from None
        version = dist.version
        folder = f"{name.replace('-', '_')}-{version}.dist-info"
        out[f"{folder}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
        lines = [f"{e.id} = {e.module}:{e.attribute}" for e in sorted(entries, key=lambda e: e.id)]
        out[f"{folder}/entry_points.txt"] = ("[" + registry.GROUP + "]\n" + "\n".join(lines) + "\n").encode()
        if name == "dicetower":
            continue
        for file in dist.files or ():
            if file.suffix != ".py" or "__pycache__" in file.parts or ".." in file.parts:
                continue
            try:
                out[file.as_posix()] = Path(str(dist.locate_file(file))).read_bytes()
            except OSError as exc:
                raise PageError(f"the phone page's engine zip: cannot read {file} of {name}: "
                                f"{exc.strerror or exc}") from None
    return out


@dataclass
class PageAssets:
    """The page's files, Pyodide's and the engine zip, read once and kept (a tower serves the
    same bytes to every phone). ``pyodide`` is the folder :func:`find_pyodide` found."""

    pyodide: Path
    _cache: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def find(cls, configured: str = "") -> PageAssets:
        return cls(find_pyodide(configured))

    def page(self, name: str) -> bytes:
        if name not in PAGE_FILES:
            raise KeyError(name)
        return self._read(f"page/{name}", STATIC / name)

    def pyodide_file(self, name: str) -> bytes:
        if name not in PYODIDE_FILES:
            raise KeyError(name)
        return self._read(f"pyodide/{name}", self.pyodide / name)

    def engine(self) -> bytes:
        if "engine.zip" not in self._cache:
            self._cache["engine.zip"] = engine_zip()
        return self._cache["engine.zip"]

    def hashes(self) -> dict[str, str]:
        """sha256 of the page's two files and of the engine zip (what the page shows)."""
        return {"verify.html": _sha256(self.page("verify.html")), "verify.js": _sha256(self.page("verify.js")),
                "engine.zip": _sha256(self.engine())}

    def _read(self, key: str, path: Path) -> bytes:
        if key not in self._cache:
            try:
                self._cache[key] = path.read_bytes()
            except OSError as exc:
                raise PageError(f"cannot read {path}: {exc.strerror or exc}") from None
        return self._cache[key]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
