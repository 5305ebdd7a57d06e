"""Sessions ended before their roll limit, and the roll each of them never rolled.

An owner who can read the open session's seed knows the next roll before the table makes it,
and can end the session (the menu's reveal, ``session close``, a pulled plug) whenever that
roll would fail: the table then gets a new session and a new chance. Each such ending leaves
a trace once the session is revealed: its seed is known, so its next, unrolled roll can be
computed with the last roll's setting. Under honest play an ending does not depend on that
roll, so it fails with the setting's odds (``q = 1 - P(success)``), independently from one
ending to the next; under that owner, it always fails.

:class:`Endings` keeps, over a whole log, how many sessions ended early with at least one roll,
how many of their never-rolled rolls would have failed, and each one's chance of failing (a
count per distinct chance, so the state stays small on a tower that runs for years). The
p-value is the chance that honest endings fail at least that often: exact (the Poisson
binomial's tail) for up to :data:`EXACT_UP_TO` endings, else the Chernoff bound, which is never
below the exact value (so a larger log can only be flagged more cautiously, never less).

:data:`AMBER_P` and :data:`RED_P` are the thresholds of a flag and of a problem
(docs/fairness.md, "Sessions ended early"; their false-alarm rate on honest nights is measured
by ``bench/bench_endings.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["AMBER_P", "EXACT_UP_TO", "RED_P", "Endings", "tail_p"]

#: Below this p-value the endings are flagged (amber): look at who ends the sessions.
AMBER_P = 1e-4
#: Below this p-value they are a problem (red, ``early-endings``).
RED_P = 1e-6
#: Up to this many endings the tail is summed exactly (O(n^2)); beyond, the Chernoff bound.
EXACT_UP_TO = 300
#: Chances are kept rounded to this many decimals (one count per distinct chance).
_DIGITS = 9


def tail_p(chances: Mapping[float, int] | Sequence[float], failures: int) -> float:
    """P(X >= ``failures``) where X is the number of failures among independent endings, each
    failing with its chance (a sequence, or a mapping chance -> how many endings had it)."""
    counted = dict(chances) if isinstance(chances, Mapping) else _counted(chances)
    n = sum(counted.values())
    if failures <= 0:
        return 1.0
    if failures > n:
        return 0.0
    if n <= EXACT_UP_TO:
        return _exact_tail(counted, failures)
    return _chernoff_tail(counted, failures)


def _counted(chances: Sequence[float]) -> dict[float, int]:
    out: dict[float, int] = {}
    for q in chances:
        out[q] = out.get(q, 0) + 1
    return out


def _exact_tail(counted: Mapping[float, int], failures: int) -> float:
    """The Poisson binomial's upper tail, by the convolution of one ending at a time."""
    pmf = [1.0]
    for q, times in counted.items():
        for _ in range(times):
            nxt = [0.0] * (len(pmf) + 1)
            for k, p in enumerate(pmf):
                nxt[k] += p * (1.0 - q)
                nxt[k + 1] += p * q
            pmf = nxt
    return min(1.0, math.fsum(pmf[failures:]))


def _chernoff_tail(counted: Mapping[float, int], failures: int) -> float:
    """``min over t >= 0 of exp(-t F) * prod(1 - q + q e^t)``: an upper bound on the tail."""
    n = sum(counted.values())
    mean = sum(q * c for q, c in counted.items())
    if failures <= mean:
        return 1.0
    if failures >= n:
        return math.exp(sum(c * math.log(q) for q, c in counted.items() if q > 0)) \
            if all(q > 0 for q in counted) else 0.0

    def log_bound(t: float) -> float:
        return -t * failures + sum(c * math.log1p(q * math.expm1(t)) for q, c in counted.items())

    def expected_at(t: float) -> float:  # the derivative's root is the best t: where this is F
        return sum(c * q * math.exp(t) / (1.0 - q + q * math.exp(t)) for q, c in counted.items())

    lo, hi = 0.0, 1.0
    while expected_at(hi) < failures and hi < 700:
        lo, hi = hi, hi * 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if expected_at(mid) < failures else (lo, mid)
    return min(1.0, math.exp(log_bound(hi)))


@dataclass
class Endings:
    """The early endings of one log so far (plain JSON through :meth:`to_json` and
    :meth:`from_json`, for the verifier's state). ``pmf`` is the distribution of the number of
    failures among honest endings, kept while there are at most :data:`EXACT_UP_TO` of them (one
    ending costs one pass over it); ``chances`` counts the endings by their chance of failing,
    for the bound beyond. ``level`` is what was already reported: 0 nothing, 1 the flag, 2 the
    problem."""

    count: int = 0
    failed: int = 0
    chances: dict[str, int] = field(default_factory=dict)  # chance of failing (rounded, as text) -> endings
    level: int = 0
    pmf: list[float] = field(default_factory=lambda: [1.0])

    def add(self, fail_chance: float, failed: bool) -> None:
        q = round(float(fail_chance), _DIGITS)
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"a chance of failing must be within 0..1, got {fail_chance!r}")
        key = repr(q)
        self.chances[key] = self.chances.get(key, 0) + 1
        self.count += 1
        self.failed += 1 if failed else 0
        if self.count <= EXACT_UP_TO:
            nxt = [0.0] * (len(self.pmf) + 1)
            for k, p in enumerate(self.pmf):
                nxt[k] += p * (1.0 - q)
                nxt[k + 1] += p * q
            self.pmf = nxt
        else:
            self.pmf = []

    @property
    def expected(self) -> float:
        """How many of the never-rolled rolls honest endings would have failed, on average."""
        return sum(float(q) * c for q, c in self.chances.items())

    @property
    def p_value(self) -> float:
        if self.failed <= 0:
            return 1.0
        if self.pmf and len(self.pmf) == self.count + 1:
            return min(1.0, math.fsum(self.pmf[self.failed:]))
        return tail_p({float(q): c for q, c in self.chances.items()}, self.failed)

    def news(self) -> int:
        """The level this ending reached, if it is above what was reported (else 0): 1 the
        flag, 2 the problem. Reported levels are not reported again."""
        p = self.p_value
        reached = 2 if p < RED_P else 1 if p < AMBER_P else 0
        if reached > self.level:
            self.level = reached
            return reached
        return 0

    def summary(self) -> str:
        return (f"{self.count} session(s) ended before their roll limit; their next, never-rolled roll would "
                f"have failed {self.failed} time(s), {self.expected:.1f} expected (p = {self.p_value:.2g})")

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "failed": self.failed, "chances": dict(self.chances), "level": self.level,
                "pmf": list(self.pmf)}

    @classmethod
    def from_json(cls, data: Any) -> Endings:
        if not isinstance(data, Mapping):
            return cls()
        chances, pmf = data.get("chances"), data.get("pmf")
        return cls(int(data.get("count", 0)), int(data.get("failed", 0)),
                   {str(k): int(v) for k, v in chances.items()} if isinstance(chances, Mapping) else {},
                   int(data.get("level", 0)), [float(x) for x in pmf] if isinstance(pmf, list) else [])
