# The Pico's first moments after an interrupted update, under real MicroPython: for each case,
# the firmware files are written as an interrupted `mpremote cp` leaves them (each file the old
# version's, the new one's, or the new one cut short), main.py is imported afresh and started,
# and what it did is printed as one JSON line. tests/firmware_bridge/test_update.py runs it.
import json
import sys

import stub_machine
import stub_micropython
import stub_os
import stub_time

sys.modules["machine"] = stub_machine
sys.modules["time"] = stub_time
sys.modules["os"] = stub_os
sys.modules["micropython"] = stub_micropython

FILES = ("bridge", "chip", "codec", "main", "oled", "pins", "rosc", "usbport")


class Port:
    def __init__(self):
        self.inbox = b""
        self.out = b""

    def read(self):
        data, self.inbox = self.inbox, b""
        return data

    def write(self, data):
        self.out += bytes(data)
        return len(data)


def hx(data):
    return "".join("%02x" % c for c in bytes(data))


def source(version, name):
    with open("v_" + version + "__" + name + ".txt") as f:
        return f.read()


def run_case(case, hello):
    for name in FILES:
        text = source("new" if case[name] != "old" else "old", name)
        if case[name] == "cut":
            text = text[: case["cut_at"]]
        with open(name + ".py", "w") as f:
            f.write(text)
    for name in FILES:
        sys.modules.pop(name, None)
    del stub_machine.log[:]
    out = {"case": case["id"]}
    if case["main"] == "cut":
        # what the Pico does with a main.py cut short: runs what is there as __main__
        try:
            exec(source("new", "main")[: case["cut_at"]], {"__name__": "__main__"})
            out["kind"] = "nothing ran"
        except Exception as exc:
            out["kind"] = "main.py: " + type(exc).__name__
    else:
        import main

        port = Port()
        b = main.start(port)
        if b is None:
            out["kind"] = "safe boot"
        elif isinstance(b, main.Safe):
            out["kind"] = "safe"
            out["reason"] = b.reason
            port.inbox = bytes.fromhex(hello)
            b.step()
            out["sent"] = hx(port.out)
        else:
            out["kind"] = "bridge"
    out["wdt"] = [e[1] for e in stub_machine.log if e[0] == "wdt"]
    out["kbd"] = [e[1] for e in stub_machine.log if e[0] == "kbd_intr"]
    out["display"] = [hx(e[2]) for e in stub_machine.log if e[0] == "i2c-write" and len(e[2]) > 100]
    print(json.dumps(out))


def run(job):
    with open("display.cfg", "w") as f:
        f.write(job["display"])
    for case in job["cases"]:
        run_case(case, job["hello"])
