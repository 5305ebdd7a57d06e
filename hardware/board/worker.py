"""The verifier's process: checks one tower at a time, reading the record itself.

Replaying sessions is the board's heaviest work, so it runs in a child process of its own
(another core than the messages and the page). The child is a plain ``python -m
hardware.board.worker DB`` owned by :class:`Verifier`: jobs go down its stdin and answers come
up its stdout (pickled; parent and child are the same program), it ignores SIGINT (Ctrl-C
reaches the whole process group: the parent stops it), and it exits when its stdin closes, so
it never outlives the board: :meth:`Verifier.close` closes it, then terminates and kills it if
it does not go. No ``multiprocessing`` machinery, hence no resource-tracker process either.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from hardware.board.record import Reader, RecordEntries
from hardware.board.stats import Stats
from hardware.board.verdict import Checked, check_tower

#: A job's ``error`` when the board stopped before the verifier answered (not a failure).
STOPPING = "the board is stopping"
#: How long :meth:`Verifier.close` waits for the child at each step (close stdin, SIGTERM).
STOP_WAIT_S = 2.0


@dataclass(frozen=True)
class Job:
    """Check the tower ``tower_id`` up to ``head`` (the path as of ``path_version``), going on
    from the verifier's state the record holds for it (the board keeps none in memory)."""

    tower_id: int
    key: str
    path_version: int
    head: int


@dataclass(frozen=True)
class Done:
    """A job's answer: the verifier's, the statistics of each settled session's verified
    rolls (plain form, :class:`hardware.board.stats.Stats`), or why there is none."""

    job: Job
    checked: Checked | None
    tallies: dict[str, dict[str, Any]] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0


def run_job(reader: Reader, job: Job) -> Done:
    """One check (in the child, or in the caller for tests)."""
    start = time.perf_counter()
    try:
        checked = check_tower(RecordEntries(reader, job.tower_id), reader.verifier_state(job.tower_id), job.head)
        verified = set(checked.verified)
        tallies = {}
        for s in checked.settled:
            stats = Stats()
            for entry in reader.session_rolls(job.tower_id, s.first, s.last, s.session):
                if entry["seq"] in verified:
                    stats.add(entry)
            tallies[s.session] = stats.to_plain()
    except Exception as exc:
        return Done(job, None, error=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - start)
    return Done(job, checked, tallies, seconds=time.perf_counter() - start)


class Verifier:
    """Runs :class:`Job` s one at a time in the child process and hands each :class:`Done`
    to ``deliver`` (from its own thread). A child that dies is started again; its job comes
    back with an ``error``."""

    def __init__(self, db_path: str | Path, deliver: Callable[[Done], None], *,
                 log: Callable[[str], None] | None = None) -> None:
        self.db_path = str(db_path)
        self.deliver = deliver
        self._log = log or (lambda message: None)
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._child: subprocess.Popen[bytes] | None = None
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name="board-verifier", daemon=True)
        self.started = 0

    @property
    def pid(self) -> int | None:
        return self._child.pid if self._child is not None and self._child.poll() is None else None

    def start(self) -> Verifier:
        self._spawn()
        self._thread.start()
        return self

    def submit(self, job: Job) -> None:
        self._jobs.put(job)

    def close(self) -> None:
        self._closing.set()
        self._jobs.put(None)
        self._stop_child()
        if self._thread.is_alive():
            self._thread.join(STOP_WAIT_S * 3)

    def _spawn(self) -> None:
        self._child = subprocess.Popen([sys.executable, "-m", "hardware.board.worker", self.db_path],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       cwd=Path(__file__).resolve().parents[2])
        self.started += 1

    def _stop_child(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        with contextlib.suppress(OSError):
            if child.stdin is not None:
                child.stdin.close()
        for stop in (None, child.terminate, child.kill):
            if stop is not None:
                with contextlib.suppress(OSError):
                    stop()
            try:
                child.wait(STOP_WAIT_S)
                break
            except subprocess.TimeoutExpired:
                continue
        if child.stdout is not None:
            child.stdout.close()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None or self._closing.is_set():
                return
            self.deliver(self._ask(job))

    def _ask(self, job: Job) -> Done:
        child = self._child
        try:
            if child is None or child.poll() is not None or child.stdin is None or child.stdout is None:
                raise EOFError("not running")
            pickle.dump(job, child.stdin)
            child.stdin.flush()
            done = pickle.load(child.stdout)
        except Exception as exc:
            if self._closing.is_set():
                return Done(job, None, error=STOPPING)
            self._log(f"board: the verifier process stopped ({exc or type(exc).__name__}); starting it again")
            self._stop_child()
            self._spawn()
            return Done(job, None, error=f"the verifier process stopped: {exc or type(exc).__name__}")
        return done if isinstance(done, Done) else Done(job, None, error="the verifier process answered nonsense")


def _serve(db_path: str, jobs: BinaryIO, answers: BinaryIO) -> int:
    reader = Reader(db_path)
    try:
        while True:
            try:
                job = pickle.load(jobs)
            except EOFError:
                return 0
            pickle.dump(run_job(reader, job), answers)
            answers.flush()
    except BrokenPipeError:
        return 0
    finally:
        reader.close()


def main(db_path: str) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the board stops this
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print goes to stderr, never into the answers
    return _serve(db_path, sys.stdin.buffer, answers)


if __name__ == "__main__":
    from hardware.board import worker  # the classes under their importable name (pickled back)

    sys.exit(worker.main(sys.argv[1]))
