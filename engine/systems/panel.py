"""What the button panel knows about a system, kept on the system's :class:`SystemSpec`.

One value per system (:class:`PanelSpec`) says how its dice look (sides, names), which
parameters FIELD offers on the first page and which on the "advanced" page, which are set
in a multi-step flow (:class:`Flow`) and how a list parameter's items are edited
(:class:`ListShape`), what a player slot carries from roll to roll (:class:`Carried`), and
how a result reads on the 128x64 screen (``headline`` and ``details``). The panel
(``engine/panel``) reads only this, so a new system is its own package plus one entry point
(docs/architecture.md, "Writing a system plug-in").

Every parameter has a route: ``field`` (a row FIELD reaches) or ``flow:NAME``; a test holds
the registry to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

#: Parameter kinds a panel row can step through with MINUS and PLUS.
SCALAR_KINDS = ("int", "bool", "choice")


@dataclass(frozen=True)
class Part:
    """One number of a list item as the panel edits it (a helper's rating, a hostile's TN).

    ``lo..hi`` is the range MINUS/PLUS walk; ``start`` is a new item's value. ``omit`` is a
    value meaning "left out" (an item's optional tail, e.g. a hostile's legacy 0)."""

    name: str
    lo: int
    hi: int
    start: int
    omit: int | None = None
    names: tuple[str, ...] = ()  # how values lo.. read (a colour's name), if not as numbers

    def show(self, value: int) -> str:
        if value == self.omit:
            return "-"
        index = value - self.lo
        return self.names[index] if 0 <= index < len(self.names) else str(value)


@dataclass(frozen=True)
class ListShape:
    """How the panel builds a list parameter: up to ``most`` items (``fixed`` for a positional
    list such as a wound track's three tiers), each of ``parts``; ``text`` turns one item's
    part values into what the parameter takes (``"12:3"``)."""

    parts: tuple[Part, ...]
    text: Callable[[tuple[int, ...]], Any]
    most: int = 6
    fixed: int | None = None


@dataclass(frozen=True)
class Flow:
    """A multi-step route: a page of its own (opened from the advanced page) that sets
    ``params`` together, or, with ``page`` False, a route the panel takes without a page
    (a finger guess, the player slot's karma, the skill lock) that ``help`` explains."""

    name: str
    params: tuple[str, ...]
    help: str
    page: bool = True


@dataclass(frozen=True)
class Carried:
    """A value a player slot keeps between rolls: parameter ``param`` is fed from the slot and
    result field ``field`` (dotted path into the result's JSON) is stored back. ``who`` is
    ``roller`` (the player rolling) or ``target`` (the slot the flow's ``target`` row names:
    horizons' defender)."""

    param: str
    field: str
    who: str = "roller"


@dataclass(frozen=True)
class Start:
    """What a fresh or reset player slot starts with for parameter ``param`` (one the slot
    supplies, in :attr:`PanelSpec.player`): the settings menu's item ``start PARAM`` sets it
    within ``lo..hi``, the config's ``[panel] start_PARAM`` at power-on; ``default`` before
    either does (fingers' karma: 0 to 5, from 0)."""

    param: str
    lo: int
    hi: int
    default: int = 0

    def __str__(self) -> str:
        return f"start {self.param.replace('_', ' ')}"  # the menu's label

    @property
    def key(self) -> str:
        """The config's key: ``start_PARAM``."""
        return f"start_{self.param}"

    def clamp(self, value: int) -> int:
        return min(self.hi, max(self.lo, value))


@dataclass(frozen=True)
class Lock:
    """A result flag kept per numbered slot: when result field ``flag`` is true, the value of
    panel row ``key`` (a skill slot) is locked for the player; the next roll passes
    ``param`` true only when that same slot is locked (immortal's untrained-skill lock)."""

    flag: str
    param: str
    key: str


@dataclass(frozen=True)
class Versus:
    """What a result reached against what it needed, as numbers, for speech (the headline's
    ``14 vs 10`` said as "14 against C R 10"): ``term`` names what was needed, a parameter
    (``cr``, ``need``) or a result field (``opponent_total``); the phrase table says it in
    words (engine/speech)."""

    reached: int | None  # None: nothing rolled (an automatic success)
    needed: int
    term: str


@dataclass(frozen=True)
class Phrase:
    """How a piece of screen text is said: ``key`` names a template of the phrase tables
    (engine/speech, ``en.py``), ``values`` fill it in. A value may be a number, a screen word
    (said in the table's words), a tuple (said as a list) or another :class:`Phrase`."""

    key: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))


def phrase(key: str, **values: Any) -> Phrase:
    return Phrase(key, values)


@dataclass(frozen=True)
class Phrasebook:
    """How a system is said in one language: what it adds to that language's phrase table
    (engine.speech). ``name`` is the id as said where it is not a word (``d 6 C V``; "": as
    written); ``templates`` its result lines' phrases, each key ``ID.NAME`` (``/1`` after it:
    the variant for a count of one); ``terms`` what a :class:`Versus` was against where its
    label would not do; ``words`` its screen words (labels, values, abbreviations) said
    otherwise, matched without regard to case; ``outcomes`` its outcome names beyond success
    and failure; ``reasons`` its English reasons a setting cannot roll, translated whole (each
    variable part ``{0}``, ``{1}``)."""

    name: str = ""
    templates: Mapping[str, str] = field(default_factory=dict)
    terms: Mapping[str, str] = field(default_factory=dict)
    words: Mapping[str, str] = field(default_factory=dict)
    outcomes: Mapping[str, str] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("templates", "terms", "outcomes", "reasons"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        object.__setattr__(self, "words", MappingProxyType({k.lower(): v for k, v in self.words.items()}))


@dataclass(frozen=True)
class Speech:
    """Everything a system says, in every language it speaks: ``names`` are the names each of
    its templates may use (``ID.NAME`` -> names; checked when a table loads), ``languages`` its
    :class:`Phrasebook` by language code. A language it lacks is said with its English one."""

    names: Mapping[str, frozenset[str]] = field(default_factory=dict)
    languages: Mapping[str, Phrasebook] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", MappingProxyType({k: frozenset(v) for k, v in self.names.items()}))
        object.__setattr__(self, "languages", MappingProxyType(dict(self.languages)))

    def book(self, language: str) -> Phrasebook:
        """Its phrasebook in ``language``, else its English one, else an empty one."""
        return self.languages.get(language) or self.languages.get("en") or Phrasebook()


#: A :class:`Line`'s ``said`` for a line the result's first sentence already says (the
#: outcome) or that is said with the line before it (a make-up packed onto two lines).
SAID_ELSEWHERE = Phrase("")


class Line(str):
    """One line of a result's text (``details``, ``turns``) that also knows how it is said.

    It *is* the screen text (a ``str``, wrapped and shown as ever); ``said`` is the
    :class:`Phrase` speech makes of it (None: the text said as written, in the table's
    words; :data:`SAID_ELSEWHERE`: nothing of its own). Keeping both in one value is what
    keeps the ear and the eye told the same facts (tests/hardware/test_speech_walk.py)."""

    said: Phrase | None

    def __new__(cls, text: str, said: Phrase | None = None) -> Line:
        line = super().__new__(cls, text)
        line.said = said
        return line


def said_of(line: str) -> Phrase | None:
    """How ``line`` is said: its :class:`Line`'s phrase, None for plain text."""
    return line.said if isinstance(line, Line) else None


def _no_versus(data: Mapping[str, Any]) -> Versus | None:
    return None


def _no_lines(data: Mapping[str, Any]) -> list[str]:
    return []


def _plain_headline(data: Mapping[str, Any]) -> str:
    total = data.get("total")
    return f"total {total}" if total is not None else str(data.get("outcome", ""))


@dataclass(frozen=True)
class PanelSpec:
    """The panel's knowledge of one system (see the module docstring)."""

    sides: int = 10  # faces the rolling animation shows
    labels: Mapping[str, str] = field(default_factory=dict)  # parameter -> screen label
    advanced: tuple[str, ...] = ()  # field parameters moved from the first page to the advanced one
    flows: tuple[Flow, ...] = ()
    lists: Mapping[str, ListShape] = field(default_factory=dict)
    extra: tuple[Any, ...] = ()  # panel-only rows (engine.params.Param), never passed to roll
    carried: tuple[Carried, ...] = ()
    locks: tuple[Lock, ...] = ()
    player: tuple[str, ...] = ()  # parameters the player slot supplies (karma)
    starts: tuple[Start, ...] = ()  # what a fresh slot starts with for them, set in the settings menu
    omit: Mapping[str, str] = field(default_factory=dict)  # param -> left out while this is set
    needs: Mapping[str, str] = field(default_factory=dict)  # param -> passed only while this is set
    #: a parameter whose every value's chance the first page shows when they differ (immortal's
    #: automatic success: the rules make it the player's option, so the player sees both)
    compare: str | None = None
    #: The values of ``compare`` whose chances are shown (empty: every value it allows).
    compare_values: tuple[Any, ...] = ()
    target: str | None = None  # panel-only row naming the player slot ``target`` values live in
    guess: str | None = None  # parameter set by pressing a finger button
    hand: str | None = None  # result field with the winning fingers (no dice to show)
    count: str | None = None  # result field lighting that many LEDs (successes)
    colour: str | None = None  # result field naming the roll's colour (the RGB LED shows it)
    #: colour name -> (red, green, blue), 0..255: how the RGB LED shows each of the roll's
    #: colours, from the rules' own table so the device and the rules agree on the hue
    colours: Mapping[str, tuple[int, int, int]] = field(default_factory=dict)
    #: outcomes that are neither success nor failure (infinity's complication): amber on the
    #: RGB LED and their own tone
    mixed: frozenset[str] = frozenset()
    #: guess screen: the test whose finger is picked, from the roll's parameters as set and
    #: the test's number (from 0; one per test of a chain)
    hidden: Callable[[Mapping[str, Any], int], str] = lambda params, test: ""
    headline: Callable[[Mapping[str, Any]], str] = _plain_headline  # "12 vs 10"
    #: the headline's two numbers and what the second is, for speech; None: a result without
    #: one (a chain of checks, a hand), which speech says from the headline or the hand
    versus: Callable[[Mapping[str, Any]], Versus | None] = _no_versus
    #: result lines, in order; a :class:`Line` also says how it is spoken (engine/speech)
    details: Callable[[Mapping[str, Any]], list[str]] = _no_lines
    #: a group roll revealed one participant per ROLL: (who, their lines) each, in turn
    turns: Callable[[Mapping[str, Any]], list[tuple[str, list[str]]]] = lambda data: []
    #: how it is said, in each language (engine.speech merges it into the phrase tables)
    speech: Speech = field(default_factory=Speech)

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", MappingProxyType(dict(self.labels)))
        object.__setattr__(self, "lists", MappingProxyType(dict(self.lists)))
        object.__setattr__(self, "omit", MappingProxyType(dict(self.omit)))
        object.__setattr__(self, "needs", MappingProxyType(dict(self.needs)))
        object.__setattr__(self, "colours", MappingProxyType(dict(self.colours)))
        object.__setattr__(self, "mixed", frozenset(self.mixed))

    def flow(self, name: str) -> Flow:
        for f in self.flows:
            if f.name == name:
                return f
        raise KeyError(name)

    def flow_of(self, param: str) -> Flow | None:
        for f in self.flows:
            if param in f.params:
                return f
        return None

    def route(self, param: Any) -> str:
        """``field`` or ``flow:NAME`` for an :class:`engine.params.Param`; ``""`` if none."""
        owner = self.flow_of(param.name)
        if owner is not None:
            return f"flow:{owner.name}"
        if param.kind in SCALAR_KINDS:
            return "field"
        return ""

    def label(self, param: Any) -> str:
        return self.labels.get(param.name, param.cli_name)

    def carried_for(self, who: str) -> tuple[Carried, ...]:
        return tuple(c for c in self.carried if c.who == who)


def value_at(data: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path in a result's JSON (``stability_after.marked``), or None."""
    value: Any = data
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


# --- shared wording for the systems' ``details`` -------------------------------------------

#: A marked and an empty box of a track, both in the panel's font.
MARKED, EMPTY = "\u2588", "\u00b7"


def boxes(name: str, marked: int, total: int, *, track: str | None = None) -> Line:
    """``minor ██····· 2/7``: a track as boxes, so spill-over into the next tier shows; said
    "minor: 2 of 7 boxes marked" (``track`` names the track in the phrase table's words)."""
    marked = max(0, min(marked, total))
    return Line(f"{name} {MARKED * marked}{EMPTY * (total - marked)} {marked}/{total}",
                phrase("track", track=track or name, marked=marked, total=total))


def numbers(label: str, values: Any, *, key: str = "dice") -> Line:
    """``dice 3 1 9 9``: a list of numbers in full (the screen wraps or pages a long one);
    said by the template ``key`` with the numbers as a list."""
    items = " ".join(str(v) for v in values) if values else "-"
    faces = tuple(values or ())
    return Line(f"{label} {items}", phrase(key, faces=faces, n=len(faces)))  # n: "die 4", "dice 3 and 5"


#: Characters on a line of the 128x64 screen (6x8 font), ``engine.panel.screens.WIDTH``; here
#: for a system that packs its own terms into lines.
LINE = 21


def pack(terms: Sequence[str], width: int = LINE) -> list[str]:
    """``terms`` joined by spaces into lines of at most ``width``, never breaking a term
    inside (``+18 weapon`` stays whole); a term longer than a line is a line of its own,
    which the screen wraps as any long line."""
    lines: list[str] = []
    for term in terms:
        if lines and len(lines[-1]) + 1 + len(term) <= width:
            lines[-1] += " " + term
        else:
            lines.append(term)
    return lines


def outcome_line(data: Mapping[str, Any], *extra: str, said: Phrase | None = None) -> Line:
    """``solid SR2``: the outcome and its degree; said as ``said`` (the degree; the outcome
    itself opens the spoken result), or not at all."""
    text = " ".join([str(data.get("outcome", "")), *(e for e in extra if e)])
    return Line(text, said if said is not None else SAID_ELSEWHERE)


def signed(n: int) -> str:
    """``+3``, ``-2``, ``+0``: a bonus as the screen writes it (speech says "plus 3")."""
    return f"{n:+d}"
