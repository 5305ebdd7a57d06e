"""``dicetower run`` (the appliance on a Pi) and ``dicetower sim`` (the same panel on mock pins).

``run`` without ``--config`` uses the documented default wiring (``hardware/default.toml``); on
a machine with no GPIO it says so in one line and starts the simulator. SIGTERM (systemd
stop) and Ctrl-C shut down cleanly: LEDs off, display cleared, the dice session revealed.

What the tower keeps (``[kiosk] state_dir``, ``unrecorded``) is set up by :func:`keep` for
both: ``sim --config FILE`` keeps its roll log and memory exactly where ``run`` would, and
``sim --state-dir DIR`` in DIR. ``sim`` without either is a sandbox and keeps nothing. A
scripted ``sim --seed S`` times its roll log's entries by the simulated clock, so the same
script in an empty state directory writes the same log (and shows the same fingerprints).
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import EngineError, ParameterError
from engine.params import whole_number
from hardware.cli import output
from hardware.config.reader import load
from hardware.config.schema import STATE_DIR_NONE, TowerConfig
from hardware.errors import HardwareError


class _HelpWithBackends(argparse._HelpAction):
    """``run --help``: the table of backends is built only when it is asked for (it asks luma
    for each OLED's sizes, 150 ms that no other command should pay at start-up)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        parser.epilog = _backends_help()
        super().__call__(parser, namespace, values, option_string)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="run the tower on a Raspberry Pi (buttons, LEDs, display)", add_help=False,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-h", "--help", action=_HelpWithBackends, help="show this help message and exit")
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
    p.add_argument("--out", metavar="DIR",
                   help="write transcript.json, a PNG per step and a WAV per sentence said into DIR")
    p.add_argument("--seed", metavar="S", help="deterministic dice from this seed (repeatable runs)")
    p.add_argument("--state-dir", metavar="DIR",
                   help="keep the roll log and the panel's memory in DIR (instead of [kiosk] state_dir)")
    p.add_argument("--scale", metavar="N", default="4", help="PNG pixels per OLED pixel (default 4)")
    p.add_argument("--json", action="store_true", help="print the transcript as JSON")
    p.add_argument("--bridge", action="store_true",
                   help="the pins on the bridge's firmware twin (a simulated Pico on a pty) instead of mock pins")
    p.set_defaults(func=cmd_sim)


@dataclass(frozen=True)
class Kept:
    """Where a tower keeps things: its state directory (None: nothing kept) and roll log."""

    state_dir: Path | None = None
    roll_log: Any = None

    def keeper(self) -> Any:
        """Where the tower keeps its open sessions' seeds against a power cut (None: nowhere)."""
        if self.state_dir is None or self.roll_log is None:
            return None
        from hardware.session.open_sessions import OpenSessions

        return OpenSessions(self.state_dir, log=_stderr)

    def tower_options(self, show: Any = None) -> dict[str, Any]:
        """The :class:`hardware.cli.sim.Simulator` keyword arguments for this (``memory``: the state
        directory)."""
        return {"memory": self.state_dir, "roll_log": self.roll_log, "kept": self.state_dir is not None,
                "show": show}


def keep(config: TowerConfig, *, clock: Any = None, option: str | None = None) -> Kept:
    """The state directory and roll log ``[kiosk]`` asks for: ``"none"`` keeps nothing, ``""``
    the default ($STATE_DIRECTORY under systemd, else the XDG state directory). Temp files a
    killed writer left are removed (under the lock). A directory that cannot be made is said
    in one line and the tower still starts: the display then says why it cannot roll.
    ``clock`` times the log's entries (the simulator's, for a repeatable ``--seed`` script).
    ``option`` (``state-dir``: ``sim --state-dir DIR``, typed by someone at a terminal) names
    where the directory came from, and one that cannot be made is then that option's error
    (exit 2) instead: a scripted run would otherwise exit 0 with every screen unrecorded."""
    from hardware.files.locking import state_lock
    from hardware.files.paths import user_path
    from hardware.files.rolllog import LenientLog, RollLog
    from hardware.files.state import LOG_NAME, default_state_dir

    text = config.kiosk.state_dir
    if text.strip().lower() == STATE_DIR_NONE:
        return Kept()
    named = f"--{option}" if option else "kiosk.state_dir"
    state_dir = user_path(text, named) if text.strip() else default_state_dir()
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        with state_lock(state_dir):  # which also removes what a killed writer left
            pass
    except (OSError, EngineError, HardwareError) as exc:
        # an unattended tower still starts: the panel forgets between runs and the roll
        # log (which the dice sessions need) says on the display why it cannot roll
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        if isinstance(exc, FileExistsError) or (state_dir.exists() and not state_dir.is_dir()):
            why = "it is there, and not a directory"
        if option:
            from engine.errors import ParameterError

            raise ParameterError(option, f"cannot use {state_dir} as the state directory: {why}") from None
        _stderr(f"kiosk.state_dir: cannot create {state_dir}: {why}; "
                "the panel will not remember, and rolls need a writable roll log")
    log: Any = RollLog(state_dir / LOG_NAME) if clock is None else RollLog(state_dir / LOG_NAME, clock=clock)
    if config.kiosk.unrecorded == "show":
        log = LenientLog(log)
    return Kept(state_dir, log)


def _publishing(config: TowerConfig, *, log: Any) -> contextlib.AbstractContextManager[Any]:
    """:func:`hardware.network.publisher.publishing` for ``[network]``; without one, nothing
    of the network is loaded (start-up: docs/architecture.md)."""
    if not config.network.enabled:
        return contextlib.nullcontext()
    from hardware.network.publisher import publishing

    return publishing(config, log=log)


@contextlib.contextmanager
def _serving(config: TowerConfig, kept: Kept, *, log: Any) -> Iterator[Any]:
    """The phone page's read-only server for ``[web]`` (docs/phone.md), for as long as the tower
    runs; without ``[web]`` nothing of it is loaded. A page that cannot be served (Pyodide not
    installed, the port taken) is one line in the journal: the tower rolls on without it."""
    say = log or (lambda message: None)  # the interactive simulator's screen is the terminal: quiet
    if not config.web.enabled or kept.state_dir is None:
        yield None
        return
    from hardware.web import PageAssets, PageError
    from hardware.web.server import PageServer

    try:
        server = PageServer(kept.state_dir, listen=config.web.listen, assets=PageAssets.find(config.web.pyodide),
                            log=say)
    except PageError as exc:
        say(f"web: the phone page is not served: {exc}")
        yield None
        return
    with server:
        say(f"web: the phone page is at {server.url} (and http://{socket.gethostname()}.local:{server.port}/)")
        yield server


def _stdout(line: str) -> None:
    """A line the tower prints (an UNRECORDED result): where standard output cannot take it
    (closed, full) it goes to stderr instead, and the tower carries on."""
    try:
        output.out(line, flush=True)
    except output.OutputError as exc:
        output.say(f"dicetower: cannot print to standard output ({exc.strerror}): {line}")


def _dice(config: TowerConfig, seed: str | None, *, buttons: Any = None, kept: Kept | None = None,
          bridge: Any = None) -> Any:
    from hardware.entropy import open_dice

    log = kept.roll_log if kept is not None else None
    if seed is not None:
        return open_dice(seed=seed.encode("utf-8"), log=log, writer="tower")
    extra = (bridge.entropy_source(),) if bridge is not None else ()
    return open_dice(config.entropy.source, buttons=buttons, log=log, extra_sources=extra,
                     keeper=kept.keeper() if kept is not None else None, writer="tower")


def _stderr(message: str) -> None:
    output.say(f"dicetower: {message}")  # one journal line: control characters (a Pico's error text) escaped


def cmd_sim(args: argparse.Namespace) -> int:
    import dataclasses

    config = load(args.config)
    scale = _scale(args.scale)
    if args.state_dir is not None:
        config = dataclasses.replace(config, kiosk=dataclasses.replace(config.kiosk, state_dir=args.state_dir))
    scripted_run = args.press is not None or args.script is not None
    clock = None
    if args.seed is not None and scripted_run:
        from hardware.cli.sim import SimClock

        clock = SimClock()  # the same script, the same log: its entries timed by the simulated clock
    if args.state_dir is not None:
        kept = keep(config, clock=clock, option="state-dir")
    else:
        kept = keep(config, clock=clock) if args.config is not None else Kept()
    script_text = None
    option = "press"
    if args.press is not None:
        script_text = args.press
    elif args.script is not None:
        option = "script"
        script_text = _read_script(args.script)
    if script_text is None:
        if args.out is not None or args.json:
            option = "out" if args.out is not None else "json"
            raise ParameterError(option, "needs a script: --press LIST or --script FILE")
        return interactive(config, seed=args.seed, kept=kept, bridge=args.bridge)
    return scripted(config, script_text, option=option, seed=args.seed, out=args.out, scale=scale, as_json=args.json,
                    kept=kept, bridge=args.bridge, clock=clock)


#: A script is a few lines of button names; a file larger than this is not one.
MAX_SCRIPT_BYTES = 1 << 20


def _read_script(name: str) -> str:
    """The ``--script`` file, read by the one rule (:mod:`hardware.files.safefile`): ``/dev/zero``, a
    FIFO or a link is refused in one line, never read for ever or waited on."""
    import errno

    from hardware.files.paths import option_path
    from hardware.files.safefile import FileRefused, read_text

    path = option_path(name, "script")
    try:
        return read_text(path, MAX_SCRIPT_BYTES)
    except FileRefused as exc:
        raise ParameterError("script", str(exc.strerror)) from None
    except OSError as exc:
        why = "it is a symbolic link; name the file it points to" if exc.errno == errno.ELOOP else exc.strerror
        raise ParameterError("script", f"cannot read {name}: {why or exc}") from None


def _scale(text: str) -> int:
    return whole_number("scale", text, 1, 16)


def scripted(config: TowerConfig, script_text: str, *, option: str, seed: str | None, out: str | None,
             scale: int, as_json: bool, kept: Kept | None = None, bridge: bool = False, clock: Any = None) -> int:
    import json

    from hardware.cli.sim import Simulator, describe_step, parse_script

    actions = parse_script(script_text, option=option)
    from hardware.files.paths import option_path

    out_dir = option_path(out, "out") if out is not None else None
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ParameterError("out", f"cannot create {out_dir}: {exc.strerror or exc}") from None
    kept = kept or Kept()
    # the transcript is standard output here: UNRECORDED lines go to stderr, and the screens
    # in the transcript carry the UNRECORDED title
    # [network]: the roll log goes to the broker too; [web]: the phone page follows it
    with _publishing(config, log=_stderr), _serving(config, kept, log=_stderr):
        sim = Simulator(config, dice=_dice(config, seed, kept=kept), clock=clock, log=_stderr, pins=_twin_pins(bridge),
                        speaker=_speaker(config, wav_dir=out_dir / "frames" if out_dir is not None else None),
                        **kept.tower_options(show=_stderr))
        try:
            steps = sim.run_script(actions, out=out_dir, scale=scale)
        finally:
            sim.close()
    if as_json:
        output.out(json.dumps(steps, indent=2))
    elif out_dir is None:
        output.out("\n".join(describe_step(s) for s in steps))
    if out_dir is not None:
        wavs = sum(1 for s in steps for said in s.get("said", ()) if said["wav"])
        also = f" and {wavs} WAV file{'' if wavs == 1 else 's'} of what was said" if wavs else ""
        _stderr(f"wrote {len(steps)} steps to {out_dir / 'transcript.json'} and {len(steps)} frames{also} to "
                f"{out_dir / 'frames'}")
    return 0


def _speaker(config: TowerConfig, *, wav_dir: Path | None = None, log: Any = _stderr) -> Any:
    """The speaker ``[sound]`` names (the simulator's ``--out``: WAV files next to the frames)."""
    from hardware.speech import open_speaker

    if wav_dir is not None:
        return open_speaker(config.sound, name="wav", log=log, directory=wav_dir)
    return open_speaker(config.sound, log=log)


#: How to run the simulator where there is no terminal to draw it in.
SCRIPTED_HINT = ("run it scripted instead: dicetower sim --press mode,field,plus,roll "
                 "(or --script FILE; see docs/simulator.md)")

#: Where Linux names the machine it runs on; a Raspberry Pi says so here.
DEVICE_TREE_MODEL = Path("/proc/device-tree/model")
#: Where a Raspberry Pi's kernel names it too (``Model : Raspberry Pi 5 Model B Rev 1.0``), for
#: a root without the device tree (a container or a chroot on a Pi).
CPUINFO = Path("/proc/cpuinfo")


def has_terminal() -> bool:
    """Both ends are a terminal: keys come in and screen-control codes may go out."""
    return all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))


def is_a_raspberry_pi(model: Path = DEVICE_TREE_MODEL, cpuinfo: Path = CPUINFO) -> bool:
    try:
        return b"Raspberry Pi" in model.read_bytes()
    except OSError:
        pass
    try:
        with cpuinfo.open("rb") as lines:
            return any(line.startswith(b"Model") and b"Raspberry Pi" in line for line in lines)
    except OSError:
        return False


def _twin_pins(bridge: bool) -> Any:
    if not bridge:
        return None
    from hardware.panel.pico import TwinPins

    return TwinPins(log=_stderr)


def interactive(config: TowerConfig, *, seed: str | None, kept: Kept | None = None, bridge: bool = False) -> int:
    from hardware.cli import UsageError

    if not has_terminal():
        # Screen-control codes into a file or a pipe help nobody: one line instead.
        raise UsageError("dicetower sim: error: the interactive simulator needs a terminal "
                         f"(stdin and stdout are not one); {SCRIPTED_HINT}")
    from hardware.cli.sim import Interactive, Simulator, real_clock

    kept = kept or Kept()
    with _publishing(config, log=None), _serving(config, kept, log=None):
        sim = Simulator(config, dice=_dice(config, seed, kept=kept), clock=real_clock(), log=None,
                        pins=_twin_pins(bridge), speaker=_speaker(config, log=None), **kept.tower_options())
        return Interactive(sim).run()


def _backends_help() -> str:
    """What a config's [gpio] factory and [display] kind may name, from the registries."""
    from hardware import backends
    from hardware.display import luma_facts

    def line(name: str, help: str, sizes: tuple[tuple[int, int], ...] = ()) -> str:
        shown = ", ".join(f"{w}x{h}" for w, h in sizes)
        return f"  {name:<9} {help}" + (f" ({shown})" if shown else "")

    return "\n".join([
        "[gpio] factory:", *(line(b.name, b.help) for b in backends.PIN_FACTORIES if b.config),
        "[display] kind:", *(line(k.name, k.help, luma_facts.sizes(k)) for k in backends.DISPLAY_KINDS if k.config),
    ])


def cmd_run(args: argparse.Namespace) -> int:
    config = load(args.config)
    from hardware.panel.pico import open_bridge

    bridge = open_bridge(config, log=_stderr)
    try:
        return _run(config, bridge)
    finally:
        if bridge is not None:
            bridge.close()


#: ``run`` cannot start here (no GPIO and no terminal for the simulator, a pin another program
#: holds): the status of a mistake in what was asked for, as docs/roll-log.md lists it.
EXIT_CANNOT_START = 2


def _run(config: TowerConfig, bridge: Any) -> int:
    from hardware.backends import PIN_FACTORIES
    from hardware.panel.io import NoGpioError, open_pin_factory

    if bridge is not None and PIN_FACTORIES.get(config.gpio_factory).bridge:
        bridge.wait_for_pico()  # up to START_TIMEOUT_S; then one line, and the tower carries on
    try:
        # the link only when the Pico is in use: open_pin_factory's plain form stays as it was
        factory = open_pin_factory(config.gpio_factory, **({"link": bridge.link} if bridge is not None else {}))
    except NoGpioError as exc:
        if not has_terminal():
            # a service (systemd: stdin /dev/null) has nobody to drive a simulator: fail, so
            # that the unit shows failed and Restart= applies, rather than exit 0 at once;
            # the tower cannot start here, which is exit 2 (docs/roll-log.md), not 1 ("a check failed")
            if is_a_raspberry_pi():
                _stderr(f"{exc}; {_gpio_hint()}")
            else:
                _stderr(f"not a Raspberry Pi (no GPIO), and no terminal here for the simulator "
                        f"(stdin and stdout are not one); {SCRIPTED_HINT}")
            return EXIT_CANNOT_START
        _stderr(f"{exc}; starting the simulator instead (dicetower sim)")
        return interactive(config, seed=None, kept=keep(config))
    return run_tower(config, factory, bridge=bridge)


def _gpio_hint() -> str:
    """What to do on a Pi where no pin factory opened: install the GPIO stack, or (it is
    installed) give the tower the GPIO chips."""
    import importlib.util

    if importlib.util.find_spec("lgpio") is None:
        return ("install the GPIO stack: sudo deploy/install.sh (or pip install 'dicetower[pi]'; "
                "docs/wiring.md, 'Pin backends') or try `dicetower sim`")
    return ("lgpio is installed: are there /dev/gpiochip* here, and may this user open them (group gpio)? "
            "(docs/wiring.md, 'Pin backends') or try `dicetower sim`")


def run_tower(config: TowerConfig, factory: Any, *, bridge: Any = None) -> int:
    from gpiozero.exc import GPIOZeroError

    from hardware.entropy.buttons import ButtonTiming
    from hardware.panel.io import PinSetupError
    from hardware.tower import assemble, run_forever, stop_on_signals
    from hardware.tower.sdnotify import SystemdNotifier

    timing = ButtonTiming(hold_ns=round(config.buttons.hold_seconds * 1e9)) if config.entropy.button_timing else None
    kept = keep(config)
    # Signals are caught from here on: a SIGTERM while the tower starts still ends cleanly.
    with stop_on_signals() as stop, _publishing(config, log=_stderr), _serving(config, kept, log=_stderr):
        dice = _dice(config, None, buttons=timing, kept=kept, bridge=bridge)
        link = bridge.link if bridge is not None else None
        try:
            tower = assemble(config, pin_factory=factory, dice=dice, link=link, timing=timing, log=_stderr,
                             speaker=_speaker(config), state_dir=kept.state_dir, roll_log=kept.roll_log,
                             kept=kept.state_dir is not None, show=_stdout)
        except (GPIOZeroError, PinSetupError) as exc:
            _stderr(f"GPIO: {exc}")
            return EXIT_CANNOT_START
        _stderr(f"running ({config.source}; display {config.display.kind}, pins {factory.__class__.__name__})")
        notifier = SystemdNotifier.from_environ(log=_stderr)  # does nothing outside systemd
        try:
            run_forever(tower, stop, notifier=notifier)
        finally:
            notifier.close()
    _stderr("stopped: LEDs off, display cleared")
    return 0
