"""What the board accepts from the broker: every message decoded with a bounded size and depth
and checked against a schema (the type of every field the board reads) before anything else
touches it, and the views of tower-supplied values that the page and the API show.

A tower controls every byte it publishes, so nothing here assumes anything: a message that
fails is a :class:`Rejected` with one line saying what was wrong (the caller counts it against
the topic's tower); an entry that chains but has a field of the wrong type is kept (it is part
of the tower's hash chain) and :func:`entry_problems` names the field. The views
(:func:`roll_view`, :func:`params_view`, :func:`text`) turn any value into short text,
whole numbers and booleans, so the page never meets a type it does not expect.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, TypeGuard

from engine.fingerprints import fingerprint_line
from hardware.errors import HardwareError
from hardware.files.rolllog import MAX_LINE_BYTES
from hardware.files.safefile import nesting_depth
from hardware.files.state import MAX_PLAYER

#: A log message is an entry (at most what the roll log holds on one line) and a small envelope.
MAX_MESSAGE_BYTES = MAX_LINE_BYTES + 4096
#: How deep a message may nest (a real entry nests about 5 levels).
MAX_DEPTH = 32
#: Longest text the page shows of one tower-supplied value.
TEXT_CHARS = 120
#: At most this many dice and parameters are shown per roll.
SHOWN_DICE = 40
SHOWN_PARAMS = 12

HEX64 = re.compile(r"[0-9a-f]{64}")
#: The highest seq the board keeps (SQLite's largest integer; a roll log never gets near it).
MAX_SEQ = (1 << 63) - 1
#: How far past the last entry the board holds of a tower a seq it is told of may be (an
#: entry, or the seq a status says the tower's log has reached): a tower writes one entry
#: per roll, session and reveal, so a million is months of a busy table's rolling, more than
#: a board falls behind a tower (docs/network.md, "Values no tower can send"). Beyond, the
#: message is a finding against the tower, not believed; taken back if the board comes to
#: hold entries up to within this of it (a board started empty beside an old tower).
MAX_AHEAD = 1_000_000
#: In the text of every such finding (how the record finds them again).
AHEAD_MARK = "entries past the last entry the board holds of this tower"
Entry = dict[str, Any]
_HEX = re.compile(r"[0-9a-f]{64}")


class Rejected(HardwareError, ValueError):
    """A message the board cannot use; the text says what was wrong (one line), ``seq`` the
    seq the finding is about where the text does not start with it."""

    def __init__(self, message: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.seq = seq


# --- decoding ---------------------------------------------------------------------------------------


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]} is out of range")
    return value


def decode(payload: bytes) -> Any:
    """The JSON value of a message, or :class:`Rejected`: too large, not UTF-8, nested too
    deep, not JSON (NaN and infinite numbers are not JSON either)."""
    if len(payload) > MAX_MESSAGE_BYTES:
        raise Rejected(f"a message of {len(payload)} bytes, more than the {MAX_MESSAGE_BYTES} allowed")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Rejected(f"a message that is not UTF-8 text (byte {exc.start})") from None
    if text.count("[") + text.count("{") > MAX_DEPTH:  # only then can it nest too deep
        depth = nesting_depth(text)
        if depth > MAX_DEPTH:
            raise Rejected(f"a message nested {depth} levels deep, more than the {MAX_DEPTH} allowed")
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise Rejected("a message nested too deeply") from None
    except ValueError as exc:
        raise Rejected(f"a message that is not JSON ({clip(str(exc), 80)})") from None


# --- describing a bad value ----------------------------------------------------------------------------


def describe(value: Any) -> str:
    """What a value is, for a message: ``a string ('abc')``, ``a list``, ``null``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int):
        return f"a number ({clip(str(value), 20)})"
    if isinstance(value, float):
        return f"a number ({value:g})"
    if isinstance(value, str):
        return f"a string ({clip(repr(value), 30)})"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


#: Characters a tower's text never shows as themselves (control, format: bidi overrides and
#: isolates, zero-width; lone surrogates, private use, line and paragraph separators): each is
#: shown as its escape, so no value can reverse, hide or break the page's text around it.
_HIDDEN = frozenset(("Cc", "Cf", "Cs", "Co", "Zl", "Zp"))


def _shown(c: str) -> str:
    if c in "\n\r\t":
        return " "
    if unicodedata.category(c) not in _HIDDEN:
        return c
    code = ord(c)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown(text: str) -> str:
    """``text`` on one line with every control and format character shown as an escape
    (``\\u202e``): what the page, the API's cards and the findings say of a tower's text."""
    if text.isprintable():
        return text
    return "".join(_shown(c) for c in text)


def clip(text: str, limit: int = TEXT_CHARS) -> str:
    """:func:`shown`, at most ``limit`` characters."""
    text = shown(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def result_of(entry: Entry) -> dict[str, Any]:
    """An entry's ``result`` where it is an object, else an empty one (a tower may send anything)."""
    result = entry.get("result")
    return result if isinstance(result, dict) else {}


# --- the log message and its entry -----------------------------------------------------------------------


def log_entry(body: Any, store: str, tower: str) -> Entry:
    """The entry of a log message published on ``store``/``tower``'s topic, or :class:`Rejected`."""
    if not isinstance(body, dict) or "entry" not in body:
        raise Rejected("a log message that is not {store, tower, entry}")
    entry = body["entry"]
    seq = entry.get("seq") if isinstance(entry, dict) else None
    if (body.get("store"), body.get("tower")) != (store, tower):
        said = f"{text(body.get('store'), 64)}/{text(body.get('tower'), 64)}"
        raise Rejected(f"entry {seq if whole(seq) else '?'}: published on {store}/{tower}'s topic but says it "
                       f"is from {said}")
    if not isinstance(entry, dict) or not whole(seq):
        raise Rejected("a log message without a log entry (no whole-number seq)")
    if seq < 1:
        raise Rejected(f"an entry with seq {clip(str(seq), 60)}")
    if seq > MAX_SEQ:
        raise Rejected(f"an entry with seq {clip(str(seq), 60)}, past 2^63 - 1, the highest seq the board keeps")
    missing = [k for k in ("prev", "hash", "kind") if k not in entry]
    if missing:
        raise Rejected(f"entry {seq}: missing field(s) {', '.join(missing)}")
    for key in ("prev", "hash"):
        if not isinstance(entry[key], str) or not HEX64.fullmatch(entry[key]):
            raise Rejected(f"entry {seq}: {key} is {describe(entry[key])}, expected 64 hex digits")
    if not isinstance(entry["kind"], str):
        raise Rejected(f"entry {seq}: kind is {describe(entry['kind'])}, expected a string")
    return entry


#: (field, what it must be, required) of the fields the board reads, by entry kind. A checker
#: returns True when the value is acceptable.
_STR = (lambda v: isinstance(v, str), "a string")
_OPT_STR = (lambda v: v is None or isinstance(v, str), "a string or null")
_OBJECT = (lambda v: isinstance(v, dict), "an object")
_OPT_WHOLE = (lambda v: v is None or whole(v), "a whole number or null")
_OPT_LIST = (lambda v: v is None or isinstance(v, list), "a list or null")
_DICE = (lambda v: isinstance(v, list) and all(whole(d) for d in v), "a list of whole numbers")
_OPT_NUMBER = (lambda v: v is None or (isinstance(v, int | float) and not isinstance(v, bool)), "a number or null")
_OPT_BOOL = (lambda v: v is None or isinstance(v, bool), "true, false or null")
#: A tower logs its player slot, 1 to hardware.files.state.MAX_PLAYER, or null.
_PLAYER = (lambda v: v is None or (whole(v) and 1 <= v <= MAX_PLAYER), f"a player from 1 to {MAX_PLAYER} or null")

_COMMON = (("time", _STR, False), ("session", _OPT_STR, False))
_BY_KIND: dict[str, tuple[tuple[str, tuple[Any, str], bool], ...]] = {
    "roll": (("result", _OBJECT, True), ("roll_kind", _STR, False), ("player", _PLAYER, False),
             ("faces", _OPT_LIST, False)),
    "session": (("session", _STR, True), ("commitment", _STR, True)),
    "reveal": (("session", _STR, True),),
}
_RESULT = (("system", _STR, True), ("params", _OBJECT, True), ("outcome", _STR, True), ("dice", _DICE, False),
           ("total", _OPT_NUMBER, False), ("success", _OPT_BOOL, False))


def entry_problems(entry: Entry) -> list[str]:
    """What is wrong with the fields of a chained entry that the board reads ([] if nothing):
    ``entry 7: result.params is a string ('abc'), expected an object``."""
    seq = entry["seq"]
    out = _fields(entry, (*_COMMON, *_BY_KIND.get(entry["kind"], ())), "")
    result = entry.get("result")
    if entry["kind"] == "roll" and isinstance(result, dict):
        out += _fields(result, _RESULT, "result.")
    return [f"entry {seq}: {p}" for p in out]


def _fields(obj: Mapping[str, Any], rules: Any, prefix: str) -> list[str]:
    out = []
    for name, (ok, what), required in rules:
        if name not in obj:
            if required:
                out.append(f"{prefix}{name} is missing, expected {what}")
        elif not ok(obj[name]):
            out.append(f"{prefix}{name} is {describe(obj[name])}, expected {what}")
    return out


def ahead(what: str, seq: int, head: int) -> str:
    """The finding of a seq more than :data:`MAX_AHEAD` past the tower's last entry held."""
    held = f"entry {head}" if head else "none yet"
    return f"{what} {seq}, more than {MAX_AHEAD:,} {AHEAD_MARK} ({held}): no tower can be that far ahead"


# --- the status message ---------------------------------------------------------------------------------

_STATUS = (("state", _STR, True), ("seq", _OPT_WHOLE, False), ("rolls", _OPT_WHOLE, False),
           ("head", _OPT_STR, False))


def status_body(body: Any, store: str, tower: str) -> dict[str, Any]:
    """The parts of a status message the board uses (state, seq), or :class:`Rejected`."""
    if not isinstance(body, dict):
        raise Rejected("a status message that is not a JSON object")
    if (body.get("store"), body.get("tower")) != (store, tower):
        raise Rejected(f"a status message on {store}/{tower}'s topic says it is from "
                       f"{text(body.get('store'), 64)}/{text(body.get('tower'), 64)}")
    problems = _fields(body, _STATUS, "")
    if problems:
        raise Rejected(f"a status message whose {problems[0]}")
    state = body["state"]
    if state not in ("online", "offline"):
        raise Rejected(f"a status message whose state is {describe(state)}, expected online or offline")
    seq = body.get("seq")
    if whole(seq) and not 0 <= seq <= MAX_SEQ:
        raise Rejected(f"a status message whose seq is {clip(str(seq), 60)}, expected 0 to 2^63 - 1")
    return {"state": state, "seq": seq}


# --- what the page shows ------------------------------------------------------------------------------


def text(value: Any, limit: int = TEXT_CHARS) -> str | None:
    """Any value as short text (None stays None): what the page may show of it."""
    if value is None:
        return None
    if isinstance(value, str):
        return clip(value, limit)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return clip(str(value), limit)
    try:
        return clip(json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False), limit)
    except (ValueError, TypeError, RecursionError):
        return "…"


def number_view(value: Any) -> int | float | None:
    """A finite number of at most 15 digits, or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if abs(value) < 1e15 else None


#: How many of a system's parameters (in the order the system declares them) are its main
#: ones, always shown; the others are shown when they differ from the system's default.
MAIN_PARAMS = 2


def _declared(system: Any) -> tuple[tuple[str, Any], ...] | None:
    """(name, default) of a system's parameters in the order it declares them (None: a system
    the board does not know; a tower may name anything, so only known ids are looked up)."""
    from engine.systems import installed

    return _declared_by_id(system) if isinstance(system, str) and system == system.strip().lower() \
        and installed(system) else None


@functools.cache
def _declared_by_id(system: str) -> tuple[tuple[str, Any], ...]:
    from engine.systems import get

    spec = get(system)
    return tuple((p.name, list(p.default) if isinstance(p.default, tuple) else p.default) for p in spec.params)


def _unset(value: Any) -> bool:
    return value is None or value is False or value == "" or value == [] or value == {}


def params_view(params: Any, system: Any = None) -> dict[str, str | int | float | bool | None]:
    """A roll's setting as a card, the overlay and a Discord post show it: the system's main
    parameters and those that differ from its defaults, in the order the system declares
    them (d6cv: stat, skill, then cv if not 5, ...), then any other set key a tower wrote;
    short keys, scalar values, at most :data:`SHOWN_PARAMS`."""
    if not isinstance(params, dict):
        return {}
    declared = _declared(system)
    chosen: list[tuple[Any, Any]] = []
    if declared is not None:
        for n, (name, default) in enumerate(declared):
            if name in params and (n < MAIN_PARAMS or (params[name] != default and not _unset(params[name]))):
                chosen.append((name, params[name]))
        known = {name for name, _ in declared}
        chosen += [(k, v) for k, v in params.items() if k not in known and not _unset(v)]
    else:
        chosen = [(k, v) for k, v in params.items() if not _unset(v)]
    out: dict[str, str | int | float | bool | None] = {}
    for key, value in chosen[:SHOWN_PARAMS]:
        out[clip(key, 30) if type(key) is str else clip(str(key), 30)] = _scalar(value)
    return out


def _scalar(value: object) -> str | int | float | bool | None:
    # exact types (``type(x) is``): a subclass of int or str from a decoder is no scalar here
    if value is None or type(value) is bool or (type(value) is int and -10**15 < value < 10**15):
        return value
    if type(value) is str:
        return clip(value, 40)
    if type(value) is float:
        return value if math.isfinite(value) and abs(value) < 1e15 else None
    if type(value) is list and all(type(v) in (str, int, float) for v in value):
        return text(",".join(str(v) for v in value), 40)
    return text(value, 40)


def dice_view(dice: Any) -> list[int]:
    if not isinstance(dice, list):
        return []
    return [d if abs(d) < 10**9 else 0 for d in dice[:SHOWN_DICE] if whole(d)]


#: What a roll's check mark means (the ``mark`` column of the record).
#: A roll's check mark; ``uncoded``: verified, in a session without a table seed (its owner
#: could have chosen its seed: docs/fairness.md, rule 6), shown apart from a plain ✓.
MARKS = ("unchecked", "verified", "entered", "test", "failed", "uncoded")


def roll_name(entry: Entry, number: int | None) -> str:
    """How the board names a roll, as the tower's screen does (``#12 a1b2c3d4e5f6a7b8``,
    ``hand …`` for a hand typed in; docs/fairness.md, "Fingerprints"); "" when its hash is
    no entry hash."""
    digest = entry.get("hash")
    if not (isinstance(digest, str) and _HEX.fullmatch(digest)):
        return ""
    return fingerprint_line(number if number and whole(number) else 0, digest)


def roll_view(entry: Entry, mark: int = 0, in_session: int | None = None) -> dict[str, Any]:
    """The part of a roll entry a card or the overlay shows, every value of a known type;
    ``name`` is what the OLED showed for it (``#12 a1b2c3d4e5f6a7b8``, ``in_session`` its
    number in its session: docs/fairness.md, "Fingerprints")."""
    result = result_of(entry)
    seq = entry.get("seq")
    success = result.get("success")
    player = entry.get("player")
    return {
        "seq": seq if whole(seq) else None, "time": text(entry.get("time"), 40),
        "number": in_session if in_session and whole(in_session) else None, "name": roll_name(entry, in_session),
        "system": text(result.get("system"), 40), "dice": dice_view(result.get("dice")),
        "outcome": text(result.get("outcome"), 40), "total": number_view(result.get("total")),
        "success": success if isinstance(success, bool) else None,
        "player": player if whole(player) and 0 <= player < 10**6 else None,
        "kind": text(entry.get("roll_kind", "rolled"), 20),
        "check": MARKS[mark] if 0 <= mark < len(MARKS) else "unchecked",
    }
