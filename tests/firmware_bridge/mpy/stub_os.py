# `os.uname()` as MicroPython reports it on a Pico.
class _Uname:
    sysname = "rp2"
    machine = "Raspberry Pi Pico with RP2040"


def uname():
    return _Uname()
