"""One sentence for what the panel shows, in a phrase table's words.

Everything said about a result or a setting comes from the systems' own data: the outcome's
name (``SystemSpec.outcomes``), what the score was against (``PanelSpec.versus``, else the
``headline``), the winning fingers (``PanelSpec.hand``), the page's title and its selected
row as the screen labels them. No function here names a system; the words are the table's.

Two kinds of screens (docs/speech.md): those said **at once**, with the screen (a result, a
group roll's turn, the hidden hand's prompt, a message, the table seed page, a reveal's four
facts), whose :func:`moment` changes when a new one comes up; and those said **once the
buttons are still** (the setup page, the settings menu). :func:`utterance` gives the sentence for either.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any

from engine import systems
from engine.errors import EngineError
from engine.panel import pages
from engine.panel import tableseed as seeding
from engine.panel.state import Mode, PanelState
from engine.panel.view import page_title, row_text, setting_value
from engine.results import RollResult
from engine.speech import Phrases
from engine.systems.panel import value_at

#: Screens said at once, as they come up; the others wait for the buttons to be still.
AT_ONCE = frozenset({Mode.RESULT, Mode.TURNS, Mode.GUESS, Mode.MESSAGE, Mode.TABLE_SEED, Mode.CARD})
#: Screens said once the buttons have been still for a moment.
WHEN_STILL = frozenset({Mode.SETUP, Mode.SETTINGS})

_LETTERS_NUMBER = re.compile(r"^([^\W\d_]+)(\d+)$")  # helper1 -> helper 1
_FRACTION = re.compile(r"^(\d+)/(\d+)$")  # 2/3 -> 2 of 3
_PERCENT = re.compile(r"^(\d+(?:\.\d+)?)%$")  # 28.0% -> 28 percent
_SECONDS = re.compile(r"^(\d+(?:\.\d+)?)s$")  # 0.8s -> 0.8 seconds
_PLAYER = re.compile(r"^P(\d+)$")  # P1 -> player 1
_HEX = re.compile(r"^#([0-9a-f]{4,})$")  # #3fa2c1d0 -> 3 f a 2 c 1 d 0
_ROLL_NUMBER = re.compile(r"^#?(\d+) ")  # a recorded result's fingerprint: its number in the session
_TRAILING = ":,;."


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
    return (s.mode, id(s.result), s.shown_at, s.turn)


def utterance(s: PanelState, table: Phrases) -> str | None:
    """The sentence for the screen ``s`` shows (None: a screen that is not said: the roll's
    animation, the session's commitment, the attract screen)."""
    if s.asleep:
        return None
    say = _SAYS.get(s.mode)
    return say(s, table) if say is not None else None


# --- the screens ---------------------------------------------------------------------------


def result(s: PanelState, table: Phrases) -> str | None:
    """``infinity: success, 14 against C R 10, it had 64 percent``."""
    if s.result is None:
        return None
    data = s.result.to_dict()
    outcome = str(data.get("outcome", ""))
    values = {"system": system_name(s.result.system, table),
              "outcome": table.outcomes.get(outcome, spoken(outcome, table)),
              "score": score(s, data, table)}
    had = result_chance(s.result)
    if had is None:
        said = table.say("result_no_chance", **values)
    else:
        said = table.say("result", chance=chance(had, table), **values)
    number = _ROLL_NUMBER.match(s.fingerprint)
    return table.say("recorded", said=said, n=number[1]) if number else said


def score(s: PanelState, data: dict[str, Any], table: Phrases) -> str:
    """What the result reached against what it needed, or the hand it revealed."""
    spec = systems.get(str(data["system"]))
    panel = spec.panel
    if panel.hand is not None:
        winners = value_at(data, panel.hand) or ()
        guess = s.guess if s.guess is not None else data.get(panel.guess or "")
        return table.say("hand", guess=guess, winners=listing([str(w) for w in winners], table))
    versus = panel.versus(data)
    if versus is None:
        return spoken(panel.headline(data), table)
    what = table.terms.get(versus.term)
    if what is None:
        by_name = pages.params_by_name(spec)
        label = panel.label(by_name[versus.term]) if versus.term in by_name else versus.term
        what = spoken(label.replace("_", " "), table)
    return table.say("versus", reached=versus.reached, what=what, needed=versus.needed)


def result_chance(result: RollResult) -> float | None:
    """The exact chance of success the roll had, from its own parameters (None when they
    cannot be weighed again, which the rules never leave)."""
    spec = systems.get(result.system)
    try:
        return float(spec.known_odds(spec.resolve(result.params)).success)
    except (EngineError, ValueError, TypeError):
        return None


def setup(s: PanelState, table: Phrases) -> str:
    """``horizons, need 3, 87 percent``: the page, the selected row and the chance."""
    title = spoken(page_title(s), table)
    row = selected_row(s, table)
    if s.problem:
        return table.say("setup_cannot", title=title, row=row, why=spoken(s.problem, table))
    return table.say("setup", title=title, row=row, chance=chance(s.odds, table))


def selected_row(s: PanelState, table: Phrases) -> str:
    """The row FIELD has selected, as the screen labels it: ``need 3``, ``more``, ``back``."""
    row = s.row()
    name, value = row_text(s, row)
    if row.moves:
        return spoken(name, table)
    if value.endswith(" off"):
        said = table.say("not_counted", value=spoken(value[: -len(" off")], table))
    else:
        said = spoken(value, table)
    return table.say("row", label=spoken(name, table), value=said)


def settings(s: PanelState, table: Phrases) -> str:
    """``settings, speech on``; an armed action says ROLL again does it."""
    item = spoken(str(s.item), table)
    if s.armed is s.item:
        said = table.say("settings_armed", item=item)
    else:
        value = spoken(setting_value(s, s.item), table)
        # "player 1", not "player player 1": a value that names its item is said alone
        row = value if value.lower().startswith(item.lower()) else table.say("row", label=item, value=value)
        said = table.say("settings", row=row.strip())
    if s.note:
        return table.say("settings_note", note=spoken(s.note, table), said=said)
    return said


def guess(s: PanelState, table: Phrases) -> str:
    """``fingers: pick a finger, 1 to 5``; in a chain, which test; a finger not in play, why."""
    fingers = s.fingers
    if fingers and list(fingers) == list(range(1, max(fingers) + 1)):
        which = table.say("span", first=1, last=max(fingers))
    else:
        which = listing([str(f) for f in fingers], table)
    if s.guesses:
        said = table.say("guess_test", n=len(s.guesses) + 1, fingers=which)
    else:
        said = table.say("guess", system=system_name(s.system_id, table), fingers=which)
    if s.note and not s.note.startswith("test"):  # a finger not in play (the chain's "test 2" is said)
        return table.say("settings_note", note=spoken(s.note, table), said=said)
    return said


def turn(s: PanelState, table: Phrases) -> str | None:
    """``helper 1, 2 of 4``: whose dice a group roll's turn shows."""
    if s.result is None:
        return None
    turns = systems.get(s.result.system).panel.turns(s.result.to_dict())
    if not turns:
        return None
    who, _ = turns[s.turn % len(turns)]
    return table.say("turn", who=spoken(who, table), n=s.turn % len(turns) + 1, count=len(turns))


def message(s: PanelState, table: Phrases) -> str:
    """``cannot roll: spend: cannot spend 2 karma ...``: the message as the screen has it."""
    title, text = s.message
    return table.say("message", title=spoken(title or "note", table), text=spoken(text, table))


def table_seed(s: PanelState, table: Phrases) -> str:
    """The table seed page: asked (``new session 3 f a 2 ...: set a table seed? ...``), then
    the code as it grows (``5 1 2, 5 more``), then what ROLL and MODE do with it."""
    if s.seed_step != seeding.ENTER:
        return table.say("seed_ask", session=spoken("#" + s.seed_for[:8], table))
    code = " ".join(str(f) for f in s.code)
    left = seeding.CODE_PRESSES - len(s.code)
    if not s.code:
        said = table.say("seed_start", n=left)
    elif left > 0:
        said = table.say("seed_more", code=code, left=left)
    else:
        said = table.say("seed_done", code=code)
    if s.note:
        return table.say("settings_note", note=spoken(s.note, table), said=said)
    return said


def card(s: PanelState, table: Phrases) -> str | None:
    """A revealed session's four facts, the hashes by their first 8 digits."""
    facts = s.card
    if facts is None:
        return None
    values = {"session": spoken("#" + facts.commitment[:8], table), "rolls": facts.rolls,
              "head": spoken("#" + facts.head[:8], table)}
    if facts.table_seed is None:
        return table.say("card_no_seed", **values)
    seed = facts.table_seed
    # a code of digits digit by digit (as it was pressed), not as one big number
    return table.say("card", seed=" ".join(seed) if seed.isdigit() else seed, **values)


_SAYS = {
    Mode.RESULT: result,
    Mode.TURNS: turn,
    Mode.GUESS: guess,
    Mode.MESSAGE: message,
    Mode.SETUP: setup,
    Mode.SETTINGS: settings,
    Mode.TABLE_SEED: table_seed,
    Mode.CARD: card,
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


def spoken(text: str, table: Phrases) -> str:
    """Screen text in words: the table's words for abbreviations (``opp.``, ``cr``), ``2/3``
    as "2 of 3", ``28.0%`` as "28 percent", ``P1`` as "player 1", ``helper1`` as "helper 1",
    a hex fingerprint a character at a time. A word the table does not know stays as it is."""
    out = []
    for word in text.split():
        said = _word(word, table)
        if said:
            out.append(said)
    return " ".join(out)


def _word(word: str, table: Phrases) -> str:
    known = _known(word, table)
    if known is not None:
        return known
    core = word.rstrip(_TRAILING)
    tail = word[len(core):]
    if core != word:
        known = _known(core, table)
        if known is not None:
            return known + tail if known else ""
    return _shape(core, table) + tail


def _known(word: str, table: Phrases) -> str | None:
    lower = word.lower()
    if lower in table.words:
        return table.words[lower]
    if lower in table.systems:
        return table.systems[lower]
    return None


def _shape(word: str, table: Phrases) -> str:
    """A word by its shape: a fraction, a percentage, seconds, a player slot, a name and
    number run together, a fingerprint."""
    if m := _FRACTION.match(word):
        return table.say("of", a=m[1], b=m[2])
    if m := _PERCENT.match(word):
        return table.say("percent", n=_number(m[1]))
    if m := _SECONDS.match(word):
        return table.say("seconds", n=_number(m[1]))
    if m := _PLAYER.match(word):
        return table.say("player", n=m[1])
    if m := _HEX.match(word):
        return " ".join(m[1])
    if m := _LETTERS_NUMBER.match(word):
        return f"{_known(m[1], table) or m[1]} {m[2]}"
    return word


def _number(text: str) -> str:
    """``28.0`` as ``28``; ``0.8`` stays."""
    return text[:-2] if text.endswith(".0") else text
