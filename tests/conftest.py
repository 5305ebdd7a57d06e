"""Fixtures shared across the test packages: the forgery corpus (tests/hardware/forgeries.py),
built once per run from honest logs and run through replay, verify_rolls.py and the verifier.

Hypothesis profiles: ``DICETOWER_HYPOTHESIS_PROFILE=emulated`` (the engine's tests in the
arm64 root under qemu, .ci/arm64-root.sh) drops the per-example deadline, which emulation's
tenfold slowdown would turn into false failures; every test and example still runs.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("emulated", deadline=None)
if os.environ.get("DICETOWER_HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["DICETOWER_HYPOTHESIS_PROFILE"])


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


@pytest.fixture(scope="session")
def coin_site(tmp_path_factory):
    """A folder holding the installed coin plug-in (tests/plugins/coin: its package and its
    .dist-info), for a dicetower process given it on its PYTHONPATH."""
    from tests.plugins.install import COIN, install

    return install(COIN, tmp_path_factory.mktemp("coin") / "site")


@pytest.fixture(scope="session")
def coin_night(coin_site, tmp_path_factory):
    """A table's night with the coin on the simulated tower (tests.plugins.install.Night)."""
    from tests.plugins.install import coin_night

    return coin_night(coin_site, tmp_path_factory.mktemp("coin-night"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The arm64 roots' checks last: they wait for .ci/arm64-root.sh, which ./run-tests started
    in the background, and a worker waiting on them early would run nothing else meanwhile."""
    last = [item for item in items if item.nodeid.startswith("tests/deploy/test_arm64_root.py")]
    if last:
        items[:] = [item for item in items if item not in last] + last
