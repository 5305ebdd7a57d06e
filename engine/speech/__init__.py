"""What the tower says aloud, for players who cannot read a 0.96" OLED across a table.

Pure, like the rest of ``engine``: :mod:`engine.speech.words` turns a panel state into one
sentence, from the systems' own data (the outcome's name, :class:`~engine.systems.panel.Versus`,
the page's rows and labels) and a phrase table; the hardware (``hardware/speech``) speaks it
through eSpeak NG. Every word is in the phrase table of a language, one module each
(:data:`LANGUAGES`; ``en.py`` is the model), so a translation is one file: docs/speech.md.
"""

from __future__ import annotations

import importlib
import string
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engine.errors import EngineError

#: The phrase tables there are, by language code (a module ``engine/speech/CODE.py`` each).
LANGUAGES: tuple[str, ...] = ("en", "de")

#: The templates every table has, and the names each one may use (checked when a table loads,
#: so a translation with a typo fails at start-up, not in the middle of a roll).
TEMPLATES: Mapping[str, frozenset[str]] = MappingProxyType({
    "result": frozenset({"system", "outcome", "score", "chance"}),
    "result_no_chance": frozenset({"system", "outcome", "score"}),
    "unrecorded": frozenset({"said"}),
    "versus": frozenset({"reached", "what", "needed"}),
    "hand": frozenset({"guess", "winners"}),
    "percent": frozenset({"n"}),
    "under": frozenset({"n"}),
    "over": frozenset({"n"}),
    "certain": frozenset(),
    "impossible": frozenset(),
    "setup": frozenset({"title", "row", "chance"}),
    "setup_cannot": frozenset({"title", "row", "why"}),
    "row": frozenset({"label", "value"}),
    "not_counted": frozenset({"value"}),
    "guess": frozenset({"system", "fingers"}),
    "guess_test": frozenset({"n", "fingers"}),
    "span": frozenset({"first", "last"}),
    "turn": frozenset({"who", "n", "count"}),
    "message": frozenset({"title", "text"}),
    "settings": frozenset({"row"}),
    "settings_armed": frozenset({"item"}),
    "settings_note": frozenset({"note", "said"}),
    "of": frozenset({"a", "b"}),
    "seconds": frozenset({"n"}),
    "player": frozenset({"n"}),
    "and": frozenset({"items", "last"}),
    "recorded": frozenset({"said", "n"}),
    "seed_ask": frozenset({"session"}),
    "seed_start": frozenset({"n"}),
    "seed_more": frozenset({"code", "left"}),
    "seed_done": frozenset({"code"}),
    "card": frozenset({"session", "rolls", "seed", "head"}),
    "card_no_seed": frozenset({"session", "rolls", "head"}),
})


class SpeechError(EngineError, ValueError):
    """A phrase table is missing or broken; the message names the language and the key."""


@dataclass(frozen=True)
class Phrases:
    """One language's phrase table (see ``en.py`` for what each part holds)."""

    language: str
    voice: str
    templates: Mapping[str, str]
    terms: Mapping[str, str]
    words: Mapping[str, str]
    outcomes: Mapping[str, str]
    systems: Mapping[str, str]

    def say(self, key: str, **values: object) -> str:
        return self.templates[key].format(**values)


def table(language: str) -> Phrases:
    """The phrase table of ``language`` (a code of :data:`LANGUAGES`), checked whole."""
    code = str(language).strip().lower()
    if code not in LANGUAGES:
        raise SpeechError(f"speech language: one of {', '.join(LANGUAGES)}, got {language!r}")
    module = importlib.import_module(f"engine.speech.{code}")
    phrases = Phrases(
        language=code,
        voice=str(module.VOICE),
        templates=MappingProxyType(dict(module.TEMPLATES)),
        terms=MappingProxyType(dict(module.TERMS)),
        words=MappingProxyType({k.lower(): v for k, v in module.WORDS.items()}),
        outcomes=MappingProxyType(dict(module.OUTCOMES)),
        systems=MappingProxyType(dict(module.SYSTEMS)),
    )
    check(phrases)
    return phrases


def check(phrases: Phrases) -> None:
    """Every template there, each using only the names it is given."""
    missing = sorted(set(TEMPLATES) - set(phrases.templates))
    extra = sorted(set(phrases.templates) - set(TEMPLATES))
    if missing or extra:
        what = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}"
        raise SpeechError(f"speech language {phrases.language}: templates {what}")
    for key, text in phrases.templates.items():
        try:
            used = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
        except ValueError as exc:
            raise SpeechError(f"speech language {phrases.language}: template {key}: {exc}") from None
        unknown = sorted(used - TEMPLATES[key])
        if unknown:
            allowed = ", ".join(sorted(TEMPLATES[key])) or "none"
            raise SpeechError(f"speech language {phrases.language}: template {key} uses {{{unknown[0]}}} "
                              f"(allowed: {allowed})")
