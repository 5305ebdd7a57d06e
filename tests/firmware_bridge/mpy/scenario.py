# One run of the firmware through a fixed list of requests, printing every frame it sends and
# what it did to the hardware. tests/firmware_bridge/test_micropython.py runs this file under
# CPython (with the twin's framebuf) and under real MicroPython, and compares the output.
import sys

import stub_machine
import stub_micropython
import stub_os
import stub_time

sys.modules["machine"] = stub_machine
sys.modules["time"] = stub_time
sys.modules["os"] = stub_os
sys.modules["micropython"] = stub_micropython
try:
    import framebuf  # noqa: F401 - MicroPython's own
except ImportError:
    from firmware_bridge import simframebuf

    sys.modules["framebuf"] = simframebuf.module()

import codec
import main


class Port:
    def __init__(self):
        self.inbox = b""
        self.decoder = codec.Decoder()
        self.frames = []

    def read(self):
        data, self.inbox = self.inbox, b""
        return data

    def write(self, data):
        self.frames.extend(self.decoder.feed(data))
        return len(data)


def hx(data):
    # not bytes.hex(): MicroPython's gives "b''" for empty bytes
    return "".join("%02x" % c for c in bytes(data))


def show(frames):
    for version, kind, seq, payload in frames:
        print("frame", version, kind, seq, hx(payload))


def run(steps):
    """``steps``: a list of ("send", wire hex) | ("step", n) | ("press", pin, level or -1) |
    ("wait", seconds) | ("finish",)."""
    port = Port()
    b = main.start(port)
    for item in steps:
        what = item[0]
        if what == "send":
            port.inbox += bytes.fromhex(item[1])
            b.step()
        elif what == "step":
            for _ in range(item[1]):
                b.step()
        elif what == "press":
            stub_machine.drive(item[1], None if item[2] < 0 else item[2])
        elif what == "wait":
            stub_time.advance(item[1])
        elif what == "finish":
            while not b.exit:
                stub_time.advance(0.1)
                b.step()
            main.finish(b)
    show(port.frames)
    for entry in stub_machine.log:
        print("hw", " ".join(hx(x) if isinstance(x, bytes) else str(x) for x in entry))
