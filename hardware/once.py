"""Say a problem once: a retry that meets the same trouble again is not news.

A tower runs unattended and retries every second (the roll log, the state lock, the panel
memory, the broker); its journal should hold one line when something goes wrong, one when
it is right again, and not a line a second in between. :class:`Once` keeps the problem last
said; every part that retries holds one.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Once"]


class Once:
    """The last problem said to ``log``; :meth:`say` passes on only a different one."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self._log = log
        self.problem = ""  # the problem last said ("" while all is well)

    def say(self, problem: str, line: str | None = None) -> bool:
        """Say ``line`` (by default the problem itself) unless ``problem`` was the last said.
        Returns whether it was said."""
        if problem == self.problem:
            return False
        self.problem = problem
        self._log(problem if line is None else line)
        return True

    def over(self, line: str | None = None) -> bool:
        """The trouble is over: the same problem later is news again. ``line``, if given, is
        said when there was a problem (``saved again``). Returns whether there was one."""
        was = bool(self.problem)
        self.problem = ""
        if was and line is not None:
            self._log(line)
        return was
