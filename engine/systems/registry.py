"""Which game systems are installed: the ``dicetower_systems`` entry-point group, read once.

A system is any installed distribution's entry point in that group (the five shipped ones are
declared in dicetower's own pyproject.toml, a plug-in in its own), named by the system's id
and pointing at its :class:`~engine.systems.SystemSpec` (``coin = "dicetower_coin:SYSTEM"``),
as gpiozero finds its pin factories. Reading the group costs one scan of the installed
distributions' metadata (bench/bench_registry.py), so it is read on the first call and kept
for the process, as ``import`` keeps a module: the installed program does not change while it
runs. Nothing is imported here; a system's module is imported when it is first asked for
(:meth:`Installed.load`), and its place in MODE's order is read from its source's ``ORDER``
line without running it (:meth:`Installed.declared_order`), so listing the ids in order
imports no system.

Installed metadata is part of the program, as the modules are, so the engine reads it itself
(docs/architecture.md, "Finding the systems"): the engine stays usable as a library and under
Pyodide (the phone page's zip carries the metadata) without each caller handing a list in.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine.errors import EngineError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoints

#: The entry-point group a system registers in.
GROUP = "dicetower_systems"

#: What a system id may look like: it names the system on the command line, in the roll log,
#: in the config, in the phrase tables' keys and in file names.
ID_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,23}\Z")


class SystemPluginError(EngineError, ImportError):
    """An installed system cannot be used: a bad id, two distributions claiming one id, an
    entry point that does not load or is not a ``SystemSpec`` of that id. The message names
    the distribution, so the one to fix or uninstall is plain."""


#: How a system's module declares its place in MODE's order without being imported: a line
#: ``ORDER = 60`` at its top level (the same number as its ``SystemSpec.order``).
ORDER_LINE = re.compile(r"^ORDER\s*(?::\s*int\s*)?=\s*(-?\d{1,9})\s*(?:#.*)?$", re.MULTILINE)


@dataclass(frozen=True)
class Installed:
    """One registered system, not yet imported: its id, ``module:attribute`` and the
    distribution that declares it."""

    id: str
    module: str
    attribute: str
    distribution: str

    def declared_order(self) -> int | None:
        """The ``ORDER`` its module's source declares (:data:`ORDER_LINE`), read through the
        import system's loader without running the module; None when there is none to read
        (no such line, no source): the order is then the spec's, which imports it."""
        from importlib.abc import InspectLoader  # imported by importlib.metadata already

        try:
            found = importlib.util.find_spec(self.module)
            loader = found.loader if found is not None else None
            source = loader.get_source(self.module) if isinstance(loader, InspectLoader) else None
        except (ImportError, ValueError, OSError):
            return None
        match = ORDER_LINE.search(source) if isinstance(source, str) else None
        return int(match[1]) if match else None

    def load(self) -> Any:
        """The object the entry point names (imported on first use; ``import`` keeps it)."""
        try:
            module = importlib.import_module(self.module)
        except ImportError as exc:
            raise SystemPluginError(f"system {self.id!r} (distribution {self.distribution}): cannot import "
                                    f"{self.module}: {exc}") from None
        try:
            return getattr(module, self.attribute)
        except AttributeError:
            raise SystemPluginError(f"system {self.id!r} (distribution {self.distribution}): {self.module} has "
                                    f"no {self.attribute}") from None


@functools.cache
def installed() -> Mapping[str, Installed]:
    """Every registered system by id (read once per process; see the module's docstring)."""
    from importlib import metadata  # 20 ms of imports on a PC: paid by the first system asked for

    return read(metadata.entry_points(group=GROUP))


def read(points: EntryPoints) -> Mapping[str, Installed]:
    """The systems these entry points register; :class:`SystemPluginError` on a bad id, an id
    two distributions claim, or a value that is not ``module:attribute``."""
    found: dict[str, Installed] = {}
    for point in points:
        dist = point.dist.name if point.dist is not None else "an unnamed distribution"
        if not ID_PATTERN.match(point.name):
            raise SystemPluginError(f"distribution {dist} registers a system named {point.name!r}: an id is a "
                                    "lower-case letter, then up to 23 lower-case letters, digits or _")
        module, _, attribute = point.value.partition(":")
        module, attribute = module.strip(), attribute.strip()
        if not module or not attribute or " " in attribute:
            raise SystemPluginError(f"distribution {dist}: system {point.name!r} points at {point.value!r}, "
                                    "not module:attribute")
        earlier = found.get(point.name)
        if earlier is not None and earlier.distribution != dist:
            raise SystemPluginError(f"system {point.name!r} is registered by both {earlier.distribution} and "
                                    f"{dist}: uninstall one")
        found[point.name] = Installed(point.name, module, attribute, dist)
    return MappingProxyType(found)
