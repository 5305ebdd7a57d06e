"""A player who never looks at the OLED: every flow script (docs/screenshots/flows/, every
parameter and every flow of every system, with a roll log, the table seed, results with
their fingerprints) played with the screen hidden, in every language, and every fact each
screen shows checked against what is said (issue 29).

The facts are read off each screen (tests/hardware/speech_facts.py), not kept by hand, so a
screen that changes is checked as it reads then. For each step of a script:

- a screen said at once (a result, a turn of a group roll, the hidden hand, a message, the
  table seed pages, a reveal, the commitment): what was said as it came up holds every fact
  it shows that the screen before it (of the same kind) did not;
- a page said once the buttons are still (setup, settings): what was said holds its title,
  its selected row and its notes (setup) once it changes;
- every screen: its reading in full (a held FIELD: docs/speech.md) holds every fact on it;
- German says every word of the screens in German (no screen word without a German one).

The roll animation (its faces are not dice) and the attract screen (for nobody) are not
said. A step's facts can be printed with ``python -m tests.hardware.test_speech_walk SCRIPT
LANGUAGE``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from engine.panel.state import Mode
from engine.panel.view import setup_notes
from engine.speech import LANGUAGES, table
from engine.speech import words as said
from engine.systems import ids
from hardware.cli.sim import SimClock, Simulator, parse_script
from hardware.cli.tower import keep
from hardware.config import reader
from hardware.entropy import open_dice
from hardware.speech.fakes import RecordingSpeaker
from tests.hardware.speech_facts import NONE, Facts, facts, missing, untranslated

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
FLOWS = SCREENSHOTS / "flows"
#: Every script the docs' screenshots are made from, and the seed its command gives: a flow
#: per system, and the README's tour (the settings menu, the commitment in full, a reveal).
SCRIPTS = {**{system: (FLOWS / f"{system}.txt", b"flows") for system in ids()},
           "tour": (SCREENSHOTS / "tour.txt", b"screenshots")}
#: Screen kinds said at once, and those said once the buttons are still.
AT_ONCE = {"result", "reveal", "turn", "guess", "message", "seed", "card", "session"}
WHEN_STILL = {"setup", "settings"}
#: Words German says as the screen writes them: the systems' names.
OWN = {"de": frozenset(ids())}


@dataclasses.dataclass
class Step:
    event: str
    kind: str
    lines: list[str]
    dice: list[int]
    said: str
    full: str | None
    selected: str | None
    notes: list[str]


def walk(script: str, language: str, state: Path) -> list[Step]:
    """The script (a system's flow, or the tour) as ``sim --seed SEED --state-dir STATE
    --script`` plays it, with speech on in ``language`` (a speaker that only keeps the
    sentences)."""
    path, seed = SCRIPTS[script]
    config = reader.load()
    config = dataclasses.replace(config, sound=dataclasses.replace(config.sound, speak=True, language=language),
                                 panel=dataclasses.replace(config.panel, speak=True))
    clock = SimClock()
    kept = keep(dataclasses.replace(config, kiosk=dataclasses.replace(config.kiosk, state_dir=str(state))),
                clock=clock)
    phrases = table(language)
    sim = Simulator(config, dice=open_dice(seed=seed, log=kept.roll_log), clock=clock,
                    speaker=RecordingSpeaker(), **kept.tower_options())
    steps: list[Step] = []

    def on_step(step: dict[str, Any]) -> None:
        s = sim.tower.state
        screen = step["screen"]
        shown = s.mode is not Mode.ROLLING and not s.asleep
        selected = next((line for line in screen["lines"] if line.startswith(">")), None)
        steps.append(Step(step["event"], screen["kind"], screen["lines"], screen["dice"],
                          " ".join(x["text"] for x in step.get("said", ())),
                          said.utterance(s, phrases, full=True) if shown else None,
                          selected, list(setup_notes(s)) if s.mode is Mode.SETUP else []))

    try:
        sim.run_script(parse_script(path.read_text(encoding="utf-8"), option="script"), on_step=on_step)
    finally:
        sim.close()
    return steps


def _problems(steps: list[Step], language: str) -> list[str]:
    phrases = table(language)
    english = language == "en"
    every_word = True
    out: list[str] = []
    last: dict[str, Facts] = {}
    last_lines: dict[str, list[str]] = {}
    for n, step in enumerate(steps):
        where = f"step {n} {step.event!r} ({step.kind}: {' / '.join(step.lines)})"
        if step.full is None:
            continue  # the roll animation, the attract screen
        shown = facts(step.lines, step.dice, every_word=every_word)
        if not english:
            words = untranslated(shown, phrases, own=OWN.get(language, frozenset()))
            if words:
                out.append(f"{where}: no {language} word for {words}")
        gone = missing(shown, step.full, phrases, as_written=english)
        if gone:
            out.append(f"{where}: the full reading {step.full!r} lacks {gone}")
        changed = step.lines != last_lines.get(step.kind)
        if step.kind in AT_ONCE and changed:
            new = shown - last.get(step.kind, NONE)
            gone = missing(new, step.said, phrases, as_written=english)
            if gone:
                out.append(f"{where}: said {step.said!r}, which lacks {gone}")
        elif step.kind in WHEN_STILL and changed and step.said:
            head = [step.lines[0], *([step.selected] if step.selected else []), *step.notes]
            gone = missing(facts(head, every_word=every_word), step.said, phrases, as_written=english)
            if gone:
                out.append(f"{where}: said {step.said!r}, which lacks {gone}")
        elif step.kind in WHEN_STILL and changed:
            out.append(f"{where}: nothing was said")
        last[step.kind] = shown
        last_lines[step.kind] = step.lines
    return out


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("script", SCRIPTS)
def test_a_player_who_cannot_see_the_screen_hears_every_fact_on_it(script: str, language: str,
                                                                   tmp_path: Path) -> None:
    steps = walk(script, language, tmp_path)
    assert any(step.kind in ("result", "reveal") for step in steps)
    problems = _problems(steps, language)
    assert not problems, f"{script}, {language}: {len(problems)} screens not said whole:\n" + "\n".join(problems[:25])


def test_the_scripts_show_every_kind_of_screen_that_is_said(tmp_path: Path) -> None:
    """Between them the scripts show each screen speech has words for, so the walk above
    checks each (a script that stops showing one is caught here)."""
    kinds = {step.kind for script in SCRIPTS for step in walk(script, "en", tmp_path / script)}
    assert kinds >= AT_ONCE | WHEN_STILL


if __name__ == "__main__":  # print what each step shows and what is said
    import sys
    import tempfile

    for n, step in enumerate(walk(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "en", Path(tempfile.mkdtemp()))):
        print(n, step.event, "|", " / ".join(step.lines))
        print("    said:", step.said)
