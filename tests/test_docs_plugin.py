"""docs/architecture.md "Writing a system plug-in" was written from building the coin
(tests/plugins/coin), and every count in it (the bold ones: files, modules, entry points,
fields, parts, names, languages, problems) is checked here against the coin, the engine and
the contract test, so the page cannot drift from the code."""

from __future__ import annotations

import ast
import dataclasses
import re
import tomllib
from pathlib import Path

from engine.speech import LANGUAGES
from engine.systems import SystemSpec, ids, registry
from engine.systems.panel import Phrasebook, Speech
from tests.test_system_contract import BROKEN_COIN

ROOT = Path(__file__).resolve().parents[1]
COIN = ROOT / "tests" / "plugins" / "coin"
DOC = ROOT / "docs" / "architecture.md"


def section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## Writing a system plug-in")
    return text[start:text.index("\n## ", start + 1)]


def facts() -> dict[str, int]:
    """Each count the section may state, by the words after its number, worked out here."""
    files = [p for p in COIN.rglob("*") if p.is_file() and "__pycache__" not in p.parts
             and not any(part.endswith(".egg-info") or part == "build" for part in p.parts)]
    modules = sorted((COIN / "dicetower_coin").glob("*.py"))
    points = tomllib.loads((COIN / "pyproject.toml").read_text())["project"]["entry-points"]
    init = [f for f in dataclasses.fields(SystemSpec) if f.init]
    required = [f for f in init if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    rules = ast.parse((COIN / "dicetower_coin" / "verify_rules.py").read_text())
    names = {t.id for n in rules.body if isinstance(n, ast.Assign | ast.AnnAssign)
             for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    names |= {n.name for n in rules.body if isinstance(n, ast.FunctionDef)}
    shipped = [e for e in registry.installed().values() if e.distribution == "dicetower"]
    return {
        "files": len(files), "modules": len(modules),
        "entry point": sum(len(group) for group in points.values()),
        "fields": len(init), "of them required": len(required),
        "parts (Speech)": len(dataclasses.fields(Speech)), "parts (Phrasebook)": len(dataclasses.fields(Phrasebook)),
        "languages": len(LANGUAGES), "names": len(names), "problems": len(BROKEN_COIN),
        "shipped systems": len(shipped),
    }


def test_every_count_of_the_plugin_page_is_the_codes() -> None:
    text = section()
    want = facts()
    said = re.findall(r"\*\*(\d+) ([a-z ]+?)\*\*", text)
    assert said, "no count found: the section's counts are bold (**7 files**)"
    parts = iter(("parts (Speech)", "parts (Phrasebook)"))  # the Speech's parts come first, then a Phrasebook's
    for number, words in said:
        key = next(parts) if words == "parts" else words
        assert key in want, f"docs/architecture.md states **{number} {words}**, which no test checks"
        assert int(number) == want[key], f"docs/architecture.md says {number} {words}, the code has {want[key]}"
    stated = {w if w != "parts" else "parts" for _, w in said}
    assert {k.split(" (")[0] for k in want} <= stated, sorted({k.split(" (")[0] for k in want} - stated)
    # no count left in words (a "five" or "four" that no test would see)
    assert not re.search(r"\b(two|three|four|five|six|seven|eight|nine|ten)\b", text), \
        re.search(r".{30}\b(two|three|four|five|six|seven|eight|nine|ten)\b.{30}", text)


def test_the_listing_of_the_coin_is_its_files() -> None:
    text = section()
    listed = re.findall(r"^  (\w+\.py)\s", text, re.MULTILINE)
    assert sorted(listed) == sorted(p.name for p in (COIN / "dicetower_coin").glob("*.py"))
    assert "coin = \"dicetower_coin:SYSTEM\"" in text and "`coin = \"dicetower_coin:SYSTEM\"`" in text
    assert (COIN / "pyproject.toml").read_text().count('coin = "dicetower_coin:SYSTEM"') == 1
    assert "coin" not in ids()  # the coin is never part of dicetower: only the tests install it
