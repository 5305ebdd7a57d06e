"""Where a command's dice come from, and where its rolls are kept.

``--seed`` (deterministic DRBG), ``--faces`` (a player's physical dice, handled by ``roll``)
or the entropy pipeline (``--entropy``, default ``auto``). ``--state-dir DIR`` appends every
roll to DIR's hash-chained roll log (with the session's commitment and, at the end, its
revealed seed); ``--player N`` also reads and updates that player's state (fingers karma).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from engine.dice import DiceSource
from engine.errors import ParameterError
from engine.systems import SystemSpec
from hardware.entropy import SessionDice, open_dice
from hardware.rolllog import RollLog
from hardware.state import PlayerState, StateError, StateStore, carried, carried_value, check_player


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
        help="where the seed comes from: auto (default), kernel, hwrng, file:PATH, buttons, bridge, "
        "or a comma list",
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


def make_dice(args: argparse.Namespace, *, log: RollLog | None = None) -> SessionDice:
    """The dice source the options ask for (call ``close()`` on it when done: that reveals)."""
    seed = getattr(args, "seed", None)
    entropy = getattr(args, "entropy", None)
    if seed is not None and entropy is not None:
        raise ParameterError("seed", "--seed gives deterministic dice; it cannot be combined with --entropy")
    return open_dice(entropy or "auto", seed=seed.encode("utf-8") if seed is not None else None, log=log)


class RollBook:
    """The bookkeeping of one ``roll`` command: roll log, player state, the dice's session.

    Parameters the player's state carries (:func:`hardware.state.carried`) and that were not
    given on the command line are read from the state before every roll, and the result's
    value is stored back after it, so ``--times 5`` carries karma from roll to roll.
    """

    def __init__(self, args: argparse.Namespace, spec: SystemSpec) -> None:
        state_dir = getattr(args, "state_dir", None)
        player = getattr(args, "player", None)
        if player is not None and state_dir is None:
            raise ParameterError("player", "needs --state-dir DIR, the directory that keeps player state")
        self.spec = spec
        self.store = StateStore(state_dir) if state_dir is not None else None
        self.log = RollLog(self.store.log_path) if self.store is not None else None
        self.player = check_player(player) if player is not None else None
        self.state: PlayerState | None = (
            self.store.load(self.player) if self.store is not None and self.player is not None else None
        )
        self._raw: dict[str, Any] = {}
        self._dice: SessionDice | None = None

    def __enter__(self) -> RollBook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def fill(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """``raw`` with carried parameters taken from the player's state where not given."""
        self._raw = dict(raw)
        return self._from_state(self._raw)

    def _from_state(self, raw: dict[str, Any]) -> dict[str, Any]:
        if self.state is None:
            return raw
        out = dict(raw)
        for param, _ in carried(self.spec.id):
            if out.get(param) is None:
                value = self.state.get(self.spec.id, param)
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

    def params(self, resolved: dict[str, Any]) -> dict[str, Any]:
        """The parameters for the next roll (re-read from state when state carries some)."""
        if self.state is None or not carried(self.spec.id):
            return resolved
        return self.spec.resolve(self._from_state(self._raw))

    def dice(self, args: argparse.Namespace) -> DiceSource:
        self._dice = make_dice(args, log=self.log)
        return self._dice

    def record(self, result: Any) -> None:
        """Log the roll (with its session offsets) and store the carried state."""
        if self._dice is not None:
            self._dice.record(result, player=self.player)
        elif self.log is not None:  # typed-in faces: logged, not replayable
            extra = {"player": self.player} if self.player is not None else {}
            self.log.append("roll", session=None, faces=True, result=result.to_dict(), **extra)
        if self.state is not None and self.store is not None:
            data = result.to_dict()
            changed = self.state
            for param, field_path in carried(self.spec.id):
                value = carried_value(data, field_path)
                if value is not None:
                    changed = changed.with_value(self.spec.id, param, value)
            if changed != self.state:
                self.store.save(changed)
                self.state = changed

    def close(self) -> None:
        """Reveal the session's seed (into the log, if any)."""
        if self._dice is not None:
            self._dice.close()
