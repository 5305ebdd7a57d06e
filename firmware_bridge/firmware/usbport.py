# The USB serial port (MicroPython's console) as the bridge's byte port: non-blocking reads
# through select.poll, binary writes.
import select
import sys

# This file's build: main.py starts the bridge only when every file is its build (docs/bridge.md).
BUILD = 2


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
