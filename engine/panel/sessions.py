"""What the hardware tells the panel about the dice session, and what the roll log took.

The tower's dice commit to each session's seed (SHA-256 of the seed material) before its first
roll and reveal the seed at its end (docs/fairness.md); the panel shows the commitment so a
player can note it before rolling, offers the table a seed of its own before the first roll,
shows each recorded result's fingerprint and the reveal's four facts. One line of text keeps
:class:`~engine.panel.model.Event` as it is.

A SESSION event's text:

- ``<64 hex digits>[ rolled][ seed TEXT]``: a session is open and this is its commitment;
  ``rolled`` once it has a roll (too late for a table seed), ``seed TEXT`` its table seed as
  the roll log holds it (TEXT is the rest of the line, exactly);
- ``revealed <64 hex digits>[ rolls N][ head <64 hex>][ seed TEXT]``: that session is closed
  and its seed is in the roll log (with its roll count, the reveal entry's hash and its
  table seed when the hardware knows them); none is open until the next commitment arrives;
- ``damaged <16 hex digits> WHY``: the session with that id was ended as damaged (its kept
  file could not be trusted: WHY); none is open until the next commitment arrives, and the
  table is told in one line that a new session, with a new code, follows;
- anything else: no session is open, and the text says why (``not enough entropy ...``).

A LOGGED event's text, sent by the hardware right after it wrote (or failed to write) what
the step before asked for:

- ``roll N <hex>``: the roll on show is roll N of the open session, its log entry's hash;
- ``entered <hex>``: the roll on show was typed in (a fixed hand), logged outside any session;
- ``unlogged WHY``: the table seed could not be written to the roll log: it is not set;
- ``refused WHY``: the table seed was refused (the session has a roll or a seed meanwhile).

Dice without sessions (typed-in faces, a plain DRBG in tests) send nothing, and the panel
shows no commitment.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from engine.fingerprints import FINGERPRINT_HEX, fingerprint_line

#: The :attr:`~engine.panel.model.Effects.request` that asks the hardware to reveal the seed.
REVEAL = "reveal"
#: How a SESSION text says no session opens because the roll log cannot take it.
CANNOT_RECORD = "cannot record"
#: The request that asks the hardware to open the next session now (a ROLL with none open: the
#: panel rolls in no session whose commitment it has not shown).
OPEN = "open"
#: The request that asks the hardware to end the open session and open another: a ROLL found
#: a session whose code the panel did not take on its own keys (seeded, or rolled in, from the
#: command line; opened before this run), and the panel rolls in none such (docs/fairness.md,
#: "The panel's session is the table's").
RENEW = "renew"
#: Hex digits of the short form shown on the setup and settings screens (``#3fa2c1d0``); the
#: roll log's session id is the first 16, so the short form is a prefix of it.
SHORT_DIGITS = 8
#: Hex digits per line of the full view (the 16x2 LCD shows one such line whole).
LINE_DIGITS = 16
#: The most characters of a table seed (``dicetower session seed`` takes the same).
TABLE_SEED_MAX = 64
_HEX = frozenset(string.hexdigits.lower())
_REVEALED = "revealed"
_DAMAGED = "damaged"
#: Hex digits of a session id (the roll log's: the commitment's first 16).
ID_DIGITS = 16
_ROLLED = "rolled"
_SEED = " seed "


@dataclass(frozen=True)
class News:
    """One SESSION event, parsed: one of ``commitment``, ``revealed``, ``damaged`` or ``why``
    is set (``why`` may be empty; with ``damaged`` it is why); the others describe that session."""

    commitment: str = ""  # the open session's commitment
    revealed: str = ""  # the commitment of the session just revealed
    why: str = ""  # no session is open: why
    table_seed: str | None = None  # the session's table seed (None: none set)
    started: bool = False  # the open session has a roll: too late for a table seed
    rolls: int | None = None  # revealed: its roll count (None: not known)
    head: str = ""  # revealed: the reveal entry's hash (the log's head right after it)
    damaged: str = ""  # the id of the session just ended as damaged


@dataclass(frozen=True)
class Card:
    """A revealed session's four facts, as the reveal screen shows them and the players
    photograph them (``dicetower session close`` prints the same)."""

    commitment: str
    table_seed: str | None
    rolls: int
    head: str


@dataclass(frozen=True)
class Logged:
    """One LOGGED event, parsed: a recorded roll's fingerprint (``entry`` set; ``number`` 0
    for a typed-in roll outside any session), or a table seed that was not set (``problem``;
    ``unlogged`` when the roll log could not take it)."""

    number: int = 0
    entry: str = ""
    problem: str = ""
    unlogged: bool = False

    @property
    def line(self) -> str:
        """``#12 a1b2c3d4e5f6a7b8``, ``hand a1b2c3d4e5f6a7b8``: the fingerprint a result shows."""
        return fingerprint_line(self.number, self.entry)


def is_commitment(text: str) -> bool:
    """64 lowercase hex digits: a SHA-256 in hex."""
    return len(text) == 64 and set(text) <= _HEX


def is_table_seed(text: str) -> bool:
    """1 to 64 printable ASCII characters, no space at either end (what the roll log takes)."""
    return 0 < len(text) <= TABLE_SEED_MAX and text == text.strip(" ") and all(" " <= c <= "~" for c in text)


def parse(text: str) -> News:
    """The event's text as :class:`News`; never raises (anything unknown means "none open")."""
    text = str(text)
    head, found, seed = text.partition(_SEED)
    table_seed = seed if found and is_table_seed(seed) else None
    words = head.split()
    if found and table_seed is None:  # not ours: a reason that happens to say " seed "
        words = text.split()
    if words and is_commitment(words[0].lower()) and set(words[1:]) <= {_ROLLED}:
        return News(commitment=words[0].lower(), table_seed=table_seed, started=_ROLLED in words[1:])
    if len(words) >= 3 and words[0] == _DAMAGED and len(words[1]) == ID_DIGITS and set(words[1].lower()) <= _HEX:
        return News(damaged=words[1].lower(), why=" ".join(text.split()[2:]))
    if len(words) >= 2 and words[0] == _REVEALED and is_commitment(words[1].lower()):
        facts = _pairs(words[2:])
        if facts is not None:
            rolls, head_hash = facts.get("rolls", ""), facts.get("head", "").lower()
            return News(revealed=words[1].lower(), table_seed=table_seed,
                        rolls=int(rolls) if rolls.isdigit() else None,
                        head=head_hash if is_commitment(head_hash) else "")
    return News(why=" ".join(text.split()))


def _pairs(words: list[str]) -> dict[str, str] | None:
    """``rolls 3 head ab..`` as a mapping; None when it is not that."""
    if len(words) % 2 or any(k not in ("rolls", "head") for k in words[::2]):
        return None
    return dict(zip(words[::2], words[1::2], strict=True))


def committed(commitment: str, *, table_seed: str | None = None, started: bool = False) -> str:
    """The text for an open session (its table seed, and whether it has a roll)."""
    text = _checked(commitment) + (f" {_ROLLED}" if started else "")
    return text + _seed_part(table_seed)


def revealed(commitment: str, *, rolls: int | None = None, head: str = "", table_seed: str | None = None) -> str:
    """The text for a session whose seed was just revealed (written to the roll log)."""
    text = f"{_REVEALED} {_checked(commitment)}"
    if rolls is not None:
        text += f" rolls {int(rolls)}"
    if head:
        text += f" head {_checked(head)}"
    return text + _seed_part(table_seed)


def damaged(session_id: str, why: str) -> str:
    """The text for a session ended as damaged (its kept file could not be trusted: ``why``)."""
    sid = str(session_id).strip().lower()
    if len(sid) != ID_DIGITS or not set(sid) <= _HEX:
        raise ValueError(f"a session id is {ID_DIGITS} hex digits, got {session_id!r}")
    return f"{_DAMAGED} {sid} " + (" ".join(str(why).split()) or "its kept file cannot be trusted")


def damaged_line(news: News) -> str:
    """What the table is told of a session ended as damaged, in one line."""
    return f"{short(news.damaged)} ended, damaged: {news.why}. A new session, and a new code, follow"


def card(news: News) -> Card | None:
    """The reveal's four facts from a ``revealed`` news (None when the hardware did not know
    them all: a reveal the log has not taken yet)."""
    if not news.revealed or news.rolls is None or not news.head:
        return None
    return Card(news.revealed, news.table_seed, news.rolls, news.head)


def _seed_part(table_seed: str | None) -> str:
    if table_seed is None:
        return ""
    if not is_table_seed(table_seed):
        raise ValueError(f"a table seed is 1 to {TABLE_SEED_MAX} printable ASCII characters, got {table_seed!r}")
    return _SEED + table_seed


def roll_logged(number: int, entry: str) -> str:
    """The LOGGED text for a roll recorded as roll ``number`` of its session (0: typed in)."""
    short = _hex_prefix(entry)
    return f"roll {int(number)} {short}" if number else f"entered {short}"


def seed_not_logged(why: str) -> str:
    """The LOGGED text for a table seed the roll log could not take."""
    return "unlogged " + (" ".join(str(why).split()) or "the roll log could not take it")


def seed_refused(why: str) -> str:
    """The LOGGED text for a table seed the session refused (too late, set already)."""
    return "refused " + (" ".join(str(why).split()) or "refused")


def parse_logged(text: str) -> Logged:
    """A LOGGED event's text as :class:`Logged`; never raises (anything unknown is a problem
    worth showing, not a fingerprint)."""
    words = str(text).split()
    if len(words) == 3 and words[0] == "roll" and words[1].isdigit() and int(words[1]) > 0 and _is_hex(words[2]):
        return Logged(number=int(words[1]), entry=words[2].lower())
    if len(words) == 2 and words[0] == "entered" and _is_hex(words[1]):
        return Logged(entry=words[1].lower())
    if words and words[0] == "unlogged":
        return Logged(problem=" ".join(words[1:]) or "cannot record", unlogged=True)
    if words and words[0] == "refused":
        return Logged(problem=" ".join(words[1:]) or "refused")
    return Logged(problem=" ".join(words) or "the roll log said nothing")


def _is_hex(text: str) -> bool:
    return FINGERPRINT_HEX <= len(text) <= 64 and set(text.lower()) <= _HEX


def _hex_prefix(entry: str) -> str:
    text = str(entry).strip().lower()
    if not _is_hex(text):
        raise ValueError(f"an entry hash is {FINGERPRINT_HEX} to 64 hex digits, got {entry!r}")
    return text


def unavailable(why: str) -> str:
    """The text for "no session is open", kept from reading as one of the other two."""
    text = " ".join(str(why).split()) or "no session open"
    return text if parse(text).why == text else f"no session: {text}"


def short(commitment: str) -> str:
    """``#3fa2c1d0``: the first digits, enough to match a photograph or the log."""
    return "#" + commitment[:SHORT_DIGITS]


def lines(commitment: str) -> tuple[str, ...]:
    """The whole commitment, :data:`LINE_DIGITS` digits a line (four lines)."""
    return tuple(commitment[i : i + LINE_DIGITS] for i in range(0, len(commitment), LINE_DIGITS))


def _checked(commitment: str) -> str:
    text = str(commitment).strip().lower()
    if not is_commitment(text):
        raise ValueError(f"a commitment is 64 hex digits (SHA-256), got {commitment!r}")
    return text
