"""Per-player persistent state (karma, tracks, last settings), written atomically.

A state directory holds ``players/N.json`` (one file per player slot) and the roll log
``rolls.jsonl``. Every write goes to a temporary file in the same directory, is flushed and
fsynced, then ``os.replace``-d over the old file, and the directory is fsynced: a power cut
leaves either the old file or the new one, never a half-written one.

Which roll parameters are kept per player is declared by each system
(:attr:`engine.systems.panel.PanelSpec.carried`, read by :func:`carried`): a parameter not
given on the command line is read from the player's state, and the roll's result field is
stored back (fingers: ``karma`` in, ``karma_after`` out; horizons: the Stability track).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engine.errors import ParameterError
from engine.params import whole_number
from engine.systems.panel import value_at
from hardware.errors import HardwareError

__all__ = [
    "LOG_NAME",
    "MAX_PLAYER",
    "PlayerState",
    "StateError",
    "StateStore",
    "StateWriteError",
    "atomic_write_bytes",
    "atomic_write_json",
    "carried",
    "carried_value",
    "check_player",
    "check_state_dir",
    "default_state_dir",
    "fsync_dir",
]

#: File name of the roll log inside a state directory.
LOG_NAME = "rolls.jsonl"
#: Player slots are 1..MAX_PLAYER.
MAX_PLAYER = 99

def carried(system_id: str) -> tuple[tuple[str, str], ...]:
    """((parameter fed from state, result field stored back), ...) for a system: the values
    its spec says the rolling player carries. A dotted field reads inside a result object
    (``stability_after.marked``). Horizons' wound track belongs to the defender, so it is not
    the rolling player's to carry."""
    from engine import systems

    return tuple((c.param, c.field) for c in systems.get(system_id).panel.carried_for("roller"))


def carried_value(result: Mapping[str, Any], field_path: str) -> Any:
    """The value at a :func:`carried` field path in a result's JSON, or None when absent."""
    return value_at(result, field_path)


class StateError(HardwareError):
    """A state file cannot be read or written; the message names the file."""


class StateWriteError(StateError):
    """A state file or directory cannot be written (full, read-only, removed card): like a roll
    log that cannot be written, nothing can be recorded."""


def default_state_dir() -> Path:
    """``$DICETOWER_STATE_DIR``, else systemd's ``$STATE_DIRECTORY`` (the service's
    ``StateDirectory=``; the first one if it lists several), else ``$XDG_STATE_HOME/dicetower``,
    else ``~/.local/state/dicetower``. Each goes through :func:`hardware.files.paths.user_path`."""
    from hardware.files.paths import home_directory, user_path

    env = os.environ.get("DICETOWER_STATE_DIR")
    if env:
        return user_path(env, "$DICETOWER_STATE_DIR")
    systemd = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    if systemd:
        return user_path(systemd, "$STATE_DIRECTORY")
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg:
        return user_path(xdg, "$XDG_STATE_HOME") / "dicetower"
    return home_directory() / ".local" / "state" / "dicetower"


def fsync_dir(directory: Path) -> None:
    """Make a new or replaced directory entry durable (after os.replace or creating a file)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *,
                       below: str | os.PathLike[str] | None = None) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old or the new file, whole.

    Temp file (``.NAME.XXXXXXXX.tmp``, mode 0600) in the same directory (``os.replace`` is
    atomic only within one file system), write, flush, fsync, replace, fsync the directory.
    On any error the temp file is removed and the old file is untouched. The directory is
    opened as :func:`hardware.files.safefile.open_dir` opens it: with ``below`` (the state
    directory) no directory after it is followed through a symbolic link, and missing ones are
    made (0700); without it the parent is the user's and is made if missing.
    """
    from hardware.files.safefile import open_dir

    path = Path(path)
    dir_fd = open_dir(path.parent, below=below, create=True)
    try:
        tmp = _temp_file(path.name, dir_fd)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _temp_file(name: str, dir_fd: int) -> str:
    """Create a new empty temp file for ``name`` in the directory (0600, never an existing
    name, never through a link); returns its name."""
    import secrets

    for _ in range(100):
        tmp = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                             dir_fd=dir_fd))
        except FileExistsError:
            continue
        return tmp
    raise FileExistsError(errno.EEXIST, f"no free temporary name for {name}")


def atomic_write_json(path: str | os.PathLike[str], value: Any, *,
                      below: str | os.PathLike[str] | None = None) -> None:
    atomic_write_bytes(path, (json.dumps(value, indent=2, sort_keys=True) + "\n").encode("utf-8"), below=below)


@dataclass(frozen=True)
class PlayerState:
    """One player's state: ``values[system][key]``. Immutable; :meth:`with_value` copies.

    ``log_seq`` is the ``seq`` of the roll log entry this state was last written after: the
    file is a cache of the log, and a file behind the log is rebuilt from it."""

    player: int
    values: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    log_seq: int = 0

    def __post_init__(self) -> None:
        frozen = {str(s): MappingProxyType(dict(v)) for s, v in self.values.items()}
        object.__setattr__(self, "values", MappingProxyType(frozen))

    def get(self, system: str, key: str, default: Any = None) -> Any:
        return self.values.get(system, {}).get(key, default)

    def with_value(self, system: str, key: str, value: Any) -> PlayerState:
        values = {s: dict(v) for s, v in self.values.items()}
        values.setdefault(system, {})[key] = value
        return PlayerState(self.player, values, self.log_seq)

    def systems_json(self) -> dict[str, dict[str, Any]]:
        """``values`` as plain JSON (what a roll entry carries as ``player_state``)."""
        return {s: dict(v) for s, v in self.values.items()}

    def to_json(self) -> dict[str, Any]:
        return {"version": 1, "player": self.player, "systems": self.systems_json(), "log_seq": self.log_seq}


def check_player(player: Any) -> int:
    """A player slot number, or a :class:`~engine.errors.ParameterError` naming ``--player``."""
    return whole_number("player", player, 1, MAX_PLAYER)


#: A player's state file is a few hundred bytes; anything much larger is not one.
MAX_STATE_BYTES = 64 * 1024
#: ``{"systems": {"horizons": {"stability": ...}}}`` nests 3 deep.
MAX_STATE_DEPTH = 8
#: How much of the roll log's end is read to find the last roll (see :meth:`StateStore.heal`).
HEAL_WINDOW_BYTES = 1 << 20


def check_state_dir(text: str, option: str = "state-dir") -> Path:
    """A state directory named on the command line or in the config; "" is not one."""
    from hardware.files.paths import option_path

    if not text.strip():
        raise ParameterError(option, f"is empty ({text!r}); name a directory")
    return option_path(text, option)


class StateStore:
    """A state directory: player files and the roll log's path.

    The player files are a cache of the log (each roll entry carries ``player_state``, the
    player's state after the roll, and each file its ``log_seq``). Writers hold
    :func:`hardware.files.locking.state_lock` around load -> roll -> append -> save, so only the last
    roll in the log can be missing from its player's file (a kill between the append and the
    save): :meth:`heal`, called first under the lock, writes it.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        if self.directory.exists() and not self.directory.is_dir():
            raise StateError(f"state directory {self.directory} is not a directory")

    def __repr__(self) -> str:
        return f"StateStore({str(self.directory)!r})"

    @property
    def log_path(self) -> Path:
        return self.directory / LOG_NAME

    def player_path(self, player: int) -> Path:
        return self.directory / "players" / f"{check_player(player)}.json"

    def load(self, player: int) -> PlayerState:
        """The player's state; a fresh one if the player has none yet."""
        from hardware.files.safefile import FileRefused, load_json

        path = self.player_path(player)
        try:
            data = load_json(path, MAX_STATE_BYTES, MAX_STATE_DEPTH, below=self.directory)
        except FileNotFoundError:
            return PlayerState(player)
        except FileRefused as exc:
            raise StateError(f"state file {exc.strerror}; fix it or move it aside") from None
        except OSError as exc:
            raise StateError(f"cannot read state file {_os_why(exc, path)}") from None
        except ValueError as exc:
            raise StateError(f"state file {path} is damaged ({exc}); fix it or move it aside") from None
        try:
            systems = data["systems"]
            if not isinstance(systems, dict) or not all(isinstance(v, dict) for v in systems.values()):
                raise TypeError("systems must map names to objects")
            if type(data.get("player")) is not int or data["player"] != player:  # true == 1
                raise ValueError(f"it belongs to player {data.get('player')!r}")
            log_seq = data.get("log_seq", 0)
            if isinstance(log_seq, bool) or not isinstance(log_seq, int) or log_seq < 0:
                raise ValueError(f"log_seq is {log_seq!r}, not a whole number")
        except (ValueError, KeyError, TypeError) as exc:
            raise StateError(f"state file {path} is damaged ({exc}); fix it or move it aside") from None
        return PlayerState(player, systems, log_seq)

    def save(self, state: PlayerState) -> None:
        path = self.player_path(state.player)
        try:
            atomic_write_json(path, state.to_json(), below=self.directory)
        except OSError as exc:
            raise StateWriteError(f"cannot write state file {_os_why(exc, path)}") from None

    def check_writable(self, player: int) -> None:
        """Raise :class:`StateError` now if the player's file could not be saved (a read-only
        or missing ``players/``), so a roll is refused before anything is appended."""
        from hardware.files.safefile import FileRefused, open_dir

        folder = self.player_path(player).parent
        try:
            dir_fd = open_dir(folder, below=self.directory, create=True)
            try:
                os.unlink(_temp_file("check", dir_fd), dir_fd=dir_fd)
            finally:
                os.close(dir_fd)
        except FileRefused as exc:
            raise StateError(f"cannot keep player state: {exc.strerror}; move it aside") from None
        except OSError as exc:
            raise StateWriteError(f"cannot write player state in {_os_why(exc, folder)}") from None

    def clean_temp(self) -> list[Path]:
        """Remove temporary files a killed writer left; see :func:`clean_temp`."""
        return clean_temp(self.directory)

    def heal(self) -> PlayerState | None:
        """Bring the player file of the log's last roll up to date with it, if it is behind
        (a kill between the roll's append and its state save). Call it under the state lock,
        before anything else. Returns the state written, or None when nothing was behind."""
        from hardware.files.rolllog import last_entry

        last = last_entry(self.log_path, "roll", max_bytes=HEAL_WINDOW_BYTES)
        if last is None or last.get("source") == "panel" or not isinstance(last.get("player_state"), dict):
            return None  # the panel keeps its player slots in its own memory
        try:
            player = check_player(last.get("player"))
        except ParameterError:
            return None
        current = self.load(player)
        if current.log_seq >= last["seq"]:
            return None
        systems = {s: v for s, v in last["player_state"].items() if isinstance(v, dict)}
        healed = PlayerState(player, systems, last["seq"])
        self.save(healed)
        return healed


#: A temp file of a writer that may not hold the lock (the tower's panel memory, the MQTT
#: cursor) is taken for a killed writer's only when it is older than this.
UNLOCKED_TEMP_AGE_S = 60.0


def clean_temp(directory: str | os.PathLike[str]) -> list[Path]:
    """Remove temporary files a killed writer left (``.NAME.XXXXXXXX.tmp``) in the state
    directory, ``players/`` and ``open-sessions/``; called under the state lock, by every
    command that takes it (:func:`hardware.files.locking.state_lock`). Player files, open sessions
    (every writer keeps, refreshes and forgets them under the lock) and an earlier version's
    ``session.json`` are written only under the lock, so their temp files are always a killed
    writer's; the others (panel memory, MQTT cursor) may be written without it, so theirs are
    removed once they are :data:`UNLOCKED_TEMP_AGE_S` old. Folders behind a symbolic link are
    not looked into. Returns what was removed."""
    import time

    from hardware.files.safefile import open_dir

    top = Path(directory)
    removed = []
    now = time.time()
    for sub in ("", "players", "open-sessions"):
        folder = top / sub if sub else top
        try:
            dir_fd = open_dir(folder, below=top)
        except OSError:
            continue
        try:
            for name in os.listdir(dir_fd):
                if not (name.startswith(".") and name.endswith(".tmp")):
                    continue
                locked = sub in ("players", "open-sessions") or (sub == "" and name.startswith(".session.json."))
                with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                    if not locked and now - os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mtime \
                            < UNLOCKED_TEMP_AGE_S:
                        continue
                    os.unlink(name, dir_fd=dir_fd)
                    removed.append(folder / name)
        finally:
            os.close(dir_fd)
    return removed


def _os_why(exc: OSError, path: Path) -> str:
    if exc.errno == errno.ELOOP:
        return f"{path}: it is a symbolic link, and state files are never followed through one"
    return f"{path}: {exc.strerror or exc}"
