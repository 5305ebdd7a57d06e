"""engine/, hardware/ and firmware_bridge/ (the Pico's host side) ship their types (PEP 561) and are
held to mypy --strict by ./run-tests."""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STRICT = ("engine", "hardware", "firmware_bridge")


@pytest.mark.parametrize("package", STRICT)
def test_the_package_ships_py_typed_in_its_wheel(package: str) -> None:
    assert (ROOT / package / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in data["tool"]["setuptools"]["package-data"][package]


def _strict_lines() -> list[list[str]]:
    lines = (ROOT / "run-tests").read_text(encoding="utf-8").splitlines()
    return [shlex.split(line, comments=True) for line in lines if "mypy --strict" in line.split("#")[0]]


def test_run_tests_checks_the_packages_strictly_on_one_line() -> None:
    strict = _strict_lines()
    assert len(strict) == 1, "one mypy --strict line, listing the packages"
    packages = {word.rstrip("/") for word in strict[0] if word.endswith("/")}  # engine/ hardware/ ...
    assert set(STRICT) <= packages
