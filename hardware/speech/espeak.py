"""eSpeak NG, driven as a process: one ``espeak-ng`` per sentence, never waited on by the loop.

A process, not a binding: nothing to import at start-up (a Pi Zero pays ~10x a laptop's
import time), Debian and Raspberry Pi OS package the program (deploy/install.sh installs
it), and a press cuts a sentence short by killing it. :class:`EspeakSpeaker` plays on the
sound card (ALSA; ``[sound] device`` picks one, ``espeak-ng -d``), from a thread of its own,
so even starting the process costs the panel's loop nothing. :class:`WavSpeaker` writes
each sentence to a WAV file instead (``espeak-ng -w``), for the simulator's ``--out``.
docs/speech.md.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from hardware.config.schema import SoundConfig

PROGRAM = "espeak-ng"
#: Where Linux lists its sound cards (ALSA); "--- no soundcards ---" when there are none.
CARDS = Path("/proc/asound/cards")
#: What a speaker's ``problem`` says when the program is not installed.
NO_PROGRAM = "no espeak-ng (sudo apt install espeak-ng; as root without sudo: apt install espeak-ng)"
NO_CARD = "no sound card (aplay -l lists none; docs/speech.md)"
#: The most of a failed process's error output kept for the problem line.
ERROR_MOST = 200
#: How long closing waits for a process that was told to stop.
STOP_WAIT_S = 2.0
#: WAV files written at once at most (a long simulator script says hundreds of sentences).
WRITING_MOST = 4
#: The longest a sentence may take: espeak-ng says 10 to 20 characters a second on a sound
#: card, and writes a WAV many times faster than that; one that has not ended by then hangs
#: (a broken install, a device that blocks) and is killed, said once, and the run goes on.
BASE_WAIT_S = 3.0
PLAYING_CHARACTERS_PER_SECOND = 5.0  # a third of the slowest speech: room for pauses
WRITING_CHARACTERS_PER_SECOND = 20.0  # a WAV: no playing, but a Pi Zero is slow


def bound(text: str, *, playing: bool = False) -> float:
    """Seconds a sentence of ``text`` may take before its espeak-ng counts as hung."""
    rate = PLAYING_CHARACTERS_PER_SECOND if playing else WRITING_CHARACTERS_PER_SECOND
    return BASE_WAIT_S + len(text) / rate


def hung(seconds: float) -> str:
    return f"espeak-ng: no end after {seconds:.0f} s (killed)"


def command(text: str, sound: SoundConfig, voice: str, *, program: str = PROGRAM, wav: Path | None = None,
            stdout: bool = False) -> list[str]:
    """The ``espeak-ng`` command line that says ``text``: to the sound card, into ``wav``, or
    (``stdout``) as a WAV stream on standard output (the latency bench reads it)."""
    args = [program, "-v", sound.voice or voice, "-s", str(sound.rate), "-a", str(sound.volume)]
    if wav is not None:
        args += ["-w", str(wav)]
    elif stdout:
        args.append("--stdout")
    elif sound.device:
        args += ["-d", sound.device]
    return [*args, "--", text]  # "--": a sentence is never taken for an option


def find_program() -> str | None:
    return shutil.which(PROGRAM)


def card_problem(cards: Path = CARDS) -> str:
    """Why there is no sound card to play on ("" when ALSA lists one)."""
    try:
        text = cards.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return NO_CARD
    return "" if text.strip() and "no soundcards" not in text else NO_CARD


def failure(returncode: int | None, errors: bytes) -> str:
    """Why a finished espeak-ng said nothing ("" when it played): a non-zero status, or error
    lines (espeak-ng exits 0 when ALSA cannot open the card: ALSA's own reason is kept)."""
    lines = [line.strip() for line in errors.decode("utf-8", "replace").splitlines() if line.strip()]
    alsa = [line.split(") ", 1)[-1] for line in lines if line.startswith("ALSA lib")]
    if returncode in (0, None) and not alsa and not any("error" in line.lower() for line in lines):
        return ""
    why = lines[-1] if lines else f"exit status {returncode}"
    if alsa and alsa[-1] != why:
        why = f"ALSA {alsa[-1]} ({why})"
    return f"espeak-ng: {why}"[:ERROR_MOST]


class EspeakSpeaker:
    """Plays each sentence on the sound card through ``espeak-ng``.

    :meth:`say` and :meth:`stop` only leave a note for the speaker's thread (started at the
    first sentence), which kills the sentence still being said and starts the next; so the
    panel's loop never waits for a fork or an exit. ``problem`` says why nothing is heard:
    no program, no card (both known at once), or the last sentence's error."""

    def __init__(self, sound: SoundConfig, *, log: Callable[[str], None] | None = None,
                 program: str | None = None, cards: Path = CARDS) -> None:
        from engine.speech import voice

        self.sound = sound
        self.voice = voice(sound.language)
        self.program = program if program is not None else find_program()
        # known before the first sentence; a sentence that plays (a card plugged in later)
        # or fails says again
        self._problem = NO_PROGRAM if self.program is None else card_problem(cards)
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._wanted: str | None = None  # the next sentence ("" = stop)
        self._closed = False
        self._thread: threading.Thread | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._started_at = 0.0  # monotonic time the sentence playing started
        self._deadline = 0.0  # and the time it must have ended by
        self._clock = time.monotonic
        self.started = 0  # processes started, and those that came to their end (tests, the bench)
        self.ended = 0

    @property
    def problem(self) -> str:
        return self._problem

    def say(self, text: str) -> None:
        if self.program is None or not text.strip():
            return
        self._ask(text)

    def stop(self) -> None:
        if self._thread is not None:
            self._ask("")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._wanted = ""
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(STOP_WAIT_S + 1)

    def _ask(self, text: str) -> None:
        with self._lock:
            if self._closed:
                return
            self._wanted = text
            self._wake.notify()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="espeak-ng", daemon=True)
                self._thread.start()

    # --- the speaker's thread ------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            overdue = False
            with self._lock:
                while self._wanted is None and not self._closed:
                    # with a sentence playing, look in now and then to hear how it ended
                    self._wake.wait(0.2 if self._process is not None else None)
                    if self._process is not None and self._process.poll() is not None:
                        break
                    if self._process is not None and self._clock() > self._deadline:
                        overdue = True  # hung: killed below, and said once
                        break
                wanted, self._wanted, closed = self._wanted, None, self._closed
            self._finish(kill=wanted is not None or overdue)
            if overdue:
                self._problem = hung(self._deadline - self._started_at)
            if closed:
                return
            if wanted:
                self._start(wanted)

    def _start(self, text: str) -> None:
        try:
            self._process = subprocess.Popen(
                command(text, self.sound, self.voice, program=self.program or PROGRAM), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, start_new_session=True)
            self.started += 1
            self._started_at = self._clock()
            self._deadline = self._started_at + bound(text, playing=True)
        except OSError as exc:
            self._problem = f"espeak-ng: {exc.strerror or exc}"

    def _finish(self, *, kill: bool) -> None:
        """The sentence playing: killed (``kill``) or finished; its error output read."""
        process = self._process
        if process is None or (not kill and process.poll() is None):
            return
        self._process = None
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # its session: espeak-ng and anything it started
        try:
            process.wait(STOP_WAIT_S)
            errors = process.stderr.read() if process.stderr is not None else b""
        except subprocess.TimeoutExpired:
            errors = b""
        finally:
            if process.stderr is not None:
                process.stderr.close()
        if process.returncode is not None and process.returncode < 0:
            return  # cut short: says nothing about the card
        self.ended += 1
        self._problem = failure(process.returncode, errors)


class WavSpeaker:
    """Writes each sentence into a WAV file (``espeak-ng -w``) instead of playing it.

    Files go into ``directory`` as ``STEM.wav`` (``STEM-2.wav``, ... for more under the same
    stem): the simulator sets :attr:`stem` to the frame each sentence goes with. Writing
    starts a process and returns; :meth:`close` waits for every file. A file is written
    whole: a press does not cut it.

    A broken espeak-ng never stops the run: a sentence that fails (an exit status, an error)
    or does not end within :func:`bound` seconds is :attr:`problem` from then on, the
    processes still writing are killed, and the sentences after it are listed without a file
    (no further wait). :meth:`close` returns the files that were not written."""

    def __init__(self, sound: SoundConfig, *, log: Callable[[str], None] | None = None,
                 directory: Path | None = None, program: str | None = None) -> None:
        from engine.speech import voice

        self.sound = sound
        self.voice = voice(sound.language)
        self.directory = Path(directory) if directory is not None else None
        self.program = program if program is not None else find_program()
        self._problem = NO_PROGRAM if self.program is None else ""
        self.stem = "said"
        self._counts: dict[str, int] = {}
        self.written: list[Path | None] = []  # each sentence's file (None: not written)
        self._writing: list[tuple[subprocess.Popen[bytes], Path, float, float]] = []  # (.., deadline, bound)
        self._failed: list[Path] = []
        self._clock = time.monotonic

    @property
    def problem(self) -> str:
        return self._problem

    @property
    def broken(self) -> bool:
        """espeak-ng failed or hung: the sentences from now on get no file."""
        return self.program is None or bool(self._problem)

    def say(self, text: str) -> None:
        if not text.strip():
            return
        path = None
        if not self.broken and self.directory is not None:
            count = self._counts[self.stem] = self._counts.get(self.stem, 0) + 1
            path = self.directory / (f"{self.stem}.wav" if count == 1 else f"{self.stem}-{count}.wav")
            while len(self._writing) >= WRITING_MOST and not self.broken:
                self._wait(*self._writing.pop(0))
            if self.broken:
                path = None
            else:
                self._start(text, path)
        self.written.append(path)

    def _start(self, text: str, path: Path) -> None:
        try:
            process = subprocess.Popen(command(text, self.sound, self.voice, program=self.program or PROGRAM, wav=path),
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       start_new_session=True)
        except OSError as exc:
            self._problem = f"espeak-ng: {exc.strerror or exc}"
            self._failed.append(path)
            return
        seconds = bound(text)
        self._writing.append((process, path, self._clock() + seconds, seconds))

    def stop(self) -> None:
        pass

    def take(self) -> list[Path | None]:
        """The files of the sentences said since the last take, in order."""
        taken, self.written = self.written, []
        return taken

    def close(self) -> list[Path]:
        """Wait for every file (each at most its bound; none once espeak-ng is broken): the
        files that were not written."""
        while self._writing:
            self._wait(*self._writing.pop(0))
        failed, self._failed = self._failed, []
        return failed

    def _wait(self, process: subprocess.Popen[bytes], path: Path, deadline: float, seconds: float) -> None:
        if self.broken:  # one failure is enough to know: the rest are not waited for
            self._kill(process)
            self._failed.append(path)
            return
        try:
            _, errors = process.communicate(timeout=max(0.0, deadline - self._clock()))
        except subprocess.TimeoutExpired:
            self._kill(process)
            self._problem = hung(seconds)
            self._failed.append(path)
            return
        why = failure(process.returncode, errors)
        if why:
            self._problem = why
            self._failed.append(path)
            path.unlink(missing_ok=True)  # a half-written file is no file

    @staticmethod
    def _kill(process: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.communicate(timeout=STOP_WAIT_S)
