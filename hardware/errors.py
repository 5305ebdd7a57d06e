"""hardware/'s exception base: every error the tower, the command line and the store's board
raise on purpose derives from :class:`HardwareError`, under the project's root
(:class:`engine.errors.DicetowerError`; the whole map is drawn in :mod:`engine.errors`).

Each class also inherits the builtin that matches (``ValueError`` for a bad config value,
``OSError`` for a refused file), so a caller may catch either."""

from __future__ import annotations

from engine.errors import DicetowerError, clip

__all__ = ["HardwareError"]


class HardwareError(DicetowerError):
    """Base of every error hardware/ raises on purpose. Its text is clipped
    (:func:`engine.errors.clip`): a message may quote a file's content or what the user typed,
    and that can be huge."""

    def __str__(self) -> str:
        return clip(super().__str__())
