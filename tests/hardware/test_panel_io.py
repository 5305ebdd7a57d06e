"""The panel's devices on gpiozero's MockFactory: debounce, the input queue, LEDs, buzzer, encoder.

gpiozero's mock pins ignore ``bounce_time``, so the debounce under test is ours; time is a
number the tests set (nanoseconds), never a sleep.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.panel.model import Button, Event, EventKind, Sound
from hardware.config import pins, reader, schema
from hardware.panel.io import Debouncer, InputQueue, NoGpioError, PanelIO, PinSetupError, open_pin_factory

MS = 1_000_000
BOUNCE = 20 * MS
HOLD = 800 * MS


class Clock:
    def __init__(self) -> None:
        self.t = 10**9

    def __call__(self) -> int:
        return self.t


# --- Debouncer --------------------------------------------------------------------------------------


def test_a_clean_press_and_release() -> None:
    d = Debouncer(BOUNCE, HOLD)
    assert d.edge(True, 0) is EventKind.PRESS
    assert d.edge(False, 100 * MS) is EventKind.RELEASE


def test_a_bouncing_contact_counts_once_and_settles_on_its_last_level() -> None:
    d = Debouncer(BOUNCE, HOLD)
    kinds = [d.edge(level, t * MS // 10) for t, level in enumerate([True, False, True, False, True, False, True])]
    assert [k for k in kinds if k] == [EventKind.PRESS]
    assert d.poll(25 * MS) == []  # ends pressed: nothing to settle
    assert d.edge(False, 200 * MS) is EventKind.RELEASE


def test_a_tap_shorter_than_the_bounce_window_still_releases() -> None:
    d = Debouncer(BOUNCE, HOLD)
    assert d.edge(True, 0) is EventKind.PRESS
    assert d.edge(False, 5 * MS) is None
    assert d.deadline() == BOUNCE
    assert d.poll(BOUNCE - 1) == []
    assert d.poll(BOUNCE) == [EventKind.RELEASE]


def test_hold_is_reported_once_per_press() -> None:
    d = Debouncer(BOUNCE, HOLD)
    d.edge(True, 0)
    assert d.poll(HOLD - 1) == []
    assert d.poll(HOLD) == [EventKind.HOLD]
    assert d.poll(5 * HOLD) == []
    assert d.edge(False, 6 * HOLD) is EventKind.RELEASE
    d.edge(True, 7 * HOLD)
    assert d.poll(8 * HOLD) == [EventKind.HOLD]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60 * MS), st.booleans()), max_size=60))
def test_debounced_events_are_well_formed_for_any_edges(edges: list[tuple[int, bool]]) -> None:
    d = Debouncer(BOUNCE, HOLD)
    t = 0
    out: list[tuple[EventKind, int]] = []
    raw_presses = 0
    last = False
    for gap, level in edges:
        t += gap
        out.extend((k, t) for k in d.poll(t))
        if level and not last:
            raw_presses += 1
        last = level
        kind = d.edge(level, t)
        if kind:
            out.append((kind, t))
    t += HOLD + BOUNCE
    out.extend((k, t) for k in d.poll(t))
    changes = [(k, when) for k, when in out if k is not EventKind.HOLD]
    # presses and releases alternate, starting with a press
    assert [k for k, _ in changes] == [EventKind.PRESS, EventKind.RELEASE] * (len(changes) // 2) + (
        [EventKind.PRESS] if len(changes) % 2 else []
    )
    # never two counted changes inside one bounce window
    assert all(b - a >= BOUNCE for (_, a), (_, b) in itertools.pairwise(changes))
    # never more presses than the contact made, and it settles on the last raw level
    assert sum(k is EventKind.PRESS for k, _ in changes) <= raw_presses
    assert d.pressed == last


# --- InputQueue ---------------------------------------------------------------------------------------


def queue() -> tuple[InputQueue, Clock]:
    clock = Clock()
    return InputQueue(bounce_s=0.02, hold_s=0.8, clock=clock), clock


def test_queue_hands_over_events_in_order_with_timing_edges() -> None:
    q, clock = queue()
    q.edge(Button.MODE, True)
    clock.t += 1 * MS
    q.edge(Button.FIELD, True)
    events, edges = q.take()
    assert events == [Event(EventKind.PRESS, Button.MODE), Event(EventKind.PRESS, Button.FIELD)]
    assert [(e.button, e.pressed, e.t_ns - edges[0].t_ns) for e in edges] == [
        (Button.MODE, True, 0), (Button.FIELD, True, MS)]
    assert q.take() == ([], [])


def test_a_burst_of_presses_on_a_waiting_button_folds_into_one() -> None:
    q, clock = queue()
    for _ in range(1000):
        q.edge(Button.ROLL, True)
        clock.t += 30 * MS
        q.edge(Button.ROLL, False)
        clock.t += 30 * MS
    assert len(q) == 2
    events, edges = q.take()
    assert events == [Event(EventKind.PRESS, Button.ROLL), Event(EventKind.RELEASE, Button.ROLL)]
    assert len(edges) == 256  # the timing buffer is bounded too
    assert q.coalesced == 999  # every press after the first folded into it


def test_encoder_steps_add_up_while_waiting() -> None:
    q, _ = queue()
    for step in (1, 1, 1, -1, 1):
        q.turn(step)
    assert q.take()[0] == [Event(EventKind.TURN, steps=3)]


def test_wait_returns_when_another_thread_hands_in_an_event() -> None:
    q, _ = queue()
    worker = threading.Thread(target=q.edge, args=(Button.PLUS, True))
    worker.start()
    assert q.wait(5.0)
    worker.join()
    assert q.take()[0] == [Event(EventKind.PRESS, Button.PLUS)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(Button)), st.booleans(), st.integers(0, 50 * MS)), max_size=200))
def test_the_queue_never_holds_more_than_a_few_events_per_button(edges) -> None:
    q, clock = queue()
    for button, pressed, gap in edges:
        clock.t += gap
        q.edge(button, pressed)
        q.poll()
    events, _ = q.take()
    for button in Button:
        mine = [e.kind for e in events if e.button is button]
        assert len(mine) <= 3
        assert mine.count(EventKind.PRESS) <= 1


# --- the gpiozero devices -------------------------------------------------------------------------------


@pytest.fixture
def panel():
    config = reader.loads('[buttons]\nroll = 4\n[encoder]\nenabled = true\n[display]\nkind = "dummy"\n')
    clock = Clock()
    factory = open_pin_factory("mock")
    io = PanelIO(config, pin_factory=factory, clock=clock)
    try:
        yield io, factory, clock
    finally:
        io.close()


def test_a_configured_pin_drives_its_button(panel) -> None:
    io, factory, _clock = panel
    factory.pin(4).drive_low()  # ROLL moved to BCM 4 by the config
    assert io.inputs.take()[0] == [Event(EventKind.PRESS, Button.ROLL)]
    factory.pin(26).drive_low()  # its default pin is not wired to anything now
    assert io.inputs.take()[0] == []
    factory.pin(4).drive_high()


def test_leds_rgb_and_their_pins(panel) -> None:
    io, factory, _ = panel
    io.set_leds((1.0, 0.5, 0.0, 0.0, 0.25))
    assert [factory.pin(p).state for p in (12, 16, 20, 21, 25)] == [1.0, 0.5, 0.0, 0.0, 0.25]
    io.set_rgb((1.0, 0.0, 0.5))
    assert [factory.pin(p).state for p in (17, 27, 22)] == [1.0, 0.0, 0.5]
    io.off()
    assert [factory.pin(p).state for p in (12, 16, 20, 21, 25, 17, 27, 22)] == [0.0] * 8


def test_sounds_play_note_by_note_without_blocking(panel) -> None:
    io, factory, clock = panel
    sound = io.sound
    sound.play([Sound("t", ((440.0, 0.1), (0.0, 0.05), (3000.0, 0.1)))], clock.t)
    pin = factory.pin(18)
    assert pin.frequency == pytest.approx(440.0)
    assert sound.deadline() == clock.t + 100 * MS
    sound.poll(clock.t + 100 * MS)
    assert not pin.state  # a rest
    sound.poll(clock.t + 150 * MS)
    assert pin.frequency <= io.sound.device.max_tone.frequency  # folded into the buzzer's range
    sound.poll(clock.t + 250 * MS)
    assert sound.deadline() is None and not pin.state
    assert list(sound.played) == ["t"] and sound.total == 1


def test_the_encoder_turns_into_steps(panel) -> None:
    io, factory, _ = panel
    a, b = factory.pin(23), factory.pin(24)
    for _ in range(2):  # two detents clockwise: A leads B
        a.drive_low()
        b.drive_low()
        a.drive_high()
        b.drive_high()
    assert io.inputs.take()[0] == [Event(EventKind.TURN, steps=2)]


def test_an_active_buzzer_and_no_rgb() -> None:
    config = reader.loads('[buzzer]\nkind = "active"\n[rgb]\nenabled = false\n')
    factory = open_pin_factory("mock")
    io = PanelIO(config, pin_factory=factory, clock=Clock())
    try:
        assert io.rgb is None and io.rgb_level() is None
        io.sound.play([Sound("beep", ((880.0, 0.1),))], 0)
        assert factory.pin(18).state
        io.sound.poll(100 * MS)
        assert not factory.pin(18).state
    finally:
        io.close()


def test_pins_are_released_on_close() -> None:
    from gpiozero import LED

    config = dataclasses.replace(reader.load(), display=schema.DisplayConfig(kind="dummy"))
    factory = open_pin_factory("mock")
    PanelIO(config, pin_factory=factory, clock=Clock()).close()
    freed = []
    for key, pin in pins.pin_uses(config).items():  # each pin can be claimed again (GPIOPinInUse otherwise)
        LED(pin, pin_factory=factory).close()
        freed.append(key)
    assert len(freed) == len(pins.pin_uses(config)) >= 10  # five buttons and their five LEDs at least
    PanelIO(config, pin_factory=factory, clock=Clock()).close()


@pytest.mark.parametrize(("busy", "key"), [(26, "buttons.roll (BCM 26)"), (21, "leds.plus (BCM 21)"),
                                           (27, "rgb"), (18, "buzzer.pin (BCM 18)")])
def test_a_busy_pin_names_its_key_and_releases_the_pins_already_taken(busy: int, key: str) -> None:
    """Another program holding a pin (an old tower still running) was an AttributeError from
    close(), which hid the real error and left the pins taken before it claimed."""
    from gpiozero import LED

    config = dataclasses.replace(reader.load(), display=schema.DisplayConfig(kind="dummy"))
    factory = open_pin_factory("mock")
    other = LED(busy, pin_factory=factory)
    with pytest.raises(PinSetupError) as err:
        PanelIO(config, pin_factory=factory, clock=Clock())
    assert str(err.value).startswith(f"{key}: ")
    assert "already in use" in str(err.value) and "\n" not in str(err.value)
    other.close()
    PanelIO(config, pin_factory=factory, clock=Clock()).close()  # every pin was given back


def test_no_gpio_is_one_line_naming_each_backend() -> None:
    try:
        factory = open_pin_factory("auto")
    except NoGpioError as exc:
        message = str(exc)
        assert "\n" not in message
        assert "lgpio" in message and "rpigpio" in message
    else:  # on a Pi this test has nothing to prove
        factory.close()
        pytest.skip("this machine has GPIO")
    with pytest.raises(ValueError, match="pin factory"):
        open_pin_factory("gpio")
