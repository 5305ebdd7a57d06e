"""The board's own state, as the page, ``/api/board`` and the journal say it.

``live`` means what a store owner reads it as: the board is connected, it receives messages,
it can write its record and its verifier answers. Anything else is a state of its own, worst
first:

- ``failing``: the record cannot be written (a full disk, a read-only or damaged file, an
  I/O error). Nothing is verified meanwhile; what arrives waits in memory and is written
  when the record can be written again, and the towers are asked for whatever was dropped.
- ``stalled``: the verifier has not answered a check for :data:`VERIFY_STALL_S`, or its
  checks keep failing, or the record's writer has not finished a batch for
  :data:`WRITER_STALL_S` while messages wait: entries are kept but not verified.
- ``reconnecting``: no broker connection.
- ``stale``: towers say they are online, yet nothing at all came for ``stale_s``.

:class:`Health` is told by the parts (the subscriber's :class:`Link`, the writer's record
failures and successes, the verifier's jobs) and computes the state on demand;
:meth:`Health.transition` gives the one journal line for each change.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

#: The verifier not answering a check for this long is "stalled" (a big session replays in a
#: few seconds on a Pi; a minute is far beyond any honest check).
VERIFY_STALL_S = 60.0
#: Checks failing this many times in a row (the verifier process dying, the record unreadable)
#: is "stalled" too.
CHECK_FAILURES = 3
#: The writer not finishing a batch for this long while messages wait is "stalled".
WRITER_STALL_S = 30.0
#: The waits between attempts to write a record that failed: doubling from the first to the most.
RETRY_FIRST_S = 0.5
RETRY_MOST_S = 4.0

STATES = ("live", "reconnecting", "stale", "stalled", "failing")


@dataclass
class Link:
    """The broker connection as the subscriber reports it, and when the last message came."""

    connected: bool = False
    changed_at: float = 0.0
    last_message: float = 0.0
    restarts: int = 0
    note: str = ""


@dataclass(frozen=True)
class Trouble:
    """The record cannot be written: why (``reason``, ``detail``), since when, how many tries."""

    reason: str
    detail: str
    since: float
    tries: int = 1


class Health:
    """What the board's parts report about themselves (thread-safe: the writer, the
    verifier's thread, the subscriber and the web side all use it)."""

    def __init__(self, *, stale_s: float, verify_stall_s: float = VERIFY_STALL_S,
                 writer_stall_s: float = WRITER_STALL_S) -> None:
        self.stale_s = stale_s
        self.verify_stall_s = verify_stall_s
        self.writer_stall_s = writer_stall_s
        self.link = Link()
        self.trouble: Trouble | None = None
        self._lock = threading.Lock()
        self._asked: dict[int, tuple[str, float]] = {}  # tower id -> (key, when its check was handed over)
        self._failures = 0
        self._last_error = ""
        self._beat = time.monotonic()  # the writer finished a batch
        self._said: dict[str, Any] = {"state": "live"}

    # --- what the parts report -----------------------------------------------------------------------

    def record_failed(self, reason: str, detail: str) -> Trouble:
        """A batch could not be written; the trouble as it stands now."""
        with self._lock:
            before = self.trouble
            tries = before.tries + 1 if before is not None else 1
            since = before.since if before is not None else time.monotonic()
            self.trouble = Trouble(reason, detail, since, tries)
            return self.trouble

    def record_written(self) -> Trouble | None:
        """A batch was written; the trouble that is over now, if there was one."""
        with self._lock:
            self._beat = time.monotonic()
            over, self.trouble = self.trouble, None
            return over

    def retry_wait(self) -> float:
        tries = self.trouble.tries if self.trouble is not None else 1
        return min(RETRY_MOST_S, RETRY_FIRST_S * 2.0 ** min(tries - 1, 8))

    def beat(self) -> None:
        """The writer is alive (it took what waited, or found nothing to take)."""
        with self._lock:
            self._beat = time.monotonic()

    def asked(self, tower_id: int, key: str) -> None:
        with self._lock:
            self._asked.setdefault(tower_id, (key, time.monotonic()))

    def answered(self, tower_id: int, error: str | None) -> None:
        with self._lock:
            self._asked.pop(tower_id, None)
            if error is None:
                self._failures, self._last_error = 0, ""
            else:
                self._failures += 1
                self._last_error = error

    def forget(self, tower_id: int) -> None:
        with self._lock:
            self._asked.pop(tower_id, None)

    # --- the state -----------------------------------------------------------------------------------------

    def state(self, *, towers_online: bool, backlog: bool) -> dict[str, Any]:
        """``{"state", "detail", "restarts"}``; ``backlog``: messages wait for the writer."""
        now = time.monotonic()
        link = self.link
        with self._lock:
            trouble = self.trouble
            asked = min(self._asked.values(), key=lambda a: a[1]) if self._asked else None
            failures, last_error, beat = self._failures, self._last_error, self._beat
        quiet = now - max(link.last_message, link.changed_at)
        if trouble is not None:
            state = "failing"
            detail = (f"cannot write its record: {trouble.reason}, for {int(now - trouble.since)} s; nothing is "
                      f"verified meanwhile, what arrives waits ({trouble.detail})")
        elif asked is not None and now - asked[1] > self.verify_stall_s:
            state = "stalled"
            detail = f"the verifier has not answered for {int(now - asked[1])} s (checking {asked[0]})"
        elif failures >= CHECK_FAILURES:
            state, detail = "stalled", f"the verifier's last {failures} checks failed ({last_error[:160]})"
        elif backlog and now - beat > self.writer_stall_s:
            state, detail = "stalled", f"the record's writer has taken no message for {int(now - beat)} s"
        elif not link.connected:
            state, detail = "reconnecting", link.note or "the broker cannot be reached"
        elif quiet > self.stale_s and towers_online:
            state, detail = "stale", f"no message for {int(quiet)} s, though towers say they are online"
        else:
            state, detail = "live", ""
        return {"state": state, "detail": detail, "restarts": link.restarts}

    def transition(self, state: dict[str, Any]) -> str | None:
        """The journal's line if ``state`` is another state than the last one said (the
        seconds in a detail changing is no change), else None."""
        with self._lock:
            before = self._said
            if state["state"] == before["state"]:
                return None
            self._said = state
        if state["state"] == "live":
            return f"board: live again (was {before['state']})"
        if state["state"] == "reconnecting":
            return None  # the subscriber says why, in its own words
        return f"board: {state['state']}: {state['detail']}; the page and /api/board say so"
