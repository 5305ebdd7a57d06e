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
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engine.errors import EngineError, ParameterError
from engine.params import whole_number
from engine.systems.panel import value_at

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


class StateError(EngineError):
    """A state file cannot be read or written; the message names the file."""


class StateWriteError(StateError):
    """A state file or directory cannot be written (full, read-only, removed card): like a roll
    log that cannot be written, nothing can be recorded."""


def default_state_dir() -> Path:
    """``$DICETOWER_STATE_DIR``, else systemd's ``$STATE_DIRECTORY`` (the service's
    ``StateDirectory=``; the first one if it lists several), else ``$XDG_STATE_HOME/dicetower``,
    else ``~/.local/state/dicetower``."""
    env = os.environ.get("DICETOWER_STATE_DIR")
    if env:
        return Path(env)
    systemd = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    if systemd:
        return Path(systemd)
    xdg = os.environ.get("XDG_STATE_HOME")
    return Path(xdg) / "dicetower" if xdg else Path.home() / ".local" / "state" / "dicetower"


def fsync_dir(directory: Path) -> None:
    """Make a new or replaced directory entry durable (after os.replace or creating a file)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old or the new file, whole.

    Temp file in the same directory (``os.replace`` is atomic only within one file system),
    write, flush, fsync, replace, fsync the directory. On any error the temp file is removed
    and the old file is untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def atomic_write_json(path: str | os.PathLike[str], value: Any) -> None:
    atomic_write_bytes(path, (json.dumps(value, indent=2, sort_keys=True) + "\n").encode("utf-8"))


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
    if not text.strip():
        raise ParameterError(option, f"is empty ({text!r}); name a directory")
    return Path(text).expanduser()


class StateStore:
    """A state directory: player files and the roll log's path.

    The player files are a cache of the log (each roll entry carries ``player_state``, the
    player's state after the roll, and each file its ``log_seq``). Writers hold
    :func:`hardware.locking.state_lock` around load -> roll -> append -> save, so only the last
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
        from hardware.safefile import FileRefused, check_nesting, read_capped

        path = self.player_path(player)
        try:
            raw = read_capped(path, MAX_STATE_BYTES, follow=False)
            text = raw.decode("utf-8")  # not UTF-8 (a bad sector, an editor): damaged too
            check_nesting(text, MAX_STATE_DEPTH, path)
        except FileNotFoundError:
            return PlayerState(player)
        except FileRefused as exc:
            raise StateError(f"state file {exc.strerror}; fix it or move it aside") from None
        except OSError as exc:
            raise StateError(f"cannot read state file {_os_why(exc, path)}") from None
        except UnicodeDecodeError:
            raise StateError(f"state file {path} is damaged (not UTF-8 text); fix it or move it aside") from None
        try:
            data = json.loads(text)
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
            atomic_write_json(path, state.to_json())
        except OSError as exc:
            raise StateWriteError(f"cannot write state file {_os_why(exc, path)}") from None

    def check_writable(self, player: int) -> None:
        """Raise :class:`StateError` now if the player's file could not be saved (a read-only
        or missing ``players/``), so a roll is refused before anything is appended."""
        folder = self.player_path(player).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".check.", suffix=".tmp")
            os.close(fd)
            os.unlink(tmp)
        except OSError as exc:
            raise StateWriteError(f"cannot write player state in {_os_why(exc, folder)}") from None

    def clean_temp(self) -> list[Path]:
        """Remove temporary files a killed writer left (``.NAME.XXXX.tmp``); call it under the
        state lock, so no live writer's file is taken. Returns what was removed."""
        removed = []
        for folder in (self.directory, self.directory / "players"):
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                if name.startswith(".") and name.endswith(".tmp"):
                    with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                        os.unlink(folder / name)
                        removed.append(folder / name)
        return removed

    def heal(self) -> PlayerState | None:
        """Bring the player file of the log's last roll up to date with it, if it is behind
        (a kill between the roll's append and its state save). Call it under the state lock,
        before anything else. Returns the state written, or None when nothing was behind."""
        from hardware.rolllog import last_entry

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


def _os_why(exc: OSError, path: Path) -> str:
    if exc.errno == errno.ELOOP:
        return f"{path}: it is a symbolic link, and state files are never followed through one"
    return f"{path}: {exc.strerror or exc}"
