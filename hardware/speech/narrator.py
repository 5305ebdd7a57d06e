"""When the tower speaks: after each step of the panel, and when the buttons have been still.

- A screen said at once (a result, a group roll's turn, the hidden hand's prompt, a message
  such as "cannot record") is said as it comes up: the roll's entry is already in the log
  and the frame already drawn (the tower calls :meth:`Narrator.stepped` after both).
- The setup page and the settings menu are said once the buttons have been still for
  ``[sound] still_seconds`` (a press, release, hold or turn starts the wait again), and at
  start-up.
- A press, hold or turn cuts short whatever is being said (that is how a long result is
  skipped). A held FIELD says the screen again, in full (the whole setup page, every line of
  a result): the panel puts back what its press moved, so what is said is what is shown.
  Nothing is said while the settings' speech switch is off; turning it off cuts speech short.

The sentences are :mod:`engine.speech.words`'; the speaker says them without the loop
waiting (:class:`hardware.speech.Speaker`). docs/speech.md.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.panel.model import Button, Event, EventKind
from engine.panel.state import PanelState
from engine.speech import Tables
from engine.speech import words as said
from hardware.speech import Speaker

#: Events that cut speech short: someone is pressing.
CUTTING = frozenset({EventKind.PRESS, EventKind.HOLD, EventKind.TURN})
#: Events after which the buttons are not still (the wait for the setup page starts again).
MOVING = CUTTING | {EventKind.RELEASE}
#: The button whose hold says the screen again, in full (docs/speech.md, docs/panel.md).
REPEAT = Button.FIELD


class Narrator:
    """Speech for one tower. ``log`` hears, once per change, why nothing can be heard."""

    def __init__(self, speaker: Speaker, tables: Tables, *, still_ns: int, now: int, speaking: bool,
                 log: Callable[[str], None] | None = None) -> None:
        self.speaker = speaker
        self.tables = tables  # the phrase tables, each screen's made when it is first said
        self.still_ns = still_ns
        self.log = log or (lambda line: None)
        self._due: int | None = now + still_ns if speaking else None  # the first page, at start-up
        self._told = ""  # the problem last logged
        self._repeating = False  # REPEAT is held: its release does not start the wait for a page
        self.spoken = 0  # sentences handed to the speaker

    def stepped(self, event: Event, before: PanelState, after: PanelState, now: int, *,
                unrecorded: bool = False) -> None:
        """After a step (its roll logged, its frame drawn): say what came up, or cut short."""
        if not after.settings.speech:
            if before.settings.speech:
                self.speaker.stop()
            self._due = None
            return
        if event.kind in CUTTING:
            self.speaker.stop()
        if event.kind is EventKind.HOLD and event.button is REPEAT and before.swallow is not REPEAT:
            # (a hold of a press that was used up, a finger or the press that woke the panel,
            # is nothing more, as on the panel)
            # the screen again, whole; the page it shows is not said again when REPEAT is let go
            self._repeating, self._due = True, None
            self._say(self._marked(said.utterance(after, said.table_of(after, self.tables), full=True), unrecorded))
            return
        if event.kind is EventKind.RELEASE and event.button is REPEAT and self._repeating:
            self._repeating = False
            return
        if event.kind in MOVING:
            self._due = now + self.still_ns
        moment = said.moment(after)
        if moment is not None and moment != said.moment(before):
            self._say(self._marked(said.utterance(after, said.table_of(after, self.tables)), unrecorded))

    def _marked(self, text: str | None, unrecorded: bool) -> str | None:
        return self.tables.of(()).say("unrecorded", said=text) if text and unrecorded else text

    def poll(self, state: PanelState, now: int) -> None:
        """Say the setup page or the menu once the buttons have been still long enough."""
        if self._due is None or now < self._due:
            return
        self._due = None
        if state.settings.speech and state.mode in said.WHEN_STILL:
            self._say(said.utterance(state, said.table_of(state, self.tables)))

    def deadline(self) -> int | None:
        return self._due

    def heard(self, state: PanelState) -> str:
        """Why speech cannot be heard, logged once per change while the switch is on."""
        problem = self.speaker.problem
        if state.settings.speech and problem != self._told:
            self._told = problem
            self.log(f"speech: {problem}; going on without it" if problem else "speech: can be heard again")
        return problem

    def close(self) -> None:
        self.speaker.close()

    def _say(self, text: str | None) -> None:
        if text:
            self.speaker.say(text)
            self.spoken += 1
