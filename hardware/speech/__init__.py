"""Speech: the seam between the tower and whatever says its sentences aloud.

The tower (:class:`hardware.tower.Tower`, ``speaker=``) hands a :class:`Speaker` each
sentence :mod:`engine.speech.words` makes, and never waits for it: a speaker starts saying
it (a separate process) and returns, and :meth:`Speaker.say` or :meth:`Speaker.stop` cuts
short whatever is still being said. Speakers are chosen by name from
:data:`hardware.backends.SPEAKERS` (``[sound] speaker``): eSpeak NG on the sound card, a log
line per sentence, WAV files for the simulator, or a list in memory for tests.
docs/speech.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from hardware.backends import SPEAKERS
from hardware.config.schema import SoundConfig


class Speaker(Protocol):
    """Says sentences without ever making the caller wait.

    ``problem`` is why nothing can be heard ("" when it can): no espeak-ng, no sound card, the
    last sentence failed to play. It may change after a sentence (a card unplugged)."""

    @property
    def problem(self) -> str: ...

    def say(self, text: str) -> None:
        """Start saying ``text``, cutting short anything still being said; returns at once."""

    def stop(self) -> None:
        """Cut short anything being said (a new press); returns at once."""

    def close(self) -> None:
        """Stop, and let go of what the speaker holds (processes, threads)."""


def open_speaker(sound: SoundConfig, *, name: str | None = None, log: Callable[[str], None] | None = None,
                 **options: Any) -> Speaker:
    """The speaker ``name`` (default: ``sound.speaker``) for this config; ``options`` go to
    its constructor (the WAV speaker's directory)."""
    return SPEAKERS.load(name or sound.speaker)(sound, log=log or (lambda line: None), **options)
