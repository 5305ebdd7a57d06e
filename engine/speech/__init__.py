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
from collections.abc import Mapping
from dataclasses import dataclass, field
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
    "infinity.rating": frozenset({"n"}),
    "infinity.dice": frozenset({"hot", "cold", "bonus"}),
    "infinity.doubles": frozenset({"kind"}),
    "infinity.participant": frozenset({"who", "rating", "hot", "cold", "total", "mark"}),
    "infinity.base": frozenset(),
    "infinity.adds": frozenset(),
    "infinity.make_up": frozenset({"total", "base", "parts"}),
    "infinity.part": frozenset({"n", "what"}),
    "horizons.successes": frozenset({"n"}),
    "horizons.net": frozenset({"net", "opponent"}),
    "horizons.opponent_dice": frozenset({"faces"}),
    "horizons.exploded": frozenset({"n"}),
    "horizons.status": frozenset({"status"}),
    "horizons.breakdown": frozenset(),
    "d6cv.check": frozenset({"part", "cv", "face", "total", "verdict", "critical"}),
    "d6cv.tie": frozenset({"you", "total", "opponent", "opponent_total"}),
    "d6cv.exchange": frozenset({"part", "you", "total", "yours", "opponent", "opponent_total", "theirs",
                                "verdict"}),
    "d6cv.crit": frozenset(),
    "d6cv.fumble": frozenset(),
    "d6cv.their_crit": frozenset(),
    "d6cv.their_fumble": frozenset(),
    "d6cv.critical_success": frozenset(),
    "d6cv.critical_failure": frozenset(),
    "d6cv.won_critical": frozenset(),
    "d6cv.lost_critical": frozenset(),
    "d6cv.base_time": frozenset({"time"}),
    "immortal.automatic": frozenset({"skill", "per", "tn"}),
    "immortal.primary_automatic": frozenset({"skill", "per", "tn"}),
    "immortal.rolled_best": frozenset(),
    "immortal.rolled_off": frozenset(),
    "immortal.colour": frozenset({"colour", "attribute"}),
    "immortal.bonus": frozenset({"bonus", "left"}),
    "immortal.hostile": frozenset({"n", "tn", "die", "total", "used", "verdict"}),
    "immortal.hostile_automatic": frozenset({"n", "tn", "used", "verdict"}),
    "immortal.bonus_used": frozenset({"n"}),
    "immortal.opponent": frozenset({"attribute", "skill", "die", "total"}),
    "immortal.opponent_total": frozenset({"total"}),
    "immortal.locked": frozenset(),
    "fingers.picked": frozenset({"guess"}),
    "fingers.winners": frozenset({"faces"}),
    "fingers.automatic": frozenset(),
    "fingers.test": frozenset({"n", "challenge", "winners", "guess", "verdict"}),
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
    """One language's phrase table (see ``en.py`` for what each part holds)."""

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

    def say(self, key: str, **values: object) -> str:
        if values.get("n") == 1 and key + ONE in self.templates:
            key += ONE
        return self.templates[key].format(**values)

    def number(self, text: str) -> str:
        """A number as written for the voice: ``0.8`` in English, ``0,8`` in German."""
        return text.replace(".", self.decimal)


def table(language: str) -> Phrases:
    """The phrase table of ``language`` (a code of :data:`LANGUAGES`), checked whole."""
    code = str(language).strip().lower()
    if code not in LANGUAGES:
        raise SpeechError("speech language", f"one of {', '.join(LANGUAGES)}, got {language!r}")
    module = importlib.import_module(f"engine.speech.{code}")
    phrases = Phrases(
        language=code,
        voice=str(module.VOICE),
        decimal=str(module.DECIMAL),
        templates=MappingProxyType(dict(module.TEMPLATES)),
        terms=MappingProxyType(dict(module.TERMS)),
        words=MappingProxyType({k.lower(): v for k, v in module.WORDS.items()}),
        outcomes=MappingProxyType(dict(module.OUTCOMES)),
        systems=MappingProxyType(dict(module.SYSTEMS)),
        reasons=MappingProxyType(dict(module.REASONS)),
    )
    check(phrases)
    return phrases


def check(phrases: Phrases) -> None:
    """Every template there, each using only the names it is given; each reason's translation
    only the parts its English has."""
    for english, said in phrases.reasons.items():
        given = set(re.findall(r"\{(\d+)\}", english))
        used = set(re.findall(r"\{(\d+)\}", said))
        if not used <= given:
            raise SpeechError(f"speech language {phrases.language}",
                              f"reason {english!r} has no part {{{min(used - given)}}}")
    missing = sorted(set(TEMPLATES) - set(phrases.templates))
    extra = sorted({k for k in phrases.templates if k.removesuffix(ONE) not in TEMPLATES})
    if missing or extra:
        what = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}"
        raise SpeechError(f"speech language {phrases.language}", f"templates {what}")
    for key, text in phrases.templates.items():
        try:
            used = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
        except ValueError as exc:
            raise SpeechError(f"speech language {phrases.language}", f"template {key}: {exc}") from None
        allowed_names = TEMPLATES[key.removesuffix(ONE)]
        unknown = sorted(used - allowed_names)
        if unknown:
            allowed = ", ".join(sorted(allowed_names)) or "none"
            raise SpeechError(f"speech language {phrases.language}",
                              f"template {key} uses {{{unknown[0]}}} (allowed: {allowed})")
