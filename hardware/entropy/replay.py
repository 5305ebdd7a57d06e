"""Replay a roll log file: :mod:`engine.verify`'s verifier fed from the file's entries.

The checks are the engine's (:class:`engine.verify.Verifier`); this module only reads the
log's files (rotated ones as one chain) and hands their entries over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from engine.chain import StoredEntry
from engine.fingerprints import Noted
from engine.verify import Notes, ReplayReport, Verifier
from hardware.files.rolllog import read_entries

__all__ = ["replay_entries", "replay_log"]


def replay_log(path: str | Path, *, expect: Sequence[str | Noted] = (), table_seeds: Sequence[str] = (),
               notes: Notes | None = None) -> ReplayReport:
    """Check every roll in the log at ``path``; see the module docstring."""
    path = Path(path)
    return replay_entries(lambda: read_entries(path), path, expect=expect, table_seeds=table_seeds, notes=notes)


def replay_entries(entries: Callable[[], Iterable[StoredEntry]], path: str | Path = "-", *,
                   expect: Sequence[str | Noted] = (), table_seeds: Sequence[str] = (),
                   notes: Notes | None = None) -> ReplayReport:
    """:func:`replay_log` on entries from anywhere (a file, a broker's stream). ``entries``
    gives an iterable of the log's entries, in order (it is called once)."""
    verifier = Verifier(notes=notes if notes is not None else Notes.of(expect, table_seeds))
    for stored in entries():
        verifier.feed(stored)
    return verifier.report(path)
