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
    from hardware.files.safefile import FileRefused
    from hardware.panel.io import NoGpioError, PinSetupError

    assert issubclass(NoGpioError, RuntimeError) and issubclass(PinSetupError, RuntimeError)
    assert issubclass(FileRefused, OSError) and issubclass(OutputError, OSError)
    assert not issubclass(UsageError, EngineError)  # a usage mistake is not the engine's
    assert issubclass(EngineError, DicetowerError)


def _drawn_map() -> dict[str, tuple[str, tuple[str, ...]]]:
    """engine.errors' drawing: each class's name -> (its parent's, the other bases in brackets)."""
    import engine.errors

    doc = engine.errors.__doc__ or ""
    lines = [line[4:] for line in doc.split("::\n\n", 1)[1].splitlines() if line.startswith("    ")]
    drawn: dict[str, tuple[str, tuple[str, ...]]] = {}
    stack: list[str] = []
    for line in lines:
        text = line.lstrip("│├└─ ")
        depth = (len(line) - len(text)) // 4
        name, _, extra = text.partition(" (")
        others = tuple(e.strip() for e in extra.rstrip(")").split(",")) if extra else ()
        del stack[depth:]
        drawn[name] = (stack[-1] if stack else "Exception", others)
        stack.append(name)
    return drawn


def test_the_map_in_engine_errors_is_every_class_and_its_bases() -> None:
    """One exception map, drawn in one docstring, true: every class the walk finds is in it
    under its first base, with its other bases in brackets, and nothing else is."""
    found = {cls.__name__: (cls.__bases__[0].__name__, tuple(b.__name__ for b in cls.__bases__[1:]))
             for name, cls in _exception_classes().items() if name not in OUTSIDE}
    assert len(found) == len({n for n in _exception_classes() if n not in OUTSIDE})  # names are unique
    drawn = _drawn_map()
    wrong = {n: (drawn.get(n), found.get(n)) for n in set(drawn) | set(found) if drawn.get(n) != found.get(n)}
    assert not wrong, f"engine/errors.py's map (drawn, real): {wrong}"


def test_each_package_has_one_base() -> None:
    from firmware_bridge.errors import BridgeError
    from hardware.errors import HardwareError

    bases = {"engine": EngineError, "hardware": HardwareError, "firmware_bridge": BridgeError}
    for name, cls in _exception_classes().items():
        if name in OUTSIDE or cls in (DicetowerError, *bases.values()):
            continue
        package = name.split(".")[0]
        assert issubclass(cls, bases[package]), f"{name} is not under {bases[package].__name__}"
