"""What the tower says for what the panel shows, in a phrase table's words.

Everything said about a result or a setting comes from the systems' own data: the outcome's
name (``SystemSpec.outcomes``), what the score was against (``PanelSpec.versus``, else the
``headline``), each line of the result as the system wrote it (``PanelSpec.details``: a
:class:`~engine.systems.panel.Line` carries the phrase it is said by), the page's title and
rows as the screen labels them. No function here names a system; the words are the table's.

Two kinds of screens (docs/speech.md): those said **at once**, with the screen (a result, a
group roll's turn, the hidden hand's prompt, a message, the table seed page, a reveal's four
facts, the session's commitment), whose :func:`moment` changes when a new one comes up; and
those said **once the buttons are still** (the setup page, the settings menu), briefly: the
page, the selected row, the chance and the page's notes. :func:`utterance` gives the sentence
for either; with ``full`` (a held FIELD, docs/panel.md) everything the screen shows.

Numbers are said as the screen means them: a chance in whole percent, a code (the table
seed, a fingerprint) a character at a time, a fraction with the language's decimal sign.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any

from engine import systems
from engine.errors import EngineError
from engine.fingerprints import FINGERPRINT_HEX
from engine.panel import pages
from engine.panel import sessions as session_text
from engine.panel import tableseed as seeding
from engine.panel.state import Mode, PanelState
from engine.panel.view import page_title, player_line, row_text, setting_value, setup_notes, table_seed_line
from engine.results import RollResult
from engine.speech import Phrases, Tables
from engine.systems.panel import SAID_ELSEWHERE, Phrase, said_of

#: Screens said at once, as they come up; the others wait for the buttons to be still.
AT_ONCE = frozenset({Mode.RESULT, Mode.TURNS, Mode.GUESS, Mode.MESSAGE, Mode.TABLE_SEED, Mode.CARD, Mode.SESSION})
#: Screens said once the buttons have been still for a moment.
WHEN_STILL = frozenset({Mode.SETUP, Mode.SETTINGS})
#: Hex digits of a hash said aloud: a commitment, a head or a fingerprint is said by its
#: first 16 (what ``--expect`` matches, 2^64 to forge); a shorter one whole.
SPOKEN_HEX = 16
#: Digits from which a number on the screen is a code, said a digit at a time (a table seed
#: ``31425512``); no count or total the panel shows comes near it.
CODE_DIGITS = 5

_LETTERS_NUMBER = re.compile(r"^([^\W\d_]+)(\d+)$")  # helper1 -> helper 1
_FRACTION = re.compile(r"^(\d+)/(\d+)$")  # 2/3 -> 2 of 3
_PERCENT = re.compile(r"^(\d+(?:\.\d+)?)%$")  # 28.0% -> 28 percent
_SECONDS = re.compile(r"^(\d+(?:\.\d+)?)s$")  # 0.8s -> 0.8 seconds
_SIGNED = re.compile(r"^([+-])(\d+(?:\.\d+)?)$")  # +4 -> plus 4
_DECIMAL = re.compile(r"^\d+\.\d+$")  # 0.8 -> 0,8 in German
_CODE = re.compile(rf"^\d{{{CODE_DIGITS},}}$")  # 31425512 -> 3 1 4 2 5 5 1 2
_LIST = re.compile(r"^\d+(?:,\d+)+$")  # 2,3 (skill slots locked) -> 2 and 3, never a decimal
_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)$")  # 0..5 -> 0 to 5
_PLAYER = re.compile(r"^P(\d+)$")  # P1 -> player 1
_HASH = re.compile(r"^#?([0-9a-f]{8,64})$")  # #3fa2c1d0 or a bare fingerprint
_MARKED = re.compile(r"^#([0-9a-f]{4,})$")
_ROLL_NUMBER = re.compile(r"^#?(\d+) [0-9a-f]")  # a recorded result's fingerprint: its number in the session
_TRAILING = ":,;."
_BRACKETS = "()[]"


def moment(s: PanelState) -> Hashable | None:
    """What is up that is said at once, as a value that changes when a new one comes up
    (a new roll's result, the next turn, a finger pressed); None for the other screens."""
    if s.asleep or s.mode not in AT_ONCE:
        return None
    if s.mode is Mode.MESSAGE:
        return (s.mode, s.message, s.shown_at)
    if s.mode is Mode.GUESS:
        return (s.mode, s.guesses, s.note)
    if s.mode is Mode.TABLE_SEED:
        return (s.mode, s.seed_step, s.code, s.note)
    if s.mode is Mode.CARD:
        return (s.mode, s.card)
    if s.mode is Mode.SESSION:
        return (s.mode, s.commitment, s.revealed, s.session_why, s.note)
    return (s.mode, id(s.result), s.shown_at, s.turn, s.fingerprint)


def table_of(s: PanelState, tables: Tables) -> Phrases:
    """The phrase table for what ``s`` shows: the generic words with the current system's
    phrasebook (and the result's system, if another), or, in the settings menu, every enabled
    system's (the menu shows their start values, and the menu has imported them)."""
    if s.mode is Mode.SETTINGS:
        return tables.of(tables.systems)
    chosen: tuple[str, ...] = (s.system_id,)
    if s.result is not None and s.result.system != s.system_id:
        chosen += (s.result.system,)
    return tables.of(chosen)


def utterance(s: PanelState, table: Phrases, *, full: bool = False) -> str | None:
    """The sentence for the screen ``s`` shows (None: a screen that is not said: the roll's
    animation, the attract screen). ``full``: everything on the screen (a held FIELD), not
    the short reading of a setup page or the menu."""
    if s.asleep:
        return None
    say = _SAYS.get(s.mode)
    return say(s, table, full) if say is not None else None


# --- the screens ---------------------------------------------------------------------------


def result(s: PanelState, table: Phrases, full: bool = False) -> str | None:
    """``infinity: success, 14 against C R 10; the chance was 64 percent. success rating
    1. hot die 3, cold die 7, plus 3. roll 12, fingerprint ...``: the outcome, then every
    line of the result (each page of a long one), what the player carries, the fingerprint."""
    if s.result is None:
        return None
    data = s.result.to_dict()
    outcome = str(data.get("outcome", ""))
    values = {"system": system_name(s.result.system, table),
              "outcome": table.outcomes.get(outcome, spoken(outcome, table)),
              "score": score(data, table)}
    had = result_chance(s.result)
    if had is None:
        lead = table.say("result_no_chance", **values)
    else:
        lead = table.say("result", chance=chance(had, table), **values)
    panel = systems.get(s.result.system).panel
    parts = [lead, *lines_said(panel.details(data), table)]
    carried = player_line(s)
    if carried:
        parts.append(table.say("player_carries", n=s.settings.player, what=spoken(carried, table)))
    if s.fingerprint:
        parts.append(fingerprint(s.fingerprint, table))
    return sentences(parts)


def score(data: dict[str, Any], table: Phrases) -> str:
    """What the result reached against what it needed (the headline in words where the
    system has no such pair: a chain of checks, a hand)."""
    spec = systems.get(str(data["system"]))
    panel = spec.panel
    versus = panel.versus(data)
    if versus is None:
        return spoken(panel.headline(data), table)
    what = table.terms.get(versus.term)
    if what is None:
        by_name = pages.params_by_name(spec)
        label = panel.label(by_name[versus.term]) if versus.term in by_name else versus.term
        what = spoken(label.replace("_", " "), table)
    if versus.reached is None:
        return table.say("versus_auto", what=what, needed=versus.needed)
    return table.say("versus", reached=versus.reached, what=what, needed=versus.needed)


def result_chance(result: RollResult) -> float | None:
    """The exact chance of success the roll had, from its own parameters (None when they
    cannot be weighed again, which the rules never leave)."""
    spec = systems.get(result.system)
    try:
        return float(spec.known_odds(spec.resolve(result.params)).success)
    except (EngineError, ValueError, TypeError):
        return None


def lines_said(lines: Sequence[str], table: Phrases) -> list[str]:
    """Each line of a result as said: by the phrase its :class:`Line` carries, or as written
    in the table's words; a line said elsewhere (the outcome, a make-up's second line) not."""
    out = []
    for line in lines:
        said = said_of(line)
        if said is SAID_ELSEWHERE or (said is not None and not said.key):
            continue
        text = render(said, table) if said is not None else None
        text = text if text is not None else spoken(line, table)
        if text:
            out.append(text)
    return out


def fingerprint(foot: str, table: Phrases) -> str:
    """A recorded result's fingerprint: ``roll 12, fingerprint a 1 b 2 ...`` (its number in
    the session and its entry hash's first digits, as the screen shows them)."""
    hexes = [w.lstrip("#") for w in foot.split() if _HASH.match(w.lower())]
    entry = code(hexes[-1]) if hexes else ""
    number = _ROLL_NUMBER.match(foot)
    if number and entry:
        return table.say("recorded", n=number[1], entry=entry)
    if entry and foot.startswith(("entered", "hand")):  # a typed-in roll (the panel's: a game master's hand)
        return table.say("entered", entry=entry)
    return spoken(foot, table)


def setup(s: PanelState, table: Phrases, full: bool = False) -> str:
    """``horizons, need 3: 87 percent chance``: the page, the selected row and the chance, and
    the page's notes (no roll needed, each choice's chance); why it cannot roll. ``full``:
    every row, the notes, the player, the session and its table seed."""
    title = spoken(page_title(s), table)
    notes = [spoken(" ".join(setup_notes(s)), table)] if setup_notes(s) and not s.problem else []
    if full:
        rows = [row_said(s, r, table) for r in _rows_from_selected(s)]
        rows_text = ", ".join(r for r in rows if r)
        parts = [table.say("setup_full_cannot", title=title, rows=rows_text) if s.problem
                 else table.say("setup_full", title=title, chance=chance(s.odds, table), rows=rows_text)]
        parts.append(reason(s.problem, table) if s.problem else "")
        parts.extend(notes)
        if not s.problem:
            parts.extend(_session_said(s, table))
        return sentences(parts)
    row = row_said(s, s.row(), table)
    if s.problem:
        return table.say("setup_cannot", title=title, row=row, why=reason(s.problem, table))
    said = table.say("setup", title=title, row=row, chance=chance(s.odds, table))
    return sentences([said, *notes])


def _rows_from_selected(s: PanelState) -> list[pages.Row]:
    offered = s.rows()
    start = s.field_index % len(offered) if offered else 0
    return [*offered[start:], *offered[:start]]


def _session_said(s: PanelState, table: Phrases) -> list[str]:
    """The setup page's last lines: the player and what they carry, the session (its
    commitment's first digits) and its table seed."""
    carried = player_line(s)
    out = [table.say("player_carries", n=s.settings.player, what=spoken(carried, table)) if carried
           else table.say("player", n=s.settings.player)]
    if s.commitment:
        out.append(table.say("session_mark", session=code(s.commitment[: session_text.SHORT_DIGITS])))
        out.append(spoken(table_seed_line(s), table))
    return out


def row_said(s: PanelState, row: pages.Row, table: Phrases) -> str:
    """A row as the screen labels it: ``need 3``, ``more``, ``back``; ``trait 2, not counted``."""
    name, value = row_text(s, row)
    if row.moves:
        return spoken(name, table)
    if value.endswith(" off"):
        said = table.say("not_counted", value=spoken(value[: -len(" off")], table))
    else:
        said = spoken(value, table)
    return table.say("row", label=spoken(name, table), value=said)


def settings(s: PanelState, table: Phrases, full: bool = False) -> str:
    """``settings, speech on``; an armed action says ROLL again does it. ``full``: every item
    (from the selected one round) and its value, the notes and the entropy status."""
    item = spoken(str(s.item), table)
    armed = table.say("settings_armed", item=item) if s.armed is s.item else ""
    if full:
        offered = s.menu_items
        start = s.item_index % len(offered)
        rows = [_setting_row(s, it, table) for it in (*offered[start:], *offered[:start])]
        if armed:
            rows[0] = armed
        parts = [table.say("settings_full", rows=", ".join(rows))]
        if s.voice and s.settings.speech:
            parts.append(spoken(f"speech: {s.voice}", table))
        if s.note:
            parts.append(spoken(s.note, table))
        parts.append(spoken(f"entropy {s.status}" if s.status else "entropy ?", table))
        return sentences(parts)
    said = armed or table.say("settings", row=_setting_row(s, s.item, table))
    if s.note:
        return table.say("settings_note", note=spoken(s.note, table), said=said)
    return said


def _setting_row(s: PanelState, item: Any, table: Phrases) -> str:
    name = spoken(str(item), table)
    value = spoken(setting_value(s, item), table)
    # "player 1", not "player player 1": a value that names its item is said alone
    return value if value.lower().startswith(name.lower()) else table.say("row", label=name, value=value).strip()


def guess(s: PanelState, table: Phrases, full: bool = False) -> str:
    """``fingers 1 of 5: pick a finger, 1 to 5; thumb 1 to pinky 5``; in a chain, which test
    first; a finger not in play, why."""
    fingers = s.fingers
    if fingers and list(fingers) == list(range(1, max(fingers) + 1)):
        which = table.say("span", first=1, last=max(fingers))
    else:
        which = listing([str(f) for f in fingers], table)
    # the test being played, as the screen names it (the lines above the fingers' legend)
    screen = s.view.screen if s.view is not None else None
    shown = list(screen.lines) if screen is not None else []
    legend = next((i for i, line in enumerate(shown) if line.startswith("1=")), len(shown))
    head = spoken(" ".join(shown[:legend]), table) or system_name(s.system_id, table)
    said = table.say("guess", head=head, fingers=which)
    if s.note:
        return sentences([spoken(s.note, table), said])
    return said


def turn(s: PanelState, table: Phrases, full: bool = False) -> str | None:
    """``helper 1, 2 of 4. helper, rating 8: hot 3, cold 5, total 6. next: helper 2, press
    roll``: whose dice a group roll's turn shows, and what they are."""
    if s.result is None:
        return None
    turns = systems.get(s.result.system).panel.turns(s.result.to_dict())
    if not turns:
        return None
    who, lines = turns[s.turn % len(turns)]
    said = table.say("turn", system=system_name(s.result.system, table), who=spoken(who, table),
                     n=s.turn % len(turns) + 1, count=len(turns))
    return sentences([said, *lines_said(lines, table)])


def message(s: PanelState, table: Phrases, full: bool = False) -> str:
    """``cannot roll: spend: cannot spend 2 karma ...``: the message as the screen has it."""
    title, text = s.message
    return table.say("message", title=spoken(title or "note", table), text=reason(text, table))


def table_seed(s: PanelState, table: Phrases, full: bool = False) -> str:
    """The table seed page: asked (``new session 3 f a 2 ...: photograph ...``), then the code
    as it grows (``5 1 2, 5 more``), then what ROLL and MODE do with it."""
    session = code(s.seed_for[:FINGERPRINT_HEX])  # the 16 digits beside the QR code
    if s.seed_step != seeding.ENTER:
        return table.say("seed_ask_menu" if s.seed_back is Mode.SETTINGS else "seed_ask", session=session)
    digits = " ".join(str(f) for f in s.code)
    left = seeding.CODE_PRESSES - len(s.code)
    if not s.code or full:
        said = table.say("seed_start", n=seeding.CODE_PRESSES, session=session)
        if s.code:
            more = table.say("seed_more", code=digits, left=left, n=left) if left else \
                table.say("seed_done", code=digits)
            said = sentences([said, more])
    elif left > 0:
        said = table.say("seed_more", code=digits, left=left, n=left)
    else:
        said = table.say("seed_done", code=digits)
    if s.note:
        return table.say("settings_note", note=spoken(s.note, table), said=said)
    return said


def card(s: PanelState, table: Phrases, full: bool = False) -> str | None:
    """A revealed session's four facts, the hashes by their first digits."""
    facts = s.card
    if facts is None:
        return None
    values = {"session": code(facts.commitment[:SPOKEN_HEX]), "rolls": facts.rolls,
              "head": code(facts.head[:SPOKEN_HEX])}
    if facts.table_seed is None:
        return table.say("card_no_seed", **values)
    # a code of digits digit by digit (as it was pressed), not as one big number
    return table.say("card", seed=spoken(facts.table_seed, table), **values)


def commitment(s: PanelState, table: Phrases, full: bool = False) -> str:
    """The session's commitment (its first digits; the QR code and the screen hold all 64),
    what it is, and the last revealed session; or why none is open."""
    screen = s.view.screen if s.view is not None else None
    rest = [spoken(line, table) for line in (screen.lines if screen is not None else ())
            if not _hex_line(line)]
    if s.commitment:
        head = table.say("commitment", session=code(s.commitment[:SPOKEN_HEX]))
    else:
        head = table.say("no_commitment")
    return sentences([head, *rest])


def _hex_line(line: str) -> bool:
    return bool(line) and all(c in "0123456789abcdef" for c in line)


_SAYS = {
    Mode.RESULT: result,
    Mode.TURNS: turn,
    Mode.GUESS: guess,
    Mode.MESSAGE: message,
    Mode.SETUP: setup,
    Mode.SETTINGS: settings,
    Mode.TABLE_SEED: table_seed,
    Mode.CARD: card,
    Mode.SESSION: commitment,
}


# --- pieces --------------------------------------------------------------------------------


def chance(p: float | None, table: Phrases) -> str:
    """A chance in whole percent, never rounding a possible event to 0 or 100."""
    if p is None or p <= 0:
        return table.say("impossible")
    if p >= 1:
        return table.say("certain")
    n = round(p * 100)
    if n < 1:
        return table.say("under", n=1)
    if n > 99:
        return table.say("over", n=99)
    return table.say("percent", n=n)


def system_name(system_id: str, table: Phrases) -> str:
    return table.systems.get(system_id, system_id)


def listing(items: Sequence[str], table: Phrases) -> str:
    """``1, 3 and 5``."""
    if not items:
        return table.words.get("-", "-")
    if len(items) == 1:
        return items[0]
    return table.say("and", items=", ".join(items[:-1]), last=items[-1])


def code(text: str) -> str:
    """A code a character at a time: ``3 f a 2``, ``3 1 4 2 5 5 1 2``."""
    return " ".join(text)


def sentences(parts: Sequence[str]) -> str:
    """Parts said one after the other, each a sentence."""
    kept = [p.strip().rstrip(".") for p in parts if p and p.strip()]
    return ". ".join(kept)


def render(said: Phrase, table: Phrases) -> str | None:
    """A :class:`Phrase` in the table's words (None: the table has no such template)."""
    if said.key not in table.templates:
        return None
    values = {name: _value(v, table) for name, v in said.values.items()}
    return table.say(said.key, **values)


def _value(value: Any, table: Phrases) -> Any:
    if isinstance(value, Phrase):
        return render(value, table) or ""
    if isinstance(value, bool):
        return spoken("yes" if value else "no", table)
    if isinstance(value, int):
        return value  # said by the template (and picks its "/1" form)
    if isinstance(value, float):
        return table.number(f"{value:g}")
    if isinstance(value, tuple | list):
        return listing([str(_value(v, table)) for v in value], table)
    return spoken(str(value), table)


def reason(text: str, table: Phrases) -> str:
    """The engine's reason a setting cannot roll (English screen text, the parameter's label
    first: ``winners: at most choices (3) winners, got 5``) in the table's words: the reason
    translated whole where the table has it (``REASONS``, its variable parts as ``{0}``,
    ``{1}``, ... said in the table's words), else word by word."""
    translated = translation(text, table)
    if translated is not None:
        return translated
    head, colon, tail = text.partition(": ")
    while colon:  # "untrained: refused: ...": the parameter named first, the reason after it
        translated = translation(tail, table)
        if translated is not None:
            return f"{spoken(head, table)}: {translated}"
        more, colon, tail = tail.partition(": ")
        head = f"{head}: {more}"
    return spoken(text, table)


def translation(text: str, table: Phrases) -> str | None:
    """``text`` by the table's ``REASONS`` (None: it has none for it)."""
    for english, said in table.reasons.items():
        found = _reason_pattern(english).match(text)
        if found is not None:
            return said.format(*(spoken(part, table) for part in found.groups()))
    return None


def _reason_pattern(english: str) -> re.Pattern[str]:
    """A ``REASONS`` key as a pattern: its text exactly, each ``{N}`` any text (in order)."""
    parts = re.split(r"\{\d+\}", english)
    return re.compile("^" + "(.+?)".join(re.escape(part) for part in parts) + "$")


def spoken(text: str, table: Phrases) -> str:
    """Screen text in words: the table's words for abbreviations (``opp.``, ``cr``), ``2/3``
    as "2 of 3", ``28.0%`` as "28 percent", ``P1`` as "player 1", ``helper1`` as "helper 1",
    ``+4`` as "plus 4", a code (``#3fa2c1d0``, ``31425512``) a character at a time, ``0.8``
    with the language's decimal sign. A word the table does not know stays as it is."""
    words = text.split()
    out = []
    i = 0
    while i < len(words):
        taken, said = _phrase(words, i, table)
        if not taken:
            taken, said = 1, _word(words[i], table)
        if said:
            out.append(said)
        i += taken
    return " ".join(out)


#: The most words a table's entry for several words (``cannot roll``) runs to.
_PHRASE_MOST = 4


def _phrase(words: Sequence[str], i: int, table: Phrases) -> tuple[int, str]:
    """The table's word for the longest run of words from ``i`` it has (``table seed``,
    ``cannot roll``), the run's trailing punctuation kept: (words taken, said); (0, "")
    where it has none."""
    for n in range(min(_PHRASE_MOST, len(words) - i), 1, -1):
        run = " ".join(words[i:i + n])
        core = run.rstrip(_TRAILING)
        said = table.words.get(core.lower())
        if said is not None:
            return n, said + run[len(core):] if said else ""
    return 0, ""


def _word(word: str, table: Phrases) -> str:
    known = _known(word, table)
    if known is not None:
        return known
    lead = word[: len(word) - len(word.lstrip(_BRACKETS))]
    core = word[len(lead):].rstrip(_TRAILING + _BRACKETS)
    tail = word[len(lead) + len(core):]
    if core != word:
        known = _known(core, table)
        if known is not None:
            return lead + known + tail if known else ""
    return lead + _shape(core, table) + tail


def _known(word: str, table: Phrases) -> str | None:
    lower = word.lower()
    if lower in table.words:
        return table.words[lower]
    if lower in table.systems:
        return table.systems[lower]
    if lower in table.outcomes and lower != word:  # SUCCESS, BREAKTHROUGH: a word in capitals
        return table.outcomes[lower]
    return None


def _shape(word: str, table: Phrases) -> str:
    """A word by its shape: a fraction, a percentage, seconds, a sign, a player slot, a code,
    a name and number run together."""
    if m := _FRACTION.match(word):
        return table.say("of", a=m[1], b=m[2])
    if m := _PERCENT.match(word):
        return table.say("percent", n=table.number(_number(m[1])))
    if m := _SECONDS.match(word):
        return table.say("seconds", n=table.number(_number(m[1])))
    if m := _SIGNED.match(word):
        return table.say("plus" if m[1] == "+" else "minus", n=table.number(m[2]))
    if _DECIMAL.match(word):
        return table.number(word)
    if _LIST.match(word):
        return listing(word.split(","), table)
    if m := _RANGE.match(word):
        return table.say("span", first=m[1], last=m[2])
    if _CODE.match(word):
        return code(word)
    if m := _PLAYER.match(word):
        return table.say("player", n=m[1])
    if m := _MARKED.match(word):
        return code(m[1][:SPOKEN_HEX])
    if (m := _HASH.match(word)) and not m[1].isdigit() and any(c.isdigit() for c in m[1]):
        return code(m[1][:SPOKEN_HEX])
    if m := _LETTERS_NUMBER.match(word):
        return f"{_known(m[1], table) or m[1]} {m[2]}"
    if word.isupper() and len(word) > 1 and word.lower() != word:
        return word.lower()  # a word in capitals (LOCKED) is said as a word, not spelled out
    return word


def _number(text: str) -> str:
    """``28.0`` as ``28``; ``0.8`` stays."""
    return text[:-2] if text.endswith(".0") else text
