"""The board's verdict on one tower: exactly what ``dicetower replay`` says of its entries.

This module is the board's one seam to the verifier. :func:`check_tower` takes the tower's
entries (in chain order, from the board's record) and the state saved after the last call,
and returns the verifier's findings, its roll counts, the rolls it verified and the new state
to save. Nothing else in the board decides whether a roll is honest: the board's own checks
are about transport (hash chain, conflicting entries, malformed messages), never about dice.

It feeds the entries to :class:`engine.verify.Verifier`, the incremental verifier
behind ``dicetower replay`` (one entry at a time, each problem reported at the entry that
decides it, a JSON state between entries). The state saved is the verifier's at a point where
no session is open if there is one (before the newest session entry not revealed yet), so it
stays small: the open session's entries, whose rolls cannot be decided before its reveal, are
fed again at each call to a copy of the verifier, and their findings come back as *pending*
(found again, or not, next time); everything before that point is decided for good.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.chain import StoredEntry
from engine.verify import CHAIN_FINDING, Finding, Verifier

#: The version of the state this module writes (another version is thrown away: the checks
#: start again from the first entry).
STATE_VERSION = 2

Entry = dict[str, Any]


class TowerEntries(Protocol):
    """One tower's entries in chain order, as the board's record holds them."""

    def between(self, first: int, last: int) -> Iterable[Entry]:
        """The entries with ``first <= seq <= last``, in seq order."""
        ...


@dataclass(frozen=True)
class Counts:
    """What the verifier counted (replay's report): rolls by kind, sessions."""

    verified: int = 0  # rolled rolls of revealed sessions, recomputed
    entered: int = 0
    test: int = 0
    unchecked: int = 0  # rolls of sessions not revealed (yet), or left open
    sessions: int = 0
    revealed: int = 0
    flags: tuple[tuple[str, int], ...] = ()  # what to look at twice (replay's FLAGS), by code

    def to_dict(self) -> dict[str, Any]:
        return {"verified": self.verified, "entered": self.entered, "test": self.test,
                "unchecked": self.unchecked, "sessions": self.sessions, "revealed": self.revealed,
                "flags": dict(self.flags)}


@dataclass(frozen=True)
class Settled:
    """A session revealed and decided in this call: its session entry's and its reveal's seq."""

    session: str
    first: int
    last: int


@dataclass(frozen=True)
class Checked:
    """The verifier's answer for one tower.

    ``findings`` are decided for good (entries up to ``through``); ``pending`` are about the
    entries after it, found again (or not) next time. ``verified`` are the seqs of the rolls
    verified in this call, ``settled`` the sessions revealed in it. ``restarted``: the state
    given could not be used, so the checks went back to the first entry and replace whatever
    earlier calls found. ``state`` is what to save and pass to the next call."""

    state: dict[str, Any]
    through: int
    findings: tuple[Finding, ...]
    pending: tuple[Finding, ...]
    counts: Counts
    settled: tuple[Settled, ...]
    restarted: bool
    verified: tuple[int, ...] = ()

    @property
    def problems(self) -> tuple[Finding, ...]:
        return tuple(sorted((*self.findings, *self.pending), key=lambda f: f.line_no))


def check_tower(entries: TowerEntries, state: Mapping[str, Any] | None, head: int) -> Checked:
    """The verifier's findings on the tower's entries 1..``head``, going on from ``state``
    (None: from the first entry). See the module docstring."""
    verifier, through = _resume(state)
    restarted = verifier is None or through > head
    if verifier is None or through > head:
        verifier, through = Verifier(), 0
    scan = _scan(entries.between(through + 1, head), through + 1)
    head = scan.last  # only entries it was given (never past a gap)
    cut = scan.cut(head)
    findings, verified = _feed(verifier, entries.between(through + 1, cut))
    saved = verifier.state()
    live = Verifier.resume(saved)
    pending, _ = _feed(live, entries.between(cut + 1, head))  # the open session: decided at its reveal
    report = live.report("board")
    counts = Counts(verified=report.rolls_verified, entered=report.rolls_entered, test=report.rolls_test,
                    unchecked=report.rolls_open, sessions=report.sessions, revealed=report.revealed,
                    flags=tuple(sorted(report.flag_counts.items())))
    settled = tuple(Settled(sid, first, last) for sid, (first, last) in scan.revealed.items() if last <= cut)
    return Checked({"v": STATE_VERSION, "through": cut, "verifier": saved}, cut, findings, pending, counts, settled,
                   restarted, verified)


def _resume(state: Mapping[str, Any] | None) -> tuple[Verifier | None, int]:
    """The verifier and the seq it has read through, from a saved state (a fresh verifier
    for None; None for a state it cannot use: another version, damaged)."""
    if state is None:
        return Verifier(), 0
    try:
        if state.get("v") != STATE_VERSION:
            return None, 0
        return Verifier.resume(dict(state["verifier"])), int(state["through"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return None, 0


def _feed(verifier: Verifier, entries: Iterable[Entry]) -> tuple[tuple[Finding, ...], tuple[int, ...]]:
    """Feed entries (numbered by their seq); the findings (the chain's left out: the board
    checks the chain itself) and the rolls verified. A verifier that breaks on an entry is a
    finding at that entry, never an exception."""
    findings: list[Finding] = []
    verified: list[int] = []
    for e in entries:
        try:
            step = verifier.feed(StoredEntry(e["seq"], b"", e, True))
        except Exception as exc:  # an auditor reports what it could not check, and carries on
            findings.append(Finding(e["seq"], f"the verifier could not check this entry: "
                                              f"{type(exc).__name__}: {exc}"))
            continue
        findings += [f for f in step.findings if not f.message.startswith(CHAIN_FINDING)]
        verified += step.verified
    return tuple(findings), tuple(verified)


@dataclass
class _Scan:
    """What a window's entries say about sessions (where to cut it, for marks and statistics;
    never for a verdict)."""

    started: dict[str, int] = field(default_factory=dict)  # id -> seq of its (first) session entry
    revealed: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (session seq, reveal seq)
    damaged: set[str] = field(default_factory=set)  # ended by a session_damaged entry: no reveal to wait for
    first: int = 0
    last: int = 0  # the last seq of the unbroken run of entries from ``first``

    def cut(self, head: int) -> int:
        """Where the decided part ends: just before the last session entry if that session is
        not revealed yet (its rolls are still coming; the verifier's state holds no session
        there, an older one left open is only counted), else the head."""
        if not self.started:
            return head
        sid, seq = max(self.started.items(), key=lambda item: item[1])
        return head if sid in self.revealed or sid in self.damaged else seq - 1


def _scan(entries: Iterable[Entry], first: int) -> _Scan:
    scan = _Scan(first=first, last=first - 1)
    for e in entries:
        if e["seq"] != scan.last + 1:
            break  # a gap (entries not in the record yet): the window ends before it
        scan.last = e["seq"]
        kind, sid = e.get("kind"), e.get("session")
        if kind == "session":
            scan.started.setdefault(str(sid), e["seq"])
        elif kind == "reveal" and sid is not None:
            sid = str(sid)
            if sid in scan.started and sid not in scan.revealed:
                scan.revealed[sid] = (scan.started[sid], e["seq"])
        elif kind == "session_damaged" and sid is not None:
            scan.damaged.add(str(sid))
    return scan
