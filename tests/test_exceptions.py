"""One exception root for the project: every exception class defined in engine/, hardware/
and firmware_bridge/ (not the MicroPython firmware, which runs on the Pico) derives from
:class:`engine.errors.DicetowerError`, also keeping the builtin it had."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import engine
import firmware_bridge
import hardware
from engine.errors import DicetowerError, EngineError

#: Exceptions outside the root on purpose, each with why.
OUTSIDE = {
    # machine.reset() in the simulated Pico: a BaseException like SystemExit, so that no
    # handler in the firmware under test catches it (it is the Pico rebooting, not an error)
    "firmware_bridge.simpico.SimReset",
    # Ctrl-C reaching the simulated Pico's running main.py: MicroPython's KeyboardInterrupt,
    # a BaseException for the same reason
    "firmware_bridge.twin.SimInterrupt",
}


def _modules() -> list[str]:
    names = []
    for package in (engine, hardware, firmware_bridge):
        names.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            # the firmware runs on the Pico; __main__ runs the command line when imported
            if not info.name.startswith("firmware_bridge.firmware") and not info.name.endswith(".__main__"):
                names.append(info.name)
    return names


def _exception_classes() -> dict[str, type[BaseException]]:
    found = {}
    for name in _modules():
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == name:
                found[f"{name}.{value.__qualname__}"] = value
    return found


def test_every_exception_derives_from_the_root() -> None:
    classes = _exception_classes()
    assert len(classes) >= 30  # the walk found the modules, not just the roots (a floor, not the count)
    outside = sorted(name for name, cls in classes.items() if not issubclass(cls, DicetowerError))
    assert set(outside) <= OUTSIDE, f"not under DicetowerError: {', '.join(set(outside) - OUTSIDE)}"


def test_the_ones_that_were_outside_keep_their_builtins() -> None:
    from hardware.cli import UsageError
    from hardware.cli.output import OutputError
    from hardware.panel_io import NoGpioError, PinSetupError
    from hardware.safefile import FileRefused

    assert issubclass(NoGpioError, RuntimeError) and issubclass(PinSetupError, RuntimeError)
    assert issubclass(FileRefused, OSError) and issubclass(OutputError, OSError)
    assert not issubclass(UsageError, EngineError)  # a usage mistake is not the engine's
    assert issubclass(EngineError, DicetowerError)
