"""The publisher's cursor: the last roll-log entry the broker acknowledged.

A small JSON file written atomically (``hardware.files.state.atomic_write_json``), so a power cut
leaves the old cursor or the new one. A cursor behind the truth only means a few entries are
published twice, which consumers drop by seq and hash; it is never ahead of what was
acknowledged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hardware.files.rolllog import GENESIS
from hardware.files.state import atomic_write_json

#: File name of the cursor inside the state directory.
CURSOR_NAME = "mqtt-cursor.json"
#: A cursor is about 150 bytes of flat JSON; anything larger or deeper is not one.
MAX_CURSOR_BYTES = 4096
MAX_CURSOR_DEPTH = 4


@dataclass(frozen=True)
class Cursor:
    """``seq`` and ``hash`` of the last acknowledged entry (0 and GENESIS: none yet), and the
    store and tower it was published as."""

    store: str
    tower: str
    seq: int = 0
    hash: str = GENESIS


def load_cursor(path: Path, store: str, tower: str) -> tuple[Cursor, str]:
    """The cursor at ``path`` and a note for the log ("" when all is well). A missing,
    unreadable or damaged file, or one written for another store or tower id, starts from the
    beginning of the log: publishing too much is harmless, too little is not."""
    from hardware.files.safefile import load_json

    fresh = Cursor(store, tower)
    try:  # by the one rule: a FIFO, /dev/zero or deep nesting planted here is refused
        data = load_json(path, MAX_CURSOR_BYTES, MAX_CURSOR_DEPTH)
    except FileNotFoundError:
        return fresh, ""
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return fresh, f"cursor {path}: {why}; publishing the whole log again"
    seq, digest = (data.get("seq"), data.get("hash")) if isinstance(data, dict) else (None, None)
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0 or not isinstance(digest, str):
        return fresh, f"cursor {path}: not a cursor; publishing the whole log again"
    if (data.get("store"), data.get("tower")) != (store, tower):
        return fresh, (f"cursor {path} was written for {data.get('store')}/{data.get('tower')}; "
                       f"publishing the whole log as {store}/{tower}")
    return Cursor(store, tower, seq, digest), ""


def save_cursor(path: Path, cursor: Cursor) -> None:
    atomic_write_json(path, {"store": cursor.store, "tower": cursor.tower, "seq": cursor.seq, "hash": cursor.hash})
