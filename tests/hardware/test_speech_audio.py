"""Speech as real audio: every sentence of every phrase table (tests/engine/speech/corpus.py:
every template, every system, real values) rendered by the real espeak-ng into a WAV and
measured by sox (its length fits its text, it is not silence); the espeak-ng speaker's
process (started off the loop, cut short by a press, its failures read); and ``dicetower sim
--out`` writing a WAV per sentence next to its frame. ``./run-tests`` installs espeak-ng and
sox (.ci/apt-packages.txt)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.speech import LANGUAGES
from hardware.cli import main
from hardware.config.schema import SoundConfig
from hardware.speech import espeak, open_speaker
from hardware.speech.espeak import EspeakSpeaker, WavSpeaker
from tests.engine.speech.corpus import sentences
from tests.support import require_command

#: Characters a second eSpeak NG says at its default rate, with room either way (measured: 6.6
#: to 16 in the two tables; commas pause, digits and spelled letters are slow).
SLOWEST, FASTEST = 4.0, 30.0
#: Quieter than this throughout is silence (espeak-ng's speech has an RMS of 0.06 to 0.1).
MIN_RMS, MIN_PEAK = 0.02, 0.2
SPEAKING = SoundConfig(speak=True)


def sox_stat(path: Path) -> dict[str, float]:
    done = subprocess.run([require_command("sox"), str(path), "-n", "stat"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    found = dict(re.findall(r"^([A-Za-z ()]+?):\s+(-?[\d.]+)\s*$", done.stderr, re.M))
    return {"seconds": float(found["Length (seconds)"]), "rms": float(found["RMS     amplitude"]),
            "peak": float(found["Maximum amplitude"])}


def until(done: Callable[[], bool], seconds: float = 20.0) -> None:
    """Wait for something another process does (a bound, not a fixed sleep)."""
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_sentence_is_real_audio_of_a_fitting_length(tmp_path: Path, language: str) -> None:
    require_command("espeak-ng")
    out, _ = sentences(language)
    speaker = WavSpeaker(SoundConfig(language=language), directory=tmp_path)
    for what, text in out:
        speaker.stem = re.sub(r"\W+", "-", what)
        speaker.say(text)
    files = speaker.take()
    assert speaker.close() == []
    assert len(files) == len(out) and all(f is not None for f in files)
    for (what, text), path in zip(out, files, strict=True):
        stat = sox_stat(path)  # type: ignore[arg-type]
        assert len(text) / FASTEST <= stat["seconds"] <= 0.5 + len(text) / SLOWEST, (what, text, stat)
        assert stat["rms"] >= MIN_RMS and stat["peak"] >= MIN_PEAK, (what, text, stat)


def test_rate_and_voice_reach_espeak_ng(tmp_path: Path) -> None:
    require_command("espeak-ng")
    text = "infinity: success, 14 against C R 10; the chance was 64 percent"
    lengths = {}
    for rate in (120, 300):
        speaker = WavSpeaker(SoundConfig(rate=rate, voice="en-us"), directory=tmp_path)
        speaker.stem = f"rate{rate}"
        speaker.say(text)
        assert speaker.close() == []
        lengths[rate] = sox_stat(tmp_path / f"rate{rate}.wav")["seconds"]
    assert lengths[120] > 1.8 * lengths[300]
    broken = WavSpeaker(SoundConfig(voice="nonexistent"), directory=tmp_path)
    broken.say(text)
    failed = broken.close()
    assert len(failed) == 1 and not failed[0].exists()
    assert broken.problem.startswith("espeak-ng: ") and "voice does not exist" in broken.problem


# --- the speaker on the sound card ------------------------------------------------------------


@pytest.fixture
def fake(tmp_path: Path) -> Callable[[str], Path]:
    """An espeak-ng stand-in: notes its arguments, then runs the given shell lines."""

    def make(body: str) -> Path:
        program = tmp_path / "espeak-ng"
        program.write_text(f'#!/bin/sh\nprintf "%s\\n" "$$ $*" >> "{tmp_path}/calls"\n{body}\n')
        program.chmod(0o755)
        return program

    return make


def calls(tmp_path: Path) -> list[str]:
    path = tmp_path / "calls"
    return path.read_text().splitlines() if path.exists() else []


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:  # a zombie has ended
            return f.read().split(") ", 1)[1][0] != "Z"
    except (ProcessLookupError, FileNotFoundError):  # reaped between the two looks
        return False


def test_a_press_cuts_the_sentence_short_and_the_next_one_starts(tmp_path: Path, fake) -> None:
    program = fake("exec sleep 60")
    cards = tmp_path / "cards"
    cards.write_text(" 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n")
    sound = SoundConfig(speak=True, rate=150, volume=90, device="plughw:CARD=Headphones,DEV=0", voice="en-us")
    speaker = EspeakSpeaker(sound, program=str(program), cards=cards)
    try:
        assert speaker.problem == ""
        speaker.say("first sentence")
        until(lambda: len(calls(tmp_path)) == 1)
        first = int(calls(tmp_path)[0].split()[0])
        assert calls(tmp_path)[0].split(" ", 1)[1] == \
            "-v en-us -s 150 -a 90 -d plughw:CARD=Headphones,DEV=0 -- first sentence"
        speaker.say("second sentence")  # cuts the first short
        until(lambda: len(calls(tmp_path)) == 2)
        until(lambda: not alive(first))
        second = int(calls(tmp_path)[1].split()[0])
        assert alive(second)
        speaker.stop()
        until(lambda: not alive(second))
        assert speaker.problem == ""  # a sentence cut short says nothing about the card
    finally:
        speaker.close()
    assert speaker.started == 2


def test_a_sentence_that_cannot_play_is_a_problem_and_one_that_plays_clears_it(tmp_path: Path, fake) -> None:
    cards = tmp_path / "cards"
    cards.write_text("--- no soundcards ---\n")
    program = fake('if [ -e "$0.ok" ]; then exit 0; fi\n'
                   'echo "ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default" >&2\n'
                   'echo "error: No such file or directory" >&2')
    speaker = EspeakSpeaker(SPEAKING, program=str(program), cards=cards)
    try:
        assert speaker.problem == espeak.NO_CARD  # known before a word is said
        speaker.say("hello")
        until(lambda: speaker.ended == 1)
        assert speaker.problem == "espeak-ng: ALSA Unknown PCM default (error: No such file or directory)"
        Path(f"{program}.ok").write_text("")  # a card plugged in
        speaker.say("hello again")
        until(lambda: speaker.ended == 2)
        assert speaker.problem == ""
    finally:
        speaker.close()


def test_no_espeak_ng_is_a_problem_and_nothing_is_started(monkeypatch) -> None:
    monkeypatch.setattr(espeak, "find_program", lambda: None)
    speaker = open_speaker(SPEAKING)
    assert isinstance(speaker, EspeakSpeaker)
    speaker.say("hello")
    speaker.stop()
    speaker.close()
    assert speaker.problem == espeak.NO_PROGRAM and speaker.started == 0


def test_the_real_espeak_ng_runs_to_its_end_off_the_loop(tmp_path: Path) -> None:
    require_command("espeak-ng")
    cards = tmp_path / "cards"
    cards.write_text(" 0 [Device         ]: USB-Audio - USB Audio Device\n")
    speaker = EspeakSpeaker(SPEAKING, cards=cards)
    try:
        speaker.say("one")
        until(lambda: speaker.ended == 1)
        # where no card plays (a CI machine), ALSA's reason; where one does, nothing
        assert speaker.problem == "" or speaker.problem.startswith("espeak-ng: ")
    finally:
        speaker.close()


@pytest.mark.parametrize(("errors", "code", "why"), [
    (b"", 0, ""),
    (b"", 1, "espeak-ng: exit status 1"),
    (b"Error: The specified espeak-ng voice does not exist.\n", 1,
     "espeak-ng: Error: The specified espeak-ng voice does not exist."),
    (b"ALSA lib confmisc.c:165:(snd_config_get_card) Cannot get card index for Headphones\nerror: No such device\n",
     0, "espeak-ng: ALSA Cannot get card index for Headphones (error: No such device)"),
])
def test_how_a_finished_espeak_ng_is_read(errors: bytes, code: int, why: str) -> None:
    assert espeak.failure(code, errors) == why


def test_the_sound_card_list_is_read(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    assert espeak.card_problem(cards) == espeak.NO_CARD  # no ALSA at all
    cards.write_text("--- no soundcards ---\n")
    assert espeak.card_problem(cards) == espeak.NO_CARD
    cards.write_text(" 0 [vc4hdmi        ]: vc4-hdmi - vc4-hdmi\n")
    assert espeak.card_problem(cards) == ""


# --- the simulator ------------------------------------------------------------------------------


def test_sim_out_writes_a_wav_per_sentence_named_after_its_frame(tmp_path: Path, capsys) -> None:
    require_command("espeak-ng")
    config = tmp_path / "speak.toml"
    config.write_text('[sound]\nspeak = true\n[kiosk]\nstate_dir = "none"\n[panel]\nanimation_seconds = 0\n')
    out = tmp_path / "out"
    code = main(["sim", "--config", str(config), "--seed", "speech", "--press", "field,roll,plus", "--out", str(out)])
    assert code == 0
    assert "WAV files of what was said" in capsys.readouterr().err
    steps = json.loads((out / "transcript.json").read_text())
    said = [(step["frame"], s) for step in steps for s in step.get("said", ())]
    assert [s["text"] for _, s in said][:2] == ["infinity, rating 8: 28 percent chance",
                                                "infinity, C R 10 difficult: 28 percent chance"]
    assert len(said) == 4  # start, field, the roll's result (said at once), plus
    for frame, s in said:
        assert s["wav"] == frame.replace(".png", ".wav")
        stat = sox_stat(out / s["wav"])
        assert stat["seconds"] > 1 and stat["rms"] >= MIN_RMS


def test_sim_out_without_espeak_ng_lists_the_sentences_and_says_why_once(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(espeak, "find_program", lambda: None)
    config = tmp_path / "speak.toml"
    config.write_text('[sound]\nspeak = true\n[kiosk]\nstate_dir = "none"\n')
    out = tmp_path / "out"
    assert main(["sim", "--config", str(config), "--seed", "speech", "--press", "field,field", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("speech: no espeak-ng") == 1
    steps = json.loads((out / "transcript.json").read_text())
    assert [s["wav"] for step in steps for s in step.get("said", ())] == [None, None, None]
    assert not list((out / "frames").glob("*.wav"))


@pytest.mark.parametrize(("body", "why"), [
    ('echo "espeak broke" >&2; exit 1', "speech: espeak-ng: espeak broke; going on without it"),
    ("exec sleep 600", "speech: espeak-ng: no end after "),
])
def test_sim_out_with_a_broken_espeak_ng_writes_the_transcript_and_says_why_once(
        tmp_path: Path, capsys, monkeypatch, fake, body: str, why: str) -> None:
    """An espeak-ng that exits 1, or hangs, never stops the simulator: one line, every
    sentence listed (without a file), the transcript written, exit 0, and a hang costs one
    bounded wait (seconds), not a minute per sentence."""
    program = fake(body)
    monkeypatch.setattr(espeak, "find_program", lambda: str(program))
    config = tmp_path / "speak.toml"
    config.write_text('[sound]\nspeak = true\n[kiosk]\nstate_dir = "none"\n[panel]\nanimation_seconds = 0\n')
    out = tmp_path / "out"
    started = time.monotonic()
    code = main(["sim", "--config", str(config), "--seed", "speech", "--press", "field,roll,plus,roll,roll,minus",
                 "--out", str(out)])
    took = time.monotonic() - started
    assert code == 0
    err = capsys.readouterr().err
    assert err.count("speech: ") == 1 and why in err
    steps = json.loads((out / "transcript.json").read_text())
    said = [s for step in steps for s in step.get("said", ())]
    assert len(said) >= 6 and all(s["wav"] is None for s in said) and all(s["text"] for s in said)
    assert not list((out / "frames").glob("*.wav"))
    assert took < 2 * espeak.bound("x" * max(len(s["text"]) for s in said)) + 5  # one bounded wait in all
    assert not [line for line in calls(tmp_path) if alive(int(line.split()[0]))]  # nothing left running


def test_a_hung_espeak_ng_on_the_card_is_killed_and_said(tmp_path: Path, fake, monkeypatch) -> None:
    program = fake("exec sleep 600")
    cards = tmp_path / "cards"
    cards.write_text(" 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n")
    speaker = EspeakSpeaker(SPEAKING, program=str(program), cards=cards)
    now = [0.0]
    speaker._clock = lambda: now[0]  # the speaker's clock, moved by hand: no waiting for the bound
    try:
        speaker.say("a sentence")
        until(lambda: len(calls(tmp_path)) == 1)
        pid = int(calls(tmp_path)[0].split()[0])
        now[0] = espeak.bound("a sentence", playing=True) + 1
        until(lambda: speaker.problem.startswith("espeak-ng: no end after"))
        until(lambda: not alive(pid))
    finally:
        speaker.close()
