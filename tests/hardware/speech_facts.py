"""The facts a screen shows, read off the screen itself, and whether a sentence says them.

Nothing here knows a system, a screen kind's wording or a fingerprint's length: the facts come
from the screen's text (``Screen.text()``: title, large word, lines, foot) and its dice, so a
screen that changes (a longer fingerprint, a reworded question) is checked as it then reads.

A screen's facts:

- **numbers**: every number, as many times as one line shows it (``hot 4 cold 4`` is two 4s);
  a percentage as the whole percent speech gives it (``28.0%`` is 28, ``<0.1%`` is 1,
  ``>99.9%`` is 99); a sign is said as a word (``+4`` is 4); the dice drawn as glyphs;
- **codes**: a hash (``#3fa2c1d0``, a bare fingerprint, a commitment wrapped over lines of
  hex digits) by its first :data:`HEX_SAID` digits, and a number of five digits or more (a
  table seed ``31425512``, or one being entered, ``314_____``) whole: both said a character
  at a time;
- **words**: every word in capitals (``SUCCESS``, ``MISHAP``, ``ROLL``, ``SR`` of ``SR2``)
  and, with ``every_word``, every word of three letters or more; each expected in the
  phrase table's words (``opp.`` is "opponent", German ``LOCKED`` is "gesperrt"). In the
  screen's own language every word must be said; in another, the words in capitals (a
  translation bends the others: ``set``, "setzt", "gesetzt"), and a table without a word
  for one is a missing translation (:func:`untranslated`).

A sentence says a fact when it holds the number (as a number, ``0,8`` read as ``0.8``), the
code's characters in a row, or the word (in any case, as part of a longer word).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.speech import Phrases

#: Digits of a hash a sentence must say: its first 16 (what ``--expect`` takes), or all of a
#: shorter one.
HEX_SAID = 16
#: Digits from which a number is a code.
CODE_DIGITS = 5

_HEX_WORD = re.compile(r"#?([0-9a-f]{8,})")
_HEX_LINE = re.compile(r"^[0-9a-f]{8,}$")
_PERCENT = re.compile(r"([<>]?)(\d+(?:\.\d+)?)%")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_CAPS = re.compile(r"[A-Z]{2,}")
_WORD = re.compile(r"[A-Za-z]{3,}")
_SPOKEN_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class Facts:
    numbers: Counter[str]  # a percentage between two whole ones is "78|79": either will do
    codes: frozenset[str]
    words: frozenset[str]  # every word (with ``every_word``)
    caps: frozenset[str]  # the words in capitals: the outcome, the call-outs, the buttons

    def __sub__(self, other: Facts) -> Facts:
        return Facts(self.numbers - other.numbers, self.codes - other.codes, self.words - other.words,
                     self.caps - other.caps)

    def __bool__(self) -> bool:
        return bool(self.numbers or self.codes or self.words or self.caps)


NONE = Facts(Counter(), frozenset(), frozenset(), frozenset())


def _percent(sign: str, value: str) -> str:
    """The whole percent speech gives a percentage the screen shows to a tenth (``78.5%``
    was 78.46 or 78.54: 78 or 79)."""
    p = float(value)
    if sign == "<" or 0 < p < 0.5:
        return "1"
    if sign == ">" or 99.5 <= p < 100:
        return "99"
    if abs(p - int(p) - 0.5) < 1e-9:
        return f"{int(p)}|{int(p) + 1}"
    return str(round(p))


def facts(lines: Sequence[str], dice: Iterable[int] = (), *, every_word: bool = False) -> Facts:
    """The facts of a screen's text ``lines`` (and its ``dice``)."""
    numbers: Counter[str] = Counter()
    codes: set[str] = set()
    words: set[str] = set()
    caps: set[str] = set()
    wrapped = ""  # a hash wrapped over lines of hex digits (a commitment, a head) is one
    for line in [*lines, ""]:
        if _HEX_LINE.match(line.strip()):
            wrapped += line.strip()
            continue
        if wrapped:
            codes.add(wrapped[:HEX_SAID])
            wrapped = ""
        text = line
        for m in _HEX_WORD.finditer(line):
            word = m[0]
            if word.startswith("#") or any(c in "abcdef" for c in m[1]):
                codes.add(m[1][:HEX_SAID])
                text = text.replace(word, " ")
        counted: Counter[str] = Counter()
        for m in _PERCENT.finditer(text):
            counted[_percent(m[1], m[2])] += 1
        text = _PERCENT.sub(" ", text)
        for m in _NUMBER.finditer(text):
            entering = text[m.end():m.end() + 1] == "_"  # a code being entered: 314_____
            if entering or ("." not in m[0] and len(m[0]) >= CODE_DIGITS):
                codes.add(m[0])
            else:
                counted[m[0]] += 1
        numbers |= counted  # the most any one line shows
        caps.update(w.lower() for w in _CAPS.findall(text))
        if every_word:
            words.update(w.lower() for w in _WORD.findall(text))
    dice_counted = Counter(str(d) for d in dice)
    numbers |= dice_counted
    return Facts(numbers, frozenset(codes), frozenset(words | caps), frozenset(caps))


def expected(word: str, table: Phrases) -> str | None:
    """How the table says a screen word ("": not at all, a filler; None: it has no word for it)."""
    for vocabulary in (table.words, table.outcomes, table.systems):
        for form in (word, word + "."):  # an abbreviation: opp., succ.
            if form in vocabulary:
                return vocabulary[form]
    return None


def _runs(said: str) -> set[str]:
    """The characters said one at a time in a row (``3 f a 2, ...`` -> ``3fa2``)."""
    runs, current = set(), ""
    for token in said.split():
        core = token.rstrip(".,;:")
        if len(core) == 1 and core in "0123456789abcdef":
            current += core
            if core != token:  # punctuation ends the run
                runs.add(current)
                current = ""
            continue
        if current:
            runs.add(current)
        current = ""
    if current:
        runs.add(current)
    return runs


def untranslated(found: Facts, table: Phrases, *, own: frozenset[str] = frozenset()) -> list[str]:
    """The words of ``found`` the table has no word of its own for (``own``: words said as
    they are written in this language too: names, the rules' proper terms)."""
    return sorted(w for w in found.words if expected(w, table) is None and w not in own)


def missing(found: Facts, text: str, table: Phrases, *, as_written: bool) -> list[str]:
    """The facts of ``found`` that ``text`` does not say (``as_written``: a word the table
    has no word for may be said as the screen writes it, as English does)."""
    said = text.lower()
    spoken_numbers = Counter(n.replace(",", ".") for n in _SPOKEN_NUMBER.findall(said))
    runs = _runs(said)
    out = [f"number {n} x{k}" for n, k in found.numbers.items()
           if max(spoken_numbers[alternative] for alternative in n.split("|")) < k]
    out += [f"code {c}" for c in found.codes if not any(c in run for run in runs)]
    # a language other than the screen's may bend a word (setzt, gesetzt): its words in
    # capitals (the outcome, the call-outs, the buttons) must be there, the others translated
    for word in (found.words if as_written else found.caps):
        want = expected(word, table)
        if want is None and not as_written:
            continue  # untranslated(): a finding of its own
        if want == "":
            continue  # a filler the language leaves unsaid
        if (want or word).lower() not in said:
            out.append(f"word {word!r} ({want or word})")
    return sorted(out)
