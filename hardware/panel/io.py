"""The panel's devices: five buttons, their LEDs, the RGB LED, a buzzer and an encoder, as
gpiozero devices built from the config's BCM pins on a pin factory that is passed in.

Buttons are debounced here, in our own code, on a monotonic clock that is passed in: gpiozero's
``bounce_time`` is off unless the config asks for it (``pin_bounce_ms``), because its mock pins
ignore it and RPi.GPIO's filter drops the release of a short tap. gpiozero calls back on its
own threads; :class:`InputQueue` takes the edges under a lock and hands the main loop a short
list of events, coalescing repeats of a button that is already waiting, so a burst of presses
leaves no backlog behind it.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from engine.panel.model import Button, Event, EventKind, Sound
from hardware.backends import AUTO_PIN_FACTORIES, PIN_FACTORIES
from hardware.config.schema import TowerConfig
from hardware.errors import HardwareError

Clock = Callable[[], int]  # monotonic nanoseconds, like time.monotonic_ns

#: Encoder steps one TURN event carries at most (the machine clamps too).
MAX_TURN = 50


class NoGpioError(HardwareError, RuntimeError):
    """No GPIO pin factory works on this machine (not a Pi, or no backend installed)."""


class PinSetupError(HardwareError, RuntimeError):
    """A configured pin could not be set up (in use by another program, no permission, ...);
    the message names the config key and the BCM pin, e.g. ``buttons.roll (BCM 26): GPIO busy``."""

    def __init__(self, key: str, pin: int | None, reason: str) -> None:
        where = f"{key} (BCM {pin})" if pin is not None else key
        super().__init__(f"{where}: {reason}")
        self.key = key
        self.pin = pin


def open_pin_factory(name: str = "auto", *, link: Any = None) -> Any:
    """A gpiozero pin factory by config name (:data:`hardware.backends.PIN_FACTORIES`);
    ``auto`` tries lgpio, RPi.GPIO, pigpio, native.

    ``mock`` is gpiozero's :class:`MockFactory` with PWM-capable pins (for PWMLED, RGBLED,
    TonalBuzzer); ``bridge`` needs the Pico's ``link``. Raises
    :class:`NoGpioError` with one line saying why none could be used.
    """
    backend = PIN_FACTORIES.get(name)  # a ValueError naming the choices for an unknown one
    if backend.bridge:  # the tower waited for the Pico (BridgeSession.wait_for_pico) or carries on without it
        return PIN_FACTORIES.load(name)(link=link, timeout=None)
    order = AUTO_PIN_FACTORIES if name == "auto" else (name,)
    reasons: list[str] = []
    for candidate in order:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return PIN_FACTORIES.load(candidate)()
        except Exception as exc:  # every backend fails in its own way off a Pi
            reasons.append(f"{candidate}: {_first_line(exc)}")
    raise NoGpioError("no GPIO on this machine (" + "; ".join(reasons) + ")")


def mock_factory() -> Any:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    return MockFactory(pin_class=MockPWMPin)


def native_factory() -> Any:
    from gpiozero.pins.native import NativeFactory

    factory = NativeFactory()
    factory.pin(4)  # the native factory only finds out it is not on a Pi when asked for a pin
    factory.release_all(factory)
    return factory


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class Debouncer:
    """One button: debounce and press-and-hold on timestamps in nanoseconds.

    An edge that changes the settled level counts at once unless the last counted change is
    less than ``bounce_ns`` ago; edges inside that window only update the raw level, and
    :meth:`poll` settles on it once the window has passed. So a bouncing contact counts once,
    and a tap shorter than the window still ends in a release. A press that stays down for
    ``hold_ns`` gives one HOLD (the state machine does the repeating).
    """

    __slots__ = ("bounce_ns", "changed_at", "held", "hold_ns", "pressed", "raw")

    def __init__(self, bounce_ns: int, hold_ns: int) -> None:
        self.bounce_ns = bounce_ns
        self.hold_ns = hold_ns
        self.pressed = False
        self.raw = False
        self.changed_at: int | None = None
        self.held = False

    def edge(self, pressed: bool, t: int) -> EventKind | None:
        self.raw = pressed
        if pressed == self.pressed:
            return None
        if self.changed_at is not None and t - self.changed_at < self.bounce_ns:
            return None
        return self._settle(pressed, t)

    def poll(self, t: int) -> list[EventKind]:
        out: list[EventKind] = []
        if self.raw != self.pressed and (self.changed_at is None or t - self.changed_at >= self.bounce_ns):
            out.append(self._settle(self.raw, t))
        if self.pressed and not self.held and self.changed_at is not None and t - self.changed_at >= self.hold_ns:
            self.held = True
            out.append(EventKind.HOLD)
        return out

    def deadline(self) -> int | None:
        """The next time :meth:`poll` could report something (None: not before an edge)."""
        if self.changed_at is None:
            return None
        if self.raw != self.pressed:
            return self.changed_at + self.bounce_ns
        if self.pressed and not self.held:
            return self.changed_at + self.hold_ns
        return None

    def _settle(self, pressed: bool, t: int) -> EventKind:
        self.pressed = pressed
        self.changed_at = t
        self.held = False
        return EventKind.PRESS if pressed else EventKind.RELEASE


@dataclass(frozen=True)
class Edge:
    """A debounced button edge, for the button-timing entropy source."""

    button: Button
    pressed: bool
    t_ns: int


class InputQueue:
    """Edges in from any thread, events out to the main loop; thread-safe and bounded.

    While an event for a button waits to be taken, further presses of that button are folded
    into it (a press that is still pending absorbs the next press, and a pending release is
    withdrawn when the button goes down again), encoder steps add up, and at most one HOLD
    per button waits. So the queue never holds more than a few events per button however
    fast the edges come, and a burst of presses on ROLL while the tower is busy is one roll.
    Presses on different buttons keep their order.
    """

    def __init__(self, *, bounce_s: float, hold_s: float, clock: Clock, timing_limit: int = 256) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._debounce = {b: Debouncer(round(bounce_s * 1e9), round(hold_s * 1e9)) for b in Button}
        self._pending: list[Event] = []
        self._edges: deque[Edge] = deque(maxlen=timing_limit)
        self.coalesced = 0  # events folded into a waiting one (for tests and the status line)

    def edge(self, button: Button, pressed: bool, t_ns: int | None = None) -> None:
        """A raw level change of ``button`` (pressed or not), timestamped now unless given."""
        t = self._clock() if t_ns is None else t_ns
        with self._lock:
            kind = self._debounce[button].edge(pressed, t)
            if kind is not None:
                self._accept(button, kind, t)

    def turn(self, steps: int) -> None:
        with self._lock:
            for i, event in enumerate(self._pending):
                if event.kind is EventKind.TURN:
                    total = max(-MAX_TURN, min(MAX_TURN, event.steps + steps))
                    self._pending[i] = Event(EventKind.TURN, steps=total)
                    self.coalesced += 1
                    break
            else:
                self._pending.append(Event(EventKind.TURN, steps=max(-MAX_TURN, min(MAX_TURN, steps))))
            self._ready.notify()

    def poll(self, t_ns: int | None = None) -> None:
        """Settle bounces whose window has passed and report holds (call from the main loop)."""
        t = self._clock() if t_ns is None else t_ns
        with self._lock:
            for button, deb in self._debounce.items():
                for kind in deb.poll(t):
                    self._accept(button, kind, t)

    def take(self) -> tuple[list[Event], list[Edge]]:
        """Everything waiting: events for the state machine, edges for the entropy pool."""
        with self._lock:
            events, self._pending = self._pending, []
            edges = list(self._edges)
            self._edges.clear()
        return events, edges

    def wait(self, timeout: float) -> bool:
        """Block until an event waits or ``timeout`` seconds pass; True if one waits."""
        with self._lock:
            if not self._pending:
                self._ready.wait(max(0.0, timeout))
            return bool(self._pending)

    def wake(self) -> None:
        """Release a :meth:`wait` early (shutdown)."""
        with self._lock:
            self._ready.notify_all()

    def deadline(self) -> int | None:
        """Earliest time a :meth:`poll` could produce an event (bounce settle or hold)."""
        with self._lock:
            times = [t for t in (d.deadline() for d in self._debounce.values()) if t is not None]
        return min(times) if times else None

    def pressed(self) -> frozenset[Button]:
        with self._lock:
            return frozenset(b for b, d in self._debounce.items() if d.pressed)

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)

    def _accept(self, button: Button, kind: EventKind, t: int) -> None:
        if kind is not EventKind.HOLD:
            self._edges.append(Edge(button, kind is EventKind.PRESS, t))
        mine = [i for i, e in enumerate(self._pending) if e.button is button]
        kinds = {self._pending[i].kind for i in mine}
        if kind is EventKind.PRESS and EventKind.PRESS in kinds:
            # still waiting to be handled: fold this press into that one
            self._pending = [e for e in self._pending if not (e.button is button and e.kind is EventKind.RELEASE)]
            self.coalesced += 1
            return
        if kind in kinds:  # a second HOLD or RELEASE of the same press
            self.coalesced += 1
            return
        self._pending.append(Event(kind, button))
        self._ready.notify()


class SoundPlayer:
    """Plays :class:`Sound` note lists on a buzzer without blocking: the main loop polls."""

    def __init__(self, device: Any, kind: str) -> None:
        self.device = device
        self.kind = kind
        self._notes: deque[tuple[float, float]] = deque()
        self._until: int | None = None
        self.played: deque[str] = deque(maxlen=64)  # the latest sounds' names (simulator, tests)
        self.total = 0  # sounds played since start

    def play(self, sounds: Iterable[Sound], now_ns: int) -> None:
        for sound in sounds:
            self.played.append(sound.name)
            self.total += 1
            self._notes.extend(sound.notes)
        if self._until is None:
            self._next(now_ns)

    def poll(self, now_ns: int) -> None:
        if self._until is not None and now_ns >= self._until:
            self._next(now_ns)

    def deadline(self) -> int | None:
        return self._until

    def stop(self) -> None:
        self._notes.clear()
        self._until = None
        self._silence()

    def _next(self, now_ns: int) -> None:
        if not self._notes:
            self._until = None
            self._silence()
            return
        freq, seconds = self._notes.popleft()
        self._until = now_ns + max(1, round(seconds * 1e9))
        if freq <= 0:
            self._silence()
        elif self.kind == "tonal":
            from gpiozero.tones import Tone

            lo, hi = self.device.min_tone.frequency, self.device.max_tone.frequency
            while freq > hi:
                freq /= 2
            while freq < lo:
                freq *= 2
            self.device.play(Tone(frequency=min(hi, max(lo, freq))))
        else:
            self.device.on()

    def _silence(self) -> None:
        if self.kind == "tonal":
            self.device.stop()
        else:
            self.device.off()


class PanelIO:
    """The gpiozero devices of one panel, built from ``config`` on ``pin_factory``.

    Button edges go into :attr:`inputs`; :meth:`set_leds`, :meth:`set_rgb` and :attr:`sound`
    carry out effects. ``close()`` turns everything off and releases the pins.
    """

    def __init__(self, config: TowerConfig, *, pin_factory: Any, clock: Clock) -> None:
        # DigitalInputDevice, not Button: holds are timed here (Debouncer), and Button starts
        # a hold thread per button that would only sit idle (five threads on a Pi Zero)
        from gpiozero import PWMLED, RGBLED, DigitalInputDevice

        self.config = config
        self.clock = clock
        self.factory = pin_factory
        b = config.buttons
        self.inputs = InputQueue(bounce_s=b.bounce_seconds, hold_s=b.hold_seconds, clock=clock)
        self._devices: list[Any] = []
        # every attribute close() touches exists before the first pin is claimed, so a pin
        # that fails half way still releases the ones already taken
        self.buttons: dict[Button, Any] = {}
        self.leds: list[Any | None] = []
        self.rgb: Any = None
        self.sound: SoundPlayer | None = None
        self.encoder: Any = None
        key, pin = "gpio", None  # what is being set up (for the message when it fails)
        try:
            for button in Button:
                key, pin = f"buttons.{button}", b.pin(button)
                dev = DigitalInputDevice(
                    pin,
                    pull_up=b.pull_up,
                    bounce_time=b.pin_bounce_seconds or None,
                    pin_factory=pin_factory,
                )
                self._devices.append(dev)
                dev.when_activated = _callback(self.inputs.edge, button, True)
                dev.when_deactivated = _callback(self.inputs.edge, button, False)
                self.buttons[button] = dev
            for button, led_pin in zip(Button, config.leds.pins, strict=True):
                led = None
                if led_pin is not None:
                    key, pin = f"leds.{button}", led_pin
                    led = PWMLED(pin, active_high=config.leds.active_high, initial_value=0, pin_factory=pin_factory)
                    self._devices.append(led)
                self.leds.append(led)
            if config.rgb is not None:
                c = config.rgb
                key, pin = "rgb", None
                self.rgb = RGBLED(c.red, c.green, c.blue, active_high=not c.common_anode, pin_factory=pin_factory)
                self._devices.append(self.rgb)
            if config.buzzer is not None:
                key, pin = "buzzer.pin", config.buzzer.pin
                self.sound = SoundPlayer(self._buzzer(config, pin_factory), config.buzzer.kind)
                self._devices.append(self.sound.device)
            if config.encoder is not None:
                from gpiozero import RotaryEncoder

                key, pin = "encoder", None
                self.encoder = RotaryEncoder(
                    config.encoder.a, config.encoder.b, max_steps=0, pin_factory=pin_factory
                )
                self.encoder.when_rotated_clockwise = _callback(self.inputs.turn, 1)
                self.encoder.when_rotated_counter_clockwise = _callback(self.inputs.turn, -1)
                self._devices.append(self.encoder)
        except Exception as exc:
            self.close()
            # a backend's own error (lgpio's 'GPIO busy', RPi.GPIO's RuntimeError, gpiozero's
            # GPIOPinInUse) says nothing about which part of the config it was
            raise PinSetupError(key, pin, _first_line(exc)) from exc
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _buzzer(config: TowerConfig, pin_factory: Any) -> Any:
        bz = config.buzzer
        if bz is None:
            raise ValueError("no buzzer configured")
        if bz.kind == "tonal":
            from gpiozero import TonalBuzzer

            return TonalBuzzer(bz.pin, octaves=bz.octaves, pin_factory=pin_factory)
        from gpiozero import Buzzer

        return Buzzer(bz.pin, pin_factory=pin_factory)

    def pin(self, button: Button) -> Any:
        """The gpiozero pin object of ``button`` (the simulator drives mock pins through it)."""
        return self.buttons[button].pin

    def set_leds(self, levels: Iterable[float]) -> None:
        for led, level in zip(self.leds, levels, strict=False):
            if led is not None:
                level = max(0.0, min(1.0, float(level)))
                if led.value != level:  # a PWM write costs more than the read
                    led.value = level

    def led_levels(self) -> tuple[float, ...]:
        return tuple(0.0 if led is None else float(led.value) for led in self.leds)

    def set_rgb(self, rgb: tuple[float, float, float]) -> None:
        if self.rgb is not None:
            self.rgb.value = tuple(max(0.0, min(1.0, float(v))) for v in rgb)

    def rgb_level(self) -> tuple[float, float, float] | None:
        if self.rgb is None:
            return None
        red, green, blue = (float(v) for v in self.rgb.value)
        return red, green, blue

    def off(self) -> None:
        """Every LED dark and the buzzer quiet (shutdown)."""
        # a closed or failed device must not stop the rest going dark
        with contextlib.suppress(Exception):
            self.set_leds((0.0,) * 5)
        with contextlib.suppress(Exception):
            self.set_rgb((0.0, 0.0, 0.0))
        if self.sound is not None:
            with contextlib.suppress(Exception):
                self.sound.stop()

    def close(self) -> None:
        self.off()
        for dev in self.buttons.values():
            # gpiozero's hold thread notices a stop only between 0.1 s waits; waking all five
            # first makes closing take one such wait instead of five
            hold = getattr(dev, "_hold_thread", None)
            if hold is not None:
                hold.stopping.set()
                hold.holding.set()
        for dev in reversed(self._devices):
            with contextlib.suppress(Exception):
                dev.close()
        self._devices.clear()


def _callback(fn: Callable[..., None], *args: Any) -> Callable[[], None]:
    # gpiozero inspects a callback's arity; a zero-argument closure is never handed the device
    def call() -> None:
        fn(*args)

    return call
