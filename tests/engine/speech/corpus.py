"""Every sentence the tower can say, with real values: for each system every row of every
setup page, results of several rolls (and a group roll's turns, a hidden hand's prompts and
reveal), a setting that cannot roll; the settings menu; and the pieces only some screens
use. ``sentences`` also says which templates were used, so a test can hold the corpus to
every template of the table (tests/engine/speech, tests/hardware/test_speech_audio.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from engine.panel import pages as rows
from engine.panel import sessions
from engine.panel.machine import PanelConfig
from engine.panel.menu import ITEMS, Item
from engine.panel.model import Event, EventKind
from engine.panel.state import Mode
from engine.speech import Phrases, table
from engine.speech import words as said
from engine.systems import SYSTEM_IDS
from tests.engine.panel.driver import FIELD, MODE, PLUS, ROLL, Panel

#: Rolls per system (different outcomes, different numbers).
ROLLS = 4


class _Used(dict):
    """A template table that notes which templates were read."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.used: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.used.add(key)
        return super().__getitem__(key)


def sentences(language: str) -> tuple[list[tuple[str, str]], set[str]]:
    """(what, sentence) pairs in ``language`` and the templates they used."""
    templates = _Used(table(language).templates)
    phrases = dataclasses.replace(table(language), templates=templates)
    out = list(_all(phrases))
    return out, templates.used


def _all(p: Phrases) -> Iterator[tuple[str, str]]:
    for system in SYSTEM_IDS:
        yield from _pages(p, system)
        yield from _results(p, system)
        yield from _cannot(p, system)
    yield from _group(p)
    yield from _chain(p)
    yield from _not_counted(p)
    yield from _menu(p)
    yield from _table_seed(p)
    for chance in (0.0, 0.003, 0.5, 0.996, 1.0):
        yield f"chance {chance}", said.chance(chance, p)
    panel = _panel("infinity")
    panel.press(ROLL)
    yield "unrecorded", p.say("unrecorded", said=said.utterance(panel.state, p) or "")
    data = panel.state.result.to_dict()
    yield "result without its chance", p.say("result_no_chance", system=said.system_name("infinity", p),
                                             outcome=p.outcomes[data["outcome"]],
                                             score=said.score(panel.state, data, p))


def _panel(system: str) -> Panel:
    return Panel(PanelConfig(systems=(system,), animation_seconds=0), seed=b"speech " + system.encode())


def _pages(p: Phrases, system: str) -> Iterator[tuple[str, str]]:
    """The setup sentence for every row of every page."""
    panel = _panel(system)
    spec = panel.state.spec
    pages = [rows.FIRST, rows.ADVANCED, *(rows.FLOW + f.name for f in spec.panel.flows if f.page)]
    for page in pages:
        panel.to_page(page)
        for _ in panel.state.rows():
            yield f"{system} {page or 'first'} {panel.state.row().name}", said.setup(panel.state, p)
            panel.press(FIELD)


def _results(p: Phrases, system: str) -> Iterator[tuple[str, str]]:
    panel = _panel(system)
    for _ in range(ROLLS):
        panel.press(ROLL)
        if panel.state.mode is Mode.GUESS:
            yield f"{system} guess", said.utterance(panel.state, p) or ""
            panel.press(FIELD)  # finger 2
        yield f"{system} result", said.utterance(panel.state, p) or ""
        panel.press(MODE)  # the setup page again (one system: MODE stays on it)
    if system == "d6cv":  # a repeated check: a result without a versus (the headline counts checks)
        panel.set_field("repeat", 3)
        panel.press(ROLL)
        yield "d6cv repeat result", said.utterance(panel.state, p) or ""


def _cannot(p: Phrases, system: str) -> Iterator[tuple[str, str]]:
    """A setting that cannot roll (fingers: more karma spent than the slot has; the others:
    the first list parameter's page with a part set past what the rules allow is not
    reachable, so a spend-like problem is fingers' alone) and its message."""
    if system != "fingers":
        return
    panel = _panel(system)
    panel.set_field("spend", 2)
    yield "fingers cannot roll (setup)", said.setup(panel.state, p)
    panel.press(ROLL)
    assert panel.state.mode is Mode.MESSAGE
    yield "fingers cannot roll (message)", said.utterance(panel.state, p) or ""


def _group(p: Phrases) -> Iterator[tuple[str, str]]:
    """infinity's Coordination: each participant's turn, then the total."""
    panel = _panel("infinity")
    panel.set_list("helper", [(8,), (12,)])
    panel.press(ROLL)
    assert panel.state.mode is Mode.TURNS
    while panel.state.mode is Mode.TURNS:
        yield f"infinity turn {panel.state.turn}", said.utterance(panel.state, p) or ""
        panel.press(ROLL)
    yield "infinity coordination result", said.utterance(panel.state, p) or ""


def _chain(p: Phrases) -> Iterator[tuple[str, str]]:
    """fingers' chain: a finger per test, then the reveal."""
    panel = _panel("fingers")
    panel.set_list("chain", [(1, 3, 0), (2, 4, 0)])
    panel.to_page(rows.FIRST)
    panel.press(ROLL)
    yield "fingers chain test 1", said.utterance(panel.state, p) or ""
    panel.press(FIELD)
    yield "fingers chain test 2", said.utterance(panel.state, p) or ""
    panel.press(FIELD)
    yield "fingers chain reveal", said.utterance(panel.state, p) or ""


def _not_counted(p: Phrases) -> Iterator[tuple[str, str]]:
    """horizons with a pool: trait and skill are not counted."""
    panel = _panel("horizons")
    panel.set_field("pool", 6)
    panel.to_field("trait")
    yield "horizons trait under a pool", said.setup(panel.state, p)


def _menu(p: Phrases) -> Iterator[tuple[str, str]]:
    """Every settings item; a reset asked for and done."""
    panel = _panel("infinity")
    panel.hold(MODE)
    for item in ITEMS:
        yield f"settings {item}", said.settings(panel.state, p)
        if item is Item.ANIMATION:
            panel.press(PLUS)
            yield "settings animation changed", said.settings(panel.state, p)
        if item is Item.RESET:
            panel.press(ROLL)
            yield "settings reset asked", said.settings(panel.state, p)
            panel.press(ROLL)
            yield "settings reset done", said.settings(panel.state, p)
        panel.press(FIELD)


def _table_seed(p: Phrases) -> Iterator[tuple[str, str]]:
    """A new session's table seed asked for, entered and set; a recorded result's number; the
    reveal's four facts with and without a table seed."""
    commitment, head = "3fa2c1d0" * 8, "a1b2c3d4" * 8
    panel = _panel("d6cv")
    panel.send(Event(EventKind.SESSION, text=commitment))
    panel.press(ROLL)
    yield "table seed asked", said.utterance(panel.state, p) or ""
    panel.press(PLUS)
    yield "table seed started", said.utterance(panel.state, p) or ""
    for button in (ROLL, MODE, FIELD, PLUS, PLUS, MODE, FIELD):
        panel.press(button)
    yield "table seed growing", said.utterance(panel.state, p) or ""
    panel.press(ROLL)
    yield "table seed complete", said.utterance(panel.state, p) or ""
    panel.press(ROLL)
    panel.send(Event(EventKind.SESSION, text=sessions.committed(commitment, table_seed="51244112")))
    panel.press(ROLL)
    panel.send(Event(EventKind.LOGGED, text=sessions.roll_logged(12, head)))
    yield "recorded result", said.utterance(panel.state, p) or ""
    for seed in ("51244112", None):
        panel.send(Event(EventKind.SESSION, text=sessions.revealed(commitment, rolls=12, head=head, table_seed=seed)))
        panel.hold(MODE)
        while panel.state.item is not Item.REVEALED:
            panel.press(FIELD)
        panel.press(ROLL)
        yield f"reveal card, table seed {seed}", said.utterance(panel.state, p) or ""
        panel.press(MODE)
        panel.press(MODE)
