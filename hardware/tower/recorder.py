"""The roll recorder: every roll the panel makes goes into the roll log before anything of
it is shown (the roll log is the truth: docs/roll-log.md).

A roll by the dice is recorded by the dice (:class:`~hardware.tower.dice.Recording`), which
count it in their session; a typed-in roll (a fixed hand) is appended as ``entered``,
outside any session, as the command line logs it. Once its entry is written the panel is
told its fingerprint (the roll's number in its session and the start of its hash). When
the entry cannot be written the roll is shown as UNRECORDED (``kiosk.unrecorded =
"show"``) or not at all: "cannot record" on the panel as it was before the roll.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from engine.dice import DiceSource, sample_subset
from engine.panel import machine, sessions, slots
from engine.panel.model import Effects
from engine.systems import typed_in

if TYPE_CHECKING:
    from engine.panel.state import PanelState
    from hardware.files.rolllog import LenientLog, RollLog
    from hardware.tower.dice import Recording

__all__ = ["Recorded", "RollRecorder", "WatchedDice", "short_reason"]


@dataclass(frozen=True)
class Recorded:
    """What became of a roll's entry: ``failed`` says why it is not in the log (None: it is,
    or the dice keep no log); ``logged`` is the LOGGED text of its fingerprint for the panel
    and ``seq`` its number in the log, once written."""

    failed: str | None = None
    logged: str | None = None
    seq: int | None = None


class RollRecorder:
    """Records the panel's rolls with ``dice`` (None: dice that keep no log) in ``roll_log``.

    ``show`` gets the UNRECORDED lines; ``unrecorded`` and ``refused`` count the rolls shown
    without their entry and the rolls not shown because it could not be written."""

    def __init__(self, dice: Recording | None, roll_log: RollLog | LenientLog | None, *, show_anyway: bool,
                 show: Callable[[str], None], log: Callable[[str], None]) -> None:
        self.dice = dice
        self.roll_log = roll_log
        self.show_anyway = show_anyway
        self.show = show
        self.log = log
        self.unrecorded = 0
        self.refused = 0

    def record(self, rolled: dict[str, Any], state: PanelState) -> Recorded:
        """Append the roll (with the slot's state after it)."""
        if self.dice is None:
            return Recorded()
        failures = self._failures()
        slot = slots.to_json(state.slot)
        entered = typed_in(rolled)
        try:
            if entered:  # typed in (a fixed hand): outside any session, as the command line logs it
                entry = self._append_entered(rolled, state.settings.player, slot)
            else:
                entry = self.dice.record(rolled, player=state.settings.player, source="panel", player_state=slot)
        except Exception as exc:  # a LogError, or anything else the log hit: not recorded
            self.log(f"roll log: {exc}")
            return Recorded(failed=short_reason(exc))
        lenient = self._lenient()
        if lenient is not None and lenient.failures != failures:  # the LenientLog swallowed it
            self.log(f"roll log: {lenient.last_error}")
            return Recorded(failed=lenient.last_reason or lenient.last_error)
        if not isinstance(entry, dict):
            return Recorded()  # dice without a log: nothing recorded, nothing to show
        seq = entry.get("seq")
        return Recorded(logged=self._fingerprint(entry, entered), seq=seq if isinstance(seq, int) else None)

    def not_recorded(self, before: PanelState, state: PanelState, fx: Effects, why: str,
                     now: int) -> tuple[PanelState, Effects, bool]:
        """A roll whose entry could not be written: shown anyway, to be titled UNRECORDED
        (``unrecorded = "show"``: the last value is True), or not shown at all, the panel
        back as it was before the roll with a "cannot record" message."""
        if self.show_anyway:
            import json  # only for this line: start-up does without it (docs/architecture.md)

            self.unrecorded += 1
            self.show("UNRECORDED " + json.dumps(fx.rolled, sort_keys=True))
            return state, fx, True
        self.refused += 1
        refused, effects = machine.not_recorded(before, f"roll log: {why}; roll not shown", now / 1e9)
        return refused, effects, False

    def _append_entered(self, rolled: dict[str, Any], player: int, slot: dict[str, Any]) -> dict[str, Any] | None:
        """A typed-in roll's entry: ``entered``, ``session`` null (nothing in it can be checked,
        and it takes no part in the open session: docs/fairness.md, "Roll kinds")."""
        if self.roll_log is None:
            return None
        return self.roll_log.append("roll", session=None, roll_kind="entered", result=rolled, player=player,
                                    source="panel", player_state=slot)

    def _fingerprint(self, entry: dict[str, Any], entered: bool) -> str | None:
        """The LOGGED text for the entry just written: its number in its session (from the
        dice, which counted it) and its hash."""
        digest = entry.get("hash")
        if not isinstance(digest, str) or not digest:
            return None
        number = 0
        if not entered:
            fp = self.dice.last_fingerprint if self.dice is not None else None
            number = fp.number if fp is not None and fp.entry == digest else 0
            if not number:
                return None  # not the dice's own count of it: show nothing rather than a wrong number
        try:
            return sessions.roll_logged(number, digest)
        except ValueError:
            return None

    def _lenient(self) -> LenientLog | None:
        """The roll log when it swallows failed appends (``unrecorded = "show"``)."""
        if self.roll_log is None:
            return None
        from hardware.files.rolllog import LenientLog  # loaded already: the log was made from it

        return self.roll_log if isinstance(self.roll_log, LenientLog) else None

    def _failures(self) -> int:
        lenient = self._lenient()
        return lenient.failures if lenient is not None else 0


P = ParamSpec("P")
R = TypeVar("R")


class WatchedDice:
    """The dice as the state machine sees them: a roll log that cannot take a new session's
    entry is noted (the machine itself would only say "cannot roll" with the whole message).

    They offer what the engine draws with, and nothing else: ``randbelow`` and ``sample``
    (:class:`engine.dice.SubsetDice`), the second as :func:`engine.dice.sample_subset` draws
    from the dice watched (their own ``sample`` if they have one, else die by die)."""

    def __init__(self, dice: DiceSource) -> None:
        self._dice = dice
        self.failed: str | None = None

    def randbelow(self, n: int) -> int:
        return int(self._call(self._dice.randbelow, n))

    def sample(self, n: int, k: int) -> frozenset[int]:
        return self._call(sample_subset, self._dice, n, k)

    def _call(self, draw: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return draw(*args, **kwargs)
        except Exception as exc:
            from hardware.files.rolllog import LogError  # not before it is needed: start-up time

            if isinstance(exc, LogError):
                self.failed = exc.reason
            raise


def short_reason(exc: Exception) -> str:
    """A few words for the display: a roll log's own reason, an entropy source's or a
    parameter's message without its prefix, else the whole message."""
    from engine.errors import EntropyError, ParameterError

    if isinstance(exc, (EntropyError, ParameterError)) and exc.detail:
        return exc.detail
    from hardware.files.rolllog import LogError  # not before it is needed: start-up time

    if isinstance(exc, LogError) and exc.reason:
        return exc.reason
    return str(exc)
