"""Speakers that make no sound: a list in memory (tests) and a line in the log per sentence
(a tower without a speaker, or to read what it says in ``journalctl``); and :class:`Heard`,
which keeps what another speaker was given."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import NamedTuple

from hardware.config.schema import SoundConfig
from hardware.speech import Speaker

#: Sentences :class:`Heard` keeps between two takes at most.
HEARD_MOST = 1000


class Said(NamedTuple):
    """One sentence a speaker was given, and whether a press cut it short."""

    text: str
    cut: bool = False


class RecordingSpeaker:
    """Keeps every sentence (:attr:`said`, the last one marked cut when :meth:`stop` came
    while it would still be playing) and how often it was stopped. ``problem`` is whatever
    a test sets."""

    def __init__(self, sound: SoundConfig | None = None, *, log: Callable[[str], None] | None = None,
                 problem: str = "") -> None:
        self.said: list[Said] = []
        self.stops = 0
        self.closed = False
        self._problem = problem
        self._playing = False

    @property
    def problem(self) -> str:
        return self._problem

    @problem.setter
    def problem(self, text: str) -> None:
        self._problem = text

    @property
    def texts(self) -> list[str]:
        return [s.text for s in self.said]

    def say(self, text: str) -> None:
        if text.strip():
            self.said.append(Said(text))
            self._playing = True

    def stop(self) -> None:
        self.stops += 1
        if self._playing and self.said:
            self.said[-1] = self.said[-1]._replace(cut=True)
        self._playing = False

    def finished(self) -> None:
        """The sentence playing came to its end (a test says when)."""
        self._playing = False

    def close(self) -> None:
        self.stop()
        self.closed = True


class LogSpeaker:
    """Writes each sentence to the log as ``said: ...`` (stderr, the journal under systemd)."""

    def __init__(self, sound: SoundConfig | None = None, *, log: Callable[[str], None] | None = None) -> None:
        self._log = log or (lambda line: None)

    @property
    def problem(self) -> str:
        return ""

    def say(self, text: str) -> None:
        if text.strip():
            self._log(f"said: {text}")

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


class Heard:
    """Another speaker, with the sentences kept as they pass (the simulator's transcript takes
    them at each step; the interactive simulator only shows the last)."""

    def __init__(self, speaker: Speaker) -> None:
        self.speaker = speaker
        self.said: deque[str] = deque(maxlen=HEARD_MOST)
        self.last = ""

    @property
    def problem(self) -> str:
        return self.speaker.problem

    def say(self, text: str) -> None:
        if text.strip():
            self.said.append(text)
            self.last = text
        self.speaker.say(text)

    def stop(self) -> None:
        self.speaker.stop()

    def take(self) -> list[str]:
        """The sentences said since the last take."""
        taken = list(self.said)
        self.said.clear()
        return taken

    def close(self) -> None:
        self.speaker.close()
