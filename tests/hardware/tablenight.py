"""A table's night on the simulated tower, and what its players note of it.

:class:`Table` runs a tower (the simulator's panel, the real runtime, a real state directory
and entropy from the kernel) and reads back, from the screens the table saw, what
docs/fairness.md tells players to note: each session's commitment at its question, each code
they typed, every result's fingerprint as ``N:HEX``, and each reveal card (its QR code's text).
The honest nights and the real attacks of issue 37 are written with it.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.fingerprints import FINGERPRINT_HEX, reveal_card
from engine.panel.menu import ITEMS, Item

ROOT = Path(__file__).resolve().parents[2]
_FOOT = re.compile(r"#?(\d+) ([0-9a-f]{" + str(FINGERPRINT_HEX) + "})")
#: FIELD presses from the menu's first item to "reveal seed".
_TO_REVEAL = ITEMS.index(Item.REVEAL)


def code_presses(code: str) -> str:
    """The table seed question answered with ``code`` (eight finger digits 1-5) on the keys."""
    return "roll plus " + " ".join(code) + " roll"


#: Reveal from the settings menu (ROLL, ROLL), then back to the setup screen past the card and
#: the new session's commitment.
MENU_REVEAL = "hold:mode:1 " + "field " * _TO_REVEAL + "roll roll mode mode mode"


@dataclass
class Noted:
    """What the players noted (the options the checkers take)."""

    commitments: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)
    mixes: list[str] = field(default_factory=list)
    entered: int = 0
    command_line: int = 0

    def args(self) -> list[str]:
        out: list[str] = []
        for value in (*self.commitments, *self.results):
            out += ["--expect", value]
        for code in self.codes:
            out += ["--table-seed", code]
        for card in self.cards:
            out += ["--card", card]
        for mix in self.mixes:
            out += ["--allow-mix", mix]
        if self.entered:
            out += ["--allow-entered", str(self.entered)]
        if self.command_line:
            out += ["--allow-command-line", str(self.command_line)]
        return out


class Table:
    """A tower in ``state`` (``systems``: the panel's) and its players' notes."""

    def __init__(self, state: Path, systems: tuple[str, ...] = ("d6cv",)) -> None:
        self.state = state
        self.systems = systems
        self.noted = Noted()
        self.sim: Any = None
        self.screens: list[dict[str, Any]] = []

    def start(self) -> Table:
        from hardware.cli.sim import Simulator
        from hardware.cli.tower import _dice, keep
        from hardware.config import reader

        systems = ", ".join(f'"{s}"' for s in self.systems)
        config = reader.loads(f'[kiosk]\nstate_dir = "{self.state}"\n[entropy]\nsource = "kernel"\n'
                              f'[panel]\nsystems = [{systems}]\nanimation_seconds = 0\n')
        kept = keep(config)
        self.sim = Simulator(config, dice=_dice(config, None, kept=kept), **kept.tower_options())
        return self

    def press(self, script: str) -> list[dict[str, Any]]:
        """Run ``script`` on the panel; note what the table saw."""
        from hardware.cli.sim import parse_script

        steps = self.sim.run_script(parse_script(script))
        self.screens += [s["screen"] for s in steps]
        for step in steps:
            self._note(step["screen"])
        return steps

    def set_code(self, code: str) -> None:
        self.press(code_presses(code))
        self.noted.codes.append(code)

    def stop(self) -> None:
        """Quit the tower (it reveals its session at the end)."""
        self.sim.close()
        self.sim = None

    def pull_the_plug(self) -> None:
        """A power cut: the process is gone, nothing is closed or revealed."""
        self.sim = None

    def _note(self, screen: dict[str, Any]) -> None:
        lines = screen["lines"]
        if screen["kind"] == "seed" and str(screen["title"]).startswith("table seed?"):
            commitment = lines[2] + lines[3]
            if commitment not in self.noted.commitments:
                self.noted.commitments.append(commitment)
        elif screen["kind"] in ("result", "reveal"):
            for line in lines:
                found = _FOOT.fullmatch(line)
                if found and f"{found[1]}:{found[2]}" not in self.noted.results:
                    self.noted.results.append(f"{found[1]}:{found[2]}")
        elif screen["kind"] == "card":
            seed = lines[6].removeprefix("table seed ")
            card = reveal_card("".join(lines[2:6]), None if seed == "none" else seed,
                               int(lines[7].removeprefix("rolls ")), "".join(lines[9:13]))
            if card not in self.noted.cards:
                self.noted.cards.append(card)

    # --- the command line, as root or the players use it -----------------------------------------

    def cli(self, *argv: str) -> dict[str, Any] | None:
        """``dicetower ARGV --state-dir STATE`` in this process; its JSON when it printed one."""
        from hardware.cli import main

        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
            code = main(list(argv))
        if code != 0:
            raise AssertionError(f"dicetower {' '.join(argv)} -> {code}: {err.getvalue()}")
        text = out.getvalue().strip().splitlines()
        try:
            return json.loads(text[-1]) if text else None
        except ValueError:
            return None

    # --- the checkers ---------------------------------------------------------------------------

    @property
    def log(self) -> Path:
        return self.state / "rolls.jsonl"

    def replay(self, *extra: str) -> tuple[int, str]:
        from hardware.cli import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["replay", str(self.log), "--all-revealed", *self.noted.args(), *extra])
        return code, out.getvalue() + err.getvalue()

    def verify_rolls(self, *extra: str) -> tuple[int, str]:
        done = subprocess.run([sys.executable, str(ROOT / "tools" / "verify_rolls.py"), str(self.log),
                               "--all-revealed", *self.noted.args(), *extra],
                              capture_output=True, text=True, check=False)
        return done.returncode, done.stdout + done.stderr

    def entries(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]
