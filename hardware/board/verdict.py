"""The board's verdict on one tower: exactly what ``dicetower replay`` says of its entries.

This module is the board's one seam to the verifier. :func:`check_tower` takes the tower's
entries (in chain order, from the board's record) and the verifier state saved after the last
call, and returns the verifier's findings, its roll counts and the new state to save. Nothing
else in the board decides whether a roll is honest: the board's own checks are about transport
(hash chain, conflicting entries, malformed messages), never about dice.

Today it calls :func:`hardware.entropy.replay.replay_entries` (the code behind ``dicetower
replay``) on a window of entries instead of the whole history each time, which gives the same
findings as a replay of the whole log because of three facts about that replay: a session's
findings depend only on that session's own entries; an entry can refer to an earlier session
only by its id; and a session that is still open at the end of a window stays open in the
whole log until some later entry names it. So the state holds the seq checked through, the
counts so far and the sessions left open (abandoned) before that point; a window whose entries
name a session started before it goes back to the first entry (a full replay). The window
ends just before the newest session entry that is not revealed yet: the rolls of that session
are replayed again next time (their findings are *pending*), the rest is decided for good.

When the incremental verifier lands (entries fed one at a time, a small JSON state between
entries), it replaces the body of :func:`check_tower`; the state column, the callers and the
:class:`Checked` they receive stay as they are.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from hardware.entropy import replay
from hardware.entropy.replay import Finding
from hardware.rolllog import StoredEntry

#: How the verifier's hash-chain findings start. The board checks the chain itself, entry by
#: entry as it is kept (a window that does not start at seq 1 always "breaks" the chain).
CHAIN_FINDING = "hash chain broken"
#: The version of the state this module writes (another version is thrown away: full replay).
STATE_VERSION = 1

Entry = dict[str, Any]


class TowerEntries(Protocol):
    """One tower's entries in chain order, as the board's record holds them."""

    def between(self, first: int, last: int) -> Iterable[Entry]:
        """The entries with ``first <= seq <= last``, in seq order."""
        ...

    def sessions_started(self, ids: Collection[str], through: int) -> bool:
        """Whether a ``session`` entry with one of ``ids`` is at a seq ``<= through``."""
        ...


@dataclass(frozen=True)
class Counts:
    """What the verifier counted (replay's report): rolls by kind, sessions."""

    verified: int = 0  # rolled rolls of revealed sessions, recomputed
    entered: int = 0
    test: int = 0
    unchecked: int = 0  # rolls of sessions not revealed (yet)
    sessions: int = 0
    revealed: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple(), strict=True)))

    def as_tuple(self) -> tuple[int, ...]:
        return (self.verified, self.entered, self.test, self.unchecked, self.sessions, self.revealed)

    def to_dict(self) -> dict[str, int]:
        return {"verified": self.verified, "entered": self.entered, "test": self.test,
                "unchecked": self.unchecked, "sessions": self.sessions, "revealed": self.revealed}


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
    entries after it, found again (or not) next time. ``restarted``: the verifier went back to
    the first entry (an entry named a session from before its window, or the state it was
    given cannot be used), so the findings, settled sessions and counts of earlier calls are
    replaced by these. ``state`` is what to save and pass to the next call."""

    state: dict[str, Any]
    through: int
    findings: tuple[Finding, ...]
    pending: tuple[Finding, ...]
    counts: Counts
    settled: tuple[Settled, ...]
    restarted: bool

    @property
    def problems(self) -> tuple[Finding, ...]:
        return tuple(sorted((*self.findings, *self.pending), key=lambda f: f.line_no))


@dataclass
class _State:
    through: int = 0
    counts: Counts = field(default_factory=Counts)
    carried: list[tuple[str, int, int]] = field(default_factory=list)  # open sessions left behind: (id, seq, rolls)

    @classmethod
    def load(cls, raw: Mapping[str, Any] | None) -> _State | None:
        """The saved state; a fresh one for None; None for a state it cannot use (another
        version, damaged): then the checks start again from the first entry."""
        if raw is None:
            return cls()
        try:
            if raw.get("v") != STATE_VERSION:
                return None
            return cls(int(raw["through"]), Counts(**{k: int(v) for k, v in raw["counts"].items()}),
                       [(str(s), int(q), int(r)) for s, q, r in raw["carried"]])
        except (AttributeError, KeyError, TypeError, ValueError):
            return None

    def dump(self) -> dict[str, Any]:
        return {"v": STATE_VERSION, "through": self.through, "counts": self.counts.to_dict(),
                "carried": [list(c) for c in self.carried]}


def check_tower(entries: TowerEntries, state: Mapping[str, Any] | None, head: int) -> Checked:
    """The verifier's findings on the tower's entries 1..``head``, going on from ``state``
    (None: from the first entry). See the module docstring."""
    loaded = _State.load(state)
    restarted = loaded is None or loaded.through > head
    st = _State() if restarted or loaded is None else loaded
    scan = _scan(entries.between(st.through + 1, head))
    if st.through and scan.named and entries.sessions_started(scan.named, st.through):
        st, restarted = _State(), True  # an entry names a session from before the window: from the start
        scan = _scan(entries.between(1, head))
    cut = scan.cut(st.through, head)
    decided = _replay(entries, st.through + 1, cut) if cut > st.through else _Part()
    rest = _replay(entries, cut + 1, head) if head > cut else _Part()
    carried = st.carried + [(o.session, o.line_no, o.rolls) for o in decided.open]
    counts_so_far = st.counts + decided.counts
    new = _State(cut, counts_so_far, carried)
    still_open = [(sid, rolls) for sid, _, rolls in carried] + [(o.session, o.rolls) for o in rest.open]
    counts = counts_so_far + rest.counts + Counts(unchecked=sum(r for _, r in still_open), sessions=len(still_open))
    settled = tuple(Settled(sid, first, last) for sid, (first, last) in scan.revealed.items() if last <= cut)
    return Checked(new.dump(), cut, decided.findings, rest.findings, counts, settled, restarted)


@dataclass
class _Scan:
    """What a window's entries say about sessions (for cutting the window, not for verdicts)."""

    named: set[str] = field(default_factory=set)  # session ids any entry names
    started: dict[str, int] = field(default_factory=dict)  # id -> seq of its (first) session entry
    revealed: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (session seq, reveal seq)
    naming: list[tuple[int, str]] = field(default_factory=list)  # (seq, id) of every entry naming one

    def cut(self, through: int, head: int) -> int:
        """Where the decided part of the window ends: before the newest session entry not
        revealed yet (its rolls are still coming), and never between a session's entry and an
        entry naming that session (the replay must see both)."""
        open_ = [seq for sid, seq in self.started.items() if sid not in self.revealed]
        cut = max(open_) - 1 if open_ else head
        later = {sid for seq, sid in self.naming if seq > cut}
        if any(self.started.get(sid, head + 1) <= cut for sid in later):
            return through
        return cut


def _scan(entries: Iterable[Entry]) -> _Scan:
    scan = _Scan()
    for e in entries:
        kind, sid, seq = e.get("kind"), e.get("session"), e["seq"]
        if kind == "session":
            sid = str(sid)  # as the replay reads it
            scan.started.setdefault(sid, seq)
        elif kind in ("roll", "reveal") and sid is not None:
            sid = str(sid)
            if kind == "reveal" and sid in scan.started and sid not in scan.revealed:
                scan.revealed[sid] = (scan.started[sid], seq)
        else:
            continue
        scan.named.add(sid)
        scan.naming.append((seq, sid))
    return scan


@dataclass
class _Part:
    findings: tuple[Finding, ...] = ()
    counts: Counts = field(default_factory=Counts)
    open: tuple[Any, ...] = ()


def _replay(entries: TowerEntries, first: int, last: int) -> _Part:
    """``dicetower replay``'s report on entries ``first..last`` (the chain findings left out:
    see :data:`CHAIN_FINDING`). A verifier that cannot run is a finding, never an exception.
    A finding's ``line_no`` is the entry's seq (the entries are numbered by it)."""
    def stored() -> Iterator[StoredEntry]:
        return (StoredEntry(e["seq"], b"", e, True) for e in entries.between(first, last))

    try:
        report = replay.replay_entries(stored, "board")
    except Exception as exc:
        return _Part((Finding(first, f"the verifier could not check entries {first}..{last}: "
                                     f"{type(exc).__name__}: {exc}"),))
    findings = tuple(f for f in report.problems if not f.message.startswith(CHAIN_FINDING))
    # the sessions still open at the window's end (and their rolls) are counted by the caller
    counts = Counts(verified=report.rolls_verified, entered=report.rolls_entered, test=report.rolls_test,
                    sessions=report.sessions - len(report.open_sessions), revealed=report.revealed)
    return _Part(findings, counts, report.open_sessions)
