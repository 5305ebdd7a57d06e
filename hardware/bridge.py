"""The tower's companion board: one link shared by every part the config puts on it.

``open_bridge(config)`` returns None when nothing uses the board (no ``bridge`` pin factory,
display kind or entropy source), else a :class:`BridgeSession` holding the one link (and the
firmware twin when ``[bridge] port = "twin"``). The parts are chosen through the registries
in :mod:`hardware.backends`; this only provides the link they are opened on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware_bridge.link import Link
from firmware_bridge.pins import open_link
from hardware.backends import DISPLAY_KINDS, ENTROPY_SOURCES, PIN_FACTORIES
from hardware.config import TowerConfig

#: How long the tower waits for the board at start-up before it carries on without it.
START_TIMEOUT_S = 10.0


def uses_bridge(config: TowerConfig) -> bool:
    """Whether any part the config chooses runs on the companion board."""
    from hardware.entropy.pipeline import parse_spec

    sources = parse_spec(config.entropy.source)
    return (PIN_FACTORIES.get(config.gpio_factory).bridge or DISPLAY_KINDS.get(config.display.kind).bridge
            or any(name in ENTROPY_SOURCES and ENTROPY_SOURCES.get(name).bridge for name in sources))


class BridgeSession:
    """The link to the board (started: it finds, opens and re-opens the port by itself)."""

    def __init__(self, config: TowerConfig, *, log: Callable[[str], None] | None = None) -> None:
        cfg = config.bridge
        if cfg.port:
            self.link, self.twin = open_link(cfg.port, log=log)
        else:
            self.link, self.twin = Link(serial_number=cfg.serial_number or None, log=log).start(), None
        self._source: Any = None

    def entropy_source(self) -> Any:
        """The ``bridge`` entropy source on this link (one per session)."""
        if self._source is None:
            from hardware.entropy.bridge import BridgeSource

            self._source = BridgeSource(self.link)
        return self._source

    def close(self) -> None:
        self.link.close()
        if self.twin is not None:
            self.twin.close()


def open_bridge(config: TowerConfig, *, log: Callable[[str], None] | None = None) -> BridgeSession | None:
    return BridgeSession(config, log=log) if uses_bridge(config) else None
