# Which chip and Pico model the firmware runs on, and the one register poke that depends on it:
# disarming the watchdog for EXIT_TO_REPL. The ring oscillator's registers are read only on an
# RP2040: on an RP2350 (Pico 2) their address is ACCESSCTRL and its watchdog's is PLL_USB's.
import machine

SYSINFO_CHIP_ID = 0x40000000  # the same address on the RP2040 and the RP2350
PARTS = {2: "RP2040", 4: "RP2350"}
# WATCHDOG_BASE per chip; CTRL is at +0, ENABLE is bit 30 on both (RP2040 and RP2350
# datasheets, pico-sdk hardware/regs/watchdog.h). +0x3000 is the register's atomic clear alias.
WATCHDOG = {"RP2040": 0x40058000, "RP2350": 0x400D8000}
WATCHDOG_ENABLE = 1 << 30
CLEAR_ALIAS = 0x3000
# GP pins a Pico W (and Pico 2 W) gives to its radio chip (GP25 is its SPI chip select).
RADIO_PINS = (23, 24, 25, 29)


def name():
    """``RP2040``, ``RP2350`` or ``unknown chip 0x...`` from SYSINFO CHIP_ID's PART field."""
    part = (machine.mem32[SYSINFO_CHIP_ID] >> 12) & 0xFFFF
    return PARTS.get(part, "unknown chip part 0x" + hex(part)[2:])


def model():
    """The Pico model as MicroPython names it (``Raspberry Pi Pico W with RP2040``), or ""."""
    try:
        import os

        return os.uname().machine
    except (ImportError, AttributeError):
        return ""


def has_radio(model_name):
    return "Pico W" in model_name or "Pico 2 W" in model_name


def disarm_watchdog(chip_name):
    """Stop the watchdog (machine.WDT cannot): True if this chip's register is known."""
    base = WATCHDOG.get(chip_name)
    if base is None:
        return False
    machine.mem32[base + CLEAR_ALIAS] = WATCHDOG_ENABLE
    return True


# This file's build, its last line (a file cut short has none): main.py starts the bridge only
# when every file carries its own (docs/bridge.md, "An interrupted update").
BUILD = 4
