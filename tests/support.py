"""Shared test helpers: a deterministic dice source and a chi-square check."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping


def seeded_dice(seed: bytes):
    """A deterministic dice source for statistical tests and replays."""
    try:
        from engine.rng import DrbgDice
    except ImportError:  # until engine.rng lands
        return _CounterDice(seed)
    return DrbgDice.from_seed(seed)


class _CounterDice:
    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._counter = 0
        self._buf = b""

    def _bytes(self, n: int) -> bytes:
        while len(self._buf) < n:
            self._counter += 1
            self._buf += hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest()
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def randbelow(self, n: int) -> int:
        nbytes = max(1, (n.bit_length() + 7) // 8) + 1
        limit = (256**nbytes // n) * n
        while True:
            x = int.from_bytes(self._bytes(nbytes), "big")
            if x < limit:
                return x % n


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
