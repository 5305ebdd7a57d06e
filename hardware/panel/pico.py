"""The tower's Pico: one link shared by every part the config puts on it.

``open_bridge(config)`` returns None when nothing uses the Pico (no ``bridge`` pin factory,
display kind or entropy source), else a :class:`BridgeSession` holding the one link (and the
firmware twin when ``[bridge] port = "twin"``). The parts are chosen through the registries
in :mod:`hardware.backends`; this only provides the link they are opened on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from firmware_bridge.errors import BridgeError
from firmware_bridge.link import Link
from firmware_bridge.pins import open_link
from hardware import backends
from hardware.config.schema import TowerConfig

if TYPE_CHECKING:
    from firmware_bridge.pins import BridgeFactory

#: How long the tower waits for the Pico at start-up before it carries on without it.
START_TIMEOUT_S = 10.0


def uses_bridge(config: TowerConfig) -> bool:
    """Whether any part the config chooses runs on the Pico."""
    from hardware.entropy.pipeline import parse_spec

    sources = parse_spec(config.entropy.source)
    return (backends.PIN_FACTORIES.get(config.gpio_factory).bridge
            or backends.DISPLAY_KINDS.get(config.display.kind).bridge
            or any(name in backends.ENTROPY_SOURCES and backends.ENTROPY_SOURCES.get(name).bridge for name in sources))


class BridgeSession:
    """The link to the Pico (started: it finds, opens and re-opens the port by itself)."""

    def __init__(self, config: TowerConfig, *, log: Callable[[str], None] | None = None) -> None:
        cfg = config.bridge
        self._log = log or (lambda message: None)
        if cfg.port:
            self.link, self.twin = open_link(cfg.port, log=log)
        else:
            self.link, self.twin = Link(serial_number=cfg.serial_number or None, log=log).start(), None
        self._source: Any = None

    def wait_for_pico(self, timeout: float = START_TIMEOUT_S) -> bool:
        """Wait up to ``timeout`` for the Pico's handshake; when it does not come, say so in
        one line and carry on without it (its pins, display and entropy start working once it
        answers); a Pico in safe mode likewise, its reason in the line. A Pico that refuses
        this host (another major protocol version) stops the tower: waiting would not help."""
        from firmware_bridge.errors import BridgeTimeout, SafeMode

        try:
            self.link.wait_up(timeout)
        except (BridgeTimeout, SafeMode) as exc:
            # safe mode: the Pico says why (an interrupted update); the link asks it again every
            # second, so finishing the update and resetting the Pico brings it in
            self._log(f"bridge: {exc}; carrying on without the Pico: its buttons, display and entropy "
                      "work once it answers")
            return False
        return True

    def entropy_source(self) -> Any:
        """The ``bridge`` entropy source on this link (one per session)."""
        if self._source is None:
            from hardware.entropy.ring_oscillator import BridgeSource

            self._source = BridgeSource(self.link)
        return self._source

    def close(self) -> None:
        self.link.close()
        if self.twin is not None:
            self.twin.close()


def open_bridge(config: TowerConfig, *, log: Callable[[str], None] | None = None) -> BridgeSession | None:
    return BridgeSession(config, log=log) if uses_bridge(config) else None


class TwinPins:
    """The simulator's pins on the bridge's firmware twin (``dicetower sim --bridge``): a
    press drives the twin's pin and returns once the host's pin shows it, so a scripted run
    on the simulated clock sees every press as on mock pins."""

    def __init__(self, *, timeout: float = 5.0, log: Callable[[str], None] | None = None) -> None:
        from firmware_bridge.pins import BridgeFactory

        self.link, self.twin = open_link("twin", log=log)
        self.timeout = timeout
        self.factory: BridgeFactory | None = None  # until it is made: close() is called if making it fails
        try:
            self.factory = BridgeFactory(link=self.link, timeout=timeout, log=log)
        except Exception:
            self.close()
            raise

    def press(self, pin: Any, *, down: bool, pull_up: bool) -> None:
        gp = int(pin.info.name[4:])
        level = (0 if pull_up else 1) if down else None
        self.twin.pico.drive(gp, level)
        want = (0 if pull_up else 1) if down else (1 if pull_up else 0)
        deadline = time.monotonic() + self.timeout
        while pin.state != want:
            if time.monotonic() > deadline:
                raise BridgeError(f"GP{gp}: the twin's edge did not arrive within {self.timeout:g} s")
            time.sleep(0.001)

    def close(self) -> None:
        if self.factory is not None:
            self.factory.close()
        self.link.close()
        self.twin.close()
