"""tools/verify_rolls.py cannot know a plug-in's rules: the coin ships its own rules module
(dicetower_coin/verify_rules.py), the player names it with --rules PATH, and the tool prints
its sha256 to compare with the one the plug-in publishes."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from tests.plugins.install import Night

TOOL = Path(__file__).resolve().parents[2] / "tools" / "verify_rolls.py"


def verify(log: Path, *args: str, tool: Path = TOOL) -> subprocess.CompletedProcess[str]:
    """The tool as a player runs it: the system's python3, no dicetower on its path."""
    return subprocess.run([sys.executable, "-I", str(tool), str(log), *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_coins_night_checks_with_its_rules_module_named(coin_site: Path, coin_night: Night) -> None:
    rules = coin_site / "dicetower_coin" / "verify_rules.py"
    done = verify(coin_night.state / "rolls.jsonl", *coin_night.notes, "--rules", str(rules))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"rules coin: {rules} sha256 {hashlib.sha256(rules.read_bytes()).hexdigest()}" in done.stdout.splitlines()
    assert "verified 2 rolled" in done.stdout
    shown = [line for line in done.stdout.splitlines() if line.startswith("  roll #")]
    assert len(shown) == 2 and all('"coin ' in line and ' vs 2": coin ' in line for line in shown), shown


def test_without_the_rules_module_the_coins_rolls_are_not_checked(coin_night: Night) -> None:
    done = verify(coin_night.state / "rolls.jsonl", *coin_night.notes)
    assert done.returncode == 1
    assert "roll-mismatch: unknown system 'coin': no rules module for it (name the system's with --rules PATH)" \
        in done.stdout


def test_a_changed_rules_module_shows_another_hash_and_a_false_draw_fails(coin_site: Path, coin_night: Night,
                                                                          tmp_path: Path) -> None:
    honest = (coin_site / "dicetower_coin" / "verify_rules.py").read_text()
    bent = tmp_path / "verify_rules.py"
    bent.write_text(honest.replace("roll.below(2) + 1", "3 - (roll.below(2) + 1)"))  # heads read as tails
    done = verify(coin_night.state / "rolls.jsonl", *coin_night.notes, "--rules", str(bent))
    assert f"rules coin: {bent} sha256 {hashlib.sha256(bent.read_bytes()).hexdigest()}" in done.stdout
    assert hashlib.sha256(bent.read_bytes()).hexdigest() != hashlib.sha256(honest.encode()).hexdigest()
    assert done.returncode == 1 and ": roll-mismatch: coins logged [" in done.stdout, done.stdout


def test_a_rules_module_that_imports_beyond_the_standard_library_is_refused(coin_night: Night,
                                                                             tmp_path: Path) -> None:
    sneaky = tmp_path / "verify_rules.py"
    sneaky.write_text("from engine.systems import get\nSYSTEM = 'coin'\n"
                      "def redraw(roll, result):\n    return None\n\ndef screen_line(result):\n    return ''\n")
    done = verify(coin_night.state / "rolls.jsonl", "--rules", str(sneaky))
    assert done.returncode == 2
    assert done.stderr.strip() == (f"verify_rolls: --rules: {sneaky} imports engine.systems: a rules module uses "
                                   "the standard library only")
    done = verify(coin_night.state / "rolls.jsonl", "--rules", str(tmp_path / "missing.py"))
    assert done.returncode == 2 and "cannot read" in done.stderr and len(done.stderr.splitlines()) == 1


def test_the_tool_on_its_own_checks_the_shipped_systems_only_with_their_rules_named(coin_site: Path,
                                                                                   coin_night: Night,
                                                                                   tmp_path: Path) -> None:
    # a player who downloaded verify_rolls.py alone names every rules module the log needs
    alone = tmp_path / "verify_rolls.py"
    alone.write_bytes(TOOL.read_bytes())
    rules = coin_site / "dicetower_coin" / "verify_rules.py"
    done = verify(coin_night.state / "rolls.jsonl", *coin_night.notes, "--rules", str(rules), tool=alone)
    assert done.returncode == 0, done.stdout + done.stderr
