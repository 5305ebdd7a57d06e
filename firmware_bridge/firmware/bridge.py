# The Pico's side of the protocol (docs/bridge.md): frames in, replies (cached), events with
# running numbers, heartbeat, safe state when the host is silent, entropy against credits.
import time

import chip
import codec
import machine
import oled
import pins
import rosc

FIRMWARE = "dicetower-bridge 1.2"
HEARTBEAT_MS = 250
SILENT_MS = 3000
LINGER_MS = 500  # after EXIT_TO_REPL: answer a retried request this long after the last frame
I2C_SDA = 8
I2C_SCL = 9
MIN_FREQ = 8  # PWM: the lowest frequency the RP2040's 16-bit counter and 8-bit divider reach
DISPLAY_CFG = "display.cfg"  # main.py's: the display safe mode shows its reason on


class Bridge:
    def __init__(self, port, wdt=None):
        self.port = port
        self.wdt = wdt
        self.chip = chip.name()
        self.model = chip.model()
        self.decoder = codec.Decoder()
        self.pins = pins.Pins(radio=chip.has_radio(self.model))
        self.rosc = rosc.Rosc() if self.chip == "RP2040" else None
        self.display = None
        self.boot_id = self._boot_id()
        self.started = time.ticks_ms()
        self.last_rx = self.started
        self.last_beat = self.started
        self.session = False
        self.safe = False
        self.safe_count = 0
        self.exit = False
        self.leaving = False  # EXIT_TO_REPL answered: lingering for a retry, then exit
        self.reset_due = False
        self.ev = 0
        self.credit = 0
        self.chunk = codec.CHUNK_DEFAULT
        self.tx_dropped = 0
        self.cache_seq = -1
        self.cache = b""
        self.flags = codec.FLAG_WDT_RESET if machine.reset_cause() == machine.WDT_RESET else 0
        self.handlers = {
            codec.PING: self.on_ping,
            codec.PIN_MODE: self.on_pin_mode,
            codec.PIN_SET: self.on_pin_set,
            codec.DISPLAY_INIT: self.on_display_init,
            codec.DISPLAY_PAGES: self.on_display_pages,
            codec.DISPLAY_TEXT: self.on_display_text,
            codec.DISPLAY_SHOW: self.on_display_show,
            codec.GET_STATE: self.on_get_state,
            codec.ENTROPY_CREDIT: self.on_entropy_credit,
            codec.EXIT_TO_REPL: self.on_exit,
            codec.RESET: self.on_reset,
            codec.INFO: self.on_info,
        }

    def _boot_id(self):
        # distinct at every start, not secret: raw oscillator bits where there are some
        if self.rosc is not None:
            return self.rosc.word() ^ (time.ticks_us() & 0xFFFFFFFF)
        import random

        return random.getrandbits(32)

    def description(self):
        return FIRMWARE + " on " + (self.model or self.chip)

    # -- the loop ----------------------------------------------------------------------
    def run(self):
        while not self.exit:
            if not self.step():
                time.sleep_ms(1)

    def step(self):
        """One pass: frames in, edges out, safe state, one entropy chunk, heartbeat.
        True when there was something to do."""
        busy = False
        data = self.port.read()
        if data:
            busy = True
            for frame in self.decoder.feed(data):
                self.last_rx = time.ticks_ms()
                if self.safe:
                    self.safe = False
                self.handle(frame)
        now = time.ticks_ms()
        if self.leaving:
            # nothing more is sent: the host has stopped, and the REPL is about to own the port
            if time.ticks_diff(now, self.last_rx) >= LINGER_MS:
                self.exit = True
        else:
            busy = self._outputs(now) or busy
        if self.wdt is not None:
            self.wdt.feed()
        if self.reset_due:
            time.sleep_ms(50)  # the reply is on its way to the host
            machine.reset()
        return busy

    def _outputs(self, now):
        busy = False
        for n, level, ticks in self.pins.poll():
            busy = True
            self.event(codec.EV_EDGE, bytes((n, level)) + codec.put_u32(ticks))
        if not self.safe and time.ticks_diff(now, self.last_rx) >= SILENT_MS:
            self.safe_state()
        if self.credit > 0:
            busy = True
            n = min(self.credit, self.chunk)
            self.credit -= n
            self.event(codec.EV_ENTROPY, self.rosc.read(n))
        if time.ticks_diff(now, self.last_beat) >= HEARTBEAT_MS:
            self.last_beat = now
            self.heartbeat(now)
        return busy

    def safe_state(self):
        self.safe = True
        self.safe_count = (self.safe_count + 1) & 0xFFFF
        self.credit = 0
        self.pins.all_off()

    # -- sending ---------------------------------------------------------------------------
    def send(self, kind, seq, payload):
        wire = codec.encode(kind, seq, payload)
        try:
            n = self.port.write(wire)
        except OSError:
            n = 0
        if n is not None and n < len(wire):
            self.tx_dropped += 1
        return wire

    def event(self, kind, payload):
        self.ev = (self.ev + 1) & 0xFFFFFFFF
        self.send(kind, 0, codec.put_u32(self.ev) + payload)

    def heartbeat(self, now):
        flags = self.flags | (codec.FLAG_SAFE if self.safe else 0)
        payload = (codec.put_u32(self.ev) + codec.put_u32(self.boot_id)
                   + codec.put_u32(time.ticks_diff(now, self.started) & 0xFFFFFFFF)
                   + codec.put_u16(min(self.decoder.bad, 0xFFFF)) + codec.put_u16(min(self.tx_dropped, 0xFFFF))
                   + bytes((flags,)) + codec.put_u16(self.safe_count))
        self.send(codec.EV_HEARTBEAT, 0, payload)

    def reply(self, seq, kind, payload):
        self.cache = self.send(kind, seq, payload)
        self.cache_seq = seq

    def error(self, seq, code, message):
        self.reply(seq, codec.ERROR, bytes((code,)) + message.encode())

    # -- requests --------------------------------------------------------------------------
    def handle(self, frame):
        version, kind, seq, payload = frame
        if self.leaving:
            if seq == self.cache_seq:
                self.port.write(self.cache)  # a retried EXIT_TO_REPL whose reply was lost
            return
        if seq == 0 or kind & codec.REPLY:
            self.decoder.bad += 1  # an event's number, or a Pico's frame (an echo): not a request
            return
        if kind == codec.HELLO:
            self.hello(seq, payload)  # any version byte; always afresh (a retry keeps its seq and nonce)
            return
        if version != codec.VERSION_MAJOR:
            self.decoder.bad += 1
            return
        if seq == self.cache_seq:
            self.port.write(self.cache)  # a repeat: answered, not executed again
            return
        if not self.session:
            self.error(seq, codec.E_NO_SESSION, "no session: send HELLO first")
            return
        handler = self.handlers.get(kind)
        if handler is None:
            self.error(seq, codec.E_UNKNOWN_TYPE, "unknown request type " + str(kind))
            return
        try:
            reply = handler(payload)
        except pins.BadPin as exc:
            self.error(seq, codec.E_BAD_PIN, str(exc))
            return
        except (ValueError, IndexError, TypeError) as exc:
            # UnicodeError (text that is not UTF-8) is a ValueError, with no message on MicroPython
            self.error(seq, codec.E_BAD_PAYLOAD, "bad payload for type " + str(kind) + ": "
                       + (str(exc) or type(exc).__name__))
            return
        except OSError as exc:
            self.error(seq, codec.E_NO_DEVICE, "device not answering: " + str(exc))
            return
        self.reply(seq, kind | codec.REPLY, reply)

    def hello(self, seq, payload):
        if len(payload) < 6:
            self.error(seq, codec.E_BAD_PAYLOAD, "HELLO needs major, minor, nonce[4]")
            return
        major = payload[0]
        if major != codec.VERSION_MAJOR:
            self.session = False
            self.error(seq, codec.E_VERSION, "host speaks protocol " + str(major) + "." + str(payload[1])
                       + ", this firmware " + str(codec.VERSION_MAJOR) + "." + str(codec.VERSION_MINOR))
            return
        self.session = True
        caps = codec.CAP_PINS | codec.CAP_PWM | codec.CAP_DISPLAY
        if chip.WATCHDOG.get(self.chip) is not None:
            caps |= codec.CAP_DISARM
        if self.rosc is not None and self.rosc.ok():
            caps |= codec.CAP_ENTROPY
        head = (bytes((codec.VERSION_MAJOR, codec.VERSION_MINOR)) + bytes(payload[2:6])
                + codec.put_u32(self.boot_id) + codec.put_u16(caps) + bytes((codec.MAX_PAYLOAD,)))
        brief = len(payload) > 6 and payload[6] == 1
        self.reply(seq, codec.HELLO | codec.REPLY, head if brief else head + self.info())

    def info(self):
        uid = machine.unique_id()
        return bytes((len(uid),)) + uid + self.description().encode()

    @staticmethod
    def _need(p, n, what):
        if len(p) < n:
            raise ValueError(what + " needs " + str(n) + " bytes, got " + str(len(p)))

    def on_ping(self, payload):
        return payload

    def on_pin_mode(self, p):
        self._need(p, 4, "PIN_MODE")
        level = self.pins.mode(p[0], p[1], p[2], p[3])
        return bytes((p[0], level))

    def on_pin_set(self, p):
        if not p or len(p) % 5:
            raise ValueError("records of 5 bytes expected, got " + str(len(p)) + " bytes")
        for i in range(0, len(p), 5):  # every record checked first: a bad one changes nothing
            self.pins.output(p[i])
            freq = codec.get_u16(p, i + 3)
            if 0 < freq < MIN_FREQ:
                raise ValueError("GP" + str(p[i]) + ": " + str(freq) + " Hz; 0 (unchanged) or "
                                 + str(MIN_FREQ) + "..65535 Hz")
        for i in range(0, len(p), 5):
            self.pins.set(p[i], codec.get_u16(p, i + 1), codec.get_u16(p, i + 3))
        return b""

    def on_display_init(self, p):
        self._need(p, 3, "DISPLAY_INIT")
        if p[0] % 8 or p[1] % 8 or not 8 <= p[0] <= 128 or not 8 <= p[1] <= 64:
            raise ValueError("size " + str(p[0]) + "x" + str(p[1]))
        i2c = machine.I2C(0, sda=machine.Pin(I2C_SDA), scl=machine.Pin(I2C_SCL), freq=400000)
        self.display = oled.Oled(i2c, p[0], p[1], p[2])
        self._remember_display(p[0], p[1], p[2])
        return b""

    @staticmethod
    def _remember_display(width, height, address):
        """Keep the display's set-up on the Pico's flash (main.DISPLAY_CFG), for safe mode to
        show its reason on; written only when it changed, so the flash is written once."""
        line = str(width) + " " + str(height) + " " + str(address)
        try:
            with open(DISPLAY_CFG) as f:
                if f.read() == line:
                    return
        except OSError:
            pass
        try:
            with open(DISPLAY_CFG, "w") as f:
                f.write(line)
        except OSError:  # a full or read-only file system: safe mode shows nothing then
            pass

    def _display(self):
        if self.display is None:
            raise OSError("no display: send DISPLAY_INIT first")
        return self.display

    def on_display_pages(self, p):
        self._need(p, 3, "DISPLAY_PAGES")
        self._display().pages_write(p[0], p[1], p[2:])
        return b""

    def on_display_text(self, p):
        self._need(p, 2, "DISPLAY_TEXT")
        try:
            text = bytes(p[2:]).decode()
        except UnicodeError:  # the same words from CPython and MicroPython (whose message is empty)
            raise ValueError("the text is not UTF-8") from None
        self._display().text(p[0], p[1], text)
        return b""

    def on_display_show(self, p):
        self._need(p, 2, "DISPLAY_SHOW")
        self._display().show(p[0], p[1])
        return b""

    def on_get_state(self, p):
        rows = self.pins.state()
        out = bytearray(codec.put_u32(self.ev) + codec.put_u32(self.boot_id) + bytes((len(rows),)))
        for row in rows:
            out.extend(bytes((row[0], row[1])) + codec.put_u16(row[2]))
        for row in rows:  # 1.1: each pin's edge count, after the 1.0 records
            out.extend(codec.put_u16(row[3]))
        return bytes(out)

    def on_entropy_credit(self, p):
        if len(p) not in (2, 3):
            raise ValueError("ENTROPY_CREDIT is bytes u16 and an optional chunk u8, got " + str(len(p)) + " bytes")
        if self.rosc is None:
            raise OSError("no ring-oscillator entropy on an " + self.chip + " (" + (self.model or "this Pico")
                          + "): the bridge reads RANDOMBIT only on an RP2040")
        if not self.rosc.ok():
            raise OSError("ring oscillator not running (ROSC STATUS)")
        chunk = p[2] if len(p) == 3 else codec.CHUNK_DEFAULT
        if not 1 <= chunk <= codec.CHUNK_MAX:
            raise ValueError("chunk " + str(chunk) + ": 1.." + str(codec.CHUNK_MAX) + " bytes allowed")
        self.credit = codec.get_u16(p, 0)
        self.chunk = chunk
        return codec.put_u16(self.credit)

    def on_info(self, p):
        self._need(p, 2, "INFO")
        info = self.info()
        return bytes((len(info),)) + info[p[0] : p[0] + p[1]]

    def on_exit(self, p):
        self.leaving = True
        self.credit = 0
        # 1: the watchdog will be disarmed (a chip whose register is known); 0: only kept fed
        # by a timer, which mpremote's soft reset stops (the host warns)
        return bytes((1 if chip.WATCHDOG.get(self.chip) is not None else 0,))

    def on_reset(self, p):
        self.reset_due = True
        return b""

    def close(self):
        self.pins.all_off()
        for n in list(self.pins.inputs) + list(self.pins.outputs):
            self.pins.release(n)


# This file's build, its last line (a file cut short has none): main.py starts the bridge only
# when every file carries its own (docs/bridge.md, "An interrupted update").
BUILD = 4
