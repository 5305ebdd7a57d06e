# Starts the bridge at power-up. Hold GP14 to ground while plugging in (safe boot) to leave
# the REPL alone; EXIT_TO_REPL ends the bridge with the watchdog disarmed, so mpremote works
# (its soft reset in the raw REPL does not run main.py, and nothing resets the board).
import chip
import machine
import micropython

SAFE_BOOT_PIN = 14
WDT_MS = 4000


def safe_boot():
    return machine.Pin(SAFE_BOOT_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0


def start(port=None):
    """The bridge on ``port`` (the USB console by default), or None on a safe boot."""
    if safe_boot():
        print("dicetower bridge: safe boot (GP14 held low); REPL left alone")
        return None
    import bridge

    micropython.kbd_intr(-1)  # 0x03 is payload, not Ctrl-C
    if port is None:
        import usbport

        port = usbport.UsbPort()
    return bridge.Bridge(port, wdt=machine.WDT(timeout=WDT_MS))


def keep_fed(wdt):
    # A chip whose watchdog register we do not know: a timer feeds it, which keeps the REPL
    # usable until a soft reset stops the timers (then the watchdog reboots into the bridge).
    timer = machine.Timer()
    timer.init(period=WDT_MS // 4, mode=machine.Timer.PERIODIC, callback=lambda t: wdt.feed())
    return timer


def finish(b):
    """After EXIT_TO_REPL: Ctrl-C works again, every pin let go, the watchdog disarmed."""
    micropython.kbd_intr(3)
    b.close()
    if not chip.disarm_watchdog(b.chip):
        keep_fed(b.wdt)


def main():
    b = start()
    if b is None:
        return
    # An exception in the loop leaves the watchdog armed and unfed: it reboots the board into
    # the bridge, which is what an unattended tower needs.
    b.run()
    finish(b)


if __name__ == "__main__":
    main()
