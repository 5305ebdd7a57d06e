"""Screen values for each panel picture.

Sized for a 128x64 OLED in a 6x8 font: lines of at most 21 characters, a title and up to 7
lines. A 16x2 LCD shows the first two rows of :meth:`Screen.text` (title, then the big word
or the first line), so each builder puts the most important text there and keeps the title
within 16 characters where it can.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.fingerprints import reveal_card, reveal_url
from engine.panel.looks import big_word
from engine.panel.model import Screen
from engine.panel.sessions import Card
from engine.panel.sessions import lines as session_lines
from engine.panel.sessions import short as session_short
from engine.results import RollResult
from engine.systems.panel import LINE, PanelSpec

WIDTH = LINE
LCD_WIDTH = 16
#: The attract screen wanders up to 16 pixels right (against burn-in): 3 columns fewer.
ATTRACT_WIDTH = WIDTH - 3
ROWS = 7  # below the title

#: Characters of large type across the screen (12-pixel cells on 128 pixels).
BIG_WIDTH = 10
#: Scroll steps a too-wide large word rests at each end.
_PAUSE = 3
#: Result lines beyond which the screen pages (the most a result with dice shows at once).
PAGED_FROM = 3
#: Lines the text under a setup screen's fields (a problem, what the player carries) or the
#: settings menu's notes take at most: a longer text turns its pages rather than being cut.
FOOTER_ROWS = 3
#: Characters and lines beside a QR code on the OLED (the code takes the left 64 pixels).
BESIDE_WIDTH = 10
BESIDE_ROWS = 8


def fit(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"


def wrap(text: str, width: int = WIDTH, rows: int = 3) -> tuple[str, ...]:
    """Word-wrapped into at most ``rows`` lines; the last is cut with ``~`` if needed."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        while len(word) > width:
            if current:
                lines.append(current)
                current = ""
            lines.append(word[:width])
            word = word[width:]
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    if len(lines) > rows:
        lines = [*lines[: rows - 1], fit(" ".join(lines[rows - 1 :]), width)]
    return tuple(lines)


def wrap_all(text: str, width: int = WIDTH) -> tuple[str, ...]:
    """Word-wrapped into as many lines as it needs: nothing is cut."""
    return wrap(text, width, rows=len(text) + 1)


def page_of(lines: Sequence[str], rows: int, page: int) -> tuple[str, ...]:
    """Page ``page`` (counting round) of ``lines`` split into pages of ``rows``."""
    count = pages_in(lines, rows)
    start = (page % count) * rows
    return tuple(lines[start : start + rows])


def pages_in(lines: Sequence[str], rows: int) -> int:
    return max(1, -(-len(lines) // rows))


def spread(left: str, right: str, width: int = LCD_WIDTH) -> str:
    """``left`` and ``right`` at the two ends of ``width`` (wider if they need it)."""
    gap = max(1, width - len(left) - len(right))
    return fit(left + " " * gap + right)


def percent(p: float) -> str:
    """A chance as the screen shows it; never rounds a possible event to 0% or 100%."""
    if p <= 0:
        return "0%"
    if p >= 1:
        return "100%"
    if p < 0.001:
        return "<0.1%"
    if p > 0.999:
        return ">99.9%"
    return f"{p * 100:.1f}%"


def setup(
    system: str,
    rows: Sequence[tuple[str, str]],
    selected: int,
    odds: float | None,
    footer: Sequence[str],
    contrast: float,
) -> Screen:
    """The system, its fields and the chance of success.

    The selected field comes first, marked ``>``, and the others follow in FIELD order
    (round from it), so a two-line display shows the system, the chance and what PLUS and
    MINUS will change.
    """
    title = spread(system, percent(odds) if odds is not None else "--")
    footer = tuple(fit(f) for f in footer)[: ROWS - 1]  # the selected field always shows
    room = ROWS - len(footer)
    lines: list[str] = []
    if rows:
        start = selected % len(rows)
        order = [*range(start, len(rows)), *range(start)]
        for n, i in enumerate(order[:room]):
            name, value = rows[i]
            name = name[: max(4, WIDTH - 2 - len(value))]  # the value always shows whole
            lines.append(fit(f"{'>' if n == 0 else ' '}{name} {value}"))
    else:
        lines.append("(nothing to set)")
    return Screen(
        title=title,
        lines=(*lines, *footer),
        odds=odds,
        selected=0 if rows else None,
        contrast=contrast,
        kind="setup",
    )


def rolling(system: str, dice: tuple[int, ...], contrast: float) -> Screen:
    return Screen(
        title=spread(system, "rolling"),
        lines=wrap_all(" ".join(str(d) for d in dice)) if dice else ("...",),
        dice=dice,
        contrast=contrast,
        kind="rolling",
    )


def result(result: RollResult, panel: PanelSpec, player: int, carried: str, contrast: float, *,
           page: int = 0, step: int = 0, foot: str = "") -> Screen:
    """Outcome in large type; the title holds what was reached against what was needed (the
    system's ``headline``), then the system's ``details``: the outcome with its degree, the
    dice, each participant or test, anything the rules call out. Long lines wrap; a result
    longer than the screen pages by ``page``, a large word wider than it scrolls by ``step``.
    ``foot`` (the roll's fingerprint, once it is in the log) is on every page.
    A system whose result is a hand of fingers shows the reveal (kind ``reveal``)."""
    data = result.to_dict()
    lines = [*panel.details(data)]
    if carried:
        lines.append(f"P{player} {carried}")
    wrapped = tuple(part for line in lines if line for part in wrap_all(line))
    return Screen(
        title=spread(result.system, panel.headline(data)),
        lines=wrapped,
        big=marquee(big_word(result.outcome), BIG_WIDTH, step),
        dice=result.dice,
        contrast=contrast,
        kind="reveal" if panel.hand else "result",
        page=page if len(wrapped) > PAGED_FROM - (1 if foot else 0) else 0,
        foot=fit(foot),
    )


def turn(system: str, who: str, index: int, count: int, lines: Sequence[str], contrast: float) -> Screen:
    """One participant of a group roll (``helper 2``): their dice and who presses ROLL next."""
    return Screen(
        title=spread(system, f"{index + 1}/{count}"),
        lines=tuple(part for line in lines for part in wrap_all(line)),
        big=who.upper(),
        contrast=contrast,
        kind="turn",
    )


def marquee(text: str, width: int, step: int) -> str:
    """``text`` if it fits in ``width``, else the ``width`` characters it has scrolled to at
    ``step`` (a pause at each end, then round again)."""
    if len(text) <= width:
        return text
    stops = [0] * _PAUSE + list(range(1, len(text) - width)) + [len(text) - width] * _PAUSE
    start = stops[step % len(stops)]
    return text[start : start + width]


def guess(system: str, fingers: Sequence[int], setting: str, note: str, contrast: float) -> Screen:
    """The tower hides its hand: the big type says which finger buttons count."""
    if fingers and list(fingers) == list(range(1, max(fingers) + 1)):
        span = f"1-{max(fingers)}"
    else:
        span = ",".join(str(f) for f in fingers) or "-"
    # the test on a line of its own where it does not fit beside the system's name
    head = f"{system} {setting}".strip()
    shown = (head,) if len(head) <= WIDTH else (system, *wrap(setting, rows=2))
    lines = [*shown, "1=thumb .. 5=pinky"]
    if note:
        lines.append(fit(note))
    return Screen(title="pick a finger", lines=tuple(lines), big=span, contrast=contrast,
                  kind="guess")


def settings_footer(note: str, status: str) -> tuple[str, ...]:
    """The settings menu's notes, whole: ``note`` ("P1 reset"), then the entropy status."""
    return (*(wrap_all(note) if note else ()), *wrap_all(f"entropy {status}" if status else "entropy ?"))


def settings(rows: Sequence[tuple[str, str]], selected: int, armed: bool, footer: Sequence[str],
             contrast: float) -> Screen:
    """The menu; the selected item first, so a two-line display shows it under the title.
    ``footer`` is a page of :func:`settings_footer` (the entropy status last)."""
    lines: list[str] = []
    footer = tuple(footer)[:FOOTER_ROWS]
    room = ROWS - len(footer)
    start = selected % len(rows)
    order = [*range(start, len(rows)), *range(start)]
    for n, i in enumerate(order[:room]):
        name, value = rows[i]
        text = f"{name} {value}".rstrip()
        if n == 0 and armed:
            text = f"{name}? ROLL"
        lines.append(fit(f"{'>' if n == 0 else ' '}{text}"))
    return Screen(
        title="settings",
        lines=(*lines, *footer),
        selected=0,
        contrast=contrast,
        kind="settings",
    )


def session(commitment: str, revealed: str, why: str, note: str, contrast: float) -> Screen:
    """The open session's commitment in full, 16 hex digits a line, so a player can note or
    photograph it before rolling (a 16x2 LCD shows the title and the first 16 digits); on the
    OLED a QR code of it beside the digits in eight groups of eight.
    ``revealed`` is the commitment of the last session whose seed went to the log; ``note``
    says what just happened ("seed revealed: in log"). With no session open, ``why``."""
    if commitment:
        lines = [*session_lines(commitment), fit(note) if note else "SHA-256 of the seed"]
    else:
        room = ROWS - 2 - (1 if revealed else 0)
        lines = [*wrap(why or "no session open", rows=room), "a roll tries again"]
    if revealed:
        lines.append(fit(f"revealed {session_short(revealed)}"))
    lines.append("any button: back")
    groups = tuple(commitment[i : i + 8] for i in range(0, len(commitment), 8)) if commitment else ()
    return Screen(title="commitment", lines=tuple(lines), contrast=contrast, kind="session", qr=commitment,
                  beside=groups)


def seed_ask(commitment: str, mark: str, contrast: float, *, from_menu: bool = False) -> Screen:
    """A new session's first ROLL: set a table seed? The commitment's QR code beside the
    choices, and its first 16 hex digits, so the table photographs the commitment before it
    chooses its seed (a new code each session). Only a session nothing has touched is asked: one
    seeded or rolled in elsewhere is never the table's (the panel asks for a new one)."""
    digits = (commitment[:8], commitment[8:16])
    choices: tuple[str, ...]
    if from_menu:  # ROLL chose this item: it goes on to the code like PLUS
        choices = ("new code?", "PLUS: set", "MODE: back")
    else:
        choices = ("new code?", "PLUS: set", "ROLL: none", "MODE: back")
    # the same words on every display (the OLED beside the QR code, a text display's lines)
    return Screen(title=f"table seed? {mark}", lines=("photograph the QR", *digits, *choices), contrast=contrast,
                  kind="seed", qr=commitment, beside=(*digits, "", *choices)[:BESIDE_ROWS])


def seed_code(mark: str, code: Sequence[int], presses: int, note: str, contrast: float) -> Screen:
    """The table seed's finger presses: the code so far in large type (``314_____``), how many
    are left, or, once complete, what ROLL and MODE do."""
    shown = "".join(str(f) for f in code) + "_" * max(0, presses - len(code))
    if len(code) >= presses:
        lines = ["ROLL: set it", "MODE: cancel", "other: a new code"]
    else:
        left = presses - len(code)
        lines = [f"press {left} more button{'' if left == 1 else 's'}" if code else f"press any {presses} buttons",
                 "1=thumb .. 5=pinky"]
    if note:
        lines.append(fit(note))
    return Screen(title=f"table seed {mark}", lines=tuple(lines), big=shown, contrast=contrast, kind="seed")


def card(facts: Card, contrast: float, page_url: str = "") -> Screen:
    """A revealed session's four facts (what ``dicetower session close`` prints): the
    commitment, the table seed, the roll count and the head, with a QR code of the same text
    on the OLED (the short forms beside it: the 8 digits ``--expect`` takes). On a tower that
    serves the phone page (``page_url``), the QR code is the page's address with the card in
    its fragment: a phone's camera opens the check."""
    seed = facts.table_seed
    seed_text = seed if seed is not None else "none"
    seed_beside = wrap_all(seed_text, BESIDE_WIDTH)
    if len(seed_beside) > 2:
        seed_beside = ("in the QR",)  # a long one (set on the command line): the code holds it whole
    beside = (session_short(facts.commitment), f"rolls {facts.rolls}", "head", facts.head[:8], facts.head[8:16],
              "table seed", *seed_beside)
    lines = ("commitment", *session_lines(facts.commitment), *wrap_all(f"table seed {seed_text}"),
             f"rolls {facts.rolls}", "head", *session_lines(facts.head), "any button: next")
    return Screen(title=f"revealed {session_short(facts.commitment)}", lines=lines, contrast=contrast, kind="card",
                  qr=_card_qr(reveal_card(facts.commitment, seed, facts.rolls, facts.head), page_url),
                  beside=beside[:BESIDE_ROWS])


def _card_qr(card_text: str, page_url: str) -> str:
    return reveal_url(page_url, card_text) if page_url else card_text


def message(title: str, text: str, contrast: float, *, page: int = 0) -> Screen:
    """A title and a text, whole: a text longer than the screen pages by ``page``."""
    lines = wrap_all(text)
    return Screen(title=fit(title, LCD_WIDTH), lines=lines, contrast=contrast, kind="message",
                  page=page if len(lines) > ROWS else 0)


def status_part(status: str, step: int) -> str:
    """The part of the status line the attract screen shows at ``step``: a long status is
    shown a line's worth at a time, in turn, rather than cut."""
    return page_of(wrap_all(status, ATTRACT_WIDTH), 1, step)[0]


def attract(systems: Sequence[str], frame: int, offset: tuple[int, int], status: str,
            contrast: float, *, step: int = 0) -> Screen:
    """Idle: a small moving picture (against OLED burn-in) naming one system at a time, and
    the entropy status a part at a time (``step`` counts the picture's moves)."""
    shown = systems[frame % len(systems)] if systems else ""
    lines: tuple[str, ...] = (fit(shown, ATTRACT_WIDTH), "press any button")
    if status:
        lines = (*lines, status_part(status, step))
    return Screen(title="dicetower", lines=lines, offset=offset, contrast=contrast,
                  kind="attract")
