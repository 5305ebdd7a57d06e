"""Where the tower's parts say things: one line each, to the log the tower has now.

The parts are made before the tower (:func:`hardware.tower.assemble`), and a test may give
the tower another log after start-up (:attr:`hardware.tower.loop.Tower.log`), so each part
holds this line rather than the log it was made with.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["LogLine"]


class LogLine:
    """Passes each line to ``to`` (None: nowhere) as it is when the line is said."""

    def __init__(self, to: Callable[[str], None] | None = None) -> None:
        self.to: Callable[[str], None] = to or _nowhere

    def __call__(self, line: str) -> None:
        self.to(line)


def _nowhere(line: str) -> None:
    """No log: the line is dropped."""
