"""``dicetower bridge selftest``, ``status``, ``repl`` and ``twin``: the Pico.

``selftest`` is the Pico's (or its twin's) full round trip: without ``--port`` it starts the
firmware twin on a pty; ``--noise P`` corrupts that fraction of the twin's line bytes. Prints
the result (``--json``: the JSON object) and exits 0 when ok, 1 when a check failed.

``repl`` hands the Pico to ``mpremote`` for a firmware update: EXIT_TO_REPL (the firmware
disarms its watchdog), the port closed with nothing more sent, then the exact ``mpremote``
commands. Exit 0 when the Pico left the bridge (or is in safe mode: mpremote can go in as it
is), 1 when it could not be reached or when its firmware cannot disarm its watchdog (a chip it
does not know), unless ``--force``. See docs/bridge.md ("Updating the firmware").

``status`` says what the Pico is doing: running the bridge (its firmware, boot, uptime, line
counters), in safe mode (and why), or not answering. Exit 0 only while it runs the bridge.

``twin`` is ``python -m firmware_bridge.twin``: the firmware on a simulated Pico on a pty.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import time
from typing import Any

from engine.errors import ParameterError
from hardware.cli.output import out, say


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("bridge", help="the Raspberry Pi Pico over USB serial")
    commands = p.add_subparsers(dest="bridge_command", metavar="ACTION")
    commands.required = True
    s = commands.add_parser(
        "selftest",
        help="round trip through the Pico (or its simulated twin): pings, LEDs, display, buttons, entropy",
        description="Drive a full round trip through the bridge and print "
        '{"ok", "frames", "rtt_ms": {"p50", "p99"}, "dropped_bad", "retransmits"}.',
    )
    s.add_argument("--port", metavar="URL", help="the Pico's port (/dev/ttyACM0 or a pyserial URL); "
                                                 "default: the firmware twin on a pty")
    s.add_argument("--noise", metavar="P", default="0", help="twin only: fraction of line bytes corrupted (0..0.1)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=cmd_selftest)
    r = commands.add_parser(
        "repl",
        help="hand the Pico to mpremote (firmware update): leave the bridge, watchdog disarmed",
        description="Send EXIT_TO_REPL (the firmware disarms its watchdog, so mpremote's soft reset "
        "cannot bring the bridge back), close the port, and print the mpremote commands that copy "
        "the firmware and restart it. Stop the tower first (it holds the port).",
    )
    r.add_argument("--port", metavar="URL", help="the Pico's port (default: the first Pico by USB id 2e8a:0005)")
    r.add_argument("--force", action="store_true",
                   help="go on with a Pico whose firmware cannot disarm its watchdog (a chip it does not know, "
                        "or protocol 1.0); the cost: mpremote's soft reset stops the timer that feeds the "
                        "watchdog, and the Pico resets into the bridge within 4 s, likely in the middle of the "
                        "copy (then use the safe-boot pin)")
    r.set_defaults(func=cmd_repl)
    st = commands.add_parser(
        "status",
        help="what the Pico is doing: running the bridge, in safe mode (and why), or not answering",
        description="Shake hands with the Pico and print its firmware, boot, uptime and line counters; a Pico "
        "in safe mode (its firmware files do not agree, e.g. an interrupted update) says why. Exit 0 while it "
        "runs the bridge, 1 otherwise.",
    )
    st.add_argument("--port", metavar="URL", help="the Pico's port (default: the first Pico by USB id 2e8a:0005)")
    st.add_argument("--timeout", metavar="S", default="5", help="seconds to wait for its answer (default 5)")
    st.add_argument("--json", action="store_true", help="print the result as JSON")
    st.set_defaults(func=cmd_status)
    from firmware_bridge import twin

    tw = commands.add_parser("twin", help="the firmware on a simulated Pico on a pty (python -m firmware_bridge.twin)",
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    twin.add_arguments(tw)
    tw.set_defaults(func=lambda args: twin.run(args, tw.error))


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


#: How long ``bridge repl`` waits for the Pico's handshake.
REPL_TIMEOUT_S = 10.0
#: The Pico's linger after answering EXIT_TO_REPL (firmware bridge.py LINGER_MS), and a margin
#: for the USB line: ``bridge repl`` returns only after both, so mpremote started next gets in.
LINGER_S = 0.5
LINGER_MARGIN_S = 0.15


def cmd_repl(args: argparse.Namespace) -> int:
    from firmware_bridge.errors import BridgeError, SafeMode
    from firmware_bridge.link import Link, find_pico

    port = args.port or find_pico()
    if not port:
        say("dicetower: bridge repl: no Raspberry Pi Pico found by USB id 2e8a:0005; plug it in or give --port "
            "(/dev/ttyACM0)")
        return 1
    link = Link(port).start()
    try:
        try:
            hello = link.wait_up(REPL_TIMEOUT_S)
        except SafeMode as exc:
            link.close()  # nothing more is sent: its REPL is one Ctrl-C away, which mpremote sends first
            out(safe_mode_steps(port, exc.reason))
            return 0
        refusal = cannot_disarm(hello)
        if refusal and not args.force:
            say(f"dicetower: bridge repl: {port}: {refusal}; nothing was sent to it. Use the safe-boot pin instead "
                "(hold GP14 to GND while plugging the Pico in, docs/bridge.md \"Updating the firmware\"), or "
                "--force to go on anyway: the Pico then resets into the bridge within 4 s of mpremote's soft "
                "reset, likely in the middle of the copy")
            return 1
        disarms = link.exit_to_repl()
        answered = time.monotonic()
    except BridgeError as exc:
        say(f"dicetower: bridge repl: {exc}{_repl_hint(str(exc))}")
        return 1
    finally:
        link.close()
    # The Pico lingers LINGER_S after its answer (for a retry whose reply was lost) and takes
    # any byte meanwhile as the bridge's: the mpremote the steps below chain must come after.
    time.sleep(max(0.0, answered + LINGER_S + LINGER_MARGIN_S - time.monotonic()))
    out(repl_steps(port, hello.firmware, hello.minor, disarms=disarms))
    return 0


def cannot_disarm(hello: Any) -> str:
    """Why this Pico's firmware cannot disarm its watchdog for EXIT_TO_REPL, or "" if it can:
    protocol 1.2 says so in HELLO's caps (CAP_DISARM); a 1.1 Pico can on the chips it knows,
    named in its description; a 1.0 Pico never can."""
    from firmware_bridge.firmware import codec

    if hello.minor >= 2:
        known = bool(hello.caps & codec.CAP_DISARM)
    elif hello.minor == 1:
        known = "RP2040" in hello.firmware or "RP2350" in hello.firmware
    else:
        return (f"its firmware ({hello.firmware or 'protocol 1.0'}) speaks protocol 1.0, which cannot disarm the "
                "watchdog: mpremote's soft reset would stop the timer that feeds it")
    if known:
        return ""
    return (f"its firmware ({hello.firmware or 'the Pico'}) does not know this chip, so it cannot disarm its "
            "watchdog (it knows the RP2040's and the RP2350's): mpremote's soft reset would stop the timer that "
            "feeds it")


def safe_mode_steps(port: str, reason: str) -> str:
    """What to type for a Pico in safe mode: it is out of the bridge already."""
    from firmware_bridge.twin import FIRMWARE_DIR

    q = shlex.quote(port)
    return "\n".join([
        f"bridge at {port}: the Pico is in safe mode, not running the bridge: {reason}.",
        "It needs no bridge repl: mpremote goes in as it is (no watchdog is armed). Copy the firmware and "
        "restart it with mpremote (pip install mpremote):",
        f"  mpremote connect {q} cp {shlex.quote(str(FIRMWARE_DIR))}/*.py :",
        f"  mpremote connect {q} reset",
        f"Then check it: dicetower bridge status --port {q}"])


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 600:
        raise ParameterError("timeout", f"expected seconds from 0 to 600, got {text!r}")
    return value


def cmd_status(args: argparse.Namespace) -> int:
    from engine.errors import escape_controls
    from firmware_bridge.errors import BridgeError, SafeMode
    from firmware_bridge.link import Link, find_pico

    timeout = _seconds(args.timeout)
    port = args.port or find_pico()
    result: dict[str, Any] = {"port": port, "state": "no Pico"}
    if port:
        link = Link(port).start()
        try:
            hello = link.wait_up(timeout)
            deadline = time.monotonic() + 1.0  # a heartbeat comes every 0.25 s
            while link.heartbeat is None and time.monotonic() < deadline:
                time.sleep(0.01)
            beat = link.heartbeat
            result.update(state="bridge", firmware=hello.firmware, protocol=f"{hello.major}.{hello.minor}",
                          boot_id=f"{hello.boot_id:08x}", uid=hello.uid.hex(), entropy=hello.entropy,
                          watchdog_disarm=not cannot_disarm(hello))
            if beat is not None:
                result.update(uptime_s=round(beat.uptime_ms / 1000, 1), bad_frames=beat.bad_frames,
                              tx_dropped=beat.tx_dropped, watchdog_reset=beat.watchdog_reset,
                              safe_state=beat.safe, safe_count=beat.safe_count)
        except SafeMode as exc:
            result.update(state="safe mode", reason=exc.reason)
        except BridgeError as exc:
            opened = link.port_name is not None and not (link.last_error or "").startswith("cannot open")
            result.update(state="no answer" if opened else "cannot open",
                          error=escape_controls(link.last_error if not opened and link.last_error else str(exc)))
        finally:
            link.close()
    if args.json:
        out(json.dumps(result))
    elif result["state"] == "bridge":
        line = (f"bridge at {port}: running {result['firmware']} (protocol {result['protocol']}), boot "
                f"{result['boot_id']}, uid {result['uid']}")
        if "uptime_s" in result:
            line += (f", up {result['uptime_s']:g} s, bad frames {result['bad_frames']}, tx dropped "
                     f"{result['tx_dropped']}, safe state entered {result['safe_count']} times"
                     + (", last reset by its watchdog" if result["watchdog_reset"] else ""))
        out(line)
    elif result["state"] == "safe mode":
        out(f"bridge at {port}: safe mode, not running the bridge: {result['reason']}")
    elif result["state"] == "cannot open":
        out(f"bridge at {port}: {result['error']}")
    elif result["state"] == "no answer":
        q = shlex.quote(str(port))
        out(f"bridge at {port}: not running the bridge ({result['error']}); a Pico at its REPL (after mpremote "
            f"or a safe boot) answers nothing: mpremote connect {q} exec 'import main; print(main.why())' says what "
            f"its files lack (nothing: they agree), mpremote connect {q} reset starts it")
    else:
        out("bridge: no Raspberry Pi Pico found by USB id 2e8a:0005; plug it in or give --port (/dev/ttyACM0)")
    return 0 if result["state"] == "bridge" else 1


def _repl_hint(message: str) -> str:
    if "lock" in message or "busy" in message.lower():
        return " (another program holds the port: stop the tower first, e.g. sudo systemctl stop dicetower)"
    if "no handshake" in message:
        return (" (a Pico already in its REPL, after a safe boot or an earlier bridge repl, needs no "
                "bridge repl: use mpremote directly)")
    return ""


def repl_steps(port: str, firmware: str, minor: int, *, disarms: bool | None = True) -> str:
    """What to type next: the mpremote commands for this port and this checkout's firmware;
    a warning first where the Pico's watchdog stays armed (``disarms`` False: a chip the
    firmware does not know; protocol 1.0)."""
    from firmware_bridge.twin import FIRMWARE_DIR

    q = shlex.quote(port)
    armed = minor < 1 or disarms is False
    state = "its watchdog still armed (kept fed by a timer)" if armed else "watchdog disarmed"
    lines = [f"bridge at {port}: {firmware or 'the Pico'} left the bridge for its REPL, {state}.",
             "Copy the firmware and restart it with mpremote (pip install mpremote):",
             f"  mpremote connect {q} cp {shlex.quote(str(FIRMWARE_DIR))}/*.py :",
             f"  mpremote connect {q} reset",
             f"Then check it: dicetower bridge selftest --port {q}"]
    if minor >= 1 and disarms is False:
        lines.insert(1, "Warning: the firmware does not know this Pico's chip, so it cannot disarm its watchdog: "
                        "mpremote's soft reset stops the timer that feeds it and the Pico reboots into the bridge "
                        "within 4 s. Use the safe-boot pin instead: hold GP14 to GND while plugging the Pico in "
                        "(docs/bridge.md, \"Updating the firmware\").")
    if minor < 1:
        lines.insert(1, "Warning: this firmware (protocol 1.0) cannot disarm its watchdog: mpremote's soft reset "
                        "reboots it into the bridge within 4 s. Use the safe-boot pin instead: hold GP14 to GND "
                        "while plugging the Pico in (docs/bridge.md, \"Updating the firmware\").")
    return "\n".join(lines)
