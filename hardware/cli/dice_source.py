"""Where a command's dice come from, and where its rolls are kept.

``--seed`` (deterministic DRBG), ``--faces`` (a player's physical dice, handled by ``roll``)
or the entropy pipeline (``--entropy``, default ``auto``). ``--state-dir DIR`` appends every
roll to DIR's hash-chained roll log, in DIR's one open session (whoever opened it: the tower,
``dicetower session open``, or this command for itself, revealed at its end); ``--player N``
also reads and updates that player's state (fingers karma).
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from engine.dice import DiceSource
from engine.errors import ParameterError
from engine.fingerprints import Fingerprint
from engine.seeds import MIX_MAX_BYTES, mix_problem
from engine.systems import SystemSpec
from hardware import backends
from hardware.cli.output import say
from hardware.entropy import SessionDice, open_dice
from hardware.files.locking import state_lock
from hardware.files.rolllog import LogError, RollLog
from hardware.files.state import (
    PlayerState,
    StateError,
    StateStore,
    StateWriteError,
    carried,
    carried_value,
    check_player,
    check_state_dir,
)
from hardware.session.open_sessions import OpenSessions


def add_dice_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        metavar="S",
        help="deterministic dice from this seed (tests and replays; never the default)",
    )
    sources = ", ".join(backends.ENTROPY_SOURCES.config_names())
    parser.add_argument(
        "--entropy",
        metavar="SOURCE",
        default=None,
        help=f"where the seed comes from: auto (default), {sources}, file:PATH, or a comma list",
    )
    parser.add_argument(
        "--mix",
        metavar="TEXT",
        default=None,
        help="your say in the roll: TEXT (at most 256 bytes, no control characters) goes into the DRBG "
        "with the roll and into the log (default: nothing)",
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
              keeper: OpenSessions | None = None) -> SessionDice:
    """The dice source the options ask for (call ``close()`` on it when done: that reveals a
    session it opened). ``keeper`` is the state directory's open session, which it rolls in."""
    seed, entropy = args.seed, args.entropy  # add_dice_options' (every caller's parser has them)
    if seed is not None and entropy is not None:
        raise ParameterError("seed", "--seed gives deterministic dice; it cannot be combined with --entropy")
    mix = args.mix
    text = check_mix(mix) if mix is not None else None
    return open_dice(entropy or "auto", seed=seed.encode("utf-8") if seed is not None else None, log=log,
                     mix=(lambda: text) if text is not None else None, keeper=keeper)


def check_mix(text: str) -> bytes:
    """``--mix TEXT`` as the roll's additional input: text a person typed (a replay refuses
    anything else in a logged roll)."""
    data = text.encode("utf-8", "surrogateescape")
    why = mix_problem(data)
    if why is not None:
        raise ParameterError("mix", f"must be printable ASCII (letters, digits, punctuation, spaces), at most "
                                    f"{MIX_MAX_BYTES} characters, so that every player can read it back; this one "
                                    f"is {why}")
    return data


class RollBook:
    """The bookkeeping of one ``roll`` command: roll log, player state, the dice's session.

    Each roll is one step under the state directory's lock (:func:`hardware.files.locking.
    state_lock`), taken for that roll and let go after it, so a tower (or another command)
    sharing the directory waits at most one roll: the player file is brought up to date with
    the log, the state is read, the dice follow the log and roll in the directory's open
    session, the entry (with the player's state after the roll) is appended and fsynced, the
    state file saved. Only then does the caller print the result, so nothing is shown that is
    not in the log, and two writers on one player never lose an update. Parameters the
    player's state carries (:func:`hardware.files.state.carried`) and that were not given on the
    command line are re-read from the state before every roll of ``--times``.

    Typed-in faces (``--faces``) are all rolled first and checked (too many faces, a face out
    of range) before the first entry is appended, under one lock: a mistake appends nothing.
    """

    def __init__(self, args: argparse.Namespace, spec: SystemSpec) -> None:
        state_dir, player = args.state_dir, args.player  # add_state_options' (the roll command's)
        if player is not None and state_dir is None:
            raise ParameterError("player", "needs --state-dir DIR, the directory that keeps player state")
        self.spec = spec
        self.store = StateStore(check_state_dir(state_dir)) if state_dir is not None else None
        self.log = RollLog(self.store.log_path) if self.store is not None else None
        self.player = check_player(player) if player is not None else None
        self._raw: dict[str, Any] = {}
        self._dice: SessionDice | None = None
        self._session: str | None = None  # the session the last roll went into
        self.entered: list[Fingerprint] = []  # the typed-in rolls' entries, in order
        self.unrevealed: str | None = None  # the seed of a session whose reveal could not be logged
        self._cleaned = False  # the first lock removes what a killed writer left (state_lock)
        if self.store is not None:
            with self._locked():  # and the player files are brought up to date
                self.store.heal()

    def _locked(self) -> contextlib.AbstractContextManager[None]:
        """The state directory's lock for one step (none without a state directory). It is
        not re-entrant: nothing below takes it again. Only the first one cleans a killed
        writer's temp files: a ``--times`` run takes it for every roll, and a listing of three
        folders per roll buys nothing."""
        if self.store is None:
            return contextlib.nullcontext()
        clean, self._cleaned = not self._cleaned, True
        return state_lock(self.store.directory, clean=clean)

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
        with self._locked():
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
        """The tower's dice: they roll in the state directory's open session, whoever opened
        it (a ``--seed`` test session only when none is open), else in a session of this
        command, revealed at its end."""
        keeper = OpenSessions(self.store.directory, owner="command", log=_note) if self.store is not None else None
        if keeper is not None and self.store is not None and self.log is not None \
                and args.entropy is not None:
            # --entropy seeds a session this command opens; one opened on purpose (session open,
            # the tower) is refused, another command's passing one is rolled in
            with self._locked():
                joined = keeper.joinable(self.log)
            if joined is not None and joined.stored.owner.kind in ("open", "tower"):
                raise ParameterError("entropy", f"{self.store.directory} has an open session "
                                                f"(#{joined.stored.id[:8]}), seeded when it was opened; close it "
                                                "before choosing another source")
        self._dice = make_dice(args, log=self.log, keeper=keeper)
        return self._dice

    @property
    def verifiable(self) -> bool:
        """Whether the rolls can be checked later: logged, from the tower's dice, not a test."""
        return self.log is not None and self._dice is not None and self._dice.roll_kind == "rolled"

    @property
    def fingerprint(self) -> Fingerprint | None:
        """The last roll's place in its session and its entry hash (None when not recorded)."""
        if self.log is None or self._dice is None:
            return None
        return self._dice.last_fingerprint

    def roll(self, roll: Callable[[dict[str, Any]], Any], params: dict[str, Any]) -> Any:
        """One roll, under the lock: heal, load, roll, append, save. Returns the result, which
        is recorded by then and may be shown."""
        with self._locked():
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
        with self._locked():
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
            self._note_new_session()
        elif self.log is not None:  # typed in (--faces, --winners-set): logged, not replayable
            if self.player is not None:
                extra["player"] = self.player
            entry = self.log.append("roll", session=None, roll_kind="entered", result=result.to_dict(), **extra)
            self.entered.append(Fingerprint("", 0, str(entry.get("hash", ""))))
        if after is not None and self.store is not None and entry is not None:
            try:
                self.store.save(replace(after, log_seq=entry["seq"]))
            except StateWriteError as exc:  # the roll is in the log: shown; the cache heals later
                say(f"dicetower: warning: {exc}; the roll is in the log, and the state file is rebuilt from "
                    "it at the next roll")

    def _note_new_session(self) -> None:
        """Say when the rolls go on in a new session (the last one reached its roll limit)."""
        fp = self._dice.last_fingerprint if self._dice is not None else None
        if fp is None:
            return
        if self._session is not None and fp.session != self._session:
            info = self._dice.describe() if self._dice is not None else {}
            commitment = info.get("commitment") if info.get("session") == fp.session else None
            say(f"dicetower: note: session #{self._session[:8]} was revealed (its roll limit, or by another "
                f"writer); the rolls go on in session #{fp.session[:8]}"
                + (f", commitment {commitment}" if commitment else ""))
        self._session = fp.session

    def close(self) -> None:
        """Reveal this command's own session (into the log, if any); a session it joined stays
        open. If the reveal cannot be written, its seed is kept in :attr:`unrevealed` and
        :class:`~hardware.files.rolllog.LogError` raised."""
        dice, self._dice = self._dice, None
        if dice is None:
            return
        with self._locked():
            try:
                dice.close()
            except LogError as exc:
                self.unrevealed = exc.unrevealed = dice.reveal()
                raise
        if self.log is not None and self.store is not None and dice.roll_kind == "rolled" \
                and dice.sessions_opened and dice.rolls_recorded:
            say(f"dicetower: note: no session open in {self.store.directory}: this command committed to and "
                "revealed a session of its own; open one first (dicetower session open DIR) so the commitment "
                "is known before the rolls")


def _note(message: str) -> None:
    say(f"dicetower: note: {message}")
