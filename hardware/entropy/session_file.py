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
import errno
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from hardware.entropy.seed import SeedMaterial
from hardware.state import StateWriteError, atomic_write_bytes

__all__ = ["SESSION_FILE", "SessionFileError", "SessionWriteError", "StoredSession", "load", "load_file", "remove",
           "remove_file", "save", "save_file"]

SESSION_FILE = "session.json"
_VERSION = 1
_MAX_BYTES = 64 * 1024  # a session file is well under 2 KB; anything bigger is not ours
_MAX_DEPTH = 8  # {"drbg": {...}} nests 2 deep


class SessionFileError(EngineError):
    """The session file cannot be read or written (damaged, a symlink, no permission)."""


class SessionWriteError(SessionFileError, StateWriteError):
    """The session file cannot be written (a full card, a read-only or removed directory):
    like a roll log that cannot be written, nothing can be recorded (exit 4, "cannot record")."""


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


def load_file(path: Path, *, below: str | os.PathLike[str] | None = None) -> StoredSession | None:
    """The session kept in ``path``, or None when there is no such file. Read by the one rule
    (:mod:`hardware.safefile`: no link followed, no FIFO waited on, size and depth capped);
    ``below`` is the state directory when ``path`` is in a folder of it (``open-sessions/``)."""
    from hardware.safefile import FileRefused, load_json

    try:
        data = load_json(path, _MAX_BYTES, _MAX_DEPTH, below=below)
    except FileNotFoundError:
        return None
    except FileRefused as exc:
        raise SessionFileError(f"the session file cannot be used: {exc.strerror}; move it away and open a new "
                               "session") from None
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or exc
        raise SessionFileError(f"cannot read the session file {path}: {why}") from None
    except ValueError as exc:
        raise SessionFileError(f"{path} is damaged ({exc}); the session cannot go on: move the file away and "
                               "open a new session") from None
    try:
        return StoredSession.from_json(data)
    except ValueError as exc:
        raise SessionFileError(f"{path} is damaged ({exc}); the session cannot go on: move the file away and "
                               "open a new session") from None


def save_file(path: Path, stored: StoredSession, *, below: str | os.PathLike[str] | None = None) -> None:
    """Write ``path`` atomically, mode 0600 (the temp file is created 0600). A file that cannot
    be written (full, read-only, removed) is :class:`SessionWriteError`."""
    from hardware.safefile import FileRefused

    try:
        atomic_write_bytes(path, (json.dumps(stored.to_json(), indent=1, sort_keys=True) + "\n").encode("ascii"),
                           below=below)
    except FileRefused as exc:
        raise SessionFileError(f"cannot write the session file {path}: {exc.strerror}") from None
    except OSError as exc:
        raise SessionWriteError(f"cannot write the session file {path}: {exc.strerror or exc}") from None


def remove_file(path: Path, *, below: str | os.PathLike[str] | None = None) -> None:
    """Remove ``path`` (gone already is fine; a link is removed, not followed) and make the
    removal durable."""
    from hardware.safefile import FileRefused, open_dir

    try:
        dir_fd = open_dir(path.parent, below=below)
    except FileNotFoundError:
        return
    except FileRefused as exc:
        raise SessionFileError(f"cannot remove the session file {path}: {exc.strerror}") from None
    except OSError as exc:
        raise SessionWriteError(f"cannot remove the session file {path}: {exc.strerror or exc}") from None
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path.name, dir_fd=dir_fd)
        os.fsync(dir_fd)
    except IsADirectoryError:
        raise SessionFileError(f"cannot remove the session file {path}: it is a directory; move it away") from None
    except OSError as exc:
        raise SessionWriteError(f"cannot remove the session file {path}: {exc.strerror or exc}") from None
    finally:
        os.close(dir_fd)
