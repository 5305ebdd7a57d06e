"""Shared test helpers: a deterministic dice source and a chi-square check."""

from __future__ import annotations

from collections.abc import Mapping


def seeded_dice(seed: bytes):
    """A deterministic dice source for statistical tests and replays."""
    from engine.rng import DrbgDice

    return DrbgDice.from_seed(seed)


def chi_square_p(observed: Mapping, expected_p: Mapping, n: int, min_expected: float = 5.0) -> float:
    """p-value of a chi-square goodness-of-fit test; rare outcomes are pooled into one cell
    so that every cell expects at least ``min_expected`` counts."""
    from scipy.stats import chi2

    cells: list[tuple[float, float]] = []
    pool_obs = 0.0
    pool_exp = 0.0
    for key, p in expected_p.items():
        exp = float(p) * n
        obs = float(observed.get(key, 0))
        if exp < min_expected:
            pool_obs += obs
            pool_exp += exp
        else:
            cells.append((obs, exp))
    unexpected = sum(v for k, v in observed.items() if k not in expected_p)
    if unexpected:
        raise AssertionError(f"outcomes with zero exact probability were rolled: {unexpected}")
    if pool_exp > 0:
        cells.append((pool_obs, pool_exp))
    stat = sum((o - e) ** 2 / e for o, e in cells)
    return float(chi2.sf(stat, len(cells) - 1))


def require_command(name: str) -> str:
    """The path of a program the test needs (a broker, a browser, ...).

    ``./run-tests`` installs it from ``.ci/apt-packages.txt``; where it still is missing the
    test is skipped, except under CI (``CI=true``), where a missing program is a failure, so
    a green CI run never hides a skipped real-parts test.
    """
    import os
    import shutil

    import pytest

    path = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed; .ci/apt-packages.txt should bring it")
        pytest.skip(f"{name} is not installed (./run-tests installs it where it can)")
    return path
