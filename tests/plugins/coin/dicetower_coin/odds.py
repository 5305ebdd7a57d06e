"""Exact odds: the number of heads among ``coins`` fair coins is binomial, C(n, k) / 2^n."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import comb
from typing import Any

from engine.results import Distribution, Odds


def odds(params: Mapping[str, Any]) -> Odds:
    n, need = params["coins"], params["heads"]
    ways = 2 ** n
    success = Fraction(sum(comb(n, k) for k in range(need, n + 1)), ways)
    heads = Distribution([str(k) for k in range(n + 1)], [comb(n, k) for k in range(n + 1)], ways)
    return Odds(system="coin", params=params, success=success,
                outcomes={"success": success, "failure": 1 - success}, extra={"heads": heads})
