"""Parameter specifications: one description drives validation, the command line, ``systems
--json`` and the panel's fields, so the four cannot disagree.

Names are ``snake_case`` in Python and JSON and ``--kebab-case`` on the command line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from engine.errors import ParameterError

Kind = Literal["int", "bool", "choice", "list"]

#: Marks a parameter that has no default and must be given.
REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "REQUIRED"})()

#: A whole number as a player types it: ASCII digits with an optional sign. Python's int()
#: also takes "1_0" and full-width or other Unicode digits ("８"), which no one means.
_WHOLE = re.compile(r"[+-]?[0-9]+")


_TRUE = {"1", "true", "yes", "on", "y"}
_FALSE = {"0", "false", "no", "off", "n"}


@dataclass(frozen=True)
class Param:
    """One parameter of a system.

    kind ``int``: whole number in ``lo..hi`` (either may be None for unbounded); ``names``
    maps words to values (Challenge Rating names). kind ``bool``: a switch. kind ``choice``:
    one of ``choices``. kind ``list``: zero or more items (repeatable option or a comma list),
    each parsed by ``item`` (a callable ``str|value -> value`` raising ``ValueError``) and at
    most ``max_items`` long.

    ``panel`` says whether the button panel offers the parameter (the panel needs a range and
    a step; lists and free text stay on the command line). ``entered``: given, it makes the
    roll's outcome typed in rather than drawn (fingers' fixed hand): such a roll is logged as
    ``entered``, outside any dice session, and the checkers derive the kind from it
    (:meth:`engine.systems.SystemSpec.typed_in`, docs/fairness.md rule 13).
    """

    name: str
    kind: Kind
    help: str
    default: Any = REQUIRED
    lo: int | None = None
    hi: int | None = None
    step: int = 1
    names: Mapping[str, int] = field(default_factory=dict)
    choices: tuple[str, ...] = ()
    item: Callable[[Any], Any] | None = None
    item_help: str = ""
    max_items: int | None = None
    panel: bool = True
    entered: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", MappingProxyType(dict(self.names)))

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def cli_name(self) -> str:
        return self.name.replace("_", "-")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def allowed(self) -> str:
        """What values are allowed, in words, for error messages and help."""
        if self.kind == "int":
            if self.lo is not None and self.hi is not None:
                text = f"a whole number from {self.lo} to {self.hi}"
            elif self.lo is not None:
                text = f"a whole number of at least {self.lo}"
            elif self.hi is not None:
                text = f"a whole number of at most {self.hi}"
            else:
                text = "a whole number"
            if self.names:
                text += " or one of " + ", ".join(self.names)
            return text
        if self.kind == "bool":
            return "yes or no"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        text = self.item_help or "a list"
        if self.max_items is not None:
            text += f" (at most {self.max_items})"
        return text

    def _fail(self, value: Any, why: str | None = None) -> ParameterError:
        shown = repr(value) if isinstance(value, str) else str(value)
        return ParameterError(self.cli_name, why or f"expected {self.allowed()}, got {shown}")

    def coerce(self, value: Any) -> Any:
        """Validate ``value`` (a Python value or the text typed on the command line)."""
        if self.kind == "int":
            return self._coerce_int(value)
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                return value.strip().lower() in _TRUE
            raise self._fail(value)
        if self.kind == "choice":
            if isinstance(value, bool) and {"yes", "no"} <= set(self.choices):
                # A yes/no choice with a third option (immortal's --auto-success yes|no|best)
                # still takes the switch values it had as a bool.
                value = "yes" if value else "no"
            text = str(value).strip().lower()
            if text in self.choices:
                return text
            raise self._fail(value)
        return self._coerce_list(value)

    def _coerce_int(self, value: Any) -> int:
        if isinstance(value, bool):
            raise self._fail(value)
        if isinstance(value, str):
            text = value.strip().lower()
            if text in self.names:
                return self.names[text]
            try:
                number = parse_whole(text)
            except ValueError:
                raise self._fail(value) from None
        elif isinstance(value, int):
            number = value
        else:
            raise self._fail(value)
        if (self.lo is not None and number < self.lo) or (self.hi is not None and number > self.hi):
            raise self._fail(value)
        return number

    def _coerce_list(self, value: Any) -> tuple[Any, ...]:
        if value is None:
            items: list[Any] = []
        elif isinstance(value, str):
            items = _split(self, value)
        elif isinstance(value, list | tuple):
            items = []
            for v in value:
                # A repeated option may also carry a comma list: --helper 3,5 --helper 7
                if isinstance(v, str):
                    items.extend(_split(self, v))
                else:
                    items.append(v)
        else:
            items = [value]
        if self.max_items is not None and len(items) > self.max_items:
            raise self._fail(value, f"at most {self.max_items} items allowed, got {len(items)}")
        parse = self.item or _int_item
        out = []
        for v in items:
            try:
                out.append(parse(v))
            except ParameterError:
                raise
            except (ValueError, TypeError) as exc:
                raise self._fail(v, f"{exc}; expected {self.allowed()}") from None
        return tuple(out)

    def describe(self) -> dict[str, Any]:
        """The parameter as ``dicetower systems --json`` lists it."""
        out: dict[str, Any] = {
            "name": self.name,
            "flag": self.flag,
            "type": self.kind,
            "help": self.help,
            "required": self.required,
            "default": None if self.required else _jsonable(self.default),
        }
        if self.kind == "int":
            out["min"] = self.lo
            out["max"] = self.hi
            out["step"] = self.step
            if self.names:
                out["names"] = dict(self.names)
        elif self.kind == "choice":
            out["choices"] = list(self.choices)
        elif self.kind == "list":
            out["items"] = self.item_help
            out["max_items"] = self.max_items
        return out


def parse_whole(text: str) -> int:
    """The whole number ``text`` spells in ASCII digits (surrounding spaces allowed);
    ``ValueError`` for anything else, including what int() alone would accept (``1_0``,
    ``８``). Every number typed by a user goes through here."""
    stripped = text.strip()
    if not _WHOLE.fullmatch(stripped):
        raise ValueError(f"{text!r} is not a whole number")
    return int(stripped)


def whole_number(name: str, value: Any, lo: int, hi: int) -> int:
    """A whole number in ``lo..hi`` for an option that is not a system parameter (``--times``,
    ``--player``, ``--n``, ``--scale``), with the same one-line error as the parameters."""
    return int(Param(name, "int", name, lo=lo, hi=hi).coerce(value if isinstance(value, int) else str(value)))


def _split(param: Param, text: str) -> list[str]:
    """A comma list; an empty place (``1,,2``) is a mistake, not a skipped item, because
    some lists are positional (horizons' ``--wounds minor,major,critical``)."""
    if not text.strip():
        return []
    items = [p.strip() for p in text.split(",")]
    if "" in items:
        raise ParameterError(param.cli_name, f"an empty place in {text!r}; expected {param.allowed()}")
    return items


def _int_item(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a whole number")
    if isinstance(value, int):
        return value
    return parse_whole(str(value))


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def resolve(params: tuple[Param, ...], raw: Mapping[str, Any],
            by_name: Mapping[str, Param] | None = None) -> dict[str, Any]:
    """Fill defaults, coerce every value and reject unknown names.

    Keys may use ``_`` or ``-``. ``None`` means "not given". Raises :class:`ParameterError`.
    ``by_name`` is ``params`` by name, when the caller keeps it (a spec resolves on every
    odds call).
    """
    if by_name is None:
        by_name = {p.name: p for p in params}
    given: dict[str, Any] = {}
    for key, value in raw.items():
        name = key.replace("-", "_")
        if name not in by_name:
            known = ", ".join(p.flag for p in params)
            raise ParameterError(name.replace("_", "-"), f"not a parameter of this system; it takes {known}")
        if value is not None:
            given[name] = value
    out: dict[str, Any] = {}
    for p in params:
        if p.name in given:
            out[p.name] = p.coerce(given[p.name])
        elif p.required:
            raise ParameterError(p.cli_name, f"required: {p.allowed()}")
        else:
            out[p.name] = p.default
    return out
