"""A small driver for the panel machine in tests: a clock, a dice source that counts its
draws, and the effects of every step kept for inspection."""

from __future__ import annotations

from collections.abc import Iterable

from engine.dice import DiceSource
from engine.panel import pages as rows
from engine.panel import setting
from engine.panel.machine import PanelConfig, initial, step
from engine.panel.model import Button, Effects, Event, EventKind, Screen
from tests.support import seeded_dice

MODE, FIELD, MINUS, PLUS, ROLL = Button.MODE, Button.FIELD, Button.MINUS, Button.PLUS, Button.ROLL


class CountingDice:
    """Wraps a dice source and counts ``randbelow`` calls (and ``sample`` hands)."""

    def __init__(self, inner: DiceSource) -> None:
        self.inner = inner
        self.calls = 0

    def randbelow(self, n: int) -> int:
        self.calls += 1
        return self.inner.randbelow(n)


class HandDice:
    """A fingers source that hides the given hands, one per test, in order (like FacesDice
    for dice): ``sample(n, k)`` returns the next hand, which must have ``k`` fingers."""

    def __init__(self, *hands: Iterable[int]) -> None:
        self.hands = [frozenset(h) for h in hands]
        self.calls = 0

    def sample(self, n: int, k: int) -> frozenset[int]:
        hand = self.hands[self.calls]
        self.calls += 1
        if len(hand) != k or not all(1 <= f <= n for f in hand):
            raise AssertionError(f"hand {sorted(hand)} does not fit {k} of {n}")
        return hand

    def randbelow(self, n: int) -> int:
        raise AssertionError("fingers with a HandDice must not draw single dice")


class Panel:
    """The machine plus a clock: ``press(PLUS)``, ``tick(0.5)``, ``screen`` ..."""

    def __init__(self, config: PanelConfig | None = None, *, seed: bytes = b"panel",
                 dice: DiceSource | None = None, now: float = 100.0) -> None:
        self.dice = dice if dice is not None else CountingDice(seeded_dice(seed))
        self.now = now
        self.state, first = initial(config or PanelConfig(animation_seconds=0), now)
        self.effects: list[Effects] = [first]

    def send(self, event: Event, dt: float = 0.05) -> Effects:
        self.now += dt
        self.state, effects = step(self.state, event, self.now, dice=self.dice)
        self.effects.append(effects)
        return effects

    def press(self, *buttons: Button, dt: float = 0.05) -> Effects:
        effects = Effects()
        for b in buttons:
            effects = self.send(Event(EventKind.PRESS, b), dt)
        return effects

    def tap(self, *buttons: Button) -> Effects:
        """Press and release each button."""
        effects = Effects()
        for b in buttons:
            effects = self.press(b)
            self.release(b)
        return effects

    def hold(self, button: Button, dt: float = 0.05) -> Effects:
        return self.send(Event(EventKind.HOLD, button), dt)

    def release(self, button: Button, dt: float = 0.05) -> Effects:
        return self.send(Event(EventKind.RELEASE, button), dt)

    def tick(self, dt: float = 0.05) -> Effects:
        return self.send(Event(EventKind.TICK), dt)

    def status(self, text: str) -> Effects:
        return self.send(Event(EventKind.STATUS, text=text), 0.0)

    def turn(self, steps: int) -> Effects:
        return self.send(Event(EventKind.TURN, steps=steps))

    def to_system(self, system: str) -> None:
        for _ in range(len(self.state.config.systems)):
            if self.state.system_id == system:
                return
            self.press(MODE)
        raise AssertionError(f"{system} is not enabled")

    def to_page(self, page: str) -> None:
        """Go to a setup page with the buttons: MODE back to the first page, PLUS on "more",
        PLUS on a flow's row."""
        for _ in range(3):
            if self.state.page == rows.FIRST or self.state.page == page:
                break
            self.press(MODE)
        if self.state.page == page:
            return
        if page != rows.FIRST:
            self._open(rows.Row(rows.GO, rows.ADVANCED))
        if page.startswith(rows.FLOW):
            self._open(rows.Row(rows.OPEN, page[len(rows.FLOW):]))
        assert self.state.page == page, (self.state.page, page)

    def _open(self, row: rows.Row) -> None:
        self.to_row(row)
        self.press(PLUS)

    def to_row(self, row: rows.Row) -> None:
        for _ in range(len(self.state.rows())):
            if self.state.row() == row:
                return
            self.press(FIELD)
        raise AssertionError(f"{row} is not on page {self.state.page!r} of {self.state.system_id}")

    def to_field(self, name: str) -> None:
        spec = self.state.spec
        self.to_page(rows.page_of(spec, name))
        self.to_row(rows.Row(rows.PARAM, name))

    def value(self, name: str) -> object:
        return setting.value(self.state, name)

    def set_field(self, name: str, value: object) -> None:
        self.to_field(name)
        for _ in range(400):
            current = self.value(name)
            if current == value:
                return
            up = isinstance(value, int) and (current is None or (isinstance(current, int) and value > current))
            # "-" (None) lies below an optional number's range
            down = value is None and isinstance(current, int) and not isinstance(current, bool)
            self.press(MINUS if down else PLUS if up or not isinstance(value, int) else MINUS)
        raise AssertionError(f"could not set {name} to {value!r}")

    def set_list(self, name: str, items: list[tuple[int, ...]]) -> None:
        """A list parameter's items (part values) set on its flow page with the buttons."""
        spec = self.state.spec
        self.to_page(rows.page_of(spec, name))
        shape = spec.panel.lists[name]
        if shape.fixed is None:
            self.to_row(rows.Row(rows.COUNT, name))
            for _ in range(20):
                have = len(setting.items(self.state, name))
                if have == len(items):
                    break
                self.press(PLUS if have < len(items) else MINUS)
        for i, item in enumerate(items):
            for k, wanted in enumerate(item):
                self.to_row(rows.Row(rows.PART, name, i, k))
                for _ in range(400):
                    have = setting.items(self.state, name)[i][k]
                    if have == wanted:
                        break
                    self.press(PLUS if wanted > have else MINUS)
        assert setting.items(self.state, name) == tuple(items)

    @property
    def screen(self) -> Screen:
        view = self.state.view
        if view is None:
            raise AssertionError("no view yet")
        return view.screen

    @property
    def leds(self) -> tuple[float, ...]:
        view = self.state.view
        if view is None:
            raise AssertionError("no view yet")
        return view.leds

    @property
    def rgb(self) -> tuple[float, float, float]:
        view = self.state.view
        if view is None:
            raise AssertionError("no view yet")
        return view.rgb
