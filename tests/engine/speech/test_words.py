"""What the tower says: one sentence per screen from the systems' own data and a phrase table
(engine/speech). The sentences as audio are checked in tests/hardware/test_speech_audio.py."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import systems
from engine.panel import sessions
from engine.panel.machine import PanelConfig
from engine.panel.menu import Item
from engine.panel.model import Event, EventKind
from engine.panel.state import Mode
from engine.speech import LANGUAGES, ONE, SpeechError, check, table
from engine.speech import words as said
from engine.systems import ids
from tests.engine.panel.driver import FIELD, MODE, PLUS, ROLL, Panel
from tests.engine.speech.corpus import sentences
from tests.support import seeded_dice

EN = table("en")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_corpus_uses_every_template_and_leaves_no_placeholder(language: str) -> None:
    out, used = sentences(language)
    assert {key.removesuffix(ONE) for key in used} == set(table(language).names)
    for what, text in out:
        assert text.strip(), what
        assert not set(text) & set("{}_~>#"), (what, text)  # nothing of the screen's markup or the template's
        assert "  " not in text, (what, text)


def test_every_language_has_every_word_english_has() -> None:
    for language in LANGUAGES:
        phrases = table(language)
        for part in ("terms", "outcomes", "systems", "words"):
            assert set(getattr(phrases, part)) >= set(getattr(EN, part)), (language, part)


def test_the_examples_of_the_issue() -> None:
    panel = Panel(PanelConfig(systems=("horizons",), animation_seconds=0))
    panel.set_field("need", 3)
    panel.set_field("trait", 5)
    panel.set_field("skill", 5)
    panel.to_field("need")
    assert said.utterance(panel.state, EN) == f"horizons, need 3: {round(panel.state.odds * 100)} percent chance"
    panel = Panel(PanelConfig(systems=("infinity",), animation_seconds=0))
    panel.set_field("rating", 12)
    for seed in range(200):  # a success whose total is 14
        panel.dice = seeded_dice(f"issue {seed}".encode())
        panel.press(ROLL)
        result = panel.state.result
        if result is not None and result.total == 14 and result.outcome == "success":
            break
        panel.press(MODE)
    else:
        raise AssertionError("no infinity success of 14 in 200 seeds")
    assert said.utterance(panel.state, EN).startswith(
        "infinity: success, 14 against C R 10; the chance was 64 percent. success rating 1. hot die ")


@pytest.mark.parametrize("system", ids())
def test_every_outcome_and_term_of_every_system_is_in_every_table(system: str) -> None:
    spec = systems.get(system)
    for language in LANGUAGES:
        phrases = table(language)
        assert set(spec.outcomes) <= set(phrases.outcomes), (language, system)
    panel = Panel(PanelConfig(systems=(system,), animation_seconds=0))
    for _ in range(30):
        panel.press(ROLL)
        if panel.state.mode is Mode.GUESS:
            panel.press(FIELD)
        data = panel.state.result.to_dict()
        versus = spec.panel.versus(data)
        if versus is not None:
            for language in LANGUAGES:
                assert versus.term in table(language).terms, (language, versus.term)


@settings(max_examples=60, deadline=None)
@given(system=st.sampled_from(ids()), seed=st.binary(min_size=1, max_size=8),
       presses=st.lists(st.sampled_from(["field", "plus", "minus"]), max_size=12))
def test_versus_says_what_the_headline_shows(system: str, seed: bytes, presses: list[str]) -> None:
    """The spoken score and the screen's title never disagree: ``14 vs 10`` is 14 against 10."""
    panel = Panel(PanelConfig(systems=(system,), animation_seconds=0), dice=seeded_dice(seed))
    from tests.engine.panel.driver import MINUS

    buttons = {"field": FIELD, "plus": PLUS, "minus": MINUS}
    for name in presses:
        panel.press(buttons[name])
    panel.press(ROLL)
    if panel.state.mode is Mode.GUESS:
        panel.press(FIELD)
    if panel.state.result is None or panel.state.mode is not Mode.RESULT:
        return
    data = panel.state.result.to_dict()
    spec = systems.get(system).panel
    versus = spec.versus(data)
    if versus is not None:
        reached = "auto" if versus.reached is None else versus.reached  # nothing rolled: automatic
        assert spec.headline(data) == f"{reached} vs {versus.needed}"
    text = said.utterance(panel.state, EN)
    assert text is not None and text.startswith(said.system_name(system, EN) + ": ")


def test_the_chance_a_result_had_is_the_chance_of_its_own_setting() -> None:
    panel = Panel(PanelConfig(systems=("d6cv",), animation_seconds=0))
    shown = panel.state.odds
    panel.press(ROLL)
    assert said.result_chance(panel.state.result) == pytest.approx(shown)


def test_chances_are_whole_percent_never_rounded_to_certain() -> None:
    assert [said.chance(p, EN) for p in (None, 0.0, 0.004, 0.006, 0.644, 0.994, 0.996, 1.0)] == [
        "0 percent", "0 percent", "under 1 percent", "1 percent", "64 percent", "99 percent",
        "over 99 percent", "100 percent"]


@pytest.mark.parametrize(("screen", "words"), [
    ("opp. succ. 2", "opponent successes 2"),
    ("2/3 checks", "2 of 3 checks"),
    ("brightness 28.0%", "brightness 28 percent"),
    ("animation 0.8s", "animation 0.8 seconds"),
    ("P1 reset", "player 1 reset"),
    ("hostile1 col blue", "hostile 1 colour blue"),
    ("session #3fa2c1d0", "session 3 f a 2 c 1 d 0"),
    ("d6cv more", "d 6 C V more"),
    ("cr: 10", "C R: 10"),
    ("more ...", "more"),
    ("spend: cannot spend 2 karma", "spend: cannot spend 2 karma"),
    ("table seed 31425512", "table seed 3 1 4 2 5 5 1 2"),  # a code digit by digit, never a number
    ("hot 4 cold 8 +4", "hot 4 cold 8 plus 4"),
    ("modifier -2", "modifier minus 2"),
    ("cr 4 < rating 5", "C R 4 is below rating 5"),
    ("skill now LOCKED", "skill now locked"),
])
def test_screen_words_in_words(screen: str, words: str) -> None:
    assert said.spoken(screen, EN) == words


DE = table("de")


@pytest.mark.parametrize(("screen", "words"), [
    ("animation 0.8s", "Animation 0,8 Sekunden"),  # read "null Komma acht", never "null Punkt acht"
    ("brightness 100%", "Helligkeit 100 Prozent"),
    ("table seed 31425512", "Tisch-Seed 3 1 4 2 5 5 1 2"),
    ("speech on", "Sprache an"),
    ("reset player", "Spieler zurücksetzen"),
])
def test_screen_words_in_german(screen: str, words: str) -> None:
    assert said.spoken(screen, DE) == words


def test_the_menu_says_the_table_code_digit_by_digit() -> None:
    panel = Panel(PanelConfig(systems=("d6cv",), animation_seconds=0))
    panel.send(Event(EventKind.SESSION, text=sessions.committed("3fa2c1d0" * 8, table_seed="31425512")))
    panel.hold(MODE)
    while panel.state.item is not Item.TABLE_SEED:
        panel.press(FIELD)
    for language, words in (("en", "table seed 3 1 4 2 5 5 1 2"), ("de", "Tisch-Seed 3 1 4 2 5 5 1 2")):
        assert said.utterance(panel.state, table(language)).endswith(words)


def test_a_chain_says_the_finger_the_screen_shows() -> None:
    """``you picked 3`` on the screen (the last test's finger) is "you picked 3" aloud."""
    panel = Panel(PanelConfig(systems=("fingers",), animation_seconds=0))
    panel.set_list("chain", [(1, 3, 0), (2, 4, 0)])
    panel.to_page("")
    panel.press(ROLL, MODE, PLUS)  # thumb for test 1, ring (4) ... test 2 takes 1 to 4
    assert panel.state.mode is Mode.RESULT
    shown = next(line for line in panel.screen.lines if line.startswith("you picked"))
    for language, words in (("en", "you picked"), ("de", "gewählt")):
        text = said.utterance(panel.state, table(language))
        assert f"{words} {shown.split()[-1]}" in text


def test_an_automatic_success_is_a_sentence() -> None:
    panel = Panel(PanelConfig(systems=("immortal",), animation_seconds=0))
    panel.set_field("skill", 4)
    panel.set_field("tn", 12)
    panel.set_field("auto_success", "yes")
    panel.press(ROLL)
    assert panel.screen.title.split()[-3:] == ["auto", "vs", "12"]
    assert said.utterance(panel.state, EN).startswith(
        "immortal: success, automatic against T N 12; the chance was 100 percent. "
        "automatic: skill 4 times 3 is at least 12")
    assert said.utterance(panel.state, DE).startswith("immortal: Erfolg, automatisch gegen T N 12")


def test_which_screens_are_said_at_once_and_which_when_still() -> None:
    panel = Panel(PanelConfig(systems=("fingers",), animation_seconds=0.5))
    assert said.moment(panel.state) is None  # setup: when still
    panel.press(ROLL)
    hidden = said.moment(panel.state)
    assert panel.state.mode is Mode.GUESS and hidden is not None
    panel.press(PLUS)  # finger 4: rolls, the animation runs
    assert panel.state.mode is Mode.ROLLING
    assert said.moment(panel.state) is None and said.utterance(panel.state, EN) is None
    panel.tick(1.0)
    assert panel.state.mode is Mode.RESULT and said.moment(panel.state) is not None
    first = said.moment(panel.state)
    panel.press(ROLL)
    panel.press(FIELD)
    panel.tick(1.0)
    assert said.moment(panel.state) != first  # the next roll is news, even with the same words


def test_a_broken_translation_is_refused_with_the_key_named() -> None:
    broken = dataclasses.replace(EN, templates={**EN.templates, "versus": "{reached} vs {difficulty}"})
    with pytest.raises(SpeechError, match=r"template versus uses \{difficulty\}"):
        check(broken)
    missing = dataclasses.replace(EN, templates={k: v for k, v in EN.templates.items() if k != "turn"})
    with pytest.raises(SpeechError, match="missing turn"):
        check(missing)
    with pytest.raises(SpeechError, match="one of en, de, got 'xx'"):
        table("xx")


def _reasons(system: str, seed: int, presses: int = 120) -> set[str]:
    """The reasons a setting cannot roll (and the messages) a random walk of the panel meets."""
    import random

    from engine.panel import pages
    from tests.engine.panel.driver import MINUS

    rnd = random.Random(seed)
    panel = Panel(PanelConfig(systems=(system,), animation_seconds=0))
    spec = panel.state.spec
    page_names = [pages.FIRST, pages.ADVANCED, *(pages.FLOW + f.name for f in spec.panel.flows if f.page)]
    found: set[str] = set()
    for _ in range(presses):
        r = rnd.random()
        if r < 0.05:
            panel.to_page(rnd.choice(page_names))
        else:
            panel.press(rnd.choices([FIELD, PLUS, MINUS, ROLL, MODE], [25, 30, 25, 5, 10])[0])
        if panel.state.mode is Mode.GUESS:
            panel.press(rnd.choice([FIELD, PLUS, MINUS, MODE, ROLL]))
        state = panel.state
        if state.problem:
            found.add(state.problem)
        if state.mode is Mode.MESSAGE:
            found.add(state.message[1])
    return found


@pytest.mark.parametrize("system", ids())
def test_german_says_every_reason_a_setting_cannot_roll_in_german(system: str) -> None:
    """Every reason the panel meets (a random walk of its buttons) is translated whole, not
    word by word: the engine's reasons are English screen text (issue 29)."""
    reasons = set().union(*(_reasons(system, seed) for seed in range(12)))
    untranslated = [text for text in sorted(reasons) if said.reason(text, DE) == said.spoken(text, DE)]
    assert not untranslated, untranslated
