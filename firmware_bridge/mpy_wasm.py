"""Real MicroPython for the tests and the bench: its WebAssembly port, run with node.

The npm package ``@micropython/micropython-webassembly-pyscript`` is pinned in
``.ci/micropython-wasm/package-lock.json`` and installed into ``.ci/micropython-wasm/node_modules``
by ``./run-tests`` (``.ci/micropython-wasm.sh``). :func:`run` writes files into MicroPython's
file system, runs a script and returns what it printed. It is a development tool: nothing in
the tower uses it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from firmware_bridge.errors import BridgeError

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "@micropython/micropython-webassembly-pyscript"
INSTALL_DIR = ROOT / ".ci" / "micropython-wasm"
RUNNER = Path(__file__).resolve().parent / "mpy_wasm.mjs"


class MicroPythonUnavailable(BridgeError):
    """node or the pinned package is not installed here."""


class MicroPythonFailed(BridgeError):
    """The script raised under MicroPython; the message is MicroPython's traceback."""


def entry() -> Path:
    """The package's ``micropython.mjs``; :class:`MicroPythonUnavailable` says what is missing."""
    if shutil.which("node") is None:
        raise MicroPythonUnavailable("node is not installed (./run-tests installs nodejs and npm where it can)")
    path = INSTALL_DIR / "node_modules" / PACKAGE / "micropython.mjs"
    if not path.is_file():
        raise MicroPythonUnavailable(f"{PACKAGE} is not installed in {INSTALL_DIR} (./run-tests installs it)")
    return path


def version() -> str:
    """The installed package's version."""
    entry()
    data = json.loads((INSTALL_DIR / "node_modules" / PACKAGE / "package.json").read_text(encoding="utf-8"))
    return str(data["version"])


def run(script: str, files: Mapping[str, str] | None = None, *, timeout: float = 300.0) -> str:
    """Run ``script`` under MicroPython with ``files`` (name -> source) importable; its stdout."""
    job = json.dumps({"files": dict(files or {}), "script": script})
    done = subprocess.run(["node", str(RUNNER), str(entry())], input=job, capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        raise MicroPythonFailed(f"MicroPython: {done.stderr.strip() or f'exit status {done.returncode}'}")
    return done.stdout


def firmware_files(*names: str) -> dict[str, str]:
    """The firmware's own files by module name (``codec``, ``bridge``...), as :func:`run` takes them."""
    here = Path(__file__).resolve().parent / "firmware"
    return {f"{name}.py": (here / f"{name}.py").read_text(encoding="utf-8") for name in names}
