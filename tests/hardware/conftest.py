"""Every hardware test keeps its state in its own temporary directory: the default state
directory (``$STATE_DIRECTORY``, then the XDG state directory) is pointed there, so a test
that leaves ``[kiosk] state_dir`` at its default never writes into the real home."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_state_home(tmp_path_factory, monkeypatch) -> None:
    monkeypatch.delenv("DICETOWER_STATE_DIR", raising=False)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))


@pytest.fixture
def broker(tmp_path):
    """A real mosquitto on a free localhost port, stopped after the test (tests/hardware/netparts.py)."""
    from tests.hardware.netparts import running_broker
    from tests.support import require_command

    binary = require_command("mosquitto")
    (tmp_path / "broker").mkdir()
    with running_broker(binary, tmp_path / "broker") as b:
        yield b
