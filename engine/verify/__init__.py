"""The one verifier of a roll log: pure engine code (entries and what the players noted in,
findings out), run the same by ``dicetower replay``, the store's board and the phone page.

See :mod:`engine.verify.verifier` for what it checks; docs/fairness.md, "Verify it yourself",
for the rules it holds a log to.
"""

from __future__ import annotations

from engine.verify.codes import CODES, FLAGS
from engine.verify.report import Finding, Flag, NotedRoll, Notes, OpenSession, ReplayReport, SessionFacts, Step
from engine.verify.verifier import CHAIN_FINDING, NOTED_KINDS, Verifier

__all__ = ["CHAIN_FINDING", "CODES", "FLAGS", "NOTED_KINDS", "Finding", "Flag", "NotedRoll", "Notes", "OpenSession",
           "ReplayReport", "SessionFacts", "Step", "Verifier"]
