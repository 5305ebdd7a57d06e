"""Spoken results and pages (issue 22): the tower on gpiozero's MockFactory and luma's dummy
device, with a recording speaker (hardware.speech.fakes) in place of espeak-ng. What is said
and when: the setup page once the buttons are still, a result with its frame after its entry
is logged, a press cuts speech short, the settings switch (remembered), a missing speaker said
once. The real espeak-ng is tests/hardware/test_speech_audio.py's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.panel.menu import ITEMS, Item
from engine.panel.model import Button
from hardware.cli.sim import Simulator, parse_script
from hardware.config import ConfigError, reader, schema
from hardware.config.schema import SoundConfig
from hardware.entropy import open_dice
from hardware.files.rolllog import LenientLog, RollLog, read_entries
from hardware.speech import open_speaker
from hardware.speech.fakes import LogSpeaker, RecordingSpeaker
from tests.hardware.test_record_first import FullDisk

CONFIG = ('[display]\nkind = "dummy"\n[panel]\nanimation_seconds = 0\nsystems = ["infinity", "fingers"]\n'
          '[kiosk]\nstate_dir = "none"\n')
SPEAK = CONFIG + "[sound]\nspeak = true\n"


def make(text: str = SPEAK, *, speaker: RecordingSpeaker | None = None, table_seed: str | None = "speech",
         **options) -> Simulator:
    """A simulated tower that speaks. Its session has a table seed already (so the first ROLL
    rolls; asking for one is said in test_the_table_seed_pages_are_said), unless None."""
    dice = options.pop("dice", None) or open_dice(seed=b"speech")
    if table_seed is not None:
        dice.set_table_seed(table_seed, source="panel")  # as the table typed it on the keys
    sim = Simulator(reader.loads(text), dice=dice, speaker=speaker if speaker is not None else RecordingSpeaker(),
                    **options)
    if table_seed is not None:  # the table answered the session's question before these tests begin
        from engine.panel.state import evolve

        s = sim.tower.state
        sim.tower.state = evolve(s, shown_for=s.commitment, answered=s.commitment, answered_code=table_seed)
    return sim


def spoken(sim: Simulator) -> RecordingSpeaker:
    speaker = sim.heard.speaker if sim.heard is not None else None
    assert isinstance(speaker, RecordingSpeaker)
    return speaker


def tap(sim: Simulator, button: Button, settle: float = 0.0) -> None:
    sim.down(button)
    sim.tower.pump()
    sim.advance(0.1)
    sim.up(button)
    sim.tower.pump()
    if settle:
        sim.advance(settle)


@pytest.fixture
def sim():
    s = make()
    try:
        yield s
    finally:
        s.close()


def test_the_setup_page_is_said_once_the_buttons_have_been_still_for_a_second(sim) -> None:
    speaker = spoken(sim)
    sim.advance(0.9)
    assert speaker.texts == []  # not before a second
    sim.advance(0.2)
    assert speaker.texts == ["infinity, rating 8: 28 percent chance"]  # at start-up
    tap(sim, Button.FIELD, 0.5)
    tap(sim, Button.PLUS, 0.9)  # each press starts the second again
    assert speaker.texts == ["infinity, rating 8: 28 percent chance"]
    sim.advance(0.2)
    assert speaker.texts[-1] == "infinity, C R 11: 21 percent chance"
    sim.advance(5)
    assert len(speaker.texts) == 2  # said once, not again while nothing changes


def test_a_result_is_said_with_its_frame_after_its_entry_is_logged(tmp_path) -> None:
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    heard: list[tuple[str, int, str, int]] = []

    class Checking(RecordingSpeaker):
        def say(self, text: str) -> None:
            rolls = [s.entry for s in read_entries(log.path) if s.entry and s.entry["kind"] == "roll"]
            heard.append((text, len(rolls), sim.tower.screen.kind, sim.tower.frames))
            super().say(text)

    sim = make(speaker=Checking(), memory=tmp_path, roll_log=log, dice=open_dice(seed=b"speech", log=log))
    try:
        sim.advance(1.1)
        frames = sim.tower.frames
        tap(sim, Button.ROLL)
        text, logged, kind, frames_then = heard[-1]
        assert text.startswith("infinity: ") and "; the chance was 28 percent" in text
        assert logged == 1 and kind == "result" and frames_then > frames  # logged, drawn, then said
        result = sim.tower.state.result
        assert text.startswith(f"infinity: {result.outcome}, {result.total} against C R 10")
    finally:
        sim.close()


def test_with_an_animation_the_result_is_said_when_it_shows(tmp_path) -> None:
    sim = make(SPEAK.replace("animation_seconds = 0", "animation_seconds = 0.8"))
    try:
        speaker = spoken(sim)
        tap(sim, Button.ROLL)
        assert sim.tower.screen.kind == "rolling" and speaker.texts == []
        sim.advance(1.0)
        assert sim.tower.screen.kind == "result"
        assert speaker.texts[-1].startswith("infinity: ")
    finally:
        sim.close()


def test_a_new_press_cuts_speech_short_and_a_release_does_not(sim) -> None:
    speaker = spoken(sim)
    sim.down(Button.ROLL)
    sim.tower.pump()
    assert speaker.said[-1].text.startswith("infinity: ") and not speaker.said[-1].cut
    sim.advance(0.1)
    sim.up(Button.ROLL)
    sim.tower.pump()  # letting go of ROLL does not cut the result short
    assert not speaker.said[-1].cut
    tap(sim, Button.FIELD)
    assert speaker.said[-1].cut


def hold(sim: Simulator, button: Button, settle: float = 0.0) -> None:
    sim.down(button)
    sim.tower.pump()
    sim.advance(1.0)  # past the hold time
    sim.up(button)
    sim.tower.pump()
    if settle:
        sim.advance(settle)


def test_a_held_field_says_the_result_again_whole_and_changes_nothing(sim) -> None:
    """Repeat: hold FIELD. Its press moved the row (and left the result); the hold puts both
    back, and the result is said again in full; letting go says nothing more."""
    speaker = spoken(sim)
    tap(sim, Button.ROLL, 0.5)
    result = speaker.texts[-1]
    row, shown = sim.tower.state.field_index, sim.tower.screen
    hold(sim, Button.FIELD, 3.0)
    assert speaker.texts[-1] == result and speaker.texts.count(result) == 2
    assert speaker.said[-2].cut  # the press cut the first one short
    assert sim.tower.state.field_index == row and sim.tower.screen.title == shown.title  # nothing moved


def test_a_held_finger_is_a_finger_not_a_repeat() -> None:
    """FIELD held as finger 2 of a hidden hand picks the finger; its hold says nothing more."""
    sim = make(SPEAK.replace('systems = ["infinity", "fingers"]', 'systems = ["fingers"]'))
    try:
        tap(sim, Button.ROLL)
        hold(sim, Button.FIELD, 3.0)
        texts = spoken(sim).texts
        assert texts[-1].startswith("fingers: ") and ". you picked 2. " in texts[-1]
        assert sum(t.startswith("fingers: ") for t in texts) == 1
    finally:
        sim.close()


def test_a_held_field_reads_the_whole_setup_page(sim) -> None:
    speaker = spoken(sim)
    sim.advance(1.1)
    hold(sim, Button.FIELD, 3.0)
    text = speaker.texts[-1]
    assert text.startswith("infinity: 28 percent chance. rating 8, C R 10 difficult, declaration no, ")
    assert text.endswith("player 1") or "player 1" in text
    assert sim.tower.state.field_index == 0


def test_a_press_skips_a_long_result_and_does_its_job(sim) -> None:
    speaker = spoken(sim)
    tap(sim, Button.ROLL)
    assert not speaker.said[-1].cut
    result = len(speaker.said) - 1
    tap(sim, Button.MINUS)  # any press: the result is cut short, and MINUS lowers the rating
    assert speaker.said[result].cut
    assert sim.tower.screen.kind == "setup" and sim.tower.screen.lines[0] == ">rating 7"


def test_speech_off_says_nothing_and_the_switch_is_remembered(tmp_path) -> None:
    config = CONFIG.replace('state_dir = "none"', f'state_dir = "{tmp_path}"')
    sim = make(config, memory=tmp_path)
    try:
        speaker = spoken(sim)
        tap(sim, Button.ROLL, 2.0)
        assert speaker.texts == []
        _menu(sim, Item.SPEECH)
        assert sim.tower.screen.lines[0] == ">speech off"
        tap(sim, Button.PLUS, 1.2)
        assert sim.tower.screen.lines[0] == ">speech on"
        assert speaker.texts == ["settings, speech on"]
        sim.tower.save()
    finally:
        sim.close()
    assert json.loads((tmp_path / "panel.json").read_text())["settings"]["speech"] is True
    again = make(config, memory=tmp_path)
    try:
        again.advance(1.1)
        assert spoken(again).texts == ["infinity, rating 8: 28 percent chance"]
        _menu(again, Item.SPEECH)
        before = list(spoken(again).texts)
        stops = spoken(again).stops
        tap(again, Button.MINUS)  # off: cuts short and says nothing more
        again.advance(3)
        tap(again, Button.MODE)
        tap(again, Button.ROLL, 3)
        assert spoken(again).texts == before and spoken(again).stops > stops
    finally:
        again.close()


def _menu(sim: Simulator, item: Item) -> None:
    sim.down(Button.MODE)
    sim.tower.pump()
    sim.advance(1.0)  # a hold
    sim.up(Button.MODE)
    sim.tower.pump()
    for _ in ITEMS:
        if sim.tower.state.item is item:
            return
        tap(sim, Button.FIELD)
    raise AssertionError(f"no {item} in the menu")


def test_no_sound_is_said_once_in_the_log_and_on_the_menu() -> None:
    messages: list[str] = []
    sim = make(speaker=RecordingSpeaker(problem="no sound card (aplay -l lists none; docs/speech.md)"),
               log=messages.append)
    try:
        for _ in range(3):
            tap(sim, Button.ROLL, 1.2)
        _menu(sim, Item.SPEECH)
        sim.advance(0.1)
        assert "speech: no sound card" in " ".join(sim.tower.screen.lines)
        spoken(sim).problem = ""  # a card plugged in: said too, and the menu says nothing more
        tap(sim, Button.PLUS)
        tap(sim, Button.PLUS)
        assert "speech:" not in " ".join(sim.tower.screen.lines)
    finally:
        sim.close()
    said = [m for m in messages if m.startswith("speech:")]
    assert said == ["speech: no sound card (aplay -l lists none; docs/speech.md); going on without it",
                    "speech: can be heard again"]


def test_the_hand_and_a_group_roll_are_said_as_they_come_up() -> None:
    sim = make(SPEAK.replace('systems = ["infinity", "fingers"]', 'systems = ["fingers"]'))
    try:
        speaker = spoken(sim)
        tap(sim, Button.ROLL)
        assert speaker.texts[-1] == "fingers 2 of 5: pick a finger, 1 to 5; thumb 1 to pinky 5"
        tap(sim, Button.FIELD)  # finger 2
        assert speaker.texts[-1].startswith("fingers: ") and ". you picked 2. winners " in speaker.texts[-1]
    finally:
        sim.close()
    sim = make(SPEAK.replace('systems = ["infinity", "fingers"]', 'systems = ["infinity"]'))
    try:
        steps = sim.run_script(parse_script("field field field field field plus plus plus roll roll roll"))
        said = [s["text"] for step in steps for s in step.get("said", ())]
        assert [s.split(". ")[0] for s in said[-3:-1]] == ["infinity: leader, 1 of 2", "infinity: helper 1, 2 of 2"]
        assert said[-1].startswith("infinity: ") and "the chance was" in said[-1]
    finally:
        sim.close()


def test_cannot_record_is_said(tmp_path) -> None:
    seam = FullDisk(3)  # the session, its table seed and one roll; the second roll's entry fails
    log = RollLog(tmp_path / "rolls.jsonl", write=seam, fsync=False)
    sim = make(memory=tmp_path, roll_log=log, dice=open_dice(seed=b"record", log=log))
    try:
        speaker = spoken(sim)
        tap(sim, Button.ROLL, 0.5)
        tap(sim, Button.ROLL, 0.5)
        assert sim.tower.screen.title == "cannot record"
        assert speaker.texts[-1].startswith("cannot record: roll log: ")
        assert speaker.texts[-1].endswith("roll not shown")
    finally:
        sim.close()


def test_an_unrecorded_result_is_said_as_unrecorded(tmp_path) -> None:
    seam = FullDisk(1)  # the session only
    log = LenientLog(RollLog(tmp_path / "rolls.jsonl", write=seam, fsync=False))
    config = SPEAK + '[kiosk]\nunrecorded = "show"\n'
    config = config.replace('[kiosk]\nstate_dir = "none"\n', "")
    sim = make(config, memory=tmp_path, roll_log=log, dice=open_dice(seed=b"record", log=log), show=lambda line: None,
               table_seed=None)
    try:
        tap(sim, Button.ROLL, 0.5)  # asks for a table seed ...
        tap(sim, Button.ROLL, 0.5)  # ... and rolls without one
        assert sim.tower.screen.title == "UNRECORDED"
        assert spoken(sim).texts[-1].startswith("unrecorded. infinity: ")
    finally:
        sim.close()


def test_the_table_seed_pages_are_said(tmp_path) -> None:
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)
    sim = make(table_seed=None, memory=tmp_path, roll_log=log, dice=open_dice(seed=b"speech", log=log))
    try:
        steps = sim.run_script(parse_script("roll plus 1 2 3 4 5 1 2 3 roll"))
        said = [s["text"] for step in steps for s in step.get("said", ())]
        commitment = " ".join(sim.tower.state.commitment[:16])
        assert said[1] == (f"new session {commitment}: photograph the QR code of its commitment, then set a new table "
                           "seed code? plus sets one, roll rolls with none, mode goes back")
        assert said[2] == f"table seed for session {commitment}: press any 8 buttons, thumb 1 to pinky 5"
        assert said[3:5] == ["1, 7 more", "1 2, 6 more"]
        assert said[-2] == ("table seed 1 2 3 4 5 1 2 3: roll sets it, mode cancels, any other button starts a "
                            "new code")
        assert said[-1] == "infinity, rating 8: 28 percent chance"  # set: the setup page again, once still
        assert sim.tower.state.table_seed == "12345123"
        tap(sim, Button.ROLL)
        assert re.search(r"\. roll 1, fingerprint( [0-9a-f]){8,}$", spoken(sim).texts[-1])  # its number, its hash
    finally:
        sim.close()


def test_the_transcript_lists_what_was_said_under_its_frame(sim) -> None:
    steps = sim.run_script(parse_script("field roll mode"))
    assert [step["event"] for step in steps] == ["start", "field", "roll", "mode"]
    assert steps[0]["said"] == [{"text": "infinity, rating 8: 28 percent chance", "wav": None}]
    assert steps[1]["said"] == [{"text": "infinity, C R 10 difficult: 28 percent chance", "wav": None}]
    assert steps[2]["said"][0]["text"].startswith("infinity: ")
    assert steps[3]["said"] == [{"text": "fingers, choices 5: 40 percent chance", "wav": None}]


def test_a_silent_tower_has_no_said_in_its_transcript() -> None:
    sim = make(CONFIG)
    try:
        steps = sim.run_script(parse_script("field roll"))
        assert all("said" not in step for step in steps)
    finally:
        sim.close()


def test_the_log_speaker_writes_each_sentence_to_the_log() -> None:
    lines: list[str] = []
    speaker = open_speaker(SoundConfig(speaker="log"), log=lines.append)
    assert isinstance(speaker, LogSpeaker)
    sim = Simulator(reader.loads(SPEAK), dice=open_dice(seed=b"speech"), speaker=speaker)
    try:
        sim.advance(1.1)
    finally:
        sim.close()
    assert lines == ["said: infinity, rating 8: 28 percent chance"]


# --- config -----------------------------------------------------------------------------------


def test_the_sound_table() -> None:
    config = reader.loads('[sound]\nspeak = true\nlanguage = "de"\nvoice = "de+f3"\nrate = 150\nvolume = 80\n'
                          'device = "plughw:CARD=Headphones,DEV=0"\nstill_seconds = 1.5\nspeaker = "log"\n')
    assert config.sound == SoundConfig(speak=True, speaker="log", language="de", voice="de+f3", rate=150, volume=80,
                                       device="plughw:CARD=Headphones,DEV=0", still_seconds=1.5)
    assert config.panel.speak is True
    assert reader.loads("").sound == SoundConfig() and reader.loads("").panel.speak is False


@pytest.mark.parametrize(("text", "key", "message"), [
    ('[sound]\nspeak = "yes"\n', "sound.speak", "expected true or false"),
    ('[sound]\nlanguage = "fr"\n', "sound.language", "one of en, de, got 'fr'"),
    ('[sound]\nvoice = "-w /etc/passwd"\n', "sound.voice", "not starting with -"),
    ('[sound]\ndevice = "hw:0;reboot"\n', "sound.device", "letters, digits"),
    ('[sound]\nrate = 20\n', "sound.rate", "from 80 to 450"),
    ('[sound]\nspeaker = "wav"\n', "sound.speaker", "one of espeak, log"),
    ('[sound]\nvolume = 300\n', "sound.volume", "from 0 to 200"),
    ('[sound]\nshout = true\n', "sound.shout", "unknown key"),
    ('[panel]\nspeak = true\n', "panel.speak", "unknown key"),
])
def test_a_bad_sound_key_is_one_line_naming_it(text: str, key: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        reader.loads(text)
    assert caught.value.key == key and message in str(caught.value)


def test_the_default_config_documents_the_sound_table() -> None:
    text = Path(schema.DEFAULT_TOML).read_text(encoding="utf-8")
    assert "[sound]" in text
    assert reader.loads(text).sound == SoundConfig()
