#!/usr/bin/env python3
"""Install the phone page's Pyodide from the npm registry, as web/package-lock.json pins it.

    python3 tools/fetch_pyodide.py [DEST]      (default: .pyodide in the checkout)

Standard library only, so a Raspberry Pi without Node.js installs it too (deploy/install.sh
and ./run-tests call it). It downloads the exact tarball of the locked version, checks it
against the lock's sha512 integrity before unpacking anything, and unpacks the package's files
into DEST through a temporary folder beside it, replaced whole: DEST holds one version, whole,
or none. Nothing is fetched when DEST already holds the locked version. The registry is
https://registry.npmjs.org unless $DICETOWER_NPM_REGISTRY names another (a mirror). One line on
stderr and exit 1 when the download fails or does not match the lock.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "web" / "package-lock.json"
PACKAGE = "pyodide"
#: Where the version installed is written (checked before fetching again).
STAMP = "DICETOWER-PYODIDE-VERSION"
MAX_BYTES = 64 << 20


def locked() -> tuple[str, str]:
    """The locked version and its integrity (``sha512-BASE64``)."""
    data = json.loads(LOCK.read_text())
    entry = data["packages"][f"node_modules/{PACKAGE}"]
    return str(entry["version"]), str(entry["integrity"])


def fetch(version: str, integrity: str) -> bytes:
    registry = os.environ.get("DICETOWER_NPM_REGISTRY", "https://registry.npmjs.org").rstrip("/")
    url = f"{registry}/{PACKAGE}/-/{PACKAGE}-{version}.tgz"
    with urllib.request.urlopen(url, timeout=120) as response:
        data = response.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{url} is larger than {MAX_BYTES >> 20} MiB")
    algorithm, _, want = integrity.partition("-")
    if algorithm != "sha512":
        raise ValueError(f"the lock's integrity for {PACKAGE} is {algorithm}, not sha512")
    got = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if got != want:
        raise ValueError(f"{url} does not match web/package-lock.json (sha512 {got[:16]}..., locked {want[:16]}...)")
    return data


def unpack(data: bytes, dest: Path, version: str) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".pyodide-", dir=dest.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar.getmembers():
                name = member.name.removeprefix("package/")
                if not member.isfile() or "/" in name or name.startswith("."):
                    continue  # the package's files are flat; nothing outside it is written
                source = tar.extractfile(member)
                if source is not None:
                    (tmp / name).write_bytes(source.read())
        (tmp / STAMP).write_text(version + "\n")
        old = dest.with_name(dest.name + ".old")
        if dest.exists():
            dest.rename(old)
        tmp.rename(dest)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str]) -> int:
    dest = Path(argv[1]) if len(argv) > 1 else ROOT / ".pyodide"
    version, integrity = locked()
    stamp = dest / STAMP
    if stamp.is_file() and stamp.read_text().strip() == version and (dest / "pyodide.asm.wasm").is_file():
        return 0
    try:
        unpack(fetch(version, integrity), dest, version)
    except (OSError, ValueError, tarfile.TarError) as exc:
        print(f"fetch_pyodide: cannot install {PACKAGE} {version} into {dest}: {exc}", file=sys.stderr)
        return 1
    print(f"fetch_pyodide: {PACKAGE} {version} in {dest}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
