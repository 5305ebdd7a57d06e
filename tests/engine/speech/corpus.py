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
from engine.systems import ids
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
    for system in ids():
        yield from _pages(p, system)
        yield from _results(p, system)
        yield from _cannot(p, system)
    yield from _group(p)
    yield from _chain(p)
    yield from _not_counted(p)
    yield from _menu(p)
    yield from _table_seed(p)
    yield from _lines(p)
    yield from _full(p)
    for chance in (0.0, 0.003, 0.5, 0.996, 1.0):
        yield f"chance {chance}", said.chance(chance, p)
    panel = _panel("infinity")
    panel.press(ROLL)
    yield "unrecorded", p.say("unrecorded", said=said.utterance(panel.state, p) or "")
    data = panel.state.result.to_dict()
    yield "result without its chance", p.say("result_no_chance", system=said.system_name("infinity", p),
                                             outcome=p.outcomes[data["outcome"]],
                                             score=said.score(data, p))


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


def _seed_shown(p: Phrases, commitment: str) -> Iterator[tuple[str, str]]:
    """The question asked from the menu, and a session seeded or rolled in elsewhere, which the
    panel never rolls in: ROLL says so while a new one opens."""
    panel = _panel("d6cv")
    panel.send(Event(EventKind.SESSION, text=commitment))
    panel.hold(MODE)
    while panel.state.item is not Item.TABLE_SEED:
        panel.press(FIELD)
    panel.press(ROLL)
    yield "table seed asked from the menu", said.utterance(panel.state, p) or ""
    for text in (sessions.committed(commitment, table_seed="dragon 7"), sessions.committed(commitment, started=True)):
        panel = _panel("d6cv")
        panel.send(Event(EventKind.SESSION, text=text))
        panel.press(ROLL)
        yield f"a session not the table's: {text[65:]}", said.utterance(panel.state, p) or ""


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
    panel.send(Event(EventKind.SESSION, text=sessions.committed(commitment, table_seed="51244125")))  # as typed
    panel.press(ROLL)
    panel.send(Event(EventKind.LOGGED, text=sessions.roll_logged(12, head)))
    yield from _seed_shown(p, commitment)
    yield "recorded result", said.utterance(panel.state, p) or ""
    yield "entered result", said.fingerprint(sessions.Logged(entry=head).line, p)
    for seed in ("51244112", None):
        panel.send(Event(EventKind.SESSION, text=sessions.revealed(commitment, rolls=12, head=head, table_seed=seed)))
        panel.hold(MODE)
        while panel.state.item is not Item.REVEALED:
            panel.press(FIELD)
        panel.press(ROLL)
        yield f"reveal card, table seed {seed}", said.utterance(panel.state, p) or ""
        panel.press(MODE)
        panel.press(MODE)


#: Settings whose results, over a few seeds, write every kind of line the systems' results
#: have (each :class:`~engine.systems.panel.Line`'s phrase): doubles, a group, a volley's
#: damage, exploded dice, tracks, a contest's ties and criticals, hostiles, an opponent, a
#: lock, a chain.
LINE_SETTINGS: tuple[tuple[str, dict[str, object]], ...] = (
    ("infinity", {"rating": 8, "cr": 10}),
    ("infinity", {"rating": 8, "cr": 10, "helper": (8, 12), "related": ("8:2",), "declaration": True,
                  "modifier": 2}),
    ("infinity", {"rating": 8, "volley": True, "damage": 2, "defense": 8, "attacker": ("8:3",)}),
    ("horizons", {"trait": 3, "skill": 2, "need": 2, "opponent_pool": 3, "body": 3, "resolve": 2,
                  "wounds": (5, 1, 0), "stability": 3, "stability_boxes": 4, "stability_loss": 2}),
    ("d6cv", {"stat": 5, "cv": 7, "repeat": 3, "goal": "any"}),
    ("d6cv", {"stat": 5, "contest": "untargeted", "opponent_stat": 5}),
    ("d6cv", {"stat": 5, "contest": "targeted", "opponent_stat": 5}),
    ("d6cv", {"stat": 5, "skill": 2, "construction": "project", "complexity": 2}),
    ("immortal", {"attribute": 5, "skill": 5, "tn": 15, "hostile": ("12:3", "3::1")}),
    ("immortal", {"attribute": 5, "skill": 5, "tn": 15, "hostile": ("14:1", "3::1"), "auto_success": "yes"}),
    ("immortal", {"attribute": 5, "skill": 5, "tn": 15}),
    ("immortal", {"attribute": 5, "skill": 5, "tn": 15, "auto_success": "no"}),
    ("immortal", {"attribute": 5, "skill": 3, "tn": 10, "auto_success": "best"}),
    ("immortal", {"attribute": 5, "skill": 2, "tn": 12, "opponent": ("5+2",)}),
    ("immortal", {"attribute": 5, "skill": 2, "tn": 12, "opponent_total": 13}),
    ("immortal", {"attribute": 3, "skill": 0, "tn": 12, "untrained": True}),
    ("fingers", {"choices": 3, "winners": 3, "guess": (1,)}),
    ("fingers", {"chain": ("1/3", "2/4"), "guess": (1, 2)}),
)


def _lines(p: Phrases) -> Iterator[tuple[str, str]]:
    """The first line of each kind in the results of LINE_SETTINGS over a few seeds, as said
    (and the turns of a group roll)."""
    import engine
    from engine import systems
    from engine.systems.panel import said_of
    from tests.support import seeded_dice

    seen: set[str] = set()
    for system, params in LINE_SETTINGS:
        panel = systems.get(system).panel
        for seed in range(40):
            data = engine.roll(system, rng=seeded_dice(f"lines {seed}".encode()), **params)
            lines = [*panel.details(data), *(line for _, turn in panel.turns(data) for line in turn)]
            for line in lines:
                phrase = said_of(line)
                key = phrase.key if phrase is not None else ""
                marks = [v.key for v in (phrase.values.values() if phrase is not None else ())
                         if isinstance(v, type(phrase)) and v.key]
                if key and not ({key, *marks} <= seen):
                    seen |= {key, *marks}
                    yield f"{system} line {key}", " ".join(said.lines_said([line], p))
            if data.get("total") is None and "versus_auto" not in seen:  # nothing rolled: automatic
                seen.add("versus_auto")
                yield f"{system} automatic", said.score(data, p)


def _full(p: Phrases) -> Iterator[tuple[str, str]]:
    """Everything on a screen (a held FIELD): a setup page, one that cannot roll, the menu,
    a session's commitment and none; a code being entered."""
    commitment = "3fa2c1d0" * 8
    panel = _panel("fingers")
    panel.send(Event(EventKind.SESSION, text=commitment))
    yield "fingers page in full", said.utterance(panel.state, p, full=True) or ""
    panel.set_field("spend", 2)
    yield "fingers cannot roll in full", said.utterance(panel.state, p, full=True) or ""
    panel.set_field("spend", 0)
    panel.hold(MODE)
    yield "settings in full", said.utterance(panel.state, p, full=True) or ""
    panel.press(FIELD, FIELD, FIELD, FIELD)
    assert panel.state.item is Item.SESSION
    panel.press(ROLL)
    yield "the commitment", said.utterance(panel.state, p) or ""
    panel.press(MODE)
    panel.send(Event(EventKind.SESSION, text="only 0 of the 256 bits"))
    panel.press(ROLL)
    yield "no session open", said.utterance(panel.state, p) or ""
    panel.press(MODE, MODE)
    panel.send(Event(EventKind.SESSION, text=commitment))
    panel.press(ROLL, PLUS)
    for button in (ROLL, MODE, FIELD, PLUS, PLUS, MODE, FIELD):
        panel.press(button)
    yield "table seed, one more", said.utterance(panel.state, p) or ""
    yield "table seed in full", said.utterance(panel.state, p, full=True) or ""
