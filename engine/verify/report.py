"""What the verifier reports: findings, flags, the sessions as their reveal cards show them,
the noted results as the log holds them, and the whole verdict (:class:`ReplayReport`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.chain import GENESIS
from engine.fingerprints import NO_TABLE_SEED, Noted, RevealFacts, parse_expect, read_reveal_card

__all__ = ["DamagedSession", "Finding", "Flag", "NotedRoll", "Notes", "OpenSession", "ReplayReport", "SessionFacts",
           "Step"]


@dataclass(frozen=True)
class Finding:
    """A problem found at one log entry (1-based line number; 0: the log as a whole), with its
    code (:data:`CODES`)."""

    line_no: int
    message: str
    code: str = "unverifiable"

    def __str__(self) -> str:
        where = f"entry {self.line_no}" if self.line_no else "log"
        return f"{where}: {self.code}: {self.message}"


@dataclass(frozen=True)
class Flag:
    """Something to look at twice (:data:`FLAGS`), at one entry."""

    line_no: int
    code: str
    message: str

    def __str__(self) -> str:
        return f"entry {self.line_no}: {self.code}: {self.message}"


@dataclass(frozen=True)
class OpenSession:
    """A session with no reveal (yet): its rolls cannot be checked."""

    session: str
    line_no: int
    rolls: int


@dataclass(frozen=True)
class DamagedSession:
    """A session ended by a ``session_damaged`` entry: its kept file was damaged and its seed
    lost, so its rolls cannot be checked; ``why`` is the reason the entry gives."""

    session: str
    line_no: int
    rolls: int
    why: str


@dataclass(frozen=True)
class SessionFacts:
    """A session as its reveal card shows it (commitment, table seed, rolls, head: the reveal
    entry's hash, empty while open), where it starts in the log, and what player mode made of
    it (``night``: in the players' night)."""

    session: str
    line_no: int
    commitment: str
    table_seed: str | None
    rolls: int
    head: str
    night: bool = False


@dataclass(frozen=True)
class NotedRoll:
    """A result the players noted, as the log holds it: compare it with the photo of its
    screen (the outcome and the dice), which no checker can see."""

    line_no: int
    number: int  # 0: a typed-in roll, outside every session
    fingerprint: str
    system: str
    outcome: str
    dice: tuple[str, ...]
    mix: str = ""
    shown: str = ""  # the result screen's first line as the OLED drew it from this entry (``d6cv 3 vs 7``)

    def __str__(self) -> str:
        name = f"roll #{self.number}" if self.number else "typed-in roll"
        mix = f", mix {self.mix!r}" if self.mix else ""
        screen = f"\"{self.shown}\": " if self.shown else ""
        return (f"{name} {self.fingerprint}: {screen}{self.system} {self.outcome}, dice {' '.join(self.dice) or '-'}"
                f"{mix}")


@dataclass(frozen=True)
class Step:
    """What one entry decided: problems found, and the rolls (line numbers) verified by it."""

    findings: tuple[Finding, ...] = ()
    verified: tuple[int, ...] = ()


@dataclass(frozen=True)
class Notes:
    """What the players noted at the table (docs/fairness.md, "What a player can verify"):
    ``expect`` (commitments, results as ``N:HEX``, the reveal's head), ``table_seeds`` (the
    codes they set), ``allow_mix`` (each ``--mix`` text they typed, once per roll it went
    into), ``allow_entered`` (how many rolls they typed in), ``allow_command_line`` (how many
    rolls they made from the command line in sessions the panel rolled in), ``cards`` (the
    reveal cards they photographed, read back: :func:`~engine.fingerprints.read_reveal_card`)
    and ``count`` (the rolls they counted at the table over the whole night, every session
    together; None: not counted, so every roll of the night must be noted as ``N:HEX``).
    Any of ``expect``, ``table_seeds`` or ``cards`` puts the checkers in player mode."""

    expect: tuple[Noted, ...] = ()
    table_seeds: tuple[str, ...] = ()
    allow_mix: tuple[str, ...] = ()
    allow_entered: int = 0
    allow_command_line: int = 0
    cards: tuple[RevealFacts, ...] = ()
    count: int | None = None

    def __post_init__(self) -> None:
        if self.count is not None and (isinstance(self.count, bool) or not isinstance(self.count, int)
                                       or self.count < 0):
            raise ValueError(f"count must be a whole number of rolls, 0 or more, got {self.count!r}")

    @classmethod
    def of(cls, expect: Sequence[str | Noted] = (), table_seeds: Sequence[str] = (), allow_mix: Sequence[str] = (),
           allow_entered: int = 0, *, allow_command_line: int = 0, cards: Sequence[str | RevealFacts] = (),
           count: int | None = None) -> Notes:
        """From what was typed (``ValueError`` for a noted value or a card that is not one)."""
        noted = tuple(e if isinstance(e, Noted) else parse_expect(e) for e in expect)
        read = tuple(c if isinstance(c, RevealFacts) else read_reveal_card(c) for c in cards)
        return cls(noted, tuple(table_seeds), tuple(allow_mix), int(allow_entered), int(allow_command_line), read,
                   count)

    def to_json(self) -> dict[str, Any]:
        """Everything but ``expect`` (the verifier keeps those with what they matched), as JSON."""
        return {"table_seeds": list(self.table_seeds), "allow_mix": list(self.allow_mix),
                "allow_entered": self.allow_entered, "allow_command_line": self.allow_command_line,
                "cards": [list(c) for c in self.cards], "count": self.count}

    @classmethod
    def from_json(cls, expect: tuple[Noted, ...], kept: dict[str, Any]) -> Notes:
        return cls(expect, tuple(kept.get("table_seeds", ())), tuple(kept.get("allow_mix", ())),
                   int(kept.get("allow_entered", 0)), int(kept.get("allow_command_line", 0)),
                   tuple(RevealFacts(str(c[0]), str(c[1]), int(c[2]), str(c[3])) for c in kept.get("cards", ())),
                   kept.get("count"))

    @property
    def player_mode(self) -> bool:
        return bool(self.expect or self.table_seeds or self.cards)

    @property
    def codes(self) -> frozenset[str]:
        """The table seeds the players set: those given, and those on the cards they noted."""
        return frozenset(self.table_seeds) | {c.table_seed for c in self.cards if c.table_seed != NO_TABLE_SEED}


@dataclass(frozen=True)
class ReplayReport:
    path: str  # the log it was read from (as given; "-": not a file)
    entries: int
    sessions: int
    revealed: int
    rolls_verified: int
    rolls_entered: int
    rolls_test: int
    rolls_open: int
    open_sessions: tuple[OpenSession, ...]
    problems: tuple[Finding, ...]
    notes: tuple[str, ...]
    without_table_seed: tuple[OpenSession, ...] = ()
    rolls_mixed: int = 0
    head: str = GENESIS
    flags: tuple[Flag, ...] = ()  # the latest FLAGS_KEPT
    flag_counts: dict[str, int] = field(default_factory=dict)  # every flag, by code
    facts: tuple[SessionFacts, ...] = ()  # the players' night in player mode, else the last session
    outside: int = 0  # player mode: sessions with rolls outside the players' night (not checked against notes)
    noted_rolls: tuple[NotedRoll, ...] = ()  # player mode: each noted result as the log holds it
    endings: dict[str, Any] = field(default_factory=dict)  # sessions ended early (engine.verify.endings)
    night_rolls: int | None = None  # player mode: the rolls of the players' night (what --count counts)
    damaged: tuple[DamagedSession, ...] = ()  # sessions ended as damaged (no seed to check their rolls)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first_problem(self) -> Finding | None:
        return self.problems[0] if self.problems else None

    # the names of the first version of this report (the board reads them)
    @property
    def rolls_checked(self) -> int:
        return self.rolls_verified

    @property
    def rolls_unrevealed(self) -> int:
        return self.rolls_open

    @property
    def rolls_typed(self) -> int:
        return self.rolls_entered

    def to_dict(self) -> dict[str, Any]:
        return {
            "log": str(self.path), "entries": self.entries, "sessions": self.sessions, "revealed": self.revealed,
            "rolls": {"verified": self.rolls_verified, "entered": self.rolls_entered, "test": self.rolls_test,
                      "open": self.rolls_open},
            "rolls_mixed": self.rolls_mixed,
            "rolls_checked": self.rolls_verified, "rolls_unrevealed": self.rolls_open,
            "rolls_typed": self.rolls_entered, "ok": self.ok, "head": self.head,
            "open_sessions": [{"session": o.session, "entry": o.line_no, "rolls": o.rolls}
                              for o in self.open_sessions],
            "without_table_seed": [{"session": o.session, "entry": o.line_no, "rolls": o.rolls}
                                   for o in self.without_table_seed],
            "problems": [{"entry": p.line_no, "code": p.code, "message": p.message} for p in self.problems],
            "flags": [{"entry": f.line_no, "code": f.code, "message": f.message} for f in self.flags],
            "flag_counts": dict(self.flag_counts),
            "sessions_shown": [{"session": f.session, "entry": f.line_no, "commitment": f.commitment,
                                "table_seed": f.table_seed, "rolls": f.rolls, "head": f.head, "night": f.night}
                               for f in self.facts],
            "outside_night": self.outside,
            "noted_rolls": [{"entry": r.line_no, "number": r.number, "fingerprint": r.fingerprint, "system": r.system,
                             "outcome": r.outcome, "dice": list(r.dice), "mix": r.mix, "shown": r.shown}
                            for r in self.noted_rolls],
            "endings": dict(self.endings),
            "night_rolls": self.night_rolls,
            "damaged_sessions": [{"session": d.session, "entry": d.line_no, "rolls": d.rolls, "why": d.why}
                                 for d in self.damaged],
            "notes": list(self.notes),
        }
