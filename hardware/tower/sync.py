"""The session sync: keeps the panel told about the dice session, and the log about its end.

With committing dice (:class:`hardware.entropy.SessionDice`) the tower opens a session at
start-up and again as soon as one closes (a reveal from the settings menu, the rotation
after ``session_rolls``, or another writer's ``dicetower session close``), and tells the
panel its commitment (a SESSION event), so the commitment is on the display before the
session's first roll (docs/fairness.md). A reveal the panel asks for is carried out between
rolls, never while a finger guess waits. The table seed the players set is written to the
log by the dice under the state directory's lock, for the session whose commitment they saw,
before the panel shows it. Once a second the dice take in what other writers logged.

Sessions a stopped tower left open are revealed at start-up, and reveals the log could not
take (a full card) are written as soon as it can, before any new session opens.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.panel import sessions
from engine.panel.model import Event, EventKind
from engine.seeds import TableSeedError
from hardware.once import Once
from hardware.tower.dice import DiceAbilities
from hardware.tower.lock import DirectoryLock

if TYPE_CHECKING:
    from hardware.files.rolllog import LenientLog, RollLog
    from hardware.session.open_sessions import OpenSessions

__all__ = ["NOT_KEPT", "SESSION_RETRY_NS", "SessionSync"]

#: After a session could not be opened (e.g. buttons alone have not credited 256 bits yet),
#: how long before trying again; a roll tries at once anyway.
SESSION_RETRY_NS = 5_000_000_000
#: The SESSION text when a session closes and there is no roll log to hold its seed.
NOT_KEPT = "seed not kept: no roll log (state_dir none)"


class SessionSync:
    """The dice session as the panel knows it. :attr:`tell` (``tell(event, now)``) steps the
    panel with an event: the tower's :meth:`~hardware.tower.loop.Tower.step`, wired by
    :func:`hardware.tower.assemble` once the tower is made (the sync is made before it, and
    tells nothing until then). ``kept=False`` says there is no roll log (``state_dir =
    "none"``), so a reveal is not announced as "in log"."""

    def __init__(self, dice: DiceAbilities, *, roll_log: RollLog | LenientLog | None, state_dir: Path | None,
                 kept: bool, lock: DirectoryLock, log: Callable[[str], None], menu_by: str = "table") -> None:
        self.dice = dice
        self.roll_log = roll_log
        self.state_dir = state_dir
        self.kept = kept
        self.lock = lock
        self.tell: Callable[[Event, int], object] = _unwired
        self.log = log
        self.session_id: str | None = None  # the session the panel was told about
        self.commitment = ""
        self.table_seed: str | None = None  # the table seed of the session the panel was told about
        self.menu_by = menu_by  # who ends a session from the settings menu: "table", or "staff" under the kiosk lock
        #: a reveal the panel asked for, carried out between rolls: (who ends it, why), or None
        self.wanted: tuple[str, str] | None = None
        self._text = ""  # the last SESSION text sent
        self._retry_at = 0
        self._syncing = False
        self._no_session = Once(log)  # why no session opens
        self._damage_seq: int | None = None  # the log entry up to which sessions ended as damaged were told
        self._following = Once(log)  # trouble following the roll log

    @property
    def active(self) -> bool:
        """Whether the dice have sessions at all."""
        return self.dice.committing is not None

    # --- the panel's side -------------------------------------------------------------------------

    def request(self, request: str) -> None:
        """A request from the panel (an effect of the state machine)."""
        if request == sessions.REVEAL and self.active:
            self.wanted = (self.menu_by, "reveal")
        elif request == sessions.RENEW and self.active:
            # the panel rolls only in a session whose code it took on its own keys: this one ends
            self.wanted = ("tower", "not the table's")
        elif request == sessions.OPEN:
            self._retry_at = 0  # the sync after this step opens it (or says why it cannot)
        elif request not in (sessions.REVEAL, sessions.RENEW):
            self.log(f"panel: unknown request {request!r}")

    @property
    def reveal_wanted(self) -> bool:
        """Whether the panel asked for a reveal not carried out yet."""
        return self.wanted is not None

    def sync(self, now: int, *, announce: bool = True) -> None:
        """Tell the panel when the session changed: a closed one is announced as revealed, and
        a new one is opened (at most every SESSION_RETRY_NS while that fails) and shown."""
        dice = self.dice.committing
        if dice is None or self._syncing:
            return
        self._syncing = True
        try:
            sid = dice.session_id
            if sid is not None and sid == self.session_id:
                self._send(self._open_text(), now)  # its table seed, its first roll
                return
            if self.session_id is not None:  # the session the panel shows has closed
                old, old_sid, seed = self.commitment, self.session_id, self.table_seed
                self.session_id, self.commitment, self.table_seed = None, "", None
                if old_sid in self._tell_damaged(now):
                    pass  # ended as damaged (by another writer): told so, it has no card
                elif announce:
                    self._send(self._revealed_text(old, old_sid, seed) if self.kept
                               else sessions.unavailable(NOT_KEPT), now)
            if sid is None and now < self._retry_at:
                return
            try:
                with self.lock():  # joins the directory's open session, or opens one
                    commitment = str(dice.commitment)
                if not sessions.is_commitment(commitment):
                    raise ValueError(f"the dice gave {commitment!r} as a commitment")
            except Exception as exc:  # not enough entropy yet, a source failed: a roll will say so
                self._tell_damaged(now)
                self._retry_at = now + SESSION_RETRY_NS
                why = _detail(exc)
                self._say_no_session(exc, why)
                self._send(sessions.unavailable(why), now)
                return
            self._tell_damaged(now)  # a session joining found damaged, and ended, comes first
            self.session_id = dice.session_id
            self.commitment = commitment
            self._no_session.over()  # the same trouble again later is news again
            self._retry_at = 0  # the next one (after a reveal) opens at once
            self._send(self._open_text(), now)
        finally:
            self._syncing = False

    def set_table_seed(self, asked: tuple[str, str], now: int) -> None:
        """Set the table seed the players entered, record-first, on the session whose
        commitment they saw (the dice follow the log first: another writer may have rolled,
        seeded or revealed meanwhile), then tell the panel what the log holds: the seed (a
        SESSION event) or why it is not set (a LOGGED event: "cannot record" when the log
        could not take it)."""
        from hardware.files.rolllog import LenientLog, LogError

        commitment, text = asked
        dice = self.dice.seeding
        problem: str | None = None
        if dice is None:
            problem = sessions.seed_refused("these dice take no table seed")
        else:
            lenient = self.roll_log if isinstance(self.roll_log, LenientLog) else None
            failures = lenient.failures if lenient is not None else 0
            try:
                with self.lock():
                    if self.dice.following is not None:
                        self.dice.following.follow()
                    sid = dice.session_id
                    if sid is None or not commitment.startswith(sid):
                        raise ValueError(f"the session changed (#{commitment[:8]} is no longer open); note the "
                                         "new commitment, then set its table seed")
                    entry = dice.set_table_seed(text, source="panel")
            except LogError as exc:
                why = lenient.last_reason if lenient is not None and lenient.failures != failures else exc.reason
                self.log(f"table seed: roll log: {why or exc}; not set")
                problem = sessions.seed_not_logged(f"roll log: {why or exc}")
            except Exception as exc:  # refused (too late, set already, the session changed): said on screen
                self.log(f"table seed: {exc}")
                problem = sessions.seed_refused(exc.detail if isinstance(exc, TableSeedError) else str(exc))
            else:
                digest = str(entry.get("hash", ""))[:8]
                # a session without a roll log (the simulator's sandbox) has no entry to name
                where = f"entry {digest}" if digest else "not logged: no state directory"
                self.log(f"table seed {text!r} set for session #{commitment[:8]} ({where})")
        self.sync(now)  # the seed as the log holds it (or the session as it now is)
        if problem is not None:
            self.tell(Event(EventKind.LOGGED, text=problem), now)

    def reveal(self, now: int) -> None:
        """Close the session (its seed goes to the roll log, with who ended it and why), open the
        next one, tell the panel."""
        by, reason = self.wanted or (self.menu_by, "reveal")
        self.wanted = None
        dice = self.dice.committing
        if dice is None:
            return
        try:
            with self.lock():
                self.revealing(lambda: dice.reveal(by=by, reason=reason))
        except Exception as exc:  # the log could not be written: said, and the panel shows what is open
            self._send(sessions.unavailable(f"reveal failed: {exc}"), now)
            self.session_id, self.commitment = None, ""
            self.sync(now, announce=False)
            return
        self.sync(now)

    def drop(self) -> None:
        """Close the session after a roll it drew could not be logged (its bytes are spent and
        not in the log, so the session could not be replayed past them)."""
        dice = self.dice.committing
        if dice is None:
            return
        with contextlib.suppress(Exception), self.lock():  # said by revealing
            self.revealing(dice.reveal)

    def follow(self, now: int) -> None:
        """Take in what other writers logged in the open session (a command line's rolls, a
        table seed, a reveal by ``dicetower session close``); a session they closed is
        followed by the next one at once."""
        following = self.dice.following
        if not self.active or following is None or self.state_dir is None:
            return
        try:
            with self.lock():
                following.follow()
        except Exception as exc:  # an unreadable log: the next roll says more
            self._following.say(f"dice: cannot follow the roll log: {exc}")  # once, not every second
            return
        self._following.over()
        self.sync(now)

    def close(self) -> None:
        """At shutdown: late reveals written, and the dice closed (revealing the session they
        opened), under the lock. Trouble is said, never raised."""
        closing = self.dice.closing
        if closing is None:
            return
        with contextlib.suppress(Exception), self.lock():  # shutting down regardless; said by revealing
            self.log_late_reveals()
            self.revealing(closing.close)

    # --- the log's side ---------------------------------------------------------------------------

    def revealing(self, reveal: Callable[[], object]) -> None:
        """Close the session with ``reveal``. If its reveal entry cannot be written (the card
        is full), the dice keep it and write it as a late ``reveal`` entry as soon as the log
        takes entries again, before any new session opens (one session at a time); the
        journal names its seed meanwhile, so its rolls stay replayable. The exception is raised
        on."""
        info = self.dice.describe()
        try:
            reveal()
        except Exception as exc:
            seed = None
            if self.dice.committing is not None:
                with contextlib.suppress(Exception):
                    seed = self.dice.committing.reveal()  # with none open: the last seed
            sid = info.get("session")
            if seed and sid:
                self.log(f"reveal: {exc}; session {sid}'s seed goes into the log as soon as it can be written: {seed}")
            else:
                self.log(f"reveal: {exc}")
            raise

    def _tell_damaged(self, now: int) -> set[str]:
        """Tell the panel, in one line each, of the sessions ended as damaged since it was last
        told (by this tower at start-up or while joining, or by another writer): their kept
        file could not be trusted (docs/fairness.md, "Cached facts"). Returns their ids."""
        if self._damage_seq is None or self.roll_log is None or self.state_dir is None:
            return set()
        from hardware.session.open_sessions import damaged_since

        try:
            found, self._damage_seq = damaged_since(self.roll_log.path, self._damage_seq)
        except Exception as exc:  # an unreadable log: the next roll says more
            self._following.say(f"dice: cannot follow the roll log: {exc}")
            return set()
        told: set[str] = set()
        for entry in found:
            sid, why = entry.get("session"), entry.get("why") or entry.get("note") or "its kept file cannot be trusted"
            if not isinstance(sid, str):
                continue
            with contextlib.suppress(ValueError):  # not a session id of ours: nothing to tell
                self._send(sessions.damaged(sid, str(why)), now)
                told.add(sid)
                self.log(f"panel: the table is told that session #{sid[:8]} ended as damaged")
        return told

    def reveal_left_open(self) -> None:
        """Reveal the sessions a stopped tower left open (hardware.session.open_sessions), so
        the rolls they made stay checkable, and end as damaged those whose kept file cannot be
        trusted (the panel is told at the first sync). Trouble is logged; the files stay for
        next time."""
        if self.roll_log is not None and self.state_dir is not None and self._damage_seq is None:
            from hardware.session.open_sessions import log_head

            with contextlib.suppress(Exception):  # an unreadable log: nothing is told, the next roll says why
                self._damage_seq = log_head(self.roll_log.path)
        kept = self._open_sessions()
        if kept is None or not kept.left_open() or self.roll_log is None or self.state_dir is None:
            return
        from hardware.files.locking import state_lock

        current = self.dice.committing.session_id if self.dice.committing is not None else None
        try:
            with state_lock(self.state_dir):
                revealed = kept.reveal_left_open(self.roll_log, self.roll_log.path, skip=current)
        except Exception as exc:  # a full card, a damaged log: play goes on, the reveal waits
            self.log(f"reveal: the session(s) left open by the last run stay unrevealed for now: {exc}")
            return
        for sid in revealed:
            self.log(f"reveal: session {sid}, left open when the tower last stopped, is revealed in the log")

    def log_late_reveals(self) -> None:
        """Write the reveals the log could not take when their sessions closed (the dice keep
        them: :meth:`hardware.entropy.SessionDice.flush_reveals`)."""
        late = self.dice.late
        if late is None or not late.late_reveals:
            return
        before = set(late.late_reveals)
        try:
            late.flush_reveals()
        except Exception:  # the log still cannot take them: said when the session closed
            return
        for sid in sorted(before - set(late.late_reveals)):
            self.log(f"reveal: session {sid}'s seed is in the log now")

    # --- texts ------------------------------------------------------------------------------------

    def _send(self, text: str, now: int) -> None:
        if text != self._text:
            self._text = text
            self.tell(Event(EventKind.SESSION, text=text), now)

    def _open_text(self) -> str:
        """The SESSION text of the open session: its commitment, its table seed as the dice
        (following the log) hold it, and whether it has a roll."""
        info = self.dice.describe()
        seed = info.get("table_seed")
        seed = seed if isinstance(seed, str) and sessions.is_table_seed(seed) else None
        rolls = info.get("rolls", 0)
        self.table_seed = seed
        return sessions.committed(self.commitment, table_seed=seed, started=isinstance(rolls, int) and rolls > 0)

    def _revealed_text(self, commitment: str, sid: str, table_seed: str | None) -> str:
        """The SESSION text of a session just closed, with the reveal's four facts when its
        reveal entry is in the log (the reveal screen and its QR code); without them when it
        is not yet (a full card: the dice write it late)."""
        entry = self._reveal_entry(sid)
        if entry is None:
            return sessions.revealed(commitment)
        rolls, head = entry.get("rolls"), entry.get("hash")
        if not isinstance(rolls, int) or not isinstance(head, str) or not sessions.is_commitment(head):
            return sessions.revealed(commitment)
        return sessions.revealed(commitment, rolls=rolls, head=head, table_seed=table_seed)

    def _reveal_entry(self, sid: str) -> dict[str, Any] | None:
        """Session ``sid``'s reveal entry: the dice's own, or (another writer revealed it)
        the log's."""
        own = self.dice.late.last_reveal_entry if self.dice.late is not None else None
        if isinstance(own, dict) and own.get("session") == sid:
            return own
        if self.roll_log is None:
            return None
        from hardware.files.rolllog import last_entry

        try:
            return last_entry(self.roll_log.path, "reveal", where=lambda e: e.get("session") == sid)
        except Exception as exc:  # an unreadable log: the reveal is shown without its facts
            self.log(f"reveal: cannot read session {sid}'s reveal from the roll log: {exc}")
            return None

    def _say_no_session(self, exc: Exception, why: str) -> None:
        """Tell the log (the journal, on a kiosk) why no session opens: a roll log that cannot
        be written or a failed source would otherwise show only on the display. Warming up
        (not enough button presses yet) is the normal start of ``buttons`` and is not said."""
        from hardware.entropy import NotEnoughEntropy

        if isinstance(exc, NotEnoughEntropy):
            return
        self._no_session.say(why, f"dice: no session, so no rolls: {why}")

    def _open_sessions(self) -> OpenSessions | None:
        """The state directory's record of open sessions (None when nothing is kept)."""
        if self.state_dir is None or self.roll_log is None:
            return None
        from hardware.session.open_sessions import OpenSessions

        return OpenSessions(self.state_dir, log=self.log)


def _unwired(event: Event, now: int) -> object:
    """:attr:`SessionSync.tell` until the tower is wired to it: nothing may be told before."""
    raise RuntimeError(f"the session sync told the panel {event.kind.name} before the tower was assembled")


def _detail(exc: Exception) -> str:
    """Why no session opens: an entropy source's (or a parameter's) message without its
    prefix, else the whole message (a roll log's, which names the file)."""
    from engine.errors import EntropyError, ParameterError
    from hardware.files.rolllog import LogError

    if isinstance(exc, (EntropyError, ParameterError)) and exc.detail:
        return exc.detail
    if isinstance(exc, (LogError, OSError)):  # the roll log (or its directory): nothing can be recorded
        return f"{sessions.CANNOT_RECORD}: {exc}"
    return str(exc)
