# A `time` whose clock moves 1 us per reading (and by the amount slept), the same on both
# interpreters, so the firmware's events and timings come out identical.
PERIOD = 1 << 30
now_us = [1000000]


def ticks_us():
    now_us[0] += 1
    return now_us[0] % PERIOD


def ticks_ms():
    now_us[0] += 1
    return (now_us[0] // 1000) % PERIOD


def ticks_diff(a, b):
    return ((a - b + PERIOD // 2) % PERIOD) - PERIOD // 2


def ticks_add(a, d):
    return (a + d) % PERIOD


def sleep_ms(ms):
    now_us[0] += ms * 1000


def sleep_us(us):
    now_us[0] += us


def advance(seconds):
    now_us[0] += int(seconds * 1000000)
