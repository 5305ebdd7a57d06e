"""``dicetower run`` (the appliance on a Pi) and ``dicetower sim`` (the same panel on mock pins).

``run`` without ``--config`` uses the documented default wiring (``hardware/default.toml``); on
a machine with no GPIO it says so in one line and starts the simulator. SIGTERM (systemd
stop) and Ctrl-C shut down cleanly: LEDs off, display cleared, the dice session revealed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.errors import ParameterError
from engine.params import whole_number
from hardware.config import TowerConfig, load


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run the tower on a Raspberry Pi (buttons, LEDs, display)")
    p.add_argument("--config", metavar="FILE", help="TOML config (default: the documented default wiring)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "sim",
        help="the tower on simulated hardware: interactive in a terminal, or scripted",
        description="The tower's panel on gpiozero's mock pins and luma's dummy display. Without "
        "--press or --script it is interactive (keys drive the buttons, q quits).",
    )
    p.add_argument("--config", metavar="FILE", help="TOML config (the pins are simulated; systems, timings apply)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--press", metavar="LIST",
                       help="script: mode,field,minus,plus,roll, hold:NAME:SECONDS, wait:SECONDS")
    group.add_argument("--script", metavar="FILE", help="script file (same items, one or more a line, # comments)")
    p.add_argument("--out", metavar="DIR", help="write transcript.json and a PNG per step into DIR")
    p.add_argument("--seed", metavar="S", help="deterministic dice from this seed (repeatable runs)")
    p.add_argument("--scale", metavar="N", default="4", help="PNG pixels per OLED pixel (default 4)")
    p.add_argument("--json", action="store_true", help="print the transcript as JSON")
    p.set_defaults(func=cmd_sim)


def _dice(config: TowerConfig, seed: str | None, *, buttons: Any = None, log: Any = None) -> Any:
    from hardware.entropy import open_dice

    if seed is not None:
        return open_dice(seed=seed.encode("utf-8"), log=log)
    return open_dice(config.entropy.source, buttons=buttons, log=log)


def _stderr(message: str) -> None:
    print(f"dicetower: {message}", file=sys.stderr, flush=True)


def cmd_sim(args: argparse.Namespace) -> int:
    config = load(args.config)
    scale = _scale(args.scale)
    script_text = None
    option = "press"
    if args.press is not None:
        script_text = args.press
    elif args.script is not None:
        option = "script"
        try:
            script_text = Path(args.script).read_bytes().decode("utf-8")
        except OSError as exc:
            raise ParameterError("script", f"cannot read {args.script}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise ParameterError("script", f"{args.script} is not UTF-8 text (byte {exc.start})") from None
    if script_text is None:
        if args.out is not None or args.json:
            option = "out" if args.out is not None else "json"
            raise ParameterError(option, "needs a script: --press LIST or --script FILE")
        return interactive(config, seed=args.seed)
    return scripted(config, script_text, option=option, seed=args.seed, out=args.out, scale=scale, as_json=args.json)


def _scale(text: str) -> int:
    return whole_number("scale", text, 1, 16)


def scripted(config: TowerConfig, script_text: str, *, option: str, seed: str | None, out: str | None,
             scale: int, as_json: bool) -> int:
    import json

    from hardware.sim import Simulator, describe_step, parse_script

    actions = parse_script(script_text, option=option)
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ParameterError("out", f"cannot create {out_dir}: {exc.strerror or exc}") from None
    sim = Simulator(config, dice=_dice(config, seed), log=_stderr)
    try:
        steps = sim.run_script(actions, out=out_dir, scale=scale)
    finally:
        sim.close()
    if as_json:
        print(json.dumps(steps, indent=2))
    elif out_dir is None:
        print("\n".join(describe_step(s) for s in steps))
    if out_dir is not None:
        _stderr(f"wrote {len(steps)} steps to {out_dir / 'transcript.json'} and {len(steps)} frames to "
                f"{out_dir / 'frames'}")
    return 0


def interactive(config: TowerConfig, *, seed: str | None) -> int:
    from hardware.sim import Interactive, Simulator, real_clock

    sim = Simulator(config, dice=_dice(config, seed), clock=real_clock(), log=None)
    return Interactive(sim).run()


def cmd_run(args: argparse.Namespace) -> int:
    config = load(args.config)
    from hardware.panel_io import NoGpioError, open_pin_factory

    try:
        factory = open_pin_factory(config.gpio_factory)
    except NoGpioError as exc:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            # a service (systemd: stdin /dev/null) has nobody to drive a simulator: fail, so
            # that the unit shows failed and Restart= applies, rather than exit 0 at once
            _stderr(f"{exc}; install a GPIO backend (pip install 'dicetower[pi]') or try `dicetower sim`")
            return 1
        _stderr(f"{exc}; starting the simulator instead (dicetower sim)")
        return interactive(config, seed=None)
    return run_tower(config, factory)


def run_tower(config: TowerConfig, factory: Any) -> int:
    from gpiozero.exc import GPIOZeroError

    from hardware.display import ResilientDisplay, opener
    from hardware.entropy import ButtonTiming
    from hardware.panel_io import PinSetupError
    from hardware.runtime import Tower, run_forever, stop_on_signals
    from hardware.sdnotify import SystemdNotifier

    timing = ButtonTiming(hold_ns=round(config.buttons.hold_seconds * 1e9)) if config.entropy.button_timing else None
    state_dir = Path(config.kiosk.state_dir).expanduser() if config.kiosk.state_dir else None
    roll_log = None
    if state_dir is not None:
        from hardware.rolllog import RollLog
        from hardware.state import LOG_NAME

        try:
            state_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            # an unattended tower still starts: the panel forgets between runs and the roll
            # log (which the dice sessions need) says on the display why it cannot roll
            _stderr(f"kiosk.state_dir: cannot create {state_dir}: {exc.strerror or exc}; "
                    "the panel will not remember, and rolls need a writable roll log")
        roll_log = RollLog(state_dir / LOG_NAME)
    # Signals are caught from here on: a SIGTERM while the tower starts still ends cleanly.
    with stop_on_signals() as stop:
        dice = _dice(config, None, buttons=timing, log=roll_log)
        display = ResilientDisplay(opener(config.display), retry_seconds=config.display.retry_seconds, log=_stderr)
        try:
            tower = Tower(config, pin_factory=factory, display=display, dice=dice, timing=timing,
                          memory=state_dir, log=_stderr)
        except (GPIOZeroError, PinSetupError) as exc:
            _stderr(f"GPIO: {exc}")
            return 1
        _stderr(f"running ({config.source}; display {config.display.kind}, pins {factory.__class__.__name__})")
        notifier = SystemdNotifier.from_environ(log=_stderr)  # does nothing outside systemd
        try:
            run_forever(tower, stop, notifier=notifier)
        finally:
            notifier.close()
    _stderr("stopped: LEDs off, display cleared")
    return 0
