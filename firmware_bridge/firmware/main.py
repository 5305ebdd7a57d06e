# Starts the bridge at power-up. Hold GP14 to ground while plugging in (safe boot) to leave
# the REPL alone; EXIT_TO_REPL ends the bridge so mpremote works again.
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
    # The RP2040's watchdog cannot be stopped once started: after EXIT_TO_REPL a timer
    # feeds it so the REPL stays usable (until a soft reset, which reboots into the bridge).
    timer = machine.Timer()
    timer.init(period=WDT_MS // 4, mode=machine.Timer.PERIODIC, callback=lambda t: wdt.feed())
    return timer


def main():
    b = start()
    if b is None:
        return
    try:
        b.run()
    finally:
        micropython.kbd_intr(3)
        b.close()
    keep_fed(b.wdt)


if __name__ == "__main__":
    main()
