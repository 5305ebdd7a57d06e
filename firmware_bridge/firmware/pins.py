# The Pico's pins for the bridge: debounced inputs that report edges with the first edge's
# ticks_us, and outputs set (never toggled) to a level or a PWM duty. MicroPython; the host
# side is firmware_bridge.pins.
import time

import codec
import machine

# GP pins a Pico brings out: GP23 (SMPS mode), GP24 (VBUS sense) and GP29 (VSYS/3) are wired
# on the Pico itself. GP25 is the on-board LED (on a Pico W: the radio's, refused there).
USABLE = tuple(range(0, 23)) + (25, 26, 27, 28)
# Pins the firmware keeps for itself: a host may not change them.
RESERVED = {8: "the OLED's I2C0 SDA", 9: "the OLED's I2C0 SCL", 14: "the safe-boot pin"}


class BadPin(ValueError):
    pass


class _Input:
    def __init__(self, pin, debounce_us):
        self.pin = pin
        self.debounce_us = debounce_us
        self.level = pin.value()  # the last level reported to the host
        self.first = 0  # ticks_us of the first edge of a bounce
        self.pending = False
        self.edges = 0  # debounced changes reported since the pin was set up (wraps at 2^16)
        pin.irq(self._edge, machine.Pin.IRQ_RISING | machine.Pin.IRQ_FALLING)

    def _edge(self, _pin):
        # IRQ context: only note when the bounce started.
        if not self.pending:
            self.first = time.ticks_us()
            self.pending = True

    def poll(self, now):
        """The new level if a debounced change is due, else None."""
        if not self.pending:
            if self.pin.value() == self.level:
                return None
            self.first = now  # a change whose IRQ we missed
            self.pending = True
        if time.ticks_diff(now, self.first) < self.debounce_us:
            return None
        self.pending = False
        level = self.pin.value()
        if level == self.level:
            return None  # a glitch shorter than the debounce
        self.level = level
        self.edges = (self.edges + 1) & 0xFFFF
        return level

    def close(self):
        self.pin.irq(None)


class _Output:
    def __init__(self, pin, pwm):
        self.pin = pin
        self.pwm = pwm
        self.duty = 0

    def set(self, duty, freq):
        self.duty = duty
        if self.pwm is not None:
            if freq:
                self.pwm.freq(freq)
            self.pwm.duty_u16(duty)
        else:
            self.pin.value(1 if duty else 0)

    def close(self):
        self.set(0, 0)
        if self.pwm is not None:
            self.pwm.deinit()


class Pins:
    def __init__(self, radio=False):
        self.inputs = {}
        self.outputs = {}
        self.radio = radio  # a Pico W: GP23, 24, 25 and 29 belong to its radio chip

    def mode(self, n, mode, pull, debounce_ms):
        if n in RESERVED:
            raise BadPin("GP" + str(n) + " is " + RESERVED[n] + ", kept by the bridge firmware")
        if n not in USABLE or (self.radio and n == 25):
            raise BadPin("GP" + str(n) + " is not a usable pin on this Pico (GP0..GP22, GP26..GP28"
                         + (")" if self.radio else ", GP25)"))
        Pin = machine.Pin
        pulls = {codec.PULL_NONE: None, codec.PULL_UP: Pin.PULL_UP, codec.PULL_DOWN: Pin.PULL_DOWN}
        if mode > codec.MODE_PWM:
            raise ValueError("mode " + str(mode))
        if mode == codec.MODE_INPUT and pull not in pulls:
            raise ValueError("pull " + str(pull))
        self.release(n)  # only once the request is known to be good: a bad one changes nothing
        if mode == codec.MODE_INPUT:
            self.inputs[n] = _Input(Pin(n, Pin.IN, pulls[pull]), debounce_ms * 1000)
            return self.inputs[n].level
        if mode == codec.MODE_OUTPUT:
            self.outputs[n] = _Output(Pin(n, Pin.OUT, value=0), None)
            return 0
        if mode == codec.MODE_PWM:
            pwm = machine.PWM(Pin(n, Pin.OUT))
            pwm.freq(1000)
            pwm.duty_u16(0)
            self.outputs[n] = _Output(None, pwm)
            return 0
        Pin(n, Pin.IN)  # MODE_OFF
        return 0

    def release(self, n):
        if n in self.inputs:
            self.inputs.pop(n).close()
        if n in self.outputs:
            self.outputs.pop(n).close()

    def output(self, n):
        out = self.outputs.get(n)
        if out is None:
            raise BadPin("GP" + str(n) + " is not an output" + (" (an input)" if n in self.inputs else ""))
        return out

    def set(self, n, duty, freq):
        self.output(n).set(duty, freq)

    def poll(self):
        """Debounced edges due now: a list of (pin, level, ticks_us of the first edge)."""
        now = time.ticks_us()
        edges = []
        for n in sorted(self.inputs):
            inp = self.inputs[n]
            level = inp.poll(now)
            if level is not None:
                edges.append((n, level, inp.first))
        return edges

    def all_off(self):
        for out in self.outputs.values():
            out.set(0, 0)

    def state(self):
        """(pin, mode, value, edges) per configured pin, by pin number (MicroPython's dicts do
        not keep insertion order: the sort makes the reply the same on every interpreter)."""
        rows = []
        for n in sorted(self.inputs):
            inp = self.inputs[n]
            rows.append((n, codec.MODE_INPUT, inp.level, inp.edges))
        for n in sorted(self.outputs):
            out = self.outputs[n]
            rows.append((n, codec.MODE_PWM if out.pwm is not None else codec.MODE_OUTPUT, out.duty, 0))
        rows.sort()  # by pin number, inputs and outputs together, as docs/bridge.md specifies
        return rows


# This file's build, its last line (a file cut short has none): main.py starts the bridge only
# when every file carries its own (docs/bridge.md, "An interrupted update").
BUILD = 4
