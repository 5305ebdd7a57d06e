"""The engine and firmware_bridge/ (the Pico's host side) ship their types (PEP 561) and are
held to mypy --strict by ./run-tests."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_engine_ships_py_typed_in_its_wheel() -> None:
    assert (ROOT / "engine" / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in data["tool"]["setuptools"]["package-data"]["engine"]


def test_run_tests_checks_the_engine_strictly() -> None:
    assert "mypy --strict engine/" in (ROOT / "run-tests").read_text(encoding="utf-8")


def test_firmware_bridge_ships_py_typed_in_its_wheel() -> None:
    assert (ROOT / "firmware_bridge" / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in data["tool"]["setuptools"]["package-data"]["firmware_bridge"]


def test_run_tests_checks_firmware_bridge_strictly() -> None:
    line = next(line for line in (ROOT / "run-tests").read_text(encoding="utf-8").splitlines()
                if "mypy --strict" in line)
    assert "firmware_bridge/" in line.split("#")[0].split()
