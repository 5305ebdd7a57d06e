"""Speech's figures: from a ROLL press and its logged entry to the start of its audio, and
whether speech ever delays a frame.

- Latency: the tower on mock pins and luma's dummy device, a real roll log and session dice
  (the session's table seed set first, as a table would, so every ROLL rolls), speech on, and
  the real espeak-ng speaker (its thread, its process), except that espeak-ng writes its WAV
  stream to a pipe (``--stdout``) instead of the sound card, so the first audio byte (the
  first after the 44-byte header) can be timed. For each of ``--rolls`` ROLL presses: the
  press -> the entry's append returning (written and flushed) -> the sentence handed to the
  speaker -> espeak-ng started -> its first audio byte. Every time is read from one clock,
  ``time.monotonic_ns`` (the loop's, the speaker thread's and the reader thread's alike), and
  each figure is taken from the marks of its own roll only: a mark before its roll's press
  (a sentence of another screen) is an error, so no figure can come out negative. Baseline in
  the same run: ``espeak-ng --stdout`` started straight from the bench with each roll's own
  sentence (cold start to first audio byte), the least speech can cost.
- Frames: bench/bench_panel.py's press-to-frame latency (a MockFactory edge to the new frame,
  one pass of the loop; and the appliance loop in its thread on the real clock), with speech
  off and on (espeak-ng really synthesising every result, to a pipe), interleaved. Speech runs
  after the frame is drawn, and its process starts on another thread: the two should match.

    .venv/bin/python bench/bench_speech.py [--rolls 40] [--presses 1200]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_panel import PRESS_CYCLE, latency_loop, latency_pump, percentile  # noqa: E402

CONFIG = ('[gpio]\nfactory = "mock"\n[display]\nkind = "dummy"\n[panel]\nanimation_seconds = 0\n'
          'systems = ["infinity"]\n[kiosk]\nstate_dir = "none"\n')
SPEAK = CONFIG + "[sound]\nspeak = true\n"
WAV_HEADER = 44
#: The one clock every mark is read from (monotonic: never set back, the same in every thread).
clock_ns = time.monotonic_ns
#: The most a roll waits for its first audio byte.
AUDIO_WAIT_S = 10


def _stdout_speaker(sound, marks: dict[str, list[int]], first_audio: threading.Event):
    """The real espeak-ng speaker, writing to a pipe read by a thread that notes the first
    audio byte's time (and discards the rest, as a sound card would take it)."""
    from hardware.speech import espeak

    class StdoutSpeaker(espeak.EspeakSpeaker):
        def say(self, text: str) -> None:
            marks["said"].append(clock_ns())
            marks.setdefault("texts", []).append(text)  # type: ignore[arg-type]
            super().say(text)

        def _start(self, text: str) -> None:
            marks["started"].append(clock_ns())
            process = subprocess.Popen(espeak.command(text, self.sound, self.voice, program=self.program or "espeak-ng",
                                                      stdout=True),
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       start_new_session=True)
            self._process = process
            self.started += 1
            threading.Thread(target=_drain, args=(process, marks, first_audio), daemon=True).start()

    return StdoutSpeaker(sound)


def _drain(process: subprocess.Popen, marks: dict[str, list[int]], first_audio: threading.Event) -> None:
    got = 0
    stream = process.stdout
    while True:
        chunk = stream.read1(65536)
        if not chunk:
            return
        if got <= WAV_HEADER < got + len(chunk):
            marks["audio"].append(clock_ns())
            first_audio.set()
        got += len(chunk)


def roll_to_audio(rolls: int) -> tuple[dict[str, list[float]], list[str]]:
    """Milliseconds, per roll, from its press to its entry logged, and from the entry logged
    to: the sentence handed over, espeak-ng started, its first audio byte; and the press to
    the first audio byte. Also each roll's sentence (for the baseline)."""
    from engine.panel.model import Button
    from hardware.config.reader import loads
    from hardware.entropy import open_dice
    from hardware.files.rolllog import RollLog
    from hardware.panel.io import open_pin_factory
    from hardware.tower import assemble

    marks: dict[str, list[int]] = {"logged": [], "said": [], "started": [], "audio": []}
    first_audio = threading.Event()

    class TimedLog(RollLog):
        def append(self, kind, **fields):
            entry = super().append(kind, **fields)
            if kind == "roll":
                marks["logged"].append(clock_ns())
            return entry

    config = loads(SPEAK)
    out: dict[str, list[float]] = {"logged": [], "said": [], "started": [], "audio": [], "press to audio": []}
    texts: list[str] = []
    with tempfile.TemporaryDirectory() as state:
        log = TimedLog(Path(state) / "rolls.jsonl")
        factory = open_pin_factory("mock")
        speaker = _stdout_speaker(config.sound, marks, first_audio)
        dice = open_dice(seed=b"bench speech", log=log)
        dice.set_table_seed("31425512")  # as a table would: every ROLL below rolls
        tower = assemble(config, pin_factory=factory, dice=dice, roll_log=log, state_dir=state, speaker=speaker)
        pin = factory.pin(config.buttons.pin(Button.ROLL))
        try:
            # the session's first ROLL shows its commitment (the question page, its code set):
            # the table photographs it; its sentence is heard out before the timed rolls begin
            first_audio.clear()
            pin.drive_low()
            tower.pump()
            first_audio.wait(AUDIO_WAIT_S)
            pin.drive_high()
            time.sleep(0.03)
            tower.pump()
            time.sleep(0.5)
            for n in range(rolls):
                for kept in marks.values():
                    kept.clear()
                first_audio.clear()
                pressed = clock_ns()
                pin.drive_low()
                tower.pump()
                if not first_audio.wait(AUDIO_WAIT_S):
                    raise SystemExit(f"roll {n + 1}: no audio from espeak-ng within {AUDIO_WAIT_S} s")
                _take(n, pressed, marks, out)
                texts.append(marks["texts"][-1])  # type: ignore[arg-type]
                pin.drive_high()
                time.sleep(0.03)
                tower.pump()
                time.sleep(0.3)  # let the sentence go on a while, as at a table, before the next press
        finally:
            tower.close()
    return out, texts


def _take(n: int, pressed: int, marks: dict[str, list[int]], out: dict[str, list[float]]) -> None:
    """This roll's figures, from its own marks: one entry logged after the press, one sentence
    handed over after it, its process and its first audio byte after that."""
    if len(marks["logged"]) != 1 or not marks["said"]:
        raise SystemExit(f"roll {n + 1}: expected one roll logged and its sentence, got {len(marks['logged'])} "
                         f"entries and {len(marks['said'])} sentences (a screen other than the result?)")
    logged = marks["logged"][0]
    said, started, audio = marks["said"][-1], marks["started"][-1], marks["audio"][-1]
    if not pressed <= logged <= said <= started <= audio:
        raise SystemExit(f"roll {n + 1}: marks out of order (press {pressed}, logged {logged}, said {said}, "
                         f"started {started}, audio {audio}): measuring the wrong thing")
    out["logged"].append((logged - pressed) / 1e6)
    out["said"].append((said - logged) / 1e6)
    out["started"].append((started - logged) / 1e6)
    out["audio"].append((audio - logged) / 1e6)
    out["press to audio"].append((audio - pressed) / 1e6)


def baseline(texts: list[str]) -> list[float]:
    """espeak-ng --stdout started straight from here with each sentence: start to its first
    audio byte, ms."""
    from hardware.config.schema import SoundConfig
    from hardware.speech import espeak

    out = []
    for text in texts:
        args = espeak.command(text, SoundConfig(), "en", program=espeak.find_program() or "espeak-ng", stdout=True)
        start = clock_ns()
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        got = b""
        while len(got) <= WAV_HEADER:
            chunk = process.stdout.read1(65536)
            if not chunk:
                break
            got += chunk
        out.append((clock_ns() - start) / 1e6)
        process.stdout.read()
        process.wait()
        time.sleep(0.05)
    return out


def make_tower_with(text: str, speaking: bool):
    """bench_panel's tower, with or without speech (espeak-ng synthesising to a pipe)."""

    def make(clock=None):
        from engine.rng import DrbgDice
        from hardware.cli.sim import SimClock
        from hardware.config.reader import loads
        from hardware.panel.io import open_pin_factory
        from hardware.tower import assemble

        config = loads(text)
        clock = clock if clock is not None else SimClock()
        factory = open_pin_factory("mock")
        speaker = None
        if speaking:
            speaker = _stdout_speaker(config.sound, {"said": [], "started": [], "audio": []}, threading.Event())
        tower = assemble(config, pin_factory=factory,
                      dice=DrbgDice.from_seed(b"bench"), clock=clock, speaker=speaker)
        return tower, factory, clock

    return make


def _row(name: str, values: list[float]) -> str:
    return (f"  {name:<38}{percentile(values, 50):>9.2f}{percentile(values, 90):>9.2f}"
            f"{percentile(values, 99):>9.2f}{max(values):>9.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=40)
    parser.add_argument("--presses", type=int, default=1200)
    args = parser.parse_args(argv)

    print(f"ROLL press -> speech, ms ({args.rolls} rolls; espeak-ng to a pipe)          p50      p90      p99      max")
    got, texts = roll_to_audio(args.rolls)
    base = baseline(texts)
    print(_row("press -> entry logged", got["logged"]))
    print(_row("logged -> sentence handed over", got["said"]))
    print(_row("logged -> espeak-ng started", got["started"]))
    print(_row("logged -> first audio byte", got["audio"]))
    print(_row("press -> first audio byte", got["press to audio"]))
    print(_row("baseline: espeak-ng alone to 1st byte", base))
    ratio = statistics.median(got["audio"]) / statistics.median(base)
    print(f"  logged-to-audio / espeak-ng alone (medians)  {ratio:.2f}x")
    ratio = statistics.median(got["press to audio"]) / statistics.median(base)
    print(f"  press-to-audio / espeak-ng alone (medians)   {ratio:.2f}x")
    print(f"  (sentences {min(map(len, texts))} to {max(map(len, texts))} characters, each said by both)")

    print(f"\npress-to-frame, ms ({args.presses} presses of {', '.join(str(b) for b in PRESS_CYCLE)}; "
          "speech off vs on, interleaved)")
    print(f"  {'':<10}{'pump p50':>10}{'pump p99':>10}{'loop p50':>10}{'loop p99':>10}")
    rounds = 3
    results: dict[bool, dict[str, list[float]]] = {False: {"pump": [], "loop": []}, True: {"pump": [], "loop": []}}
    for _ in range(rounds):
        for speaking in (False, True):
            make = make_tower_with(SPEAK if speaking else CONFIG, speaking)
            pump = latency_pump(args.presses // rounds, make=make)
            loop = latency_loop(min(args.presses, 600) // rounds, make=make)
            results[speaking]["pump"] += [v for vs in pump.values() for v in vs]
            results[speaking]["loop"] += [v for vs in loop.values() for v in vs]
    for speaking in (False, True):
        r = results[speaking]
        print(f"  {'speech ' + ('on' if speaking else 'off'):<10}{percentile(r['pump'], 50):>10.3f}"
              f"{percentile(r['pump'], 99):>10.3f}{percentile(r['loop'], 50):>10.3f}{percentile(r['loop'], 99):>10.3f}")
    on, off = results[True], results[False]
    print(f"  on / off (p50): pump {percentile(on['pump'], 50) / percentile(off['pump'], 50):.2f}x, "
          f"loop {percentile(on['loop'], 50) / percentile(off['loop'], 50):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
