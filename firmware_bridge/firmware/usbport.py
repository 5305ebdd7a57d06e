# The USB serial port (MicroPython's console) as the bridge's byte port: non-blocking reads
# through select.poll, binary writes.
import select
import sys


class UsbPort:
    def __init__(self):
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


# This file's build, its last line (a file cut short has none): main.py starts the bridge only
# when every file carries its own (docs/bridge.md, "An interrupted update").
BUILD = 4
