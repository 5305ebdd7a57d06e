"""The project's exceptions: one root, one base per package, each also a matching builtin so
callers may catch either.

:class:`DicetowerError` is the root of every exception the project raises on purpose: it lives
here because the engine is the one package every other one may import. Under it, each package
has its base: the engine's :class:`EngineError`, ``hardware.errors.HardwareError`` and
``firmware_bridge.errors.BridgeError``. The whole map, with the other class each one also
derives from in brackets (``tests/test_exceptions.py`` holds this drawing equal to the classes
it finds)::

    DicetowerError
    ├── EngineError
    │   ├── EntropyError (RuntimeError)
    │   │   └── ReseedRequired
    │   ├── ParameterError (ValueError)
    │   │   └── FacesError
    │   ├── SpeechError (ValueError)
    │   ├── SystemPluginError (ImportError)
    │   ├── TableSeedError (ValueError)
    │   └── UnknownSystemError (LookupError)
    ├── HardwareError
    │   ├── BoardError (ValueError)
    │   │   ├── RecordError
    │   │   └── Unstorable
    │   ├── ConfigError (ValueError)
    │   ├── DisplayFrameError (OSError)
    │   ├── FileRefused (OSError)
    │   ├── LockError
    │   ├── LogError
    │   │   └── SessionSyncError
    │   ├── NetworkError (ValueError)
    │   ├── NoGpioError (RuntimeError)
    │   ├── NotEnoughEntropy (EntropyError)
    │   ├── OffsetError
    │   ├── OutputError (OSError)
    │   ├── PageError (OSError)
    │   ├── PathError (ValueError)
    │   ├── PinSetupError (RuntimeError)
    │   ├── Rejected (ValueError)
    │   ├── SessionBusy (RuntimeError)
    │   ├── SessionFileError
    │   │   ├── DamagedFile
    │   │   └── SessionWriteError (LogError)
    │   ├── SourceUnavailable (EntropyError)
    │   ├── StateError
    │   │   └── StateWriteError
    │   └── UsageError
    └── BridgeError (ConnectionError)
        ├── BadReply
        ├── BridgeTimeout
        ├── MicroPythonFailed
        ├── MicroPythonUnavailable
        ├── PicoRefused
        ├── SafeMode
        └── VersionMismatch
"""

from __future__ import annotations

#: The longest error line shown: a 10 MB argument is not echoed back in full.
CLIP_AT = 300


def clip(text: str, limit: int = CLIP_AT) -> str:
    """``text`` cut in the middle to at most about ``limit`` characters, saying how much was
    left out; the start (what is wrong) and the end stay readable. One line: a newline in a
    typed value is shown as ``\\n``."""
    text = text.replace("\n", "\\n")
    if len(text) <= limit:
        return text
    keep = limit // 2
    return f"{text[:keep]}...({len(text) - 2 * keep} characters left out)...{text[-keep:]}"


_NAMED_CONTROLS = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(c: str) -> str:
    code = ord(c)
    named = _NAMED_CONTROLS.get(c)
    if named is not None:
        return named
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape_controls(text: str) -> str:
    """``text`` with every character that is not printable shown as an escape (``\\n``,
    ``\\x1b``): one line and no terminal codes, whatever it quotes (the Pico's error text, a
    file name)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escaped(c) for c in text)


class DicetowerError(Exception):
    """The root of every exception dicetower raises on purpose: ``except DicetowerError``
    catches what the project says went wrong, and nothing it did not mean to raise. Each
    package's base derives from it (the map is in this module's docstring), also inheriting
    the builtin that matches."""


class EngineError(DicetowerError):
    """Base of every error the engine raises on purpose. Its text is clipped (:func:`clip`):
    a message may quote what the user typed, and that can be huge."""

    def __str__(self) -> str:
        return clip(super().__str__())


class ParameterError(EngineError, ValueError):
    """A parameter or setting is missing, of the wrong type or out of range.

    ``key`` (also ``param``) names it, so a caller can name it in its own terms (the config
    file's ``panel.players``) without reading the message; ``detail`` is the message without
    the name. A roll's parameter is named as the command line spells it (``cr``,
    ``opponent-pool``) and shown as a flag; a positional argument by its upper-case placeholder
    (``SYSTEM``, ``LOG``), shown without ``--``: there is no such flag. With ``flag`` False the
    key is shown as it is (a panel setting: ``players: ...``).
    """

    def __init__(self, param: str, message: str, *, flag: bool = True) -> None:
        shown = "--" + param if flag and not param.isupper() else param
        super().__init__(f"{shown}: {message}")
        self.param = param
        self.detail = message

    @property
    def key(self) -> str:
        """The offending parameter or setting's name, as the caller spelled it."""
        return self.param


class UnknownSystemError(EngineError, LookupError):
    """No system by that id."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        if known:
            super().__init__(f"unknown system {name!r}; choose one of: {', '.join(known)}")
        else:  # a checkout run without installing it: no entry points, no systems
            super().__init__(f"unknown system {name!r}: no game system is installed (none in the "
                             "dicetower_systems entry-point group; install dicetower: pip install .)")
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
