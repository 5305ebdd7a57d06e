# Starts the bridge at power-up, or safe mode when the firmware files do not agree. Hold GP14
# to ground while plugging in (safe boot) to leave the REPL alone; EXIT_TO_REPL ends the bridge
# with the watchdog disarmed, so mpremote works (its soft reset in the raw REPL does not run
# main.py, and nothing resets the Pico).
#
# This file imports none of the other firmware files before it has checked them: an update
# interrupted half way (mpremote cp copies one file after another) leaves files of two builds,
# and safe mode must still say so. It has its own few lines of framing for that (no codec.py).
import time

import machine
import micropython

SAFE_BOOT_PIN = 14
WDT_MS = 4000
# Checked in this order: bridge.py, which imports the others, last.
MODULES = ("chip", "codec", "oled", "pins", "rosc", "usbport", "bridge")
# The display the host last set up with DISPLAY_INIT ("width height address"), kept on the
# Pico's flash by bridge.py: safe mode shows its reason there.
DISPLAY_CFG = "display.cfg"
I2C_SDA = 8
I2C_SCL = 9
SAY_EVERY_MS = 1000  # safe mode sends its reason as a line of text this often
ERROR = 0xFF
E_SAFE_MODE = 7
VERSION_MAJOR = 1


def safe_boot():
    return machine.Pin(SAFE_BOOT_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0


def why():
    """Why the bridge cannot start from the files on the Pico, in a few words; "" when every
    file loads and carries this main.py's BUILD. A file cut short lacks its BUILD (the last
    line of every file), so it counts as another build. bridge.py, which imports the others,
    is named as not loading only when they all load."""
    parts = []
    other = []
    for name in MODULES:
        try:
            module = __import__(name)
        except Exception as exc:  # a SyntaxError, an ImportError, a MemoryError
            if not (parts and name == "bridge"):
                parts.append(name + ".py does not load (" + type(exc).__name__ + ")")
            continue
        if getattr(module, "BUILD", None) != BUILD:
            other.append(name + ".py")
    if other:
        parts.append(" ".join(other) + " not build " + str(BUILD))
    return "; ".join(parts)


def start(port=None):
    """The bridge on ``port`` (the USB console by default); :class:`Safe` when the files do
    not agree or the bridge cannot be built (no watchdog armed, Ctrl-C working); None on a
    safe boot (the REPL left alone). The watchdog is armed last, once the bridge is built: a
    failure before that leaves the Pico in safe mode, never in a reset loop."""
    if safe_boot():
        print("dicetower bridge: safe boot (GP14 held low); REPL left alone")
        return None
    reason = why()
    if reason:
        return Safe(reason, port)
    micropython.kbd_intr(-1)  # 0x03 is payload, not Ctrl-C
    try:
        import bridge

        if port is None:
            import usbport

            port = usbport.UsbPort()
        b = bridge.Bridge(port)
    except Exception as exc:  # a file that loads but does not fit the others
        return Safe("the bridge did not start (" + type(exc).__name__ + ": " + str(exc)[:60] + ")", port)
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
    import chip

    micropython.kbd_intr(3)
    b.close()
    if not chip.disarm_watchdog(b.chip):
        keep_fed(b.wdt)


# -- safe mode ------------------------------------------------------------------------------
try:
    from binascii import crc32
except ImportError:  # pragma: no cover - some MicroPython ports lack binascii.crc32
    from zlib import crc32


def _cobs(data):
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(b)
    out.append(len(block) + 1)  # frames here are short: never a full 254-byte block
    out.extend(block)
    return bytes(out)


def _uncobs(data):
    out = bytearray()
    i = 0
    while i < len(data):
        code = data[i]
        if code == 0 or i + code > len(data):
            return None
        out.extend(data[i + 1 : i + code])
        i += code
        if code != 255 and i < len(data):
            out.append(0)
    return bytes(out)


def _u32(v):
    return bytes((v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, (v >> 24) & 0xFF))


def error_frame(seq, text):
    """ERROR 7 (safe mode) for request ``seq``, with a lone 0x00 before it (docs/bridge.md)."""
    body = bytes((VERSION_MAJOR, ERROR, seq & 0xFF, seq >> 8, E_SAFE_MODE)) + text.encode()[:190]
    return b"\x00" + _cobs(body + _u32(crc32(body) & 0xFFFFFFFF)) + b"\x00"


def request_seq(chunk):
    """The seq of one frame (COBS, no delimiter) if it is a good host request, else None."""
    body = _uncobs(chunk)
    if body is None or len(body) < 8 or len(body) > 208:
        return None
    data = body[:-4]
    crc = body[-4] | (body[-3] << 8) | (body[-2] << 16) | (body[-1] << 24)
    if crc32(data) & 0xFFFFFFFF != crc:
        return None
    seq = data[2] | (data[3] << 8)
    if seq == 0 or data[1] & 0x80:
        return None  # an event number or a Pico's frame: not a request
    return seq


def wrap(text, width):
    """``text`` in lines of at most ``width`` characters, broken at spaces where it can be."""
    lines = []
    for word in text.split(" "):
        while len(word) > width:
            lines.append(word[:width])
            word = word[width:]
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] = lines[-1] + " " + word
        else:
            lines.append(word)
    return lines


def show_reason(reason):
    """The reason on the display the host last set up (DISPLAY_CFG), if there is one and it
    answers; True when it was shown. Its own few lines of SSD1306 (oled.py may be the broken
    file)."""
    try:
        with open(DISPLAY_CFG) as f:
            width, height, address = [int(x) for x in f.read().split()]
        import framebuf

        i2c = machine.I2C(0, sda=machine.Pin(I2C_SDA), scl=machine.Pin(I2C_SCL), freq=400000)
        pages = height // 8
        buf = bytearray(width * pages)
        fb = framebuf.FrameBuffer(buf, width, height, framebuf.MONO_VLSB)
        for row, line in enumerate((["SAFE MODE"] + wrap(reason, width // 8))[:pages]):
            fb.text(line, 0, row * 8, 1)
        for cmd in ((0xAE,), (0x20, 0x00), (0x40,), (0xA1,), (0xA8, height - 1), (0xC8,), (0xD3, 0x00),
                    (0xDA, 0x12 if height == 64 else 0x02), (0xD5, 0x80), (0xD9, 0xF1), (0xDB, 0x30),
                    (0x81, 0xFF), (0xA4,), (0xA6,), (0x8D, 0x14), (0x21, 0, width - 1), (0x22, 0, pages - 1)):
            i2c.writeto(address, bytes((0x00,) + cmd))
        i2c.writeto(address, b"\x40" + buf)
        i2c.writeto(address, b"\x00\xaf")
        return True
    except Exception:  # no display set up, or it does not answer: the USB line still says why
        return False


class Console:
    """The USB console for safe mode (usbport.py may be the broken file)."""

    def __init__(self):
        import select
        import sys

        self.rx = sys.stdin.buffer
        self.tx = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self):
        out = bytearray()
        while len(out) < 256 and self.poller.poll(0):
            out.extend(self.rx.read(1))
        return out

    def write(self, data):
        return self.tx.write(data)


class Safe:
    """Safe mode: the bridge is not running because of ``reason``. No watchdog is armed and
    Ctrl-C works (mpremote sends it first, and lands in the REPL); meanwhile the reason goes
    out as a line of text every second and as ERROR 7 to every request, so a host that
    connects learns it, and on the display the host last set up."""

    def __init__(self, reason, port=None):
        micropython.kbd_intr(3)
        self.reason = reason
        self.message = ("dicetower bridge safe mode: " + reason
                        + "; copy all of firmware_bridge/firmware/*.py again (docs/bridge.md)")
        self.port = port if port is not None else Console()
        self.exit = False
        self.buf = bytearray()
        self.said = None
        self.shown = show_reason(reason)

    def step(self):
        busy = False
        data = self.port.read()
        for b in data:
            busy = True
            if b:
                if len(self.buf) < 420:
                    self.buf.append(b)
                continue
            seq = request_seq(self.buf) if self.buf else None
            self.buf = bytearray()
            if seq is not None:
                self.port.write(error_frame(seq, self.message))
        now = time.ticks_ms()
        if self.said is None or time.ticks_diff(now, self.said) >= SAY_EVERY_MS:
            self.said = now
            self.port.write(("\r\n" + self.message + " (Ctrl-C: the REPL)\r\n").encode())
        return busy

    def run(self):
        try:
            while True:
                if not self.step():
                    time.sleep_ms(5)
        except KeyboardInterrupt:  # Ctrl-C: mpremote, or a person at a terminal
            self.leave()

    def leave(self):
        """Ctrl-C: the loop ends and main.py returns; MicroPython's REPL follows."""
        print("\r\ndicetower bridge safe mode: " + self.reason + "; the REPL is yours (no watchdog armed)")


def main():
    b = start()
    if b is None:
        return
    if isinstance(b, Safe):
        b.run()
        return
    # An exception in the loop leaves the watchdog armed and unfed: it reboots the Pico into
    # the bridge, which is what an unattended tower needs.
    b.run()
    finish(b)


# The firmware's build: every file carries it as its last line (this file: before main runs),
# and the bridge starts only when they all agree. Raise it with any change to how the files
# call each other (a test holds them equal).
BUILD = 4

if __name__ == "__main__":
    main()
