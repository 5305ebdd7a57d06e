"""The engine's exceptions: one base, each also a matching builtin so callers may catch either."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class ParameterError(EngineError, ValueError):
    """A parameter is missing, of the wrong type or out of range.

    ``param`` is the parameter's name as the command line spells it (``cr``, ``opponent-pool``),
    so the command line can print one line naming it.
    """

    def __init__(self, param: str, message: str) -> None:
        super().__init__(f"--{param}: {message}")
        self.param = param
        self.detail = message


class UnknownSystemError(EngineError, LookupError):
    """No system by that id."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__(f"unknown system {name!r}; choose one of: {', '.join(known)}")
        self.name = name


class FacesError(ParameterError):
    """Supplied dice faces (``--faces``) do not fit the roll: too few, too many, out of range."""

    def __init__(self, message: str) -> None:
        super().__init__("faces", message)


class EntropyError(EngineError, RuntimeError):
    """A randomness source cannot be used (failed health test, exhausted, unavailable).

    No roll may be produced after this is raised.
    """

    def __init__(self, source: str, message: str) -> None:
        super().__init__(f"entropy source {source}: {message}")
        self.source = source
        self.detail = message
