"""The ``bridge`` entropy source on the twin: health tests on raw bits, restart after reboot."""

from __future__ import annotations

import pytest

from engine.errors import EntropyError
from firmware_bridge import noise
from firmware_bridge.link import Link, State
from firmware_bridge.twin import Twin
from hardware.entropy.bridge import BridgeSource
from hardware.entropy.sources import CREDIT_CAP_BITS
from tests.firmware_bridge.polling import wait_for


def _source(rosc_bits=None, seed: int = 0):
    twin = Twin(seed=seed, rosc_bits=rosc_bits)
    twin.plug()
    link = Link(find=twin.find).start()
    link.wait_up(10)
    return twin, link, BridgeSource(link)


def test_healthy_bits_are_credited_conservatively() -> None:
    twin, link, source = _source(seed=1)
    try:
        c = source.gather()
        assert c.source == "bridge" and len(c.block) == 64
        assert c.credited_bits == min(CREDIT_CAP_BITS, int(c.samples * 8 * noise.CREDIT_BITS_PER_SAMPLE))
        assert source.monitor.ready and source.status() == "ok"
    finally:
        link.close()
        twin.close()


def test_stuck_at_bits_trip_the_repetition_count_test() -> None:
    twin, link, source = _source(rosc_bits=lambda: 1, seed=2)
    try:
        with pytest.raises(EntropyError, match="repetition count"):
            source.gather()
        assert source.status() == "FAILED RCT"
        with pytest.raises(EntropyError):  # sticky
            source.gather()
    finally:
        link.close()
        twin.close()


def test_ninety_percent_ones_trip_the_adaptive_proportion_test() -> None:
    # nine ones then a zero: 90 % ones but no run long enough for the repetition count test
    counter = iter(range(10**9))
    twin, link, source = _source(rosc_bits=lambda: int(next(counter) % 10 != 9), seed=3)
    try:
        with pytest.raises(EntropyError, match="adaptive proportion"):
            source.gather()
        assert source.status() == "FAILED APT"
    finally:
        link.close()
        twin.close()


def test_a_rebooted_board_runs_the_start_up_test_again() -> None:
    twin, link, source = _source(seed=4)
    try:
        source.gather()
        first = link.hello.boot_id
        twin.replug()
        wait_for(lambda: link.state is State.UP and link.hello.boot_id != first, what="the replug")
        assert source.restarts == 1 and source.monitor.samples_seen == 0
        source.gather()
        assert source.monitor.ready
    finally:
        link.close()
        twin.close()


def test_a_chunk_after_a_gap_is_not_used() -> None:
    from firmware_bridge.firmware import codec

    twin, link, source = _source(seed=5)
    try:
        twin.drop_next(codec.EV_ENTROPY)
        source.gather()
        assert source.discarded == 1 and link.stats.entropy_discarded == 1
    finally:
        link.close()
        twin.close()
