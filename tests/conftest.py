"""Fixtures shared across the test packages: the forgery corpus (tests/hardware/forgeries.py),
built once per run from honest logs and run through replay, verify_rolls.py and the verifier.

Hypothesis profiles: ``DICETOWER_HYPOTHESIS_PROFILE=emulated`` (the engine's tests in the
arm64 root under qemu, .ci/arm64-root.sh) drops the per-example deadline, which emulation's
tenfold slowdown would turn into false failures; every test and example still runs.
"""

from __future__ import annotations

import fcntl
import os
import pickle

import pytest
from hypothesis import settings

settings.register_profile("emulated", deadline=None)
if os.environ.get("DICETOWER_HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["DICETOWER_HYPOTHESIS_PROFILE"])


@pytest.fixture(scope="session")
def _forgery_build(tmp_path_factory):
    """The honest logs and the corpus, built once per run: the first pytest-xdist worker to ask
    builds them in the run's shared temporary folder (under a lock) and the others read its
    pickle, rather than each worker making its own nights (seconds each; tenfold under qemu)."""
    from tests.hardware import forgeries

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    built = shared / "forgery-corpus.pickle"
    with open(shared / "forgery-corpus.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if built.is_file():
            return pickle.loads(built.read_bytes())
        (shared / "forgery-honest").mkdir(exist_ok=True)
        honest = forgeries.honest_logs(shared / "forgery-honest")
        made = (honest, forgeries.corpus(honest))
        # whole or not at all: a builder that dies mid-write leaves no pickle to misread
        (shared / "forgery-corpus.part").write_bytes(pickle.dumps(made))
        (shared / "forgery-corpus.part").replace(built)
        return made


@pytest.fixture(scope="session")
def forgery_honest(_forgery_build):
    """Honest logs made by real commands, and what the players noted of them."""
    return _forgery_build[0]


@pytest.fixture(scope="session")
def forgery_cases(_forgery_build):
    """Every case of the forgery corpus, built from :func:`forgery_honest`."""
    return _forgery_build[1]


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
