"""Where an open session stands in the roll log: its DRBG, its rolls and its table seed.

A state directory has one open session at a time, and every writer there (the tower, a
``roll`` command, ``session seed``, ``session close``) may move it on. The log is the truth:
before a writer rolls, it brings its copy of the session up to date from the log entries the
others appended since it last looked (:meth:`Progress.apply`): a ``table_seed`` entry makes
the table seed's generate call, a ``roll`` entry moves the DRBG past the generate calls it
used (with its mix, without drawing its dice), a ``reveal`` (or ``session_damaged``) entry
ends the session. Nothing a writer keeps in a file or in memory can therefore get ahead of,
or behind, the log: a kept file's progress is never read back, it is replayed from the seed
through the session's entries (:mod:`hardware.session.open_sessions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.seeds import RollStream, SeedMaterial
from hardware.files.rolllog import LogError

if TYPE_CHECKING:
    # a session kept in a state directory only: start-up without one does without it
    from hardware.session.file import StoredSession

__all__ = ["Progress", "SessionSyncError"]


class SessionSyncError(LogError):
    """The roll log holds an entry of the open session that does not follow from where the
    session stands (a roll that does not start where the last one ended): the session cannot
    go on; reveal it (``dicetower session close``) so the log can be checked."""


@dataclass
class Progress:
    """One session's place in the log: the DRBG after its last logged roll (or table seed),
    its roll count, its table seed, the last log entry taken into account (``log_seq``; None:
    not known, the session's entries are taken from its ``session`` entry on), whether its
    ``session`` entry is known to be in the log, and whether the log has revealed it."""

    material: SeedMaterial
    stream: RollStream
    rolls: int = 0
    table_seed: str | None = None
    log_seq: int | None = None
    logged: bool = False
    revealed: bool = False

    @property
    def id(self) -> str:
        return self.material.commitment[:16]

    @property
    def position(self) -> int:
        """Generate calls made so far (the table seed's included): where the next roll starts."""
        return self.stream.blocks

    @classmethod
    def fresh(cls, material: SeedMaterial, block_bytes: int, log_seq: int | None) -> Progress:
        """A session just instantiated; its ``session`` entry comes after ``log_seq``."""
        return cls(material, RollStream(material, block_bytes=block_bytes), log_seq=log_seq)

    def apply(self, entry: dict[str, Any]) -> None:
        """Take one log entry of this session into account (entries in log order, each once)."""
        seq = entry.get("seq")
        if isinstance(seq, int) and self.log_seq is not None and seq <= self.log_seq:
            return  # taken into account already
        kind = entry.get("kind")
        if kind == "session":
            self.logged = True
        elif kind == "table_seed" and self.table_seed is None:
            text = entry.get("table_seed")
            if not isinstance(text, str) or self.position != 0:
                raise SessionSyncError(f"entry {seq}: a table seed the open session #{self.id[:8]} cannot take")
            self.stream.set_table_seed(text)
            self.table_seed = text
        elif kind == "roll":
            start, end, mix = entry.get("start"), entry.get("end"), entry.get("mix", "")
            try:
                # a forged entry's start or end that is no number: skip raises TypeError, refused below
                self.stream.skip(start, end, bytes.fromhex(mix))  # type: ignore[arg-type]
            except (ValueError, TypeError):
                raise SessionSyncError(
                    f"entry {seq}: a roll of the open session #{self.id[:8]} at generate calls {start}..{end}, but "
                    f"the session stands at call {self.position}; reveal it (dicetower session close) and check "
                    "the log") from None
            self.rolls += 1
        elif kind in ("reveal", "session_damaged"):  # revealed, or ended as damaged (its seed lost)
            self.revealed = True
        if isinstance(seq, int):
            self.log_seq = seq

    def stored(self, template: StoredSession) -> StoredSession:
        """``template`` (the session's kept file) with this progress as its cache."""
        from hardware.session.file import StoredSession

        key, v, counter = self.stream.drbg.export_state()
        return StoredSession(self.material, key, v, counter, self.rolls, template.opened_ns, template.block_bytes,
                             template.mode, template.sources, template.credited_bits, self.table_seed, self.log_seq,
                             self.logged, template.owner)
