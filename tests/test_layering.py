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
