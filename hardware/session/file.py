"""An open session as a state directory keeps it: ``DIR/open-sessions/ID.json``.

Every session opened in a state directory (by the tower, by ``dicetower session open``, or by
a ``roll`` command for itself) is written here *before* its ``session`` entry goes into the
roll log, and removed once its ``reveal`` entry is in the log. The file holds the seed
material (as secret as the seed: mode 0600, written atomically; read and written by the one
rule of :mod:`hardware.files.safefile`: no link followed, no FIFO waited on, size and depth capped),
who opened it (:class:`Owner`), and a cache of where the session stands: the DRBG's working
state, the roll count and the table seed as of log entry ``log_seq``. The log is the truth:
only the seed (which must hash to the commitment the log holds) and the owner are ever taken
from the file; whoever rolls in the session next re-derives everything else from the seed and
the log (:mod:`hardware.session.open_sessions`), so a writer killed between its append and
anything else, or a damaged or edited cache, leaves nothing behind that changes a number the
table is shown. A file that cannot be trusted at all ends its session as damaged. Written only under
:func:`hardware.files.locking.state_lock`, which the caller holds; read under it too, but by
``session show``, which writes nothing (a file is replaced atomically: it is read whole).

Version 1 files (``DIR/session.json`` of earlier versions) are still read: their cache is
rebuilt from the log from the session's ``session`` entry on.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.seeds import SeedMaterial
from hardware.errors import HardwareError
from hardware.files.rolllog import LogError
from hardware.files.state import atomic_write_bytes

__all__ = ["OWNER_KINDS", "SESSION_FILE", "DamagedFile", "Owner", "SessionFileError", "SessionWriteError",
           "StoredSession", "load_file", "owner_of", "read_raw", "remove_file", "save_file", "seed_of", "set_aside"]

#: Where earlier versions kept the session ``dicetower session open`` opened (read, then moved).
SESSION_FILE = "session.json"
_VERSION = 2
_MAX_BYTES = 64 * 1024  # a session file is well under 2 KB; anything bigger is not ours
_MAX_DEPTH = 8  # {"drbg": {...}, "owner": {...}} nests 2 deep
#: Who opened a session: the tower (``run``, ``sim``), ``dicetower session open`` (it stays open
#: until ``session close``), or a ``roll`` command for its own rolls.
OWNER_KINDS = ("tower", "open", "command")


class SessionFileError(HardwareError):
    """A session file cannot be used: damaged, too large or too deep, not a regular file, behind
    a symbolic link (a person must look at it; exit 2 on the command line)."""


class SessionWriteError(SessionFileError, LogError):
    """A session file cannot be written or removed (a full card, a read-only or removed state
    directory). The one error for it: a session whose seed cannot be kept is not opened, so
    like a roll log that cannot be written it means nothing can be recorded (a
    :class:`~hardware.files.rolllog.LogError`: exit 4, "cannot record"; the tower's "cannot record")."""


@dataclass(frozen=True)
class Owner:
    """Who opened a session: its kind, process id, the boot it ran in, and a token of the one
    object (a tower run, a command) that opened it. Another writer tells from this whether
    the opener is still there (see :mod:`hardware.session.open_sessions`)."""

    kind: str = "open"
    pid: int = 0
    boot: str = ""
    token: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "pid": self.pid, "boot": self.boot, "token": self.token}

    @classmethod
    def from_json(cls, data: Any) -> Owner:
        if not isinstance(data, dict) or data.get("kind") not in OWNER_KINDS:
            raise ValueError(f"owner must be one of {', '.join(OWNER_KINDS)}")
        return cls(str(data["kind"]), int(data.get("pid", 0)), str(data.get("boot", "")), str(data.get("token", "")))


@dataclass(frozen=True)
class StoredSession:
    """An open session: its seed material, where its DRBG stands as of log entry ``log_seq``
    (None: unknown, rebuild from the session entry), and what it was seeded from."""

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
    table_seed: str | None = None
    log_seq: int | None = None
    logged: bool = True  # False until the session entry is known to be in the log
    owner: Owner = field(default_factory=Owner)

    @property
    def commitment(self) -> str:
        return self.material.commitment

    @property
    def id(self) -> str:
        return self.commitment[:16]

    @property
    def is_test(self) -> bool:
        return self.material.is_test

    def to_json(self) -> dict[str, Any]:
        return {
            "version": _VERSION, "commitment": self.commitment, "seed": self.material.encode().hex(),
            "drbg": {"key": self.key.hex(), "v": self.v.hex(), "counter": self.counter},
            "rolls": self.rolls, "opened_ns": self.opened_ns, "block_bytes": self.block_bytes, "mode": self.mode,
            "sources": list(self.sources), "credited_bits": self.credited_bits, "table_seed": self.table_seed,
            "log_seq": self.log_seq, "logged": self.logged, "owner": self.owner.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any) -> StoredSession:
        """Parse :meth:`to_json`'s form (or version 1's); ``ValueError`` names what is wrong."""
        if not isinstance(data, dict) or data.get("version") not in (1, _VERSION):
            raise ValueError(f"not a version 1 or {_VERSION} session file")
        v1 = data["version"] == 1
        try:
            material = SeedMaterial.from_hex(data["seed"])
            drbg = data["drbg"]
            log_seq = None if v1 or data["log_seq"] is None else int(data["log_seq"])
            stored = cls(material, bytes.fromhex(drbg["key"]), bytes.fromhex(drbg["v"]), int(drbg["counter"]),
                         int(data["rolls"]), int(data["opened_ns"]), int(data["block_bytes"]), str(data["mode"]),
                         tuple(str(s) for s in data["sources"]),
                         None if data["credited_bits"] is None else int(data["credited_bits"]),
                         table_seed=None if v1 or data["table_seed"] is None else str(data["table_seed"]),
                         log_seq=log_seq, logged=True if v1 else bool(data["logged"]),
                         # a version 1 file is a tower's (open-sessions/): session.json is
                         # moved in as a `session open` one when found (open_sessions._migrate)
                         owner=Owner("tower") if v1 else Owner.from_json(data["owner"]))
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"a field is missing or has the wrong type ({exc})") from None
        if stored.commitment != data.get("commitment"):
            raise ValueError("its seed does not match its commitment")
        return stored


class DamagedFile(SessionFileError):
    """A session file whose bytes are not a session file's: not JSON, not UTF-8, too large,
    nested too deep, not an object. Unlike a link or a FIFO in its place (which a person put
    there, and can take away), nothing can be put back: the session it held is ended as
    damaged (:mod:`hardware.session.open_sessions`). ``why`` says what is wrong, in a few words."""

    def __init__(self, message: str, why: str) -> None:
        super().__init__(message)
        self.why = why


def read_raw(path: Path, *, below: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    """The JSON object in ``path`` as it is (None when there is no such file), read by the one
    rule. Bytes that are not a JSON object (damage) are :class:`DamagedFile`; a file that
    cannot be read at all (a link, a FIFO, a directory, no permission, an I/O error) is
    :class:`SessionFileError`: a person must look at it."""
    from hardware.files.safefile import FileRefused, load_json

    try:
        data = load_json(path, _MAX_BYTES, _MAX_DEPTH, below=below)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except FileRefused as exc:
        damage = {errno.EFBIG: "larger than any session file", errno.EILSEQ: "not text"}.get(exc.errno or 0)
        if damage is None and exc.errno == errno.EINVAL and "nests" in str(exc.strerror):
            damage = "nested deeper than any session file"
        if damage is not None:
            raise DamagedFile(f"the session file {path} is damaged ({exc.strerror})", damage) from None
        raise SessionFileError(f"the session file cannot be used: {exc.strerror}") from None
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or exc
        raise SessionFileError(f"cannot read the session file {path}: {why}") from None
    except (ValueError, RecursionError) as exc:
        raise DamagedFile(f"the session file {path} is damaged ({exc})", "not JSON") from None
    if not isinstance(data, dict):
        raise DamagedFile(f"the session file {path} is damaged (not a JSON object)", "not a JSON object")
    return data


def seed_of(data: dict[str, Any]) -> SeedMaterial | str:
    """The seed material a session file holds, or why there is none to use."""
    seed = data.get("seed")
    if not isinstance(seed, str):
        return "its seed is missing" if seed is None else "its seed is not text"
    try:
        return SeedMaterial.from_hex(seed)
    except ValueError:
        return "its seed is not seed material"


def owner_of(data: dict[str, Any]) -> Owner | str:
    """Who opened the session a file holds (a version 1 file's is a tower), or why it is not known."""
    if data.get("version") == 1 and "owner" not in data:
        return Owner("tower")
    try:
        return Owner.from_json(data.get("owner"))
    except (ValueError, TypeError):
        return "who opened it is not known (its owner is damaged)"


def set_aside(path: Path, *, below: str | os.PathLike[str] | None = None) -> Path:
    """Rename a damaged session file to ``ID.json.damaged`` beside it (no longer read as a
    session, kept for a person to look at) and make it durable; returns the new path."""
    from hardware.files.safefile import FileRefused, open_dir

    aside = path.with_name(path.name + ".damaged")
    try:
        dir_fd = open_dir(path.parent, below=below)
    except FileNotFoundError:
        return aside
    except OSError as exc:
        raise SessionWriteError(f"cannot set the damaged session file {path} aside: {exc.strerror or exc}",
                                str(exc.strerror or exc)) from None
    try:
        os.rename(path.name, aside.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        os.fsync(dir_fd)
    except FileNotFoundError:
        pass
    except (FileRefused, OSError) as exc:
        raise SessionWriteError(f"cannot set the damaged session file {path} aside: {exc.strerror or exc}",
                                str(exc.strerror or exc)) from None
    finally:
        os.close(dir_fd)
    return aside


def load_file(path: Path, *, below: str | os.PathLike[str] | None = None) -> StoredSession | None:
    """The session kept in ``path``, or None when there is no such file. Read by the one rule
    (:mod:`hardware.files.safefile`: no link followed, no FIFO waited on, size and depth capped);
    ``below`` is the state directory when ``path`` is in a folder of it (``open-sessions/``)."""
    from hardware.files.safefile import FileRefused, load_json

    try:
        data = load_json(path, _MAX_BYTES, _MAX_DEPTH, below=below)
    except (FileNotFoundError, NotADirectoryError):  # no such file (or no such folder)
        return None
    except FileRefused as exc:
        raise SessionFileError(f"the session file cannot be used: {exc.strerror}") from None
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or exc
        raise SessionFileError(f"cannot read the session file {path}: {why}") from None
    except ValueError as exc:
        raise SessionFileError(f"the session file {path} is damaged ({exc})") from None
    try:
        return StoredSession.from_json(data)
    except ValueError as exc:
        raise SessionFileError(f"the session file {path} is damaged ({exc})") from None


def save_file(path: Path, stored: StoredSession, *, below: str | os.PathLike[str] | None = None) -> None:
    """Write ``path`` atomically, mode 0600 (the temp file is created 0600). A file that cannot
    be written (full, read-only, removed) is :class:`SessionWriteError`."""
    from hardware.files.safefile import FileRefused

    try:
        atomic_write_bytes(path, (json.dumps(stored.to_json(), indent=1, sort_keys=True) + "\n").encode("ascii"),
                           below=below)
    except FileRefused as exc:
        if below is None or exc.filename != os.fspath(below):  # something planted in the state directory
            raise SessionFileError(f"cannot write the session file {path}: {exc.strerror}") from None
        # the state directory itself is no directory (a file in its place): nothing can be written there
        raise SessionWriteError(f"cannot write the session file {path}: {exc.strerror}", str(exc.strerror)) from None
    except OSError as exc:
        raise SessionWriteError(f"cannot write the session file {path}: {exc.strerror or exc}",
                                str(exc.strerror or exc)) from None


def remove_file(path: Path, *, below: str | os.PathLike[str] | None = None) -> None:
    """Remove ``path`` (gone already is fine; a link is removed, not followed) and make the
    removal durable."""
    from hardware.files.safefile import FileRefused, open_dir

    try:
        dir_fd = open_dir(path.parent, below=below)
    except FileNotFoundError:
        return
    except FileRefused as exc:
        raise SessionFileError(f"cannot remove the session file {path}: {exc.strerror}") from None
    except OSError as exc:
        raise SessionWriteError(f"cannot remove the session file {path}: {exc.strerror or exc}",
                                str(exc.strerror or exc)) from None
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path.name, dir_fd=dir_fd)
        os.fsync(dir_fd)
    except IsADirectoryError:
        raise SessionFileError(f"cannot remove the session file {path}: it is a directory; move it away") from None
    except OSError as exc:
        raise SessionWriteError(f"cannot remove the session file {path}: {exc.strerror or exc}",
                                str(exc.strerror or exc)) from None
    finally:
        os.close(dir_fd)
