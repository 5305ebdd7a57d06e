"""``dicetower bridge selftest`` and ``dicetower bridge repl``: the companion board.

``selftest`` is the board's (or its twin's) full round trip: without ``--port`` it starts the
firmware twin on a pty; ``--noise P`` corrupts that fraction of the twin's line bytes. Prints
the result (``--json``: the JSON object) and exits 0 when ok, 1 when a check failed.

``repl`` hands the board to ``mpremote`` for a firmware update: EXIT_TO_REPL (the firmware
disarms its watchdog), the port closed with nothing more sent, then the exact ``mpremote``
commands. Exit 0 when the board left the bridge, 1 when it could not be reached.
See docs/bridge.md ("Updating the firmware").
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import time

from engine.errors import ParameterError
from hardware.cli.output import out, say


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bridge", help="the companion board (Raspberry Pi Pico) over USB serial")
    commands = p.add_subparsers(dest="bridge_command", metavar="ACTION")
    commands.required = True
    s = commands.add_parser(
        "selftest",
        help="round trip through the board (or its simulated twin): pings, LEDs, display, buttons, entropy",
        description="Drive a full round trip through the bridge and print "
        '{"ok", "frames", "rtt_ms": {"p50", "p99"}, "dropped_bad", "retransmits"}.',
    )
    s.add_argument("--port", metavar="URL", help="the board's port (/dev/ttyACM0 or a pyserial URL); "
                                                 "default: the firmware twin on a pty")
    s.add_argument("--noise", metavar="P", default="0", help="twin only: fraction of line bytes corrupted (0..0.1)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=cmd_selftest)
    r = commands.add_parser(
        "repl",
        help="hand the board to mpremote (firmware update): leave the bridge, watchdog disarmed",
        description="Send EXIT_TO_REPL (the firmware disarms its watchdog, so mpremote's soft reset "
        "cannot bring the bridge back), close the port, and print the mpremote commands that copy "
        "the firmware and restart it. Stop the tower first (it holds the port).",
    )
    r.add_argument("--port", metavar="URL", help="the board's port (default: the first Pico by USB id 2e8a:0005)")
    r.set_defaults(func=cmd_repl)


def _noise(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 0.1:
        raise ParameterError("noise", f"expected a fraction of bytes from 0 to 0.1, got {text!r}")
    return value


def cmd_selftest(args: argparse.Namespace) -> int:
    from firmware_bridge import selftest

    noise = _noise(args.noise)
    if noise and args.port is not None:
        raise ParameterError("noise", "only the twin's line can be made noisy; leave out --port")
    result = selftest.run(args.port, noise_p=noise)
    if args.json:
        out(json.dumps(result))
    else:
        out(f"bridge selftest ({result['port']}): {'ok' if result['ok'] else 'FAILED'}")
        out(f"  frames {result['frames']}, rtt p50 {result['rtt_ms']['p50']} ms, p99 {result['rtt_ms']['p99']} ms, "
              f"dropped bad {result['dropped_bad']}, retransmits {result['retransmits']}")
        for name, outcome in result["checks"].items():
            out(f"  {name}: {'ok' if outcome is True else outcome}")
        if "error" in result:
            out(f"  error: {result['error']}")
    if not result["ok"]:
        say("dicetower: bridge selftest failed" + (f": {result['error']}" if "error" in result else ""))
    return 0 if result["ok"] else 1


#: How long ``bridge repl`` waits for the board's handshake.
REPL_TIMEOUT_S = 10.0
#: The board's linger after answering EXIT_TO_REPL (firmware bridge.py LINGER_MS), and a margin
#: for the USB line: ``bridge repl`` returns only after both, so mpremote started next gets in.
LINGER_S = 0.5
LINGER_MARGIN_S = 0.15


def cmd_repl(args: argparse.Namespace) -> int:
    from firmware_bridge.errors import BridgeError
    from firmware_bridge.link import Link, find_board

    port = args.port or find_board()
    if not port:
        say("dicetower: bridge repl: no Raspberry Pi Pico found by USB id 2e8a:0005; plug it in or give --port "
            "(/dev/ttyACM0)")
        return 1
    link = Link(port).start()
    try:
        hello = link.wait_up(REPL_TIMEOUT_S)
        disarms = link.exit_to_repl()
        answered = time.monotonic()
    except BridgeError as exc:
        say(f"dicetower: bridge repl: {exc}{_repl_hint(str(exc))}")
        return 1
    finally:
        link.close()
    # The board lingers LINGER_S after its answer (for a retry whose reply was lost) and takes
    # any byte meanwhile as the bridge's: the mpremote the steps below chain must come after.
    time.sleep(max(0.0, answered + LINGER_S + LINGER_MARGIN_S - time.monotonic()))
    out(repl_steps(port, hello.firmware, hello.minor, disarms=disarms))
    return 0


def _repl_hint(message: str) -> str:
    if "lock" in message or "busy" in message.lower():
        return " (another program holds the port: stop the tower first, e.g. sudo systemctl stop dicetower)"
    if "no handshake" in message:
        return (" (a board already in its REPL, after a safe boot or an earlier bridge repl, needs no "
                "bridge repl: use mpremote directly)")
    return ""


def repl_steps(port: str, firmware: str, minor: int, *, disarms: bool | None = True) -> str:
    """What to type next: the mpremote commands for this port and this checkout's firmware;
    a warning first where the board's watchdog stays armed (``disarms`` False: a chip the
    firmware does not know; protocol 1.0)."""
    from firmware_bridge.twin import FIRMWARE_DIR

    q = shlex.quote(port)
    armed = minor < 1 or disarms is False
    state = "its watchdog still armed (kept fed by a timer)" if armed else "watchdog disarmed"
    lines = [f"bridge at {port}: {firmware or 'the board'} left the bridge for its REPL, {state}.",
             "Copy the firmware and restart it with mpremote (pip install mpremote):",
             f"  mpremote connect {q} cp {shlex.quote(str(FIRMWARE_DIR))}/*.py :",
             f"  mpremote connect {q} reset",
             f"Then check it: dicetower bridge selftest --port {q}"]
    if minor >= 1 and disarms is False:
        lines.insert(1, "Warning: the firmware does not know this board's chip, so it cannot disarm its watchdog: "
                        "mpremote's soft reset stops the timer that feeds it and the board reboots into the bridge "
                        "within 4 s. Use the safe-boot pin instead: hold GP14 to GND while plugging the board in "
                        "(docs/bridge.md, \"Updating the firmware\").")
    if minor < 1:
        lines.insert(1, "Warning: this firmware (protocol 1.0) cannot disarm its watchdog: mpremote's soft reset "
                        "reboots it into the bridge within 4 s. Use the safe-boot pin instead: hold GP14 to GND "
                        "while plugging the board in (docs/bridge.md, \"Updating the firmware\").")
    return "\n".join(lines)
