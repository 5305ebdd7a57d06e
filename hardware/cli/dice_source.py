"""Where a command's dice come from, and where its rolls are kept.

``--seed`` (deterministic DRBG), ``--faces`` (a player's physical dice, handled by ``roll``)
or the entropy pipeline (``--entropy``, default ``auto``). ``--state-dir DIR`` appends every
roll to DIR's hash-chained roll log (with the session's commitment and, at the end, its
revealed seed); ``--player N`` also reads and updates that player's state (fingers karma).
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from engine.dice import DiceSource
from engine.errors import ParameterError
from engine.systems import SystemSpec
from hardware.backends import ENTROPY_SOURCES
from hardware.cli.output import say
from hardware.entropy import SessionDice, open_dice, session_file
from hardware.locking import state_lock
from hardware.rolllog import LogError, RollLog
from hardware.state import (
    PlayerState,
    StateError,
    StateStore,
    StateWriteError,
    carried,
    carried_value,
    check_player,
    check_state_dir,
)


def add_dice_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        metavar="S",
        help="deterministic dice from this seed (tests and replays; never the default)",
    )
    parser.add_argument(
        "--entropy",
        metavar="SOURCE",
        default=None,
        help=f"where the seed comes from: auto (default), {', '.join(ENTROPY_SOURCES.names())}, file:PATH, "
        "or a comma list",
    )
    parser.add_argument(
        "--mix",
        metavar="TEXT",
        default=None,
        help="your say in the roll: TEXT goes into the DRBG with the roll and into the log "
        "(default: the time in nanoseconds; with --seed, nothing)",
    )


def add_state_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--state-dir",
        metavar="DIR",
        default=None,
        help="keep player state and append the roll to DIR's roll log",
    )
    parser.add_argument(
        "--player", metavar="N", default=None, help="player slot whose state the roll reads and updates"
    )


def make_dice(args: argparse.Namespace, *, log: RollLog | None = None,
              resume: session_file.StoredSession | None = None) -> SessionDice:
    """The dice source the options ask for (call ``close()`` on it when done: that reveals).
    ``resume`` rolls in the open session of the state directory."""
    seed = getattr(args, "seed", None)
    entropy = getattr(args, "entropy", None)
    if seed is not None and entropy is not None:
        raise ParameterError("seed", "--seed gives deterministic dice; it cannot be combined with --entropy")
    mix = getattr(args, "mix", None)
    text = mix.encode("utf-8") if mix is not None else None
    return open_dice(entropy or "auto", seed=seed.encode("utf-8") if seed is not None else None, log=log,
                     mix=(lambda: text) if text is not None else None, resume=resume)


class RollBook:
    """The bookkeeping of one ``roll`` command: roll log, player state, the dice's session.

    The whole command runs under the state directory's lock (:func:`hardware.locking.
    state_lock`), since the state dir's open session (``dicetower session open``) moves on with
    every roll. Each roll: the player file is brought up to date with the log, the state is
    read, the dice roll, the entry (with the player's state after the roll) is appended and
    fsynced, the state file and the open session saved. Only then does the caller print the result, so nothing is shown
    that is not in the log, and two commands on one player never lose an update. Parameters
    the player's state carries (:func:`hardware.state.carried`) and that were not given on the
    command line are re-read from the state before every roll of ``--times``.

    Typed-in faces (``--faces``) are all rolled first and checked (too many faces, a face out
    of range) before the first entry is appended: a mistake appends nothing.
    """

    def __init__(self, args: argparse.Namespace, spec: SystemSpec) -> None:
        state_dir = getattr(args, "state_dir", None)
        player = getattr(args, "player", None)
        if player is not None and state_dir is None:
            raise ParameterError("player", "needs --state-dir DIR, the directory that keeps player state")
        self.spec = spec
        self.store = StateStore(check_state_dir(state_dir)) if state_dir is not None else None
        self.log = RollLog(self.store.log_path) if self.store is not None else None
        self.player = check_player(player) if player is not None else None
        self._raw: dict[str, Any] = {}
        self._dice: SessionDice | None = None
        self._kept: str | None = None  # the id of the state dir's open session we roll in
        self.unrevealed: str | None = None  # the seed of a session whose reveal could not be logged
        # One writer at a time for the whole command: rolls, player files and the session file.
        # The lock is not re-entrant: nothing below takes it again.
        self._lock = contextlib.ExitStack()
        if self.store is not None:
            self._lock.enter_context(state_lock(self.store.directory))
            try:  # the lock removed what a killed writer left; bring the player files up to date
                self.store.heal()
            except BaseException:
                self._lock.close()
                raise

    def __enter__(self) -> RollBook:
        return self

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        if exc is not None and self._dice is not None:
            self._dice.abandon()  # a roll that failed part way was never made
        try:
            self.close()
        except LogError as failed:
            if exc is None:
                raise
            if isinstance(exc, LogError):  # the first error is the one to report, with the seed
                exc.unrevealed = failed.unrevealed

    def _load(self) -> PlayerState | None:
        if self.store is None or self.player is None:
            return None
        return self.store.load(self.player)

    def fill(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """``raw`` with carried parameters taken from the player's state where not given."""
        self._raw = dict(raw)
        return self._from_state(self._raw, self._load())

    def _from_state(self, raw: dict[str, Any], state: PlayerState | None) -> dict[str, Any]:
        if state is None:
            return raw
        out = dict(raw)
        for param, _ in carried(self.spec.id):
            if out.get(param) is None:
                value = state.get(self.spec.id, param)
                if value is not None:
                    out[param] = self._checked(param, value)
        return out

    def _checked(self, param: str, value: Any) -> Any:
        """A stored value, checked here so a damaged file is named (not a --flag never typed)."""
        try:
            return self.spec.param(param).coerce(value)
        except ParameterError as exc:
            path = self.store.player_path(self.player) if self.store and self.player else "player state"
            raise StateError(f"{path}: stored {self.spec.id} {param} {exc.detail}; correct or delete the file") \
                from None

    def _params(self, resolved: dict[str, Any], state: PlayerState | None) -> dict[str, Any]:
        if state is None or not carried(self.spec.id):
            return resolved
        return self.spec.resolve(self._from_state(self._raw, state))

    def _after(self, state: PlayerState | None, result: Any) -> PlayerState | None:
        """The player's state after ``result`` (carried values stored back)."""
        if state is None:
            return None
        data = result.to_dict()
        for param, field_path in carried(self.spec.id):
            value = carried_value(data, field_path)
            if value is not None:
                state = state.with_value(self.spec.id, param, value)
        return state

    def dice(self, args: argparse.Namespace) -> DiceSource:
        """The tower's dice: the state dir's open session if there is one (``--seed`` makes a
        separate test session), else a session of this command, revealed at its end."""
        stored = None
        if self.store is not None and getattr(args, "seed", None) is None:
            stored = session_file.load(self.store.directory)
        if stored is not None:
            stored = self._unless_behind_the_log(stored)
        if stored is not None and getattr(args, "entropy", None) is not None:
            raise ParameterError("entropy", f"{self.store.directory} has an open session (#{stored.id[:8]}), seeded "
                                            "when it was opened; close it before choosing another source")
        self._dice = make_dice(args, log=self.log, resume=stored)
        self._kept = stored.id if stored is not None else None
        return self._dice

    def _unless_behind_the_log(self, stored: session_file.StoredSession) -> session_file.StoredSession | None:
        """The state dir's open session, unless a command was stopped (killed, a power cut)
        between its log entry and saving the session: the file is then behind the log, and
        rolling on from it would draw again what a logged roll drew, or roll in a session the
        log has revealed. Such a session is revealed (if it is not yet) with the rolls the log
        has of it, and forgotten; this command rolls in a session of its own."""
        if self.log is None or self.store is None:
            return stored
        from hardware.entropy.open_sessions import trace
        from hardware.rolllog import last_entry

        def same(entry: dict[str, Any]) -> bool:
            return entry.get("session") == stored.id

        revealed = last_entry(self.log.path, "reveal", max_bytes=1 << 16, where=same) is not None
        last = last_entry(self.log.path, "roll", where=same)
        if not revealed and (last is None or last.get("end") == stored.counter - 1):
            return stored
        if not revealed:
            t = trace(self.log.path, [stored.id])[stored.id]
            self.log.append("reveal", session=stored.id, seed=stored.material.encode().hex(), rolls=t.rolls,
                            end=t.end, reason="restart",
                            note="a command stopped between its roll and saving the open session")
        session_file.remove(self.store.directory)
        say(f"dicetower: note: the open session #{stored.id[:8]} was behind the roll log (a command was stopped "
              "between its roll and saving the session); it is revealed and closed: open a new one "
              "(dicetower session open DIR)")
        return None

    @property
    def verifiable(self) -> bool:
        """Whether the rolls can be checked later: logged, from the tower's dice, not a test."""
        return self.log is not None and self._dice is not None and self._dice.roll_kind == "rolled"

    def roll(self, roll: Callable[[dict[str, Any]], Any], params: dict[str, Any]) -> Any:
        """One roll (the lock is held): heal, load, roll, append, save. Returns the result, which
        is recorded by then and may be shown."""
        if self.store is not None:
            self.store.heal()
        state = self._load()
        self._check_writable(state)
        result = roll(self._params(params, state))
        self._record(result, self._after(state, result))
        return result

    def roll_faces(self, roll: Callable[[dict[str, Any]], Any], params: dict[str, Any], times: int,
                   finish: Callable[[], None]) -> list[Any]:
        """``times`` rolls of typed-in faces, all checked (``finish``) before any is recorded."""
        if self.store is not None:
            self.store.heal()
        state = self._load()
        self._check_writable(state)
        rolled = []
        for _ in range(times):
            result = roll(self._params(params, state))
            state = self._after(state, result)
            rolled.append((result, state))
        finish()
        for result, after in rolled:
            self._record(result, after)
        return [result for result, _ in rolled]

    def _check_writable(self, state: PlayerState | None) -> None:
        """Refuse before rolling when the player's state could not be saved after the append
        (a read-only ``players/``): the roll would be in the log and its state nowhere."""
        if state is None or self.store is None or not carried(self.spec.id):
            return
        self.store.check_writable(state.player)

    def _record(self, result: Any, after: PlayerState | None) -> None:
        """Append the roll (with the player's state after it), then save that state."""
        extra: dict[str, Any] = {}
        if after is not None:
            extra["player_state"] = after.systems_json()
        entry = None
        if self._dice is not None:
            entry = self._dice.record(result, player=self.player, **extra)
            if self._kept is not None:
                self._keep()
        elif self.log is not None:  # typed in (--faces, --winners-set): logged, not replayable
            if self.player is not None:
                extra["player"] = self.player
            entry = self.log.append("roll", session=None, roll_kind="entered", result=result.to_dict(), **extra)
        if after is not None and self.store is not None and entry is not None:
            try:
                self.store.save(replace(after, log_seq=entry["seq"]))
            except StateWriteError as exc:  # the roll is in the log: shown; the cache heals later
                say(f"dicetower: warning: {exc}; the roll is in the log, and the state file is rebuilt from "
                      "it at the next roll")

    def _keep(self) -> None:
        """Save the open session for the next command (or forget it once it was revealed)."""
        if self._dice is None or self.store is None:
            return
        exported = self._dice.export()
        if exported is None:
            session_file.remove(self.store.directory)
            return
        if exported.id != self._kept:  # the old one reached its roll limit and was revealed
            say(f"dicetower: note: session #{self._kept[:8]} reached its roll limit and was revealed; the rolls "
                  f"go on in a new session, commitment {exported.commitment}")
            self._kept = exported.id
        session_file.save(self.store.directory, exported)

    def close(self) -> None:
        """Reveal this command's session (into the log, if any); the state dir's open session
        stays open. Releases the state dir's lock. If the reveal cannot be written, its seed is
        kept in :attr:`unrevealed` and :class:`~hardware.rolllog.LogError` raised."""
        dice, self._dice = self._dice, None
        try:
            if dice is not None and self._kept is None:
                try:
                    dice.close()
                except LogError as exc:
                    self.unrevealed = exc.unrevealed = dice.reveal()
                    raise
                if self.log is not None and self.store is not None and dice.roll_kind == "rolled" \
                        and dice.rolls_recorded:
                    say(f"dicetower: note: no session open in {self.store.directory}: this command committed to "
                          "and revealed a session of its own; open one first (dicetower session open DIR) so "
                          "the commitment is known before the rolls")
        finally:
            self._lock.close()
