"""No attribute probes in engine/ and hardware/ (issue 40): what one part asks of another is a
typed seam (a Protocol, an ABC, an explicit optional attribute, a registry), never a
``hasattr``/``getattr`` on a name with a default, and nothing forwards attributes with
``__getattr__``. The few ``getattr`` calls kept are listed below, each with its reason; a new
one fails here until it is replaced, or listed with its reason (docs/architecture.md, "Types
are checked, not hoped for")."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "hardware")
#: Calls that look an attribute up by a name held in a value.
PROBES = frozenset({"getattr", "hasattr", "getattr_static"})
#: Methods that answer for attributes a class does not have (forwarding).
FORWARDERS = frozenset({"__getattr__", "__getattribute__"})

#: (file, the call as written) -> (how many times, why it stays).
ALLOWED: dict[tuple[str, str], tuple[int, str]] = {
    # --- a class's own dataclass fields, by their names (nothing outside is asked)
    ("engine/results.py", "getattr(value, f.name)"): (
        1, "to_jsonable: a dataclass's own fields, by dataclasses.fields"),
    ("engine/results.py", "getattr(self, f.name)"): (1, "RollResult.to_dict: its own fields, by dataclasses.fields"),
    ("engine/systems/horizons/__init__.py", "getattr(self, name)"): (
        1, "HorizonsResult.to_dict: its own fields, by __dataclass_fields__"),
    ("engine/systems/panel.py", "getattr(self, name)"): (
        1, "Phrasebook.__post_init__: its own mapping fields, frozen one by one"),
    ("engine/panel/view.py", "getattr(before, name)"): (1, "looks_the_same: PanelState's own fields, by fields()"),
    ("engine/panel/view.py", "getattr(s, name)"): (1, "looks_the_same: PanelState's own fields, by fields()"),
    ("engine/panel/machine.py", "getattr(settings, name)"): (
        1, "_restore: a Settings field named in a fixed tuple, its type against the saved value's"),
    ("hardware/config/reader.py", "getattr(t, read)"): (
        2, "_read_field: the _Table reader a field's config_key names (no default: a wrong name fails)"),
    ("hardware/config/schema.py", "getattr(menu, name)"): (
        1, "_menu_bound: a [panel] key's range, the settings menu's constant it names (a wrong name fails)"),
    # --- a field a system's own PanelSpec names (the panel may name no system: tests/test_layering.py)
    ("engine/panel/looks.py", "getattr(result, panel.colour, None)"): (
        1, "outcome_rgb: the result field PanelSpec.colour names (immortal's color)"),
    ("engine/panel/looks.py", "getattr(result, panel.count, None)"): (
        1, "outcome_leds: the result field PanelSpec.count names (successes, success_rating)"),
    ("engine/panel/looks.py", "getattr(result, panel.hand, None)"): (
        1, "winners: the result field PanelSpec.hand names (fingers' winners)"),
    # --- a registry's row by name: ``module:attribute``, imported once the row is chosen
    ("engine/systems/registry.py", "getattr(module, self.attribute)"): (
        1, "Installed.load: the object a dicetower_systems entry point names (module:attribute)"),
    ("hardware/backends.py", "getattr(importlib.import_module(module), attribute)"): (
        1, "Registry.load: a backend's target, typed by the registry's second parameter"),
    ("hardware/display/oled.py", "getattr(importlib.import_module(module), name)"): (
        1, "luma_class: the luma class a DisplayKind row names"),
    # --- argparse's Namespace, by the names the parser was given
    ("hardware/cli/dice.py", "getattr(opts, p.name)"): (1, "_parse: one option per parameter of the system's spec"),
    ("hardware/cli/board.py", "getattr(args, name)"): (
        1, "_board: the board's options, a fixed tuple the parser defines"),
    # --- the seam sorter itself: each Protocol member looked up on the class, once per tower
    ("hardware/tower/dice.py", "inspect.getattr_static(dice, name, _MISSING)"): (
        1, "_offers: abilities() sorts the dice by the seams' Protocols once, statically (no property runs)"),
    # --- other people's code: attributes that exist only in some versions or some cases
    ("hardware/board/record.py", "getattr(exc, 'sqlite_errorcode', None)"): (
        1, "record_trouble: sqlite3 sets sqlite_errorcode only on errors SQLite itself raised"),
    ("hardware/panel/io.py", "getattr(dev, '_hold_thread', None)"): (
        1, "PanelIO.close: gpiozero's private hold thread, woken early so closing takes one wait, not five"),
    ("hardware/display/qr.py", "getattr(encoder, 'encode', None)"): (
        1, "_encoder: segno's encoder module as laid out in this segno, else the whole package"),
    ("hardware/fonts/__init__.py", "getattr(font, '_load_pilfont_data', None)"): (
        1, "Pillow's private .pil reader, where this Pillow has it (else the font is drawn another way)"),
}


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def sites(source: str, filename: str = "<text>") -> list[str]:
    """Each probe call in ``source`` as written, and ``def __getattr__`` for each forwarder."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Call) and _call_name(node) in PROBES:
            found.append(ast.unparse(node))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in FORWARDERS:
            found.append(f"def {node.name}")
    return found


def _files() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def _found() -> Counter[tuple[str, str]]:
    return Counter((str(p.relative_to(ROOT)), site) for p in _files()
                   for site in sites(p.read_text(encoding="utf-8"), str(p)))


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_probe_but_the_listed(path: Path) -> None:
    rel = str(path.relative_to(ROOT))
    here = Counter(sites(path.read_text(encoding="utf-8"), str(path)))
    bad = [f"{rel}: {site} ({n}x; listed {ALLOWED.get((rel, site), (0, ''))[0]}x)" for site, n in here.items()
           if n > ALLOWED.get((rel, site), (0, ""))[0]]
    assert bad == [], "a typed seam instead (a Protocol, an explicit attribute), or list it with its reason"


def test_every_listed_probe_is_still_there() -> None:
    found = _found()
    stale = [f"{path}: {site}" for (path, site), (times, _) in ALLOWED.items() if found[(path, site)] != times]
    assert stale == [], "take it off the list (or fix its count)"


def test_every_listed_probe_says_why() -> None:
    assert all(len(why) > 20 for _, why in ALLOWED.values())


def test_the_scan_catches_each_kind_of_probe() -> None:
    forged = (
        "import inspect\n"
        "def f(x):\n"
        "    return hasattr(x, 'a'), getattr(x, 'b', None), inspect.getattr_static(x, 'c')\n"
        "def __getattr__(name):\n"
        "    raise AttributeError(name)\n"
        "class Forward:\n"
        "    def __getattr__(self, name):\n"
        "        return getattr(self._inner, name)\n"
    )
    assert sorted(sites(forged)) == sorted([
        "hasattr(x, 'a')", "getattr(x, 'b', None)", "inspect.getattr_static(x, 'c')",
        "def __getattr__", "def __getattr__", "getattr(self._inner, name)",
    ])
    # names that merely contain the word are no probes (termios.tcgetattr)
    assert sites("import termios\ntermios.tcgetattr(0)\n") == []


def test_the_scan_sees_both_packages() -> None:
    files = [str(p.relative_to(ROOT)) for p in _files()]
    assert sum(f.startswith("engine/") for f in files) >= 30
    assert sum(f.startswith("hardware/") for f in files) >= 60
