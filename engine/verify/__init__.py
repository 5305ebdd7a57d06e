"""The one verifier of a roll log: pure engine code (entries and what the players noted in,
findings out), run the same by ``dicetower replay``, the store's board and the phone page.

See :mod:`engine.verify.verifier` for what it checks; docs/fairness.md, "Verify it yourself",
for the rules it holds a log to.
"""

from __future__ import annotations

from engine.verify.codes import CODES, FLAGS
from engine.verify.report import (
    DamagedSession,
    Finding,
    Flag,
    NotedRoll,
    Notes,
    OpenSession,
    ReplayReport,
    SessionFacts,
    Step,
)
from engine.verify.verifier import CHAIN_FINDING, DAMAGED_KIND, NOTED_KINDS, Verifier

__all__ = ["CHAIN_FINDING", "CODES", "DAMAGED_KIND", "FLAGS", "NOTED_KINDS", "DamagedSession", "Finding", "Flag",
           "NotedRoll", "Notes", "OpenSession", "ReplayReport", "SessionFacts", "Step", "Verifier"]
