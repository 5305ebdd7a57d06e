"""The table's seed on the panel: a code of finger presses the table sets for a session.

The tower commits to each session's seed before its first roll; the table then sets a seed
the device could not have known, and every roll of the session depends on it (docs/fairness.md,
"Sessions"). On the panel it is a code of CODE_PRESSES finger presses (thumb 1 .. pinky 5,
any buttons in any order: 5^8 = 390,625 codes, about as many as six decimal digits), offered
at the session's first ROLL and confirmed with ROLL. The code is its digits as text
(``31425512``), exactly what ``dicetower replay --table-seed`` takes. A code of fewer than
CODE_FINGERS different fingers (eight ROLL presses) is refused: easy to guess, and what a
player who only wanted to roll would type. docs/panel.md, "The table's seed".
"""

from __future__ import annotations

from engine.panel.state import PanelState

#: Finger presses a table seed takes.
CODE_PRESSES = 8
#: The fewest different fingers a code may use.
CODE_FINGERS = 3
#: The page's steps: asking whether to set one (the commitment's QR code beside the choices),
#: then the finger presses.
ASK, ENTER = "ask", "enter"


def code_text(code: tuple[int, ...]) -> str:
    """The table seed a code of finger presses gives: its fingers as digits (``31425512``)."""
    return "".join(str(f) for f in code)


def offered(s: PanelState) -> bool:
    """Whether a ROLL asks for a table seed first: the open session has neither a roll nor a
    seed (every new session offers it again, until its first roll; each needs a new code)."""
    return bool(s.commitment) and s.table_seed is None and not s.started


def tables(s: PanelState) -> bool:
    """Whether the open session is the table's: its question was shown on this panel (the
    commitment's QR code and digits) and answered on its keys (a code, or none) before anything
    else set its code or rolled in it. The panel rolls in no other session: one seeded or rolled
    in from the command line, or left open by an earlier run, is ended and a new one asked for
    (docs/fairness.md, "The panel's session is the table's")."""
    return bool(s.commitment) and s.answered == s.commitment and s.table_seed == s.answered_code


def why_not(s: PanelState) -> str:
    """Why no table seed can be set now ("" when it can)."""
    if not s.commitment:
        return "no session open"
    if s.table_seed is not None:
        return "set already; reveal for a new session"
    if s.started:
        return "too late: the session has a roll"
    return ""
