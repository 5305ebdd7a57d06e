"""What the retained status message says about a tower, kept up to date from its log entries.

The status is a summary a consumer can show before it has the whole log: online or offline,
the system and setting of the last roll, the open session's commitment, how many rolls and
the log's head (its last seq and hash, which a consumer compares with what it holds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ONLINE = "online"
OFFLINE = "offline"
#: A tower republishes its status at least this often, changed or not, so a consumer that
#: hears nothing for much longer knows its link is down (the board's "stale").
HEARTBEAT_S = 30.0


@dataclass
class LogSummary:
    """Folded from entries in log order; an entry at or before ``seq`` is ignored (re-reads)."""

    seq: int = 0
    head: str = ""
    rolls: int = 0
    system: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    session: str | None = None
    commitment: str | None = None

    def add(self, entry: dict[str, Any]) -> None:
        seq = entry.get("seq")
        if not isinstance(seq, int) or seq <= self.seq:
            return
        self.seq, self.head = seq, str(entry.get("hash", ""))
        kind = entry.get("kind")
        if kind == "roll":
            self.rolls += 1
            result = entry.get("result")
            if isinstance(result, dict):
                self.system = result.get("system", self.system)
                params = result.get("params")
                self.params = params if isinstance(params, dict) else {}
        elif kind == "session":
            self.session, self.commitment = entry.get("session"), entry.get("commitment")
        elif kind in ("reveal", "session_damaged") and entry.get("session") == self.session:
            self.session, self.commitment = None, None

    def body(self, state: str, store: str, tower: str) -> dict[str, Any]:
        return {
            "state": state, "store": store, "tower": tower, "system": self.system, "params": self.params,
            "session": self.session, "commitment": self.commitment, "rolls": self.rolls,
            "seq": self.seq, "head": self.head,
        }
