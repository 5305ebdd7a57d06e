"""``dicetower bridge selftest``: the companion board's (or its twin's) full round trip.

Without ``--port`` it starts the firmware twin on a pty; ``--noise P`` corrupts that fraction
of the twin's line bytes. Prints the result (``--json``: the JSON object) and exits 0 when ok,
1 when a check failed. See docs/bridge.md.
"""

from __future__ import annotations

import argparse
import json
import math

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
