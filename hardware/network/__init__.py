"""Many towers, one store: a tower's roll log published over MQTT (docs/network.md).

The roll log is the outbox. :class:`~hardware.network.publisher.Publisher` tails it in its own
thread and publishes every entry, QoS 1 and in order, to ``dicetower/STORE/TOWER/log``; a
cursor file remembers the last entry the broker acknowledged, so publishing resumes there
after an outage or a reboot. Rolling never waits for the network.
"""

from __future__ import annotations

from hardware.errors import HardwareError

__all__ = ["NetworkError"]


class NetworkError(HardwareError, ValueError):
    """A broker URL, an id or a credentials file cannot be used: ``what`` names it (the option
    or config key, ``--mqtt``, ``store``), ``detail`` says what is wrong."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"{what}: {detail}")
        self.what = what
        self.detail = detail
