"""A tower installs what a tower uses: the store's web stack is the ``store`` extra.

Run in a real venv without it (built by bench/bench_install.py from this Python's own
distributions, so starlette and uvicorn are truly not importable there), the tower starts
and ``dicetower board`` is one line naming what to install, exit 2. Where the extra is
installed, a tower's process still imports none of it, and no module outside the board names
it (hardware/web's page server is on the standard library).
"""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path

import pytest

from bench.bench_install import build_venv, store_modules_imported
from hardware.cli.board import STORE_HINT, STORE_MODULES

ROOT = Path(__file__).resolve().parents[2]
#: What only the board (hardware/board/, and ``dicetower board``'s module) may import.
STORE_STACK = {*STORE_MODULES, "hardware.board"}
BOARD_SIDE = (ROOT / "hardware" / "board", ROOT / "hardware" / "cli" / "board.py")


@pytest.fixture(scope="module")
def tower_venv(tmp_path_factory) -> Path:
    """A tower's venv: dicetower and its dependencies, no store extra. Its Python."""
    built = build_venv(tmp_path_factory.mktemp("tower") / "venv")
    assert "starlette" not in built.distributions and "uvicorn" not in built.distributions
    return built.python


def dicetower(python: Path, tmp_path: Path, *args: str, stdin: int | None = subprocess.DEVNULL,
              ) -> subprocess.CompletedProcess[str]:
    """``dicetower ARGS`` as the installed script runs it, in a state directory of its own."""
    env = {k: v for k, v in os.environ.items() if k not in {"DICETOWER_STATE_DIR", "STATE_DIRECTORY"}}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    return subprocess.run([str(python), "-m", "hardware", *args], cwd=ROOT, env=env, stdin=stdin,
                          capture_output=True, text=True, timeout=120)


def test_the_tower_venv_really_lacks_the_store_stack(tower_venv, tmp_path) -> None:
    for module in STORE_MODULES:
        done = subprocess.run([str(tower_venv), "-c", f"import {module}"], capture_output=True, text=True)
        assert done.returncode == 1 and f"No module named '{module}'" in done.stderr


def test_without_the_extra_the_board_is_one_line_naming_what_to_install(tower_venv, tmp_path) -> None:
    done = dicetower(tower_venv, tmp_path, "board", "--mqtt", "mqtt://127.0.0.1:1", "--data", str(tmp_path / "b"))
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr == (f"dicetower board: the store's board needs the store extra, which is not installed here "
                           f"(no {', '.join(STORE_MODULES)}): {STORE_HINT}\n")
    assert not (tmp_path / "b").exists()  # it stopped before anything was made


@pytest.mark.parametrize("args", [
    ("sim", "--seed", "1", "--press", "roll,roll"),
    ("roll", "d6cv", "--stat", "3", "--cv", "7", "--seed", "no-store"),
    ("odds", "infinity", "--rating", "8", "--cr", "10"),
    ("--help",),
    ("board", "--help"),
])
def test_without_the_extra_a_tower_runs(tower_venv, tmp_path, args) -> None:
    done = dicetower(tower_venv, tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() and "Traceback" not in done.stderr


def test_without_the_extra_run_gets_as_far_as_its_own_check(tower_venv, tmp_path) -> None:
    # no GPIO and no terminal here: `run` says so (docs/simulator.md), the store is not its problem
    done = dicetower(tower_venv, tmp_path, "run")
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and "store" not in done.stderr and "Traceback" not in done.stderr


def test_with_the_extra_a_tower_process_imports_none_of_it(tmp_path) -> None:
    built = build_venv(tmp_path / "store", ["store"])
    assert {"starlette", "uvicorn"} <= set(built.distributions)
    assert store_modules_imported(built.python, tmp_path) == []


def _imports(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
    return found


def _outside_the_board() -> list[Path]:
    return [p for p in sorted((ROOT / "hardware").rglob("*.py"))
            if not any(p == side or p.is_relative_to(side) for side in BOARD_SIDE)]


@pytest.mark.parametrize("path", _outside_the_board(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_outside_the_board_imports_the_store_stack(path: Path) -> None:
    bad = [f"{path.relative_to(ROOT)}:{line} imports {name}" for line, name in _imports(path)
           if any(name == top or name.startswith(f"{top}.") for top in STORE_STACK)]
    assert bad == []


def test_the_scan_sees_the_page_server_and_the_board() -> None:
    scanned = _outside_the_board()
    assert ROOT / "hardware" / "web" / "server.py" in scanned and ROOT / "hardware" / "board" / "web.py" not in scanned
    assert any(name.startswith("starlette") for _, name in _imports(ROOT / "hardware" / "board" / "web.py"))


@pytest.mark.parametrize("gone", ["h11", "click"])
def test_a_half_installed_extra_names_the_module_it_lacks(tmp_path, gone: str) -> None:
    """uvicorn there but a module it needs gone (an interrupted pip): the same one line, naming
    it; h11 is imported only once uvicorn serves, click when uvicorn is imported."""
    import shutil

    from bench.bench_install import site_packages

    built = build_venv(tmp_path / "half", ["store"])
    shutil.rmtree(site_packages(built.venv) / gone)
    done = dicetower(built.python, tmp_path, "board", "--mqtt", "mqtt://127.0.0.1:1", "--listen", "127.0.0.1:0")
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"dicetower board: the store's board needs the store extra, which is not installed here "
                           f"(no {gone}): {STORE_HINT}\n")
