"""What the tower says aloud, for players who cannot read a 0.96" OLED across a table.

Pure, like the rest of ``engine``: :mod:`engine.speech.words` turns a panel state into one
sentence, from the systems' own data (the outcome's name, :class:`~engine.systems.panel.Versus`,
the page's rows and labels) and a phrase table; the hardware (``hardware/speech``) speaks it
through eSpeak NG. Every word is in the phrase table of a language, one module each
(:data:`LANGUAGES`; ``en.py`` is the model), so a translation is one file: docs/speech.md.
"""

from __future__ import annotations

import importlib
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType

from engine import systems
from engine.errors import EngineError
from engine.systems.panel import Speech

#: The phrase tables there are, by language code (a module ``engine/speech/CODE.py`` each).
LANGUAGES: tuple[str, ...] = ("en", "de")

#: The templates every table has, and the names each one may use (checked when a table loads,
#: so a translation with a typo fails at start-up, not in the middle of a roll). Each system
#: adds its own (``Speech.names``, ``ID.NAME``).
TEMPLATES: Mapping[str, frozenset[str]] = MappingProxyType({
    "result": frozenset({"system", "outcome", "score", "chance"}),
    "result_no_chance": frozenset({"system", "outcome", "score"}),
    "unrecorded": frozenset({"said"}),
    "versus": frozenset({"reached", "what", "needed"}),
    "versus_auto": frozenset({"what", "needed"}),
    "percent": frozenset({"n"}),
    "under": frozenset({"n"}),
    "over": frozenset({"n"}),
    "certain": frozenset(),
    "impossible": frozenset(),
    "setup": frozenset({"title", "row", "chance"}),
    "setup_cannot": frozenset({"title", "row", "why"}),
    "setup_full": frozenset({"title", "chance", "rows"}),
    "setup_full_cannot": frozenset({"title", "rows"}),
    "row": frozenset({"label", "value"}),
    "not_counted": frozenset({"value"}),
    "player_carries": frozenset({"n", "what"}),
    "session_mark": frozenset({"session"}),
    "guess": frozenset({"head", "fingers"}),
    "span": frozenset({"first", "last"}),
    "turn": frozenset({"system", "who", "n", "count"}),
    "turn_next": frozenset({"who"}),
    "turn_total": frozenset(),
    "message": frozenset({"title", "text"}),
    "settings": frozenset({"row"}),
    "settings_armed": frozenset({"item"}),
    "settings_note": frozenset({"note", "said"}),
    "settings_full": frozenset({"rows"}),
    "commitment": frozenset({"session"}),
    "no_commitment": frozenset(),
    "of": frozenset({"a", "b"}),
    "seconds": frozenset({"n"}),
    "player": frozenset({"n"}),
    "and": frozenset({"items", "last"}),
    "plus": frozenset({"n"}),
    "minus": frozenset({"n"}),
    "recorded": frozenset({"n", "entry"}),
    "entered": frozenset({"entry"}),
    "seed_ask": frozenset({"session"}),
    "seed_ask_menu": frozenset({"session"}),
    "seed_start": frozenset({"n", "session"}),
    "seed_more": frozenset({"code", "left"}),
    "seed_done": frozenset({"code"}),
    "card": frozenset({"session", "rolls", "seed", "head"}),
    "card_no_seed": frozenset({"session", "rolls", "head"}),
    # the lines of a result, by the systems' PanelSpec.details (engine.systems.panel.Line)
    "dice": frozenset({"faces"}),
    "damage": frozenset({"n"}),
    "track": frozenset({"track", "marked", "total"}),
})

#: A template's variant for a count of one: ``KEY/1`` (``1 die exploded``), optional, with
#: the names of ``KEY``.
ONE = "/1"


class SpeechError(EngineError, ValueError):
    """A phrase table is missing or broken: ``subject`` names the language (``speech language
    de``), ``detail`` the key and what is wrong with it."""

    def __init__(self, subject: str, detail: str) -> None:
        super().__init__(f"{subject}: {detail}")
        self.subject = subject
        self.detail = detail


@dataclass(frozen=True)
class Phrases:
    """One language's phrase table (see ``en.py`` for what each part holds), with every
    installed system's phrasebook in that language merged in (``PanelSpec.speech``).
    ``names`` are the names each template may use: :data:`TEMPLATES` and the systems' own."""

    language: str
    voice: str
    decimal: str
    templates: Mapping[str, str]
    terms: Mapping[str, str]
    words: Mapping[str, str]
    outcomes: Mapping[str, str]
    systems: Mapping[str, str]

    #: English screen text the engine gives as the reason a setting cannot roll, in this
    #: language, by shape (numbers as ``{0}``, ``{1}``): ``reasons`` in the table.
    reasons: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    names: Mapping[str, frozenset[str]] = field(default_factory=lambda: TEMPLATES)

    def say(self, key: str, **values: object) -> str:
        if values.get("n") == 1 and key + ONE in self.templates:
            key += ONE
        return self.templates[key].format(**values)

    def number(self, text: str) -> str:
        """A number as written for the voice: ``0.8`` in English, ``0,8`` in German."""
        return text.replace(".", self.decimal)


def _module(language: str) -> ModuleType:
    code = str(language).strip().lower()
    if code not in LANGUAGES:
        raise SpeechError("speech language", f"one of {', '.join(LANGUAGES)}, got {language!r}")
    return importlib.import_module(f"engine.speech.{code}")


def voice(language: str) -> str:
    """eSpeak NG's voice for ``language`` (its table's ``VOICE``), without loading any system."""
    return str(_module(language).VOICE)


def table(language: str, chosen: Iterable[str] | None = None) -> Phrases:
    """The phrase table of ``language`` (a code of :data:`LANGUAGES`) with the phrasebooks of
    the ``chosen`` systems (ids; None: every installed system) in it, checked whole. Each system named
    is imported: a tower passes the ones it enables."""
    module = _module(language)
    code = module.__name__.rsplit(".", 1)[-1]
    parts: dict[str, dict[str, str]] = {
        "templates": dict(module.TEMPLATES),
        "terms": {},  # every term is a system's (its phrasebook)
        "words": {k.lower(): v for k, v in module.WORDS.items()},
        "outcomes": dict(module.OUTCOMES),
        "systems": {},
        "reasons": dict(module.REASONS),
    }
    names = dict(TEMPLATES)
    specs = systems.all_systems() if chosen is None else tuple(systems.get(s) for s in chosen)
    for spec in specs:
        merge(parts, names, spec.id, spec.panel.speech, code)
    phrases = Phrases(
        language=code,
        voice=str(module.VOICE),
        decimal=str(module.DECIMAL),
        templates=MappingProxyType(parts["templates"]),
        terms=MappingProxyType(parts["terms"]),
        words=MappingProxyType(parts["words"]),
        outcomes=MappingProxyType(parts["outcomes"]),
        systems=MappingProxyType(parts["systems"]),
        reasons=MappingProxyType(parts["reasons"]),
        names=MappingProxyType(names),
    )
    check(phrases)
    return phrases


@dataclass
class Tables:
    """One language's phrase tables for a tower, each made once: the generic table with the
    phrasebooks of the systems named (:func:`table`), for the few sets a panel's screens ask
    for (engine.speech.words.tables_of). A tower with a speaker so imports no system for its
    speech that its panel has not imported already (the first frame needs only the first)."""

    language: str
    systems: tuple[str, ...]
    _made: dict[tuple[str, ...], Phrases] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        _module(self.language)  # a bad language fails here, at start-up

    def of(self, chosen: tuple[str, ...]) -> Phrases:
        made = self._made.get(chosen)
        if made is None:
            made = self._made[chosen] = table(self.language, chosen)
        return made


def merge(parts: dict[str, dict[str, str]], names: dict[str, frozenset[str]], system: str, speech: Speech,
          language: str) -> None:
    """One system's phrasebook in ``language`` (its English one if it has none) into the
    table's ``parts``. Its templates must be its own (``ID.NAME``); a term, word, outcome or
    reason the table already has keeps the table's (the generic words, then the systems in
    listing order): a plug-in adds words, it never changes another's."""
    book = speech.book(language)
    for key in list(speech.names) + list(book.templates):
        if not key.startswith(system + "."):
            raise SpeechError(f"speech: system {system}", f"template {key!r} is not its own (start it with "
                                                           f"{system}.)")
    names.update(speech.names)
    parts["templates"].update(book.templates)
    if book.name:
        parts["systems"].setdefault(system, book.name)
    for part, given in (("terms", book.terms), ("words", book.words), ("outcomes", book.outcomes),
                        ("reasons", book.reasons)):
        for key, value in given.items():
            parts[part].setdefault(key, value)


def check(phrases: Phrases) -> None:
    """Every template there, each using only the names it is given; each reason's translation
    only the parts its English has."""
    for english, said in phrases.reasons.items():
        given = set(re.findall(r"\{(\d+)\}", english))
        used = set(re.findall(r"\{(\d+)\}", said))
        if not used <= given:
            raise SpeechError(f"speech language {phrases.language}",
                              f"reason {english!r} has no part {{{min(used - given)}}}")
    known = phrases.names
    missing = sorted(set(known) - set(phrases.templates))
    extra = sorted({k for k in phrases.templates if k.removesuffix(ONE) not in known})
    if missing or extra:
        what = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}"
        raise SpeechError(f"speech language {phrases.language}", f"templates {what}")
    for key, text in phrases.templates.items():
        try:
            used = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
        except ValueError as exc:
            raise SpeechError(f"speech language {phrases.language}", f"template {key}: {exc}") from None
        allowed_names = known[key.removesuffix(ONE)]
        unknown = sorted(used - allowed_names)
        if unknown:
            allowed = ", ".join(sorted(allowed_names)) or "none"
            raise SpeechError(f"speech language {phrases.language}",
                              f"template {key} uses {{{unknown[0]}}} (allowed: {allowed})")
