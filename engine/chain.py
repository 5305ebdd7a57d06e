"""The roll log's hash chain, as pure data: what an entry's hash is, how a line is read, and
whether an entry follows the one before it (docs/fairness.md, "The roll log").

Reading files is :mod:`hardware.files.rolllog`'s; this is what every checker shares, so
``dicetower log verify``, ``replay``, the board and the phone page hold a log to one rule.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

__all__ = ["GENESIS", "StoredEntry", "canonical", "chain_problem", "entry_hash", "parse_line"]

#: ``prev`` of the first entry.
GENESIS = "0" * 64


def entry_hash(entry: dict[str, Any]) -> str:
    """SHA-256 of the entry's canonical JSON without its ``hash`` field."""
    return hashlib.sha256(canonical({k: v for k, v in entry.items() if k != "hash"})).hexdigest()


def canonical(entry: dict[str, Any]) -> bytes:
    """The entry as the log writes it: sorted keys, no spaces, ASCII."""
    return json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


@dataclass(frozen=True)
class StoredEntry:
    """One line of a log: its 1-based number in the whole chain (all rotated files), raw bytes
    (at most :data:`hardware.files.rolllog.MAX_LINE_BYTES`), parsed entry (or None), and whether it is complete (ends
    in a newline, or is a whole entry that only lacks it)."""

    line_no: int
    raw: bytes
    entry: dict[str, Any] | None
    complete: bool


def parse_line(raw: bytes) -> dict[str, Any] | None:
    """The JSON object on one line of a log, or None: not an object, not JSON, not UTF-8, or
    nested past the parser's recursion limit (the depth cap of a log line; lines are at most
    1 MiB: :data:`hardware.files.rolllog.MAX_LINE_BYTES`)."""
    if not raw or not raw.lstrip().startswith(b"{"):
        return None
    try:
        entry = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return entry if isinstance(entry, dict) else None


def chain_problem(stored: StoredEntry, prev: str, seq: int) -> str | None:
    """What is wrong with ``stored`` as the entry after one with hash ``prev`` and number
    ``seq`` (None: it follows on): the check made at each entry, by ``dicetower log verify``
    and by every verifier that takes entries one at a time (:mod:`engine.verify`)."""
    entry = stored.entry
    if not stored.complete:
        return "incomplete last line (no newline; power cut while writing?)"
    if entry is None:
        return "not a JSON object (edited or damaged)"
    missing = [k for k in ("seq", "prev", "hash", "kind") if k not in entry]
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    if entry["hash"] != entry_hash(entry):
        return "its content does not match its own hash: the entry was edited"
    got = entry["seq"]
    if got != seq + 1:
        if isinstance(got, int) and got > seq + 1:
            return f"seq is {got}, expected {seq + 1}: entries before it were dropped"
        return f"seq is {got}, expected {seq + 1}: entries were duplicated or reordered"
    if entry["prev"] != prev:
        if not seq:
            return "its prev hash is not the start of the log: entries before it were removed"
        return (
            f"its prev hash does not match entry {seq}'s hash ({str(entry['prev'])[:12]}… != {prev[:12]}…): "
            f"entry {seq} was edited and re-hashed, or this entry replaced"
        )
    return None
