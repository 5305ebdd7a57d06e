"""On a tower that serves the phone page, the reveal's QR code is the page's address with the card
in its fragment: both checkers take it as the card itself, and the panel draws it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine.fingerprints import read_reveal_card, reveal_card, reveal_url
from engine.panel import screens, sessions
from hardware.cli import main
from tests.hardware import forgeries

REPO = Path(__file__).resolve().parents[2]


def test_both_checkers_take_the_page_address_as_the_card(forgery_honest, tmp_path, capsys) -> None:
    entries = forgery_honest.table
    path = tmp_path / "rolls.jsonl"
    forgeries.write(path, entries)
    card = forgeries.card_of(entries)
    url = reveal_url("http://tower.local/", card)
    assert read_reveal_card(url) == read_reveal_card(card)
    args = ["--card", url, "--expect", forgery_honest.noted["commitment"], "--table-seed", forgeries.TABLE_SEED,
            "--count", "30", *(a for m in forgeries.MIXES for a in ("--allow-mix", m))]
    assert main(["replay", str(path), "--all-revealed", *args]) == 0, capsys.readouterr()
    done = subprocess.run([sys.executable, str(REPO / "tools" / "verify_rolls.py"), str(path), *args],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    wrong = reveal_url("http://tower.local/", card.replace("rolls 30", "rolls 29"))
    assert main(["replay", str(path), *args[:0], "--card", wrong, "--expect", forgery_honest.noted["commitment"],
                 "--table-seed", forgeries.TABLE_SEED]) == 1


def test_the_reveal_screen_codes_the_page_address_when_there_is_one() -> None:
    facts = sessions.Card("3fa2c1d0" * 8, "31425512", 12, "5e0f7c2a" * 8)
    plain = screens.card(facts, 1.0)
    assert plain.qr == reveal_card(facts.commitment, facts.table_seed, facts.rolls, facts.head)
    paged = screens.card(facts, 1.0, "http://tower.local/")
    assert paged.qr.startswith("http://tower.local/#card=") and read_reveal_card(paged.qr) == read_reveal_card(plain.qr)
