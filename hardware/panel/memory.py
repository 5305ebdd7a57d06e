"""The panel's memory: its settings and player slots in ``STATE_DIR/panel.json``.

Beside the state store (:mod:`hardware.files.state`, which writes it atomically), and a cache of
the roll log, never its rival: the memory names the last log entry it reflects
(``log_seq``), and a memory older than the log's last panel roll (a kill between the roll's
append and the save) takes that roll's player slot from the log at start-up. A memory that
cannot be read starts the panel fresh; one that cannot be written is said once, and again
when it can be.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.panel import machine
from hardware.once import Once

if TYPE_CHECKING:
    from engine.panel.state import PanelState
    from hardware.files.rolllog import LenientLog, RollLog

__all__ = ["MAX_MEMORY_BYTES", "MAX_MEMORY_DEPTH", "PANEL_STATE", "PanelMemory"]

PANEL_STATE = "panel.json"
#: Panel memory files are small; anything bigger or deeper is not one.
MAX_MEMORY_BYTES = 256 * 1024
MAX_MEMORY_DEPTH = 32


class PanelMemory:
    """The memory file in ``state_dir`` (None: the panel forgets between runs)."""

    def __init__(self, state_dir: Path | None, *, roll_log: RollLog | LenientLog | None,
                 log: Callable[[str], None]) -> None:
        self.path = state_dir / PANEL_STATE if state_dir is not None else None
        self.roll_log = roll_log
        self.log = log
        self.log_seq = 0  # the log entry the memory reflects (the memory is a cache of the log)
        self.save_soon = False  # a roll was logged: save when its step is done, not a second later
        self._said = Once(log)

    def logged(self, seq: int) -> None:
        """A panel roll is in the log as entry ``seq``: the memory is to follow it."""
        if self.path is not None:
            self.log_seq = seq
            self.save_soon = True

    def recall_healed(self) -> dict[str, Any] | None:
        """The memory, with the slot of the log's last panel roll taken from the log if the
        memory is older than it (a kill between the roll's append and the save)."""
        saved = self.recall()
        seq = saved.get("log_seq") if saved is not None else 0
        self.log_seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else 0
        if saved is None or self.roll_log is None:
            return saved
        from hardware.files.rolllog import last_entry

        try:
            last = last_entry(self.roll_log.path, "roll", where=lambda e: e.get("source") == "panel")
        except Exception as exc:  # the roll log says why at the first roll
            self.log(f"panel memory: cannot check it against the roll log: {exc}")
            return saved
        slots, player, slot = saved.get("players"), last and last.get("player"), last and last.get("player_state")
        if last is None or last["seq"] <= self.log_seq or not isinstance(slots, list) or not slots \
                or not isinstance(player, int) or not isinstance(slot, dict):
            return saved
        slots = list(slots)
        slots[(player - 1) % len(slots)] = slot
        self.log_seq = last["seq"]
        self.log(f"panel memory: player {player}'s slot is behind the roll log; taken from entry {last['seq']}")
        return {**saved, "players": slots, "log_seq": last["seq"]}

    def recall(self, *, quiet: bool = False) -> dict[str, Any] | None:
        """The memory as stored, or None (none kept, none yet, or not one: said unless
        ``quiet``, and the panel starts fresh)."""
        if self.path is None:
            return None
        import errno

        from hardware.files.safefile import FileRefused, load_json

        try:
            data = load_json(self.path, MAX_MEMORY_BYTES, MAX_MEMORY_DEPTH)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as exc:
            if not quiet:
                why = ("it is a symbolic link" if isinstance(exc, OSError) and exc.errno == errno.ELOOP
                       else exc.reason if isinstance(exc, FileRefused)
                       else exc.strerror if isinstance(exc, OSError) and exc.strerror else exc)
                self.log(f"panel memory {self.path}: {why}; starting fresh")
            return None
        if not isinstance(data, dict):
            if not quiet:
                self.log(f"panel memory {self.path}: not a JSON object; starting fresh")
            return None
        return data

    def save(self, state: PanelState) -> None:
        """Write the panel's settings and player slots (atomically) if they changed. A
        failure (read-only or full card) is said once, not at every save, and its end too."""
        self.save_soon = False
        if self.path is None:
            return
        import json

        from hardware.files.state import atomic_write_json

        snapshot = {**machine.snapshot(state), "log_seq": self.log_seq}
        try:
            if self.recall(quiet=True) == json.loads(json.dumps(snapshot)):
                return
            atomic_write_json(self.path, snapshot)
        except (OSError, TypeError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            problem = f"panel memory {self.path}: {why}"
            self._said.say(problem, f"{problem}; the panel will not remember its settings")
            return
        self._said.over(f"panel memory {self.path}: saved again")
