# Raw bits from the RP2040's ring oscillator (RANDOMBIT), for the host to health-test and
# condition. No whitening here: the host must see the raw samples. os.urandom is not used:
# on the rp2 port it is a pseudo-random generator's output.
import time

import machine

ROSC_BASE = 0x40060000
STATUS = ROSC_BASE + 0x18
RANDOMBIT = ROSC_BASE + 0x1C
STATUS_ENABLED = 1 << 12
STATUS_STABLE = 1 << 31
GAP_US = 10  # samples at least this far apart (adjacent samples are correlated)


class Rosc:
    def __init__(self):
        self.last = time.ticks_us()

    def ok(self):
        status = machine.mem32[STATUS]
        return bool(status & STATUS_ENABLED) and bool(status & STATUS_STABLE)

    def read(self, nbytes):
        """``nbytes`` bytes of raw samples, eight per byte, the first in the top bit."""
        out = bytearray(nbytes)
        mem = machine.mem32
        last = self.last
        for i in range(nbytes):
            byte = 0
            for _ in range(8):
                while time.ticks_diff(time.ticks_us(), last) < GAP_US:
                    pass
                last = time.ticks_us()
                byte = (byte << 1) | (mem[RANDOMBIT] & 1)
            out[i] = byte
        self.last = last
        return out

    def word(self):
        """32 raw bits folded into a u32 (for the boot id: distinct, not secret)."""
        value = 0
        for b in self.read(8):
            value = ((value << 5) ^ (value >> 27) ^ b) & 0xFFFFFFFF
        return value


# This file's build, its last line (a file cut short has none): main.py starts the bridge only
# when every file carries its own (docs/bridge.md, "An interrupted update").
BUILD = 4
