"""Sessions: one DRBG per session, committed to before its first roll, revealed at its end.

:class:`SessionDice` is the dice source the tower rolls with. The first draw opens a session:
every source in service is read, health-tested and conditioned, their credit is summed (at
least 256 bits, or no roll), and the DRBG is instantiated from that entropy, a nonce
(wall-clock nanoseconds, process id, session number) and a personalization string. The
commitment (SHA-256 of the seed material) goes into the roll log before any roll.

Reseeding from fresh entropy means closing the session (its seed material is revealed and
logged) and opening a new one: after ``session_rolls`` recorded rolls, on :meth:`reveal`,
and when a source that seeded it fails its health tests. Every roll therefore stays
replayable from a revealed seed.

Every roll starts at a fresh DRBG generate call whose additional input is the roll's *mix*,
the player's say in it (the panel: the ROLL press's timestamp and the press intervals
before it; the command line: ``--mix TEXT``, by default the time in nanoseconds). The mix is
logged with the roll, and each roll starts exactly where the previous one ended (see
:class:`~hardware.entropy.seed.RollStream`), so a replay can recompute every roll and notice
any roll that was skipped, dropped or ground out.
"""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.errors import EntropyError
from engine.rng import DrbgDice, HmacDrbg
from hardware.entropy.buttons import CREDIT_BITS_PER_PRESS, ButtonTiming
from hardware.entropy.seed import BLOCK_BYTES, RollStream, SeedMaterial
from hardware.entropy.session_file import StoredSession
from hardware.entropy.sources import CREDIT_CAP_BITS, Contribution, EntropySource, SourceUnavailable
from hardware.rolllog import RollLog

if TYPE_CHECKING:
    from hardware.entropy.open_sessions import SessionKeeper

__all__ = [
    "MIN_CREDIT_BITS", "ROLL_KINDS", "SESSION_ROLLS", "STREAM_VERSION", "NotEnoughEntropy", "SessionDice", "clock_mix",
]

#: Credited entropy a session needs: HMAC_DRBG-SHA256's security strength.
MIN_CREDIT_BITS = 256
#: Rolls per session before the tower reveals and reseeds.
SESSION_ROLLS = 1000
PERSONALIZATION = b"dicetower/session/v1"
#: How rolls use the DRBG (``stream`` in the session entry): 2 = one fresh generate call per
#: roll with the roll's mix as additional input (docs/fairness.md, "Verify it yourself").
STREAM_VERSION = 2
#: What a logged roll is: recomputable from a revealed random seed, typed in by a player
#: (``--faces``, ``--winners-set``), or from a ``--seed`` test session.
ROLL_KINDS = ("rolled", "entered", "test")


def clock_mix(clock_ns: Callable[[], int] = time.time_ns) -> Callable[[], bytes]:
    """The default mix of a command-line roll: the time in nanoseconds, as decimal ASCII."""
    return lambda: str(clock_ns()).encode("ascii")


class NotEnoughEntropy(EntropyError):
    """The healthy sources could not credit 256 bits together (e.g. too few button presses)."""


@dataclass
class _Session:
    material: SeedMaterial
    stream: RollStream
    sources: tuple[str, ...]
    credited_bits: int | None
    opened_ns: int
    mode: str
    rolls: int = 0
    roll: DrbgDice | None = None  # the dice of the roll in progress
    roll_start: int = 0  # its first generate call; between rolls, where the last recorded roll ended
    roll_mix: bytes = b""
    before_roll: tuple[bytes, bytes, int] | None = None  # the DRBG state at the roll's start

    @property
    def id(self) -> str:
        return self.material.commitment[:16]

    @property
    def position(self) -> int:
        """Generate calls made so far: where the next roll starts."""
        return self.stream.blocks


class SessionDice:
    """A dice source (``randbelow``, ``roll``, ``sample``) backed by committed DRBG sessions.

    ``sources`` are read at each session start. ``strict`` (a named source list) refuses as
    soon as one of them fails; otherwise (``auto``) a failed or missing source is taken out of
    service and the others carry on if they can still credit 256 bits. ``seed`` makes the
    dice deterministic: the first session's DRBG is exactly ``DrbgDice.from_seed(seed)``'s (no
    sources, an empty mix unless ``mix`` is given), the k-th after it seed + b"#k"'s. ``log`` receives
    the session, roll, reveal and failure entries. ``mix`` gives each roll's mix (default: the
    panel's :meth:`ButtonTiming.roll_mix` when there are buttons, else the time in
    nanoseconds). ``keeper`` is told of each session opened (with its seed, before its first
    roll) and of each one whose reveal is in the log, so a session a power cut interrupts can
    still be revealed (:mod:`hardware.entropy.open_sessions`). Call :meth:`record` after each
    roll and :meth:`close` at the end (it reveals).
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
        resume: StoredSession | None = None,
        keeper: SessionKeeper | None = None,
    ) -> None:
        if seed is None and not sources and resume is None:
            raise ValueError("a session needs entropy sources, a seed or a session to resume")
        if session_rolls < 1:
            raise ValueError(f"session_rolls must be at least 1, got {session_rolls}")
        self._sources = tuple(sources)
        self._strict = strict
        self.label = label if seed is None else "seed"
        self._seed = seed
        self._buttons = buttons if seed is None else None
        self._log = log
        self._session_rolls = session_rolls
        self._clock_ns = clock_ns
        self._block_bytes = block_bytes
        self.mix = mix if mix is not None else self._default_mix()
        self._session: _Session | None = None
        self._keeper = keeper if seed is None else None
        self._opened = 0
        self._last_reveal: str | None = None
        self._logged_failures: set[str] = set()
        self._buttons_failure_handled = False
        self.rolls_recorded = 0  # by this object, in all its sessions
        if resume is not None:
            self._session = self._resumed(resume)

    def __repr__(self) -> str:
        return f"SessionDice({self.label!r}, {self.status()})"

    def __enter__(self) -> SessionDice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- dice ----------------------------------------------------------------------------------

    def _default_mix(self) -> Callable[[], bytes]:
        if self._seed is not None:
            return lambda: b""  # --seed stays deterministic
        buttons, clock = self._buttons, clock_mix(self._clock_ns)
        if buttons is None:
            return clock
        return lambda: buttons.roll_mix() or clock()

    @property
    def roll_kind(self) -> str:
        """``test`` for ``--seed`` dice, ``rolled`` otherwise (see :data:`ROLL_KINDS`)."""
        return "test" if self._seed is not None else "rolled"

    def _roll(self) -> DrbgDice:
        """The dice of the roll in progress; the first draw of a roll starts it."""
        s = self._session
        if s is None or s.roll is None or (self._buttons is not None and self._buttons.failed
                                           and not self._buttons_failure_handled):
            s = self._current()
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
        """The current session's commitment (hex); opens a session if none is open."""
        return self._current().material.commitment

    @property
    def session_id(self) -> str | None:
        return self._session.id if self._session is not None else None

    @property
    def position(self) -> int:
        """Generate calls the open session has made: where the next roll starts (0 with none)."""
        return self._session.position if self._session is not None else 0

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

    def record(self, result: Any, *, player: int | None = None, **fields: Any) -> dict[str, Any] | None:
        """Log a roll just made from these dice; rotate the session after ``session_rolls``.

        ``result`` is a ``RollResult`` or its dict. The entry holds the generate calls the roll
        used (``start``, ``end``), its mix and its kind, so a replay can recompute it. Returns
        the log entry.
        """
        # A roll that drew nothing (an automatic success) may come before any session opened.
        s = self._session if self._session is not None else self._current()
        data = result.to_dict() if hasattr(result, "to_dict") else dict(result)
        if s.roll is None:  # drew nothing: no generate call, no mix
            s.roll_mix = b""
        end = s.position
        s.roll = s.before_roll = None
        entry = None
        if self._log is not None:
            extra: dict[str, Any] = dict(fields)
            if player is not None:
                extra["player"] = player
            entry = self._log.append("roll", session=s.id, start=s.roll_start, end=end, mix=s.roll_mix.hex(),
                                     roll_kind=self.roll_kind, result=data, **extra)
        s.roll_start = end
        s.rolls += 1
        self.rolls_recorded += 1
        # a --seed session rotates too (to seed S + "#k"): a session of more rolls than a
        # replay holds could not be checked
        if s.rolls >= self._session_rolls:
            self._close("rolls")
        return entry

    def reveal(self) -> str | None:
        """Close the current session and return its seed material (hex); the next roll opens a
        new session. With no session open, the last revealed seed (or None). Call it between
        rolls (after :meth:`record`), never in the middle of one."""
        if self._session is not None:
            self._close("reveal")
        return self._last_reveal

    def close(self) -> None:
        """Reveal the open session, if any."""
        if self._session is not None:
            self._close("end")

    def _current(self) -> _Session:
        failure = self._buttons.failed if self._buttons is not None else None
        if failure and not self._buttons_failure_handled:
            self._on_buttons_failed(failure)
        if self._session is None:
            self._session = self._open()
        return self._session

    def _on_buttons_failed(self, failure: str) -> None:
        self._buttons_failure_handled = True
        self._log_failure(ButtonTiming.name, failure)
        s = self._session
        if s is not None and ButtonTiming.name in s.sources:
            mid_roll = s.roll is not None
            self._close("source failed")
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
        session = _Session(material, RollStream(material, block_bytes=self._block_bytes), names, credited,
                           opened_ns=self._clock_ns(), mode=self.label)
        self._opened += 1
        if self._log is not None:
            self._log.append(
                "session",
                session=session.id,
                commitment=material.commitment,
                mode=self.label,
                sources=[{"name": c.source, "credited_bits": c.credited_bits, "samples": c.samples} for c in shares],
                credited_bits=credited,
                block_bytes=self._block_bytes,
                stream=STREAM_VERSION,
            )
        if self._keeper is not None:
            self._keeper.opened(_stored(session))
        return session

    def _gather(self) -> list[Contribution]:
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
            share = bt.take_credited()
            if share is not None and share.credited_bits > 0:
                shares.append(share)
        return shares

    def _shortfall(self, total: int, missing: list[str]) -> str:
        bt = self._buttons
        pooled = bt is not None and not bt.failed and any(s is bt for s in self._sources)
        have = bt.credited_bits if bt is not None and pooled else 0
        text = f"only {total + have} of the {MIN_CREDIT_BITS} bits a session needs could be credited; no roll"
        if bt is not None and pooled:
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

    def _close(self, reason: str) -> None:
        s = self._session
        if s is None:
            return
        self._session = None
        seed_hex = s.material.encode().hex()
        self._last_reveal = seed_hex
        if self._log is not None:
            # the end of the last recorded roll: a roll abandoned part way was never made
            entry = self._log.append("reveal", session=s.id, seed=seed_hex, rolls=s.rolls, end=s.roll_start,
                                     reason=reason)
            if entry.get("unrecorded"):  # a lenient log could not write it: the kept seed stays
                return
        if self._keeper is not None:
            self._keeper.closed(s.id)

    def _resumed(self, stored: StoredSession) -> _Session:
        drbg = HmacDrbg.from_state(stored.key, stored.v, stored.counter)
        stream = RollStream(stored.material, block_bytes=stored.block_bytes, drbg=drbg)
        self._opened += 1
        return _Session(stored.material, stream, stored.sources, stored.credited_bits, opened_ns=stored.opened_ns,
                        mode=stored.mode, rolls=stored.rolls, roll_start=stream.blocks)

    def export(self) -> StoredSession | None:
        """The open session as the state directory keeps it between commands (None if none is
        open). Secret: it holds the seed. Call it between rolls."""
        s = self._session
        if s is None or self._seed is not None:
            return None
        return _stored(s)

    def describe(self) -> Mapping[str, Any]:
        """The current session for a status screen: id, commitment, rolls, sources, and ``end``
        (where its last recorded roll ended, which a reveal records)."""
        s = self._session
        if s is None:
            return {"session": None, "sources": list(self.sources)}
        return {"session": s.id, "commitment": s.material.commitment, "rolls": s.rolls, "sources": list(s.sources),
                "credited_bits": s.credited_bits, "end": s.roll_start}


def _stored(s: _Session) -> StoredSession:
    """``s`` as a state directory keeps it: mid-roll, the DRBG as it stood at the roll's start."""
    key, v, counter = s.before_roll if s.roll is not None and s.before_roll else s.stream.drbg.export_state()
    return StoredSession(s.material, key, v, counter, s.rolls, s.opened_ns, s.stream.block_bytes, s.mode,
                         s.sources, s.credited_bits)
