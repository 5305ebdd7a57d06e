"""The open session of a state directory: ``DIR/session.json``, kept between commands.

``dicetower session open DIR`` commits to a session and keeps it here; every later
``dicetower roll --state-dir DIR`` rolls in it (the same commitment, each roll starting where
the last one ended) and ``session close DIR`` reveals it. The file holds the seed material
and the DRBG's working state (Key, V, counter), so it is as secret as the seed: mode 0600,
written atomically (temp file, fsync, rename, fsync of the directory), opened with
``O_NOFOLLOW``, and read and written only under :func:`hardware.locking.state_lock`, which the
caller holds.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from hardware.entropy.seed import SeedMaterial
from hardware.state import atomic_write_bytes, fsync_dir

__all__ = ["SESSION_FILE", "SessionFileError", "StoredSession", "load", "load_file", "remove", "remove_file", "save",
           "save_file"]

SESSION_FILE = "session.json"
_VERSION = 1
_MAX_BYTES = 64 * 1024  # a session file is well under 2 KB; anything bigger is not ours


class SessionFileError(EngineError):
    """The session file cannot be read or written (damaged, a symlink, no permission)."""


@dataclass(frozen=True)
class StoredSession:
    """An open session: its seed material, where its DRBG stands, and what it was seeded from."""

    material: SeedMaterial
    key: bytes
    v: bytes
    counter: int
    rolls: int
    opened_ns: int
    block_bytes: int
    mode: str
    sources: tuple[str, ...]
    credited_bits: int | None

    @property
    def commitment(self) -> str:
        return self.material.commitment

    @property
    def id(self) -> str:
        return self.commitment[:16]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": _VERSION, "commitment": self.commitment, "seed": self.material.encode().hex(),
            "drbg": {"key": self.key.hex(), "v": self.v.hex(), "counter": self.counter},
            "rolls": self.rolls, "opened_ns": self.opened_ns, "block_bytes": self.block_bytes, "mode": self.mode,
            "sources": list(self.sources), "credited_bits": self.credited_bits,
        }

    @classmethod
    def from_json(cls, data: Any) -> StoredSession:
        """Parse :meth:`to_json`'s form; ``ValueError`` names what is wrong."""
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            raise ValueError(f"not a version {_VERSION} session file")
        try:
            material = SeedMaterial.from_hex(data["seed"])
            drbg = data["drbg"]
            stored = cls(material, bytes.fromhex(drbg["key"]), bytes.fromhex(drbg["v"]), int(drbg["counter"]),
                         int(data["rolls"]), int(data["opened_ns"]), int(data["block_bytes"]), str(data["mode"]),
                         tuple(str(s) for s in data["sources"]),
                         None if data["credited_bits"] is None else int(data["credited_bits"]))
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"a field is missing or has the wrong type ({exc})") from None
        if stored.commitment != data.get("commitment"):
            raise ValueError("its seed does not match its commitment")
        return stored


def _path(directory: str | os.PathLike[str]) -> Path:
    return Path(directory) / SESSION_FILE


def load(directory: str | os.PathLike[str]) -> StoredSession | None:
    """The open session of ``directory``, or None when no session is open there."""
    return load_file(_path(directory))


def save(directory: str | os.PathLike[str], stored: StoredSession) -> None:
    """Write the session file atomically, mode 0600 (the temp file is created 0600)."""
    save_file(_path(directory), stored)


def remove(directory: str | os.PathLike[str]) -> None:
    """Forget the open session (after its reveal is in the log)."""
    remove_file(_path(directory))


def load_file(path: Path) -> StoredSession | None:
    """The session kept in ``path``, or None when there is no such file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SessionFileError(f"cannot open the session file {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "rb") as f:
            data = f.read(_MAX_BYTES + 1)
    except OSError as exc:
        raise SessionFileError(f"cannot read the session file {path}: {exc.strerror or exc}") from None
    if len(data) > _MAX_BYTES:
        raise SessionFileError(f"{path} is larger than {_MAX_BYTES} bytes: not a session file")
    try:
        return StoredSession.from_json(json.loads(data))
    except (ValueError, RecursionError) as exc:
        raise SessionFileError(f"{path} is damaged ({exc}); the session cannot go on: move the file away and "
                               "open a new session") from None


def save_file(path: Path, stored: StoredSession) -> None:
    """Write ``path`` atomically, mode 0600 (the temp file is created 0600)."""
    if path.is_symlink():
        raise SessionFileError(f"{path} is a symbolic link; refusing to write the session through it")
    try:
        atomic_write_bytes(path, (json.dumps(stored.to_json(), indent=1, sort_keys=True) + "\n").encode("ascii"))
    except OSError as exc:
        raise SessionFileError(f"cannot write the session file {path}: {exc.strerror or exc}") from None


def remove_file(path: Path) -> None:
    """Remove ``path`` (gone already is fine) and make the removal durable."""
    try:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        fsync_dir(path.parent)
    except OSError as exc:
        raise SessionFileError(f"cannot remove the session file {path}: {exc.strerror or exc}") from None
