"""The bridge's exceptions: one base, also a ``ConnectionError`` (an ``OSError``), so code that
handles a failing device (a display retried later) handles a failing bridge the same way."""

from __future__ import annotations

from engine.errors import DicetowerError, clip


class BridgeError(DicetowerError, ConnectionError):
    """The Pico cannot be used: not found, unplugged, refused, not answering. Its text is
    clipped (:func:`engine.errors.clip`): it may quote what the Pico sent."""

    def __str__(self) -> str:
        return clip(super().__str__())


class BridgeTimeout(BridgeError):
    """No reply within the time allowed; the message names the port, the request and the time."""


class VersionMismatch(BridgeError):
    """The Pico speaks another major protocol version; the message says which side to update."""


class PicoRefused(BridgeError):
    """The Pico answered a request with ERROR; ``code`` is the protocol's error code and
    ``text`` the Pico's message (control bytes escaped)."""

    def __init__(self, code: int, message: str, text: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.text = text


class BadReply(BridgeError):
    """A reply that is well framed but cannot be what the request asked for (too short, wrong
    type); the message names the request and the lengths."""


class SafeMode(BridgeError):
    """The Pico answers, but is in safe mode, not running the bridge (its firmware files do
    not agree, or one does not load); ``reason`` is the Pico's own words, control bytes escaped."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason
