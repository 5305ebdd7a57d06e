"""Every system is complete: besides its package (engine/systems/NAME/) and its registry line,
it has everything docs/architecture.md "Adding a system" lists outside the engine: its odds
bench against icepool, its line in the outsider's verifier, its rules page, its simulator
flow script and its tests. A sixth system missing any of them fails here, naming what."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from engine.systems import ids
from tests.tools.test_verify_rolls import ONE_OF_EACH

ROOT = Path(__file__).resolve().parents[1]


def _verifier() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_rolls", ROOT / "tools" / "verify_rolls.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # standard library only (tests/tools): safe to load
    return module


def _defines(path: Path, *names: str) -> list[str]:
    """Which of ``names`` the module at ``path`` does not define at its top level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        defined |= {t.id for t in targets if isinstance(t, ast.Name)}
    return [n for n in names if n not in defined]


def problems(system: str, root: Path = ROOT) -> list[str]:
    """What ``system`` lacks outside the engine, one line each."""
    found: list[str] = []
    bench = root / "bench" / f"odds_{system}.py"
    if not bench.is_file():
        found.append(f"no odds bench {bench.relative_to(root)} (GRID, icepool_success: bench/bench_odds.py)")
    else:
        found += [f"{bench.relative_to(root)} defines no {name}" for name in _defines(bench, "GRID", "icepool_success")]
    if system not in _verifier().REDRAW:
        found.append("no REDRAW entry in tools/verify_rolls.py")
    if system not in ONE_OF_EACH:
        found.append("no ONE_OF_EACH setting in tests/tools/test_verify_rolls.py")
    page = root / "docs" / "rules" / f"{system}.md"
    if not page.is_file():
        found.append(f"no rules page {page.relative_to(root)}")
    if f"](rules/{system}.md)" not in (root / "docs" / "rules.md").read_text(encoding="utf-8"):
        found.append("no row linking it in docs/rules.md")
    flow = root / "docs" / "screenshots" / "flows" / f"{system}.txt"
    if not flow.is_file():
        found.append(f"no simulator flow script {flow.relative_to(root)}")
    for name in (f"test_{system}.py", f"test_{system}_odds.py"):
        if not (root / "tests" / "engine" / "systems" / name).is_file():
            found.append(f"no tests/engine/systems/{name}")
    return found


@pytest.mark.parametrize("system", ids())
def test_every_system_has_everything_a_system_needs(system: str) -> None:
    assert problems(system) == []


def test_a_sixth_system_without_its_files_is_told_each_one() -> None:
    # The check itself: a registered id with nothing outside the engine.
    got = problems("sixth")
    assert len(got) == 8, got
    for piece in ("bench/odds_sixth.py", "tools/verify_rolls.py", "tests/tools/test_verify_rolls.py",
                  "docs/rules/sixth.md", "docs/rules.md", "docs/screenshots/flows/sixth.txt",
                  "test_sixth.py", "test_sixth_odds.py"):
        assert any(piece in line for line in got), piece


def test_an_odds_bench_without_its_grid_is_told(tmp_path: Path) -> None:
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "odds_d6cv.py").write_text("def icepool_success(params):\n    return 0.5\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("")
    assert "bench/odds_d6cv.py defines no GRID" in problems("d6cv", tmp_path)
