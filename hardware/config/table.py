"""One TOML table being read: typed getters that name the key, and a check for leftovers.

Every reader takes the key's name and its default, and returns the value or raises a
:class:`~hardware.config.ConfigError` whose ``key`` is the dotted key (``buttons.roll``) and
whose words say what is allowed and what was given. The tower's config
(:mod:`hardware.config.reader`) and the board's (``hardware/board/boardconf.py``) read with it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, overload

from hardware.config import ConfigError
from hardware.config.pins import ANY_PINS, BCM_PINS

_MISSING = object()


class Table:
    """One TOML table: ``prefix`` is its dotted key ("" for the file's top), ``source`` the file."""

    def __init__(self, data: Any, prefix: str, source: str) -> None:
        if not isinstance(data, Mapping):
            raise ConfigError(prefix or "config", f"expected a table, got {_kind(data)}", source)
        self.data = dict(data)
        self.prefix = prefix
        self.source = source
        self.used: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def error(self, name: str, message: str) -> ConfigError:
        return ConfigError(self.key(name), message, self.source)

    def _get(self, name: str) -> Any:
        self.used.add(name)
        return self.data.get(name, _MISSING)

    def table(self, name: str) -> Table:
        value = self._get(name)
        return Table({} if value is _MISSING else value, self.key(name), self.source)

    def ignore(self, *names: str) -> None:
        """Keys that are allowed but unused (a disabled device's pins)."""
        for name in names:
            self._get(name)

    def raw(self, name: str, default: Any) -> Any:
        value = self._get(name)
        return default if value is _MISSING else value

    def boolean(self, name: str, default: bool) -> bool:
        value = self._get(name)
        if value is _MISSING:
            return default
        if not isinstance(value, bool):
            raise self.error(name, f"expected true or false, got {_show(value)}")
        return value

    def integer(self, name: str, default: int, lo: int, hi: int) -> int:
        value = self._get(name)
        if value is _MISSING:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(name, f"expected a whole number from {lo} to {hi}, got {_show(value)}")
        if not lo <= value <= hi:
            raise self.error(name, f"expected a whole number from {lo} to {hi}, got {value}")
        return value

    def number(self, name: str, default: float, lo: float, hi: float) -> float:
        value = self._get(name)
        if value is _MISSING:
            return float(default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.error(name, f"expected a number from {_num(lo)} to {_num(hi)}, got {_show(value)}")
        if not lo <= value <= hi:
            raise self.error(name, f"expected a number from {_num(lo)} to {_num(hi)}, got {_num(value)}")
        return float(value)

    def seconds(self, name: str, default: float) -> float:
        """A number of seconds whose range the caller checks."""
        value = self._get(name)
        if value is _MISSING:
            return float(default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.error(name, f"expected a number of seconds, got {_show(value)}")
        return float(value)

    def text(self, name: str, default: str) -> str:
        value = self._get(name)
        if value is _MISSING:
            return default
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, got {_show(value)}")
        return value

    def path(self, name: str, default: str, *, special: tuple[str, ...] = ()) -> str:
        """A path (kept as written; "" and ``special`` words pass as they are): checked now by
        :func:`hardware.files.paths.user_path`, so a NUL or a ``~user`` with no such user stops the
        tower at start-up with the key named."""
        from hardware.files.paths import PathError, user_path

        value = self.text(name, default)
        if value and value.strip().lower() not in special:
            try:
                user_path(value, self.key(name))
            except PathError as exc:
                raise self.error(name, exc.detail) from None
        return value

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.text(name, default)
        if value not in choices:
            raise self.error(name, f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    @overload
    def string_list(self, name: str, default: tuple[str, ...]) -> tuple[str, ...]: ...

    @overload
    def string_list(self, name: str, default: None) -> tuple[str, ...] | None: ...

    def string_list(self, name: str, default: tuple[str, ...] | None) -> tuple[str, ...] | None:
        value = self._get(name)
        if value is _MISSING:
            return None if default is None else tuple(default)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(name, f"expected a list of strings, got {_show(value)}")
        return tuple(value)

    def pin(self, name: str, default: int | None, *, optional: bool = False) -> Any:
        value = self._get(name)
        if value is _MISSING:
            return default
        if optional and value is False:
            return None  # `roll = false`: not fitted
        if isinstance(value, bool) or not isinstance(value, int) or value not in ANY_PINS:
            allowed = f"a BCM pin number from {BCM_PINS.start} to {BCM_PINS.stop - 1}"
            if optional:
                allowed += " (or false: not fitted)"
            raise self.error(name, f"expected {allowed}, got {_show(value)}")
        return value

    def given(self, name: str) -> bool:
        """Whether the table has the key ``name`` (read or not)."""
        return name in self.data

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            allowed = ", ".join(sorted(self.used)) or "none"
            raise self.error(unknown[0], f"unknown key (allowed here: {allowed})")


def _kind(value: Any) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean"}.get(type(value), type(value).__name__)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    return str(value)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
