"""Sessions: one DRBG per session, committed to before its first roll, revealed at its end.

:class:`SessionDice` is the dice source the tower and the command line roll with. The first
draw opens a session: every source in service is read, health-tested and conditioned, their
credit is summed (at least 256 bits, or no roll), and the DRBG is instantiated from that
entropy, a nonce (wall-clock nanoseconds, process id, session number) and a personalization
string. The commitment (SHA-256 of the seed material) goes into the roll log before any roll.

Reseeding from fresh entropy means closing the session (its seed material is revealed and
logged) and opening a new one: after ``session_rolls`` recorded rolls, on :meth:`reveal`,
and when a source that seeded it fails its health tests. Every roll therefore stays
replayable from a revealed seed.

Nothing the device measures or chooses after the commitment enters a roll: a roll's bytes
depend only on the committed seed, the *table seed* the players may set before the first roll
(:meth:`SessionDice.set_table_seed`), the roll's place in the session and, on the command
line, a ``--mix`` the player typed (none by default). Each roll starts at a fresh generate
call exactly where the previous one ended (:class:`~engine.seeds.RollStream`), so a
replay recomputes every roll and notices any that was skipped, dropped or drawn again. Button
timing is entropy for the *next* session (:class:`~hardware.entropy.buttons.ButtonTiming`).

With a ``keeper`` (a state directory's :class:`~hardware.session.open_sessions.OpenSessions`)
the dice roll in the state directory's one open session, whoever opened it, bringing it up to
date from the log before each roll (:meth:`SessionDice.follow`); the caller holds the state
directory's lock around each roll, table seed and reveal.
"""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from engine.errors import EntropyError
from engine.fingerprints import Fingerprint
from engine.results import RollResult
from engine.rng import DrbgDice, HmacDrbg
from engine.seeds import (
    BLOCK_BYTES,
    ROLL_KINDS,
    SESSION_ROLLS,
    STREAM_VERSION,
    RollStream,
    SeedMaterial,
    TableSeedError,
    check_table_seed,
)
from hardware.errors import HardwareError
from hardware.files.rolllog import LenientLog, LogError, RollLog
from hardware.session.progress import Progress

if TYPE_CHECKING:
    # the sources are imported where a session gathers from them: ``--seed`` dice need none
    from hardware.entropy.buttons import ButtonTiming
    from hardware.entropy.sources import Contribution, EntropySource
    from hardware.session.file import StoredSession
    from hardware.session.open_sessions import SessionKeeper

__all__ = [
    "MIN_CREDIT_BITS", "ROLL_KINDS", "SESSION_ROLLS", "STREAM_VERSION", "NotEnoughEntropy", "SessionBusy",
    "SessionDice", "TableSeedError", "TableSeeding",
]

#: Who writes with a set of dice: the tower (its panel), or a command line.
WRITERS = ("tower", "command-line")
#: Who ended a session (a reveal's ``by``): the table from the settings menu, staff from the
#: menu under the kiosk lock, a command line (``session close``, a roll command's own session,
#: the next writer revealing a stopped one), the tower itself (shutdown, restart, a failed
#: source, a session it did not take the table's code for) or the roll limit.
REVEALERS = ("table", "staff", "command-line", "tower", "limit")
#: Why a session was revealed on request (a reveal's ``reason``; the dice add ``rolls``, ``end``,
#: ``source failed``, the next writer ``restart``, a full card ``late``).
REASONS = ("reveal", "not the table's")
#: Where a table seed was set (a ``table_seed`` entry's ``source``): the panel's own keys, or
#: ``dicetower session seed``. The panel rolls only under a code of its own keys.
TABLE_SEED_SOURCES = ("panel", "command-line")
#: Credited entropy a session needs: HMAC_DRBG-SHA256's security strength.
MIN_CREDIT_BITS = 256
PERSONALIZATION = b"dicetower/session/v1"


@runtime_checkable
class TableSeeding(Protocol):
    """The one seam through which a table seed is set: ``dicetower session seed`` uses it, and
    so does the tower for the code the table entered on the panel (hardware/tower/sync.py; the
    runtime's dice are :class:`SessionDice`, whose session lives in memory and in
    ``open-sessions/``). Call it under the state directory's lock, after the commitment was
    shown and before the session's first roll."""

    @property
    def session_id(self) -> str | None: ...

    @property
    def table_seed(self) -> str | None: ...

    def set_table_seed(self, text: str, *, source: str = "command-line") -> dict[str, Any]: ...


class NotEnoughEntropy(HardwareError, EntropyError):
    """The healthy sources could not credit 256 bits together (e.g. too few button presses)."""


class SessionBusy(HardwareError, RuntimeError):
    """The state directory's open session is one these dice may not roll in (a ``--seed``
    test session beside a random one, or the other way round): one session at a time."""


@dataclass
class _Session:
    """A session these dice roll in: its progress in the log, the sources that seeded it and
    the roll in progress."""

    p: Progress  # where the session stands in the log
    sources: tuple[str, ...]
    credited_bits: int | None
    opened_ns: int
    mode: str
    mine: bool  # opened by these dice (revealed at close), or joined
    kept: StoredSession | None = None  # its file in the state directory, if kept
    roll: DrbgDice | None = None  # the dice of the roll in progress
    roll_start: int = 0  # its first generate call; between rolls, where the last recorded roll ended
    roll_mix: bytes = b""
    before_roll: tuple[bytes, bytes, int] | None = None  # the DRBG state at the roll's start

    @property
    def id(self) -> str:
        return self.p.id

    @property
    def material(self) -> SeedMaterial:
        return self.p.material

    @property
    def stream(self) -> RollStream:
        return self.p.stream

    @property
    def rolls(self) -> int:
        return self.p.rolls

    @property
    def position(self) -> int:
        """Generate calls made so far: where the next roll starts."""
        return self.p.position


class SessionDice:
    """A dice source (``randbelow``, ``roll``, ``sample``) backed by committed DRBG sessions.

    ``sources`` are read at each session start. ``strict`` (a named source list) refuses as
    soon as one of them fails; otherwise (``auto``) a failed or missing source is taken out of
    service and the others carry on if they can still credit 256 bits. ``seed`` makes the
    dice deterministic: the first session's DRBG is exactly ``DrbgDice.from_seed(seed)``'s (no
    sources), the k-th after it seed + b"#k"'s. ``log`` receives the session, table seed,
    roll, reveal and failure entries. ``mix`` gives each roll's mix (the command line's
    ``--mix``; by default none). ``buttons`` is the panel's timing (a source whose failure
    ends the sessions it seeded). ``keeper`` is the state directory's record of its open
    session (:mod:`hardware.session.open_sessions`): the dice join the session open there,
    keep the ones they open (before their first roll) and follow what other writers log.
    Call :meth:`record` after each roll and :meth:`close` at the end (it reveals a session
    these dice opened).
    """

    def __init__(
        self,
        sources: Sequence[EntropySource] = (),
        *,
        strict: bool = False,
        label: str = "auto",
        seed: bytes | None = None,
        buttons: ButtonTiming | None = None,
        log: RollLog | None = None,
        session_rolls: int = SESSION_ROLLS,
        clock_ns: Callable[[], int] = time.time_ns,
        block_bytes: int = BLOCK_BYTES,
        mix: Callable[[], bytes] | None = None,
        keeper: SessionKeeper | None = None,
        writer: str = "command-line",
    ) -> None:
        if seed is None and not sources and keeper is None:
            raise ValueError("a session needs entropy sources, a seed or a state directory's open session")
        if session_rolls < 1:
            raise ValueError(f"session_rolls must be at least 1, got {session_rolls}")
        self._sources = tuple(sources)
        self._strict = strict
        self.label = label if seed is None else "seed"
        self._seed = seed
        self._buttons = buttons if seed is None else None
        self._log = log
        self._lenient = isinstance(log, LenientLog)  # unrecorded = "show": rolls go on without a log
        self._session_rolls = session_rolls
        self._clock_ns = clock_ns
        self._block_bytes = block_bytes
        self.mix = mix if mix is not None else (lambda: b"")
        self._session: _Session | None = None
        self._keeper = keeper
        if writer not in WRITERS:
            raise ValueError(f"writer must be one of {', '.join(WRITERS)}, got {writer!r}")
        #: who these dice write for: ``by`` of a reveal they make of their own accord
        self.writer = writer
        self._opened = 0
        self._last_reveal: str | None = None
        self._logged_failures: set[str] = set()
        self._buttons_failure_handled = False
        self._late: dict[str, dict[str, Any]] = {}  # reveals the log could not take yet
        self._own_seqs: set[int] = set()  # entries these dice appended that follow() must not apply again
        self.rolls_recorded = 0  # by this object, in all its sessions
        self.sessions_opened = 0  # by this object (not joined)
        self._follows_open = False  # the next session takes over from a `session open` one
        self.last_fingerprint: Fingerprint | None = None  # of the last roll recorded
        self.last_reveal_entry: dict[str, Any] | None = None  # the last reveal these dice logged

    def __repr__(self) -> str:
        return f"SessionDice({self.label!r}, {self.status()})"

    def __enter__(self) -> SessionDice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- dice ----------------------------------------------------------------------------------

    @property
    def roll_kind(self) -> str:
        """``test`` for ``--seed`` dice, ``rolled`` otherwise (see :data:`ROLL_KINDS`)."""
        return "test" if self._seed is not None else "rolled"

    def _starting(self) -> _Session:
        """The session the next roll (or table seed) goes into, up to date with the log."""
        s = self._session
        if s is not None and s.roll is not None:
            return s
        self.follow()
        return self._current()

    def _roll(self) -> DrbgDice:
        """The dice of the roll in progress; the first draw of a roll starts it."""
        s = self._session
        if s is None or s.roll is None:
            s = self._starting()
        elif self._buttons is not None and self._buttons.failed and not self._buttons_failure_handled:
            s = self._current()  # a roll in progress in a session the timing seeded is abandoned
        if s.roll is None:
            s.roll_mix = bytes(self.mix())
            s.before_roll = s.stream.drbg.export_state()
            s.roll = s.stream.begin(s.roll_mix)
        return s.roll

    def abandon(self) -> None:
        """Forget a roll that was started and will not be recorded (it failed part way): the
        DRBG goes back to where the roll started, so the next roll starts there and the
        session stays continuous in the log."""
        s = self._session
        if s is None or s.roll is None or s.before_roll is None:
            return
        s.stream.drbg = HmacDrbg.from_state(*s.before_roll)
        s.roll = s.before_roll = None

    def randbelow(self, n: int) -> int:
        return self._roll().randbelow(n)

    def roll(self, sides: int) -> int:
        if isinstance(sides, bool) or not isinstance(sides, int) or sides < 1:
            raise ValueError(f"a die needs at least 1 side, got {sides!r}")
        return self.randbelow(sides) + 1

    def sample(self, n: int, k: int) -> frozenset[int]:
        return self._roll().sample(n, k)

    def random_bytes(self, n: int) -> bytes:
        """``n`` raw DRBG bytes from the current session (for the statistical battery; such a
        session must not also be logged, its rolls would no longer replay)."""
        session = self._current()
        session.roll = None
        return session.stream.random_bytes(n)

    # --- sessions ------------------------------------------------------------------------------

    @property
    def commitment(self) -> str:
        """The current session's commitment (hex); joins or opens a session if none is open."""
        return self._current().material.commitment

    @property
    def session_id(self) -> str | None:
        return self._session.id if self._session is not None else None

    @property
    def position(self) -> int:
        """Generate calls the open session has made: where the next roll starts (0 with none)."""
        return self._session.position if self._session is not None else 0

    @property
    def table_seed(self) -> str | None:
        """The open session's table seed (None with none set, or no session open)."""
        return self._session.p.table_seed if self._session is not None else None

    @property
    def sources(self) -> tuple[str, ...]:
        """Names of the sources that seeded the open session; with none open, the sources not
        taken out of service (``("seed",)`` for deterministic dice)."""
        if self._seed is not None:
            return ("seed",)
        if self._session is not None:
            return self._session.sources
        return tuple(s.name for s in self._sources if not s.failed)

    def status(self) -> str:
        """One line for the settings screen: every source and its state."""
        if self._seed is not None:
            return "seed (deterministic)"
        return ", ".join(f"{s.name} {s.status()}" for s in self._sources)

    def follow(self) -> None:
        """Bring the open session up to date with the roll log: rolls another writer logged in
        it, a table seed set by ``dicetower session seed``, a reveal by ``session close`` (the
        session is then closed here too). Call it between rolls, under the state directory's
        lock; without a keeper there is nobody else and it does nothing."""
        s = self._session
        if s is None or self._keeper is None or s.roll is not None:
            return
        news = self._keeper.news(s.id, s.p.log_seq)
        for entry in news.entries:
            if entry.get("seq") not in self._own_seqs:
                s.p.apply(entry)
        s.p.log_seq = max(s.p.log_seq or 0, news.head)
        self._own_seqs.clear()
        s.roll_start = s.position
        if s.p.revealed:  # revealed by another writer, who also forgot its file
            self._session = None

    def _appended(self, s: _Session, entry: dict[str, Any]) -> None:
        """Note an entry these dice appended, so :meth:`follow` does not take it again."""
        seq = entry.get("seq")
        if not isinstance(seq, int) or self._keeper is None:
            return  # without a keeper nobody else writes: nothing to follow
        if s.p.log_seq is not None and seq == s.p.log_seq + 1:
            s.p.log_seq = seq
        else:
            self._own_seqs.add(seq)

    def set_table_seed(self, text: str, *, source: str = "command-line") -> dict[str, Any]:
        """Set the open session's table seed (opening or joining one if none is open): the
        text the players chose after the commitment was shown, typed on the panel's keys
        (``source`` ``panel``) or given to ``dicetower session seed`` (``command-line``). It is logged first (a
        ``table_seed`` entry), then fed to the DRBG (docs/fairness.md, "Verify it yourself"),
        so every later roll of the session depends on it. Returns the entry written. Raises
        :class:`~engine.seeds.TableSeedError` (one line) when the text is not 1 to 64
        printable ASCII characters, or the session already has a roll or a table seed."""
        text = check_table_seed(text)
        s = self._starting()
        short = f"#{s.id[:8]}"
        if s.p.table_seed is not None:
            raise TableSeedError(f"session {short} has its table seed already ({s.p.table_seed!r}); "
                                 "reveal the session to start a new one with another")
        if s.rolls or s.position:
            raise TableSeedError(f"session {short} has {s.rolls} roll(s) already; a table seed comes "
                                 "before the session's first roll (reveal it to start a new one)")
        if self._log is not None:
            from hardware.session.codes import code_holder

            holder = code_holder(self._log.path, text)
            if holder is not None:
                raise TableSeedError(f"{text} was the code of session #{holder.session[:8]}; one code, "
                                     "one session: choose a new code for this session")
        if source not in TABLE_SEED_SOURCES:
            raise ValueError(f"source must be one of {', '.join(TABLE_SEED_SOURCES)}, got {source!r}")
        fields = {"session": s.id, "table_seed": text, "source": source}
        entry: dict[str, Any] = {"kind": "table_seed", **fields}
        if self._log is not None:
            entry = self._log.append("table_seed", **fields)
            if entry.get("unrecorded"):
                raise LogError("cannot record the table seed; it is not set", "not recorded")
            self._appended(s, entry)
        s.stream.set_table_seed(text)
        s.p.table_seed = text
        s.roll_start = s.position
        return entry

    def record(self, result: RollResult | Mapping[str, Any], *, player: int | None = None,
               **fields: Any) -> dict[str, Any] | None:
        """Log a roll just made from these dice; rotate the session after ``session_rolls``.

        ``result`` is a ``RollResult`` or its dict. The entry holds the generate calls the roll
        used (``start``, ``end``), its mix and its kind, so a replay can recompute it. Returns
        the log entry (None without a log); :attr:`last_fingerprint` says which roll of its
        session it is and the start of its hash.
        """
        # A roll that drew nothing (an automatic success) may come before any session opened.
        s = self._session if self._session is not None and self._session.roll is not None else self._starting()
        if s.roll is None:  # drew nothing: no generate call, no mix
            s.roll_mix = b""
        end = s.position
        if self._log is None:
            s.roll = s.before_roll = None
            s.roll_start = end
            s.p.rolls += 1
            self.rolls_recorded += 1
            # nothing replays an unlogged session: only --seed dice rotate (to stay the same
            # dice with or without a log), random ones need no new entropy
            if self._seed is not None and s.rolls >= self._session_rolls:
                self._close("rolls", by="limit")
            return None
        if not s.p.logged:  # its session entry is not in the log: neither can its rolls be
            s.roll = s.before_roll = None
            raise LogError("this roll's session could not be written to the roll log: not recorded", "not recorded")
        data = result.to_dict() if isinstance(result, RollResult) else dict(result)
        extra: dict[str, Any] = dict(fields)
        if player is not None:
            extra["player"] = player
        entry = self._log.append("roll", session=s.id, start=s.roll_start, end=end, mix=s.roll_mix.hex(),
                                 roll_kind=self.roll_kind, result=data, **extra)
        s.roll = s.before_roll = None
        if entry.get("unrecorded"):
            # a lenient log could not write it: the session stands where the log says (its last
            # recorded roll); the caller closes it, its bytes past that being spent
            return entry
        self._appended(s, entry)
        s.roll_start = end
        s.p.rolls += 1
        self.rolls_recorded += 1
        self.last_fingerprint = Fingerprint(s.id, s.rolls, str(entry.get("hash", "")))
        # a --seed session rotates too (to seed S + "#k"): a session of more rolls than a
        # replay holds could not be checked
        if s.rolls >= self._session_rolls:
            # the session that follows one opened with `dicetower session open` stays open too
            self._follows_open = s.kept is not None and s.kept.owner.kind == "open"
            self._close("rolls", by="limit")
        return entry

    def reveal(self, *, by: str | None = None, reason: str = "reveal") -> str | None:
        """Close the current session and return its seed material (hex); the next roll opens a
        new session. With no session open, the last revealed seed (or None). Call it between
        rolls (after :meth:`record`), never in the middle of one. ``by`` says who ended it
        (:data:`REVEALERS`; default: :attr:`writer`), ``reason`` why (:data:`REASONS`)."""
        if reason not in REASONS:
            raise ValueError(f"reason must be one of {', '.join(REASONS)}, got {reason!r}")
        self.follow()
        if self._session is not None:
            self._close(reason, by=by or self.writer)
        return self._last_reveal

    def close(self) -> None:
        """Reveal the open session if these dice opened it; a session they joined stays open
        for whoever opened it (its kept file is brought up to date)."""
        s = self._session
        if s is None:
            return
        self.follow()
        s = self._session
        if s is None:
            return
        if s.mine:
            self._close("end", by=self.writer)
            return
        self._session = None
        if self._keeper is not None and s.kept is not None and s.roll is None:
            self._keeper.saved(s.p.stored(s.kept))

    def _current(self) -> _Session:
        failure = self._buttons.failed if self._buttons is not None else None
        if failure and not self._buttons_failure_handled:
            self._on_buttons_failed(failure)
        if self._session is None:
            try:
                self.flush_reveals()
            except LogError:
                if not self._lenient:
                    raise  # no new session while the last one's reveal is not in the log
            self._session = self._join() or self._open()
        return self._session

    def _join(self) -> _Session | None:
        """The state directory's open session, if there is one these dice may roll in."""
        if self._keeper is None or self._log is None:
            return None
        joined = self._keeper.joinable(self._log, skip=frozenset(self._late))
        if joined is None:
            return None
        stored, progress = joined.stored, joined.progress
        if stored.is_test != (self._seed is not None):
            what = "a --seed test session" if stored.is_test else "a session seeded from entropy"
            why = ("--seed makes a test session of its own" if self._seed is not None
                   else "rolls from entropy never go into a test session")
            raise SessionBusy(f"{self._keeper_place()} has {what} open (#{stored.id[:8]}); {why}, and there is one "
                              "session at a time: close that one first (dicetower session close DIR) or use "
                              "another state directory")
        self._opened += 1
        # revealed at close only if these dice opened it (never a `session open` one)
        mine = self._keeper.mine(stored) and stored.owner.kind != "open"
        return _Session(progress, stored.sources, stored.credited_bits, opened_ns=stored.opened_ns, mode=stored.mode,
                        mine=mine, kept=stored, roll_start=progress.position)

    def _keeper_place(self) -> str:
        return str(self._keeper.state_dir) if self._keeper is not None else "the state directory"

    def _on_buttons_failed(self, failure: str) -> None:
        from hardware.entropy.buttons import ButtonTiming

        self._buttons_failure_handled = True
        self._log_failure(ButtonTiming.name, failure)
        s = self._session
        if s is not None and ButtonTiming.name in s.sources:
            mid_roll = s.roll is not None
            self._close("source failed", by=self.writer)
            if mid_roll:
                raise EntropyError(ButtonTiming.name, failure + "; the roll in progress was abandoned")

    def _open(self) -> _Session:
        index = self._opened
        if self._seed is not None:
            seed = self._seed if index == 0 else self._seed + b"#%d" % index
            material = SeedMaterial.from_seed(seed)
            names: tuple[str, ...] = ("seed",)
            credited: int | None = None
            shares: list[Contribution] = []
        else:
            shares = self._gather()
            names = tuple(c.source for c in shares)
            credited = sum(c.credited_bits for c in shares)
            nonce = struct.pack(">QII", self._clock_ns() & (2**64 - 1), os.getpid() & 0xFFFFFFFF, index & 0xFFFFFFFF)
            material = SeedMaterial(
                b"".join(c.block for c in shares), nonce, PERSONALIZATION + b";" + ",".join(names).encode()
            )
        head = self._keeper.head() if self._keeper is not None and self._log is not None else None
        session = _Session(Progress.fresh(material, self._block_bytes, head), names, credited,
                           opened_ns=self._clock_ns(), mode=self.label, mine=True)
        self._opened += 1
        follows_open, self._follows_open = self._follows_open, False
        self.sessions_opened += 0 if follows_open else 1
        # With unrecorded = "show" the log may be failing: a session whose seed cannot be kept,
        # or opened while an earlier reveal is not in the log yet, stays out of the log
        # altogether (its rolls are shown UNRECORDED), so the log keeps one session at a time.
        off_log = bool(self._late)
        if self._keeper is not None and self._log is not None and not off_log:
            # kept before it is logged: a stop between the two leaves a file the next writer
            # forgets (its session never made the log), never a logged session without its seed
            try:
                session.kept = self._keeper.opened(_stored(session), kind="open" if follows_open else None)
            except LogError:
                if not self._lenient:
                    raise
                off_log = True
            session.mine = not follows_open  # one that follows a `session open` one stays open too
        if self._log is not None and not off_log:
            entry = self._log.append(
                "session",
                session=session.id,
                commitment=material.commitment,
                mode=self.label,
                sources=[{"name": c.source, "credited_bits": c.credited_bits, "samples": c.samples} for c in shares],
                credited_bits=credited,
                block_bytes=self._block_bytes,
                stream=STREAM_VERSION,
            )
            session.p.logged = not entry.get("unrecorded")
            self._appended(session, entry)
            if not session.p.logged and self._keeper is not None and session.kept is not None:
                self._keeper.closed(session.id)
        return session

    def _gather(self) -> list[Contribution]:
        from hardware.entropy.buttons import ButtonTiming
        from hardware.entropy.sources import CREDIT_CAP_BITS, SourceUnavailable

        shares: list[Contribution] = []
        missing: list[str] = []
        # Button presses are pooled, and each press may seed one session only: take the pool
        # last, and only if the session will open, so presses are not wasted on a refusal.
        pooled = [s for s in self._sources if isinstance(s, ButtonTiming)]
        for src in self._sources:
            if src in pooled:
                continue
            if src.failed:
                missing.append(f"{src.name} failed its health tests")
                continue
            try:
                share = src.gather()
            except SourceUnavailable as exc:
                if self._strict:
                    raise
                missing.append(f"{src.name} unavailable ({exc.detail})")
                continue
            except EntropyError as exc:
                self._log_failure(src.name, exc.detail)
                if self._strict:
                    raise
                missing.append(f"{src.name} {exc.detail}")
                continue
            if share.credited_bits > 0:
                shares.append(share)
        total = sum(c.credited_bits for c in shares)
        for bt in pooled:
            if bt.failed:
                self._log_failure(bt.name, bt.failed)
                if self._strict:
                    raise EntropyError(bt.name, bt.failed)
                missing.append(f"{bt.name} {bt.failed}")
        usable = [bt for bt in pooled if not bt.failed and bt.ready]
        if total + sum(min(bt.credited_bits, CREDIT_CAP_BITS) for bt in usable) < MIN_CREDIT_BITS:
            raise NotEnoughEntropy(self.label, self._shortfall(total, missing))
        for bt in usable:
            taken = bt.take_credited()
            if taken is not None and taken.credited_bits > 0:
                shares.append(taken)
        return shares

    def _shortfall(self, total: int, missing: list[str]) -> str:
        bt = self._buttons
        pooled = bt is not None and not bt.failed and any(s is bt for s in self._sources)
        have = bt.credited_bits if bt is not None and pooled else 0
        text = f"only {total + have} of the {MIN_CREDIT_BITS} bits a session needs could be credited; no roll"
        if bt is not None and pooled:
            from hardware.entropy.buttons import CREDIT_BITS_PER_PRESS

            need = MIN_CREDIT_BITS - total
            more = -(-(need - have) // CREDIT_BITS_PER_PRESS)
            warming = "" if bt.ready else ", health tests still warming up"
            text += f" (buttons: {have} of {need} bits{warming}; about {more} more deliberate presses)"
        if missing:
            text += "; " + "; ".join(missing)
        return text

    def _log_failure(self, source: str, message: str) -> None:
        if source in self._logged_failures:
            return
        self._logged_failures.add(source)
        if self._log is not None:
            self._log.append("source_failed", source=source, error=message)

    def _close(self, reason: str, *, by: str) -> None:
        s = self._session
        if s is None:
            return
        self._session = None
        seed_hex = s.material.encode().hex()
        self._last_reveal = seed_hex
        if self._log is None:
            return
        if not s.p.logged:  # never in the log: nothing of it to reveal
            if self._keeper is not None and s.kept is not None:
                self._keeper.closed(s.id)
            return
        # the end of the last recorded roll: a roll abandoned part way was never made
        if by not in REVEALERS:
            raise ValueError(f"by must be one of {', '.join(REVEALERS)}, got {by!r}")
        fields = {"session": s.id, "seed": seed_hex, "rolls": s.rolls, "end": s.roll_start, "by": by}
        self._late[s.id] = {**fields, "log_seq": s.p.log_seq}  # until the log has it
        entry = self._log.append("reveal", **fields, reason=reason)
        if entry.get("unrecorded"):  # a lenient log could not write it: the kept seed stays
            return
        del self._late[s.id]
        self.last_reveal_entry = entry
        if self._keeper is not None:
            self._keeper.closed(s.id)

    @property
    def late_reveals(self) -> tuple[str, ...]:
        """Sessions closed here whose reveal the log has not taken yet."""
        return tuple(self._late)

    def flush_reveals(self) -> None:
        """Write the reveals the log could not take when their sessions closed (a full card),
        unless another writer revealed them meanwhile. Until they are in the log no session is
        opened or joined here: one session at a time. Raises ``LogError`` while the log still
        cannot take them. Call it under the state directory's lock."""
        log = self._log
        if log is None:  # a reveal is late only for a log that refused it: none without a log
            return
        for sid, late in list(self._late.items()):
            if self._keeper is not None:
                news = self._keeper.news(sid, late["log_seq"])
                if any(e.get("kind") in ("reveal", "session_damaged") for e in news.entries):
                    del self._late[sid]
                    continue
            fields = {k: v for k, v in late.items() if k != "log_seq"}
            entry = log.append("reveal", **fields, reason="late",
                               note="the roll log could not take this reveal when the session closed")
            if entry.get("unrecorded"):
                raise LogError(f"session {sid}'s reveal is not in the roll log yet; no new session until it is",
                               "reveal not logged")
            del self._late[sid]
            self.last_reveal_entry = entry
            if self._keeper is not None:
                self._keeper.closed(sid)

    def describe(self) -> Mapping[str, Any]:
        """The current session for a status screen: id, commitment, rolls, table seed, sources,
        and ``end`` (the generate calls it has made, which a reveal records)."""
        s = self._session
        if s is None:
            return {"session": None, "sources": list(self.sources)}
        return {"session": s.id, "commitment": s.material.commitment, "rolls": s.rolls, "sources": list(s.sources),
                "credited_bits": s.credited_bits, "end": s.roll_start, "table_seed": s.p.table_seed,
                "opened_ns": s.opened_ns, "mine": s.mine,
                "opened_by": s.kept.owner.kind if s.kept is not None else "these dice"}


def _stored(s: _Session) -> StoredSession:
    """``s`` as a state directory keeps it: mid-roll, the DRBG as it stood at the roll's start."""
    from hardware.session.file import Owner, StoredSession

    key, v, counter = s.before_roll if s.roll is not None and s.before_roll else s.stream.drbg.export_state()
    owner = s.kept.owner if s.kept is not None else Owner()
    return StoredSession(s.material, key, v, counter, s.rolls, s.opened_ns, s.stream.block_bytes, s.mode,
                         s.sources, s.credited_bits, s.p.table_seed, s.p.log_seq, s.p.logged, owner)
