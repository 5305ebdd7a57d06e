# A `machine` for running the firmware under both CPython and real MicroPython (the WebAssembly
# port has none): deterministic, and written in the subset both interpreters share, so the two
# runs differ only in the interpreter and in framebuf (real on MicroPython, the twin's on CPython).

PWRON_RESET = 1
WDT_RESET = 3
log = []  # what the firmware did to the hardware, in order
outside = {}  # pin -> level driven from outside (a pressed button)
pins = {}
rosc_at = [0]
ROSC_PATTERN = (1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1)


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, n, mode=-1, pull=None, value=None):
        self.n = n
        self.mode = 0 if mode == -1 else mode
        self.pull = pull
        self.out = value or 0
        self.handler = None
        pins[n] = self
        log.append(("pin", n, self.mode, pull))

    def value(self, v=None):
        if v is not None:
            self.out = 1 if v else 0
            log.append(("value", self.n, self.out))
            return None
        if self.mode == 1:
            return self.out
        if self.n in outside:
            return outside[self.n]
        return 1 if self.pull == 1 else 0

    def irq(self, handler=None, trigger=0):
        self.handler = handler


def drive(n, level):
    pin = pins.get(n)
    before = pin.value() if pin is not None else None
    if level is None:
        outside.pop(n, None)
    else:
        outside[n] = level
    if pin is not None and pin.value() != before and pin.handler is not None:
        pin.handler(pin)


class PWM:
    def __init__(self, pin):
        self.pin = pin
        log.append(("pwm", pin.n))

    def freq(self, f=None):
        if f is not None:
            log.append(("freq", self.pin.n, f))

    def duty_u16(self, d=None):
        if d is not None:
            log.append(("duty", self.pin.n, d))

    def deinit(self):
        log.append(("deinit", self.pin.n))


class I2C:
    def __init__(self, bus, sda=None, scl=None, freq=400000):
        log.append(("i2c", bus, freq))

    def writeto(self, address, buf):
        log.append(("i2c-write", address, bytes(buf)))
        return 1


class WDT:
    def __init__(self, id=0, timeout=5000):
        log.append(("wdt", timeout))

    def feed(self):
        pass


class Timer:
    PERIODIC = 1
    ONE_SHOT = 0

    def init(self, period=0, mode=1, callback=None):
        log.append(("timer", period))

    def deinit(self):
        pass


class _Mem32:
    def __getitem__(self, address):
        if address == 0x40000000:
            return 0x20002927  # SYSINFO CHIP_ID: an RP2040
        if address == 0x40060018:
            return (1 << 31) | (1 << 12)  # ROSC STATUS: enabled and stable
        if address == 0x4006001C:
            rosc_at[0] += 1
            return ROSC_PATTERN[rosc_at[0] % len(ROSC_PATTERN)]
        return 0

    def __setitem__(self, address, value):
        log.append(("mem32", address, value))


mem32 = _Mem32()


def unique_id():
    return b"\xe6\x61\x41\x04\x03\x2b\x2c\x21"


def reset_cause():
    return PWRON_RESET


def reset():
    log.append(("reset",))
    raise SystemExit("machine.reset")
