"""The dependency direction of the layers (README "Layout"): engine is pure; firmware_bridge
never imports hardware."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Libraries that touch the world. `secrets` is allowed in engine/dice.py only: it backs the
# documented default of engine.roll(rng=None).
ENGINE_FORBIDDEN = {
    "gpiozero", "serial", "luma", "PIL", "RPi", "lgpio", "smbus2", "spidev",
    "hardware", "firmware_bridge",
    "os", "io", "pathlib", "shutil", "socket", "subprocess", "select", "signal", "threading",
    "time", "random", "tempfile", "sys", "logging",
}
SECRETS_ALLOWED = {"engine/dice.py"}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def _py_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", _py_files("engine"), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_imports_no_io_and_no_outer_layer(path: Path) -> None:
    rel = str(path.relative_to(ROOT))
    bad = [
        f"{rel}:{line} imports {name}"
        for line, name in _imports(path)
        if name in ENGINE_FORBIDDEN or (name == "secrets" and rel not in SECRETS_ALLOWED)
    ]
    assert bad == []


@pytest.mark.parametrize("path", _py_files("firmware_bridge"), ids=lambda p: str(p.relative_to(ROOT)))
def test_firmware_bridge_does_not_import_hardware(path: Path) -> None:
    bad = [line for line, name in _imports(path) if name == "hardware"]
    assert bad == []


def test_the_check_sees_the_engine() -> None:
    # Guards against the scan silently finding nothing (a moved package would pass vacuously).
    assert len(_py_files("engine")) >= 5


# --- inside the engine: the panel and the shared modules name no system; systems are plug-ins

SYSTEMS_DIR = ROOT / "engine" / "systems"
SYSTEM_PACKAGES = sorted(p.name for p in SYSTEMS_DIR.iterdir() if (p / "__init__.py").is_file())


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _full_imports(path: Path, text: str | None = None) -> list[tuple[int, str]]:
    """Every module ``path`` (or ``text`` as if it were at ``path``) imports, by its full
    dotted name: relative imports resolved, and ``from engine.systems import d6cv`` counted as
    importing ``engine.systems.d6cv``."""
    source = path.read_text(encoding="utf-8") if text is None else text
    tree = ast.parse(source, filename=str(path))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def _system_named(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["engine", "systems"] and parts[2] in SYSTEM_PACKAGES:
        return parts[2]
    return None


def _own_system(path: Path) -> str | None:
    rel = path.relative_to(SYSTEMS_DIR) if path.is_relative_to(SYSTEMS_DIR) else None
    return rel.parts[0] if rel is not None and len(rel.parts) > 1 else None


@pytest.mark.parametrize("path", _py_files("engine"), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_engine_module_names_a_system_but_its_own(path: Path) -> None:
    # The panel (and every shared engine module) reaches a system only through the registry
    # (engine.systems.get) and its SystemSpec/PanelSpec; a system imports the shared modules
    # and itself, never another system (docs/architecture.md, "Writing a system plug-in").
    rel = str(path.relative_to(ROOT))
    own = _own_system(path)
    bad = [
        f"{rel}:{line} imports {module}"
        for line, module in _full_imports(path)
        if (named := _system_named(module)) is not None and named != own
    ]
    assert bad == []


@pytest.mark.parametrize("path", _py_files("engine"), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_imports_no_outer_layer_at_any_depth(path: Path) -> None:
    rel = str(path.relative_to(ROOT))
    bad = [f"{rel}:{line} imports {module}" for line, module in _full_imports(path)
           if module.split(".")[0] in {"hardware", "firmware_bridge", "tools", "bench", "tests"}]
    assert bad == []


def test_the_system_packages_are_the_registry() -> None:
    from engine.systems import ids

    assert sorted(ids()) == SYSTEM_PACKAGES
    assert any(_own_system(p) for p in _py_files("engine"))  # the scan sees inside the packages


def test_the_engine_check_catches_a_panel_naming_a_system() -> None:
    # The forgeries: a panel module reaching into a system, in each import form.
    looks = ROOT / "engine" / "panel" / "looks.py"
    for text in ("from engine.systems.immortal.rules import COLOR_RGB\n",
                 "from engine.systems import infinity\n",
                 "import engine.systems.d6cv.odds\n",
                 "from ..systems.horizons import tracks\n"):
        assert any(_system_named(m) for _, m in _full_imports(looks, text)), text
    own = ROOT / "engine" / "systems" / "fingers" / "odds.py"
    assert _own_system(own) == "fingers"
    assert [_system_named(m) for _, m in _full_imports(own, "from .rules import links\n")] == ["fingers", "fingers"]


def test_hardware_keeps_only_its_shared_modules_at_the_top() -> None:
    """hardware/'s folders say what they hold (docs/architecture.md, "Layers"): a new module
    goes into the folder of what it does; only what every folder uses stays at the top."""
    top = sorted(p.name for p in (ROOT / "hardware").glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "backends.py", "errors.py", "once.py"]
