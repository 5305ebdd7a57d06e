"""The tower's configuration: one TOML file of BCM pins, the display, entropy and panel options.

Split by job:

- :mod:`hardware.config.schema`: what a config holds. Every key is a dataclass field made with
  :func:`~hardware.config.schema.config_key` (its reader, range or choices, the key's name and
  unit), its default the field's (``[panel]``'s are the engine's ``PanelConfig`` fields, read
  by :data:`~hardware.config.schema.PANEL_KEYS`); ``hardware/default.toml`` documents the same
  values (a test holds them equal);
- :mod:`hardware.config.pins`: the pin rules: which pins the header (or a Pico) offers, which
  ones the display's bus takes, and the check that no pin is used twice;
- :mod:`hardware.config.table`: one TOML table read key by key, each mistake named by its key;
- :mod:`hardware.config.reader`: the file (``load``, ``loads``), and the loader, which reads
  every table field by field (``read_fields``), then the checks across tables.

Unknown keys, wrong types, out-of-range values and pins used twice (or taken by the display's
bus) are a :class:`ConfigError` naming the key, which the command line prints as one line
(exit 2). See ``docs/wiring.md``.
"""

from __future__ import annotations

from hardware.errors import HardwareError

__all__ = ["ConfigError"]


class ConfigError(HardwareError, ValueError):
    """A config key is unknown or its value is not allowed; ``key`` is dotted (``buttons.roll``),
    ``detail`` what is wrong, ``source`` the file."""

    def __init__(self, key: str, message: str, source: str = "config") -> None:
        super().__init__(f"{source}: {key}: {message}")
        self.key = key
        self.detail = message
        self.source = source
