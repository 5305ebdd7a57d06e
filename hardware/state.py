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
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engine.errors import EngineError
from engine.params import whole_number
from engine.systems.panel import value_at

__all__ = [
    "LOG_NAME",
    "MAX_PLAYER",
    "PlayerState",
    "StateError",
    "StateStore",
    "atomic_write_bytes",
    "atomic_write_json",
    "carried",
    "carried_value",
    "check_player",
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


def default_state_dir() -> Path:
    """``$DICETOWER_STATE_DIR``, else ``$XDG_STATE_HOME/dicetower``, else ``~/.local/state/dicetower``."""
    env = os.environ.get("DICETOWER_STATE_DIR")
    if env:
        return Path(env)
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
    """One player's state: ``values[system][key]``. Immutable; :meth:`with_value` copies."""

    player: int
    values: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        frozen = {str(s): MappingProxyType(dict(v)) for s, v in self.values.items()}
        object.__setattr__(self, "values", MappingProxyType(frozen))

    def get(self, system: str, key: str, default: Any = None) -> Any:
        return self.values.get(system, {}).get(key, default)

    def with_value(self, system: str, key: str, value: Any) -> PlayerState:
        values = {s: dict(v) for s, v in self.values.items()}
        values.setdefault(system, {})[key] = value
        return PlayerState(self.player, values)

    def to_json(self) -> dict[str, Any]:
        return {"version": 1, "player": self.player, "systems": {s: dict(v) for s, v in self.values.items()}}


def check_player(player: Any) -> int:
    """A player slot number, or a :class:`~engine.errors.ParameterError` naming ``--player``."""
    return whole_number("player", player, 1, MAX_PLAYER)


class StateStore:
    """A state directory: player files and the roll log's path."""

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
        path = self.player_path(player)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return PlayerState(player)
        except OSError as exc:
            raise StateError(f"cannot read state file {path}: {exc.strerror or exc}") from None
        try:
            data = json.loads(raw.decode("utf-8"))  # not UTF-8 (a bad sector, an editor): damaged too
            systems = data["systems"]
            if not isinstance(systems, dict) or not all(isinstance(v, dict) for v in systems.values()):
                raise TypeError("systems must map names to objects")
            if data.get("player") != player:
                raise ValueError(f"it belongs to player {data.get('player')!r}")
        except (ValueError, KeyError, TypeError) as exc:
            raise StateError(f"state file {path} is damaged ({exc}); fix it or move it aside") from None
        return PlayerState(player, systems)

    def save(self, state: PlayerState) -> None:
        path = self.player_path(state.player)
        try:
            atomic_write_json(path, state.to_json())
        except OSError as exc:
            raise StateError(f"cannot write state file {path}: {exc.strerror or exc}") from None
