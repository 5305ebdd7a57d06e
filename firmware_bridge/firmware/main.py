# Starts the bridge at power-up. Hold GP14 to ground while plugging in (safe boot) to leave
# the REPL alone; EXIT_TO_REPL ends the bridge with the watchdog disarmed, so mpremote works
# (its soft reset in the raw REPL does not run main.py, and nothing resets the board).
import chip
import machine
import micropython

SAFE_BOOT_PIN = 14
WDT_MS = 4000
# The firmware's build: every file carries it, and the bridge starts only when they all agree.
# An update copied file by file (mpremote cp) and interrupted leaves files of two builds; started
# anyway, a mismatch raises after the watchdog is armed and the board reboots into the same
# error every 4 s. Raise it with any change to how the files call each other.
BUILD = 2
MODULES = ("bridge", "chip", "codec", "oled", "pins", "rosc", "usbport")


def safe_boot():
    return machine.Pin(SAFE_BOOT_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0


def other_builds():
    """The firmware files that are not this main.py's build (or do not load), by name."""
    wrong = []
    for name in MODULES:
        try:
            module = __import__(name)
        except Exception as exc:  # a file half copied: a SyntaxError, an ImportError
            wrong.append(name + " (" + type(exc).__name__ + ")")
            continue
        if getattr(module, "BUILD", None) != BUILD:
            wrong.append(name)
    return wrong


def start(port=None):
    """The bridge on ``port`` (the USB console by default), or None on a safe boot or with
    firmware files of another build (the REPL left alone and the watchdog not armed, so an
    interrupted update can be finished with mpremote). The watchdog is armed last, once the
    bridge is built: a failure before that leaves the board at its REPL, never in a reset loop."""
    if safe_boot():
        print("dicetower bridge: safe boot (GP14 held low); REPL left alone")
        return None
    wrong = other_builds()
    if wrong:
        print("dicetower bridge: firmware files of another build (" + ", ".join(wrong) + "): copy all of "
              "firmware_bridge/firmware/*.py again (docs/bridge.md); REPL left alone, watchdog not armed")
        return None
    import bridge

    micropython.kbd_intr(-1)  # 0x03 is payload, not Ctrl-C
    try:
        if port is None:
            import usbport

            port = usbport.UsbPort()
        b = bridge.Bridge(port)
    except Exception:
        micropython.kbd_intr(3)  # the REPL's Ctrl-C back: mpremote can get in
        raise
    b.wdt = machine.WDT(timeout=WDT_MS)
    return b


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
