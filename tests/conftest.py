"""Fixtures shared across the test packages: the forgery corpus (tests/hardware/forgeries.py),
built once per run from honest logs and run through replay, verify_rolls.py and the verifier."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def forgery_honest(tmp_path_factory):
    """Honest logs made by real commands, and what the players noted of them."""
    from tests.hardware import forgeries

    return forgeries.honest_logs(tmp_path_factory.mktemp("honest"))


@pytest.fixture(scope="session")
def forgery_cases(forgery_honest):
    """Every case of the forgery corpus, built from :func:`forgery_honest`."""
    from tests.hardware import forgeries

    return forgeries.corpus(forgery_honest)
