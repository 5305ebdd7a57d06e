"""Fixtures: a firmware twin on a real pty and a host link to it, both closed in ``finally``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from firmware_bridge.link import Link
from firmware_bridge.twin import Twin


@pytest.fixture
def twin() -> Iterator[Twin]:
    pico = Twin(seed=1)
    pico.plug()
    try:
        yield pico
    finally:
        pico.close()


@pytest.fixture
def link(twin: Twin) -> Iterator[Link]:
    host = Link(find=twin.find, timeout=2.0).start()
    try:
        host.wait_up(10)
        yield host
    finally:
        host.close()
