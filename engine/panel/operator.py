"""The operator lock of a kiosk: the settings menu opens only for a button combination.

In a game store anyone may press the buttons, but only staff should change the player slot,
the brightness or reset players. With the lock on (``[kiosk] lock = true``), holding MODE no
longer opens the settings; holding the operator buttons together does (default MODE and ROLL:
press MODE, then ROLL, and keep both down for the hold time). docs/panel.md describes it.

This is a filter in front of :func:`engine.panel.machine.step`: button events go in, the
events the machine should see come out. While a combination is forming, a press of another of
its buttons is swallowed (pressing ROLL while MODE is down does not roll), as are that button's
hold and release; when every operator button is down, the next hold among them reaches the
machine as a hold of MODE, which opens the settings. The first button pressed does its usual
job, so MODE first is best: the machine takes its tap back when it becomes a hold.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.panel.model import Button, Event, EventKind

DEFAULT_BUTTONS: tuple[Button, ...] = (Button.MODE, Button.ROLL)


@dataclass(frozen=True)
class OperatorLock:
    """The lock's state: its buttons, those down now, and those whose events are swallowed."""

    buttons: frozenset[Button] = frozenset(DEFAULT_BUTTONS)
    down: frozenset[Button] = frozenset()
    swallowed: frozenset[Button] = frozenset()
    opened: bool = False  # the settings were opened by this combination (until all are up)

    def __post_init__(self) -> None:
        if len(self.buttons) < 2:
            raise ValueError(f"the operator combination needs at least two buttons, got {sorted(self.buttons)}")


def check_buttons(names: tuple[str, ...]) -> frozenset[Button]:
    """The buttons of a configured combination; ValueError naming a bad or repeated name."""
    found: list[Button] = []
    allowed = ", ".join(b.value for b in Button)
    for name in names:
        try:
            button = Button(name)
        except ValueError:
            raise ValueError(f"{name!r} is not a button (allowed: {allowed})") from None
        if button in found:
            raise ValueError(f"{name!r} is listed twice")
        found.append(button)
    if len(found) < 2:
        raise ValueError(f"needs at least two buttons (of {allowed}), got {list(names)}")
    return frozenset(found)


def filter_event(lock: OperatorLock, event: Event) -> tuple[OperatorLock, tuple[Event, ...]]:
    """One event through the lock: the new lock state and the events for the machine."""
    button = event.button
    if button is None or event.kind not in (EventKind.PRESS, EventKind.RELEASE, EventKind.HOLD):
        return lock, (event,)
    if event.kind is EventKind.PRESS:
        return _press(lock, event, button)
    if event.kind is EventKind.RELEASE:
        down = lock.down - {button}
        lock = replace(lock, down=down, opened=lock.opened and bool(down & lock.buttons))
        if button in lock.swallowed:
            return replace(lock, swallowed=lock.swallowed - {button}), ()
        return lock, (event,)
    return _hold(lock, event, button)


def _press(lock: OperatorLock, event: Event, button: Button) -> tuple[OperatorLock, tuple[Event, ...]]:
    forming = button in lock.buttons and bool(lock.down & lock.buttons)
    lock = replace(lock, down=lock.down | {button})
    if forming:
        return replace(lock, swallowed=lock.swallowed | {button}), ()
    return lock, (event,)


def _hold(lock: OperatorLock, event: Event, button: Button) -> tuple[OperatorLock, tuple[Event, ...]]:
    if button in lock.buttons and lock.buttons <= lock.down:
        if lock.opened:
            return lock, ()  # the other buttons' holds: the menu is already open
        # every operator button is down: this is the operator asking for the settings
        return replace(lock, opened=True), (Event(EventKind.HOLD, Button.MODE),)
    if button in lock.swallowed:
        return lock, ()
    if button is Button.MODE:
        return lock, ()  # MODE alone no longer opens the settings
    return lock, (event,)
