"""The ``bridge`` entropy source on the twin: health tests on raw bits, restart after reboot, and
no credit above SP 800-90B (the sticky and lag sources NIST's tool assessed)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from engine.errors import EntropyError
from firmware_bridge.link import Link, State
from firmware_bridge.twin import Twin
from hardware.entropy.ring_oscillator import BridgeSource
from hardware.entropy.sources import CREDIT_CAP_BITS
from tests.firmware_bridge.polling import wait_for

KNOWN_ANSWERS = Path(__file__).resolve().parents[1] / "engine" / "data" / "sp800-90b"


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
        assert c.credited_bits == min(CREDIT_CAP_BITS, int(c.samples * 8 * source.assessor.rate))
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


def test_a_rebooted_pico_runs_the_start_up_test_again() -> None:
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


@pytest.mark.parametrize("model", ["alternating", "period7"])
def test_a_predictable_oscillator_is_refused_by_the_estimators(model: str) -> None:
    from firmware_bridge.twin import ROSC_MODELS

    # both pass the health tests (no long run, half ones): only the estimators see the pattern
    twin, link, source = _source(rosc_bits=ROSC_MODELS[model][1](), seed=6)
    try:
        with pytest.raises(EntropyError, match=r"SP 800-90B (t-tuple|lrs|markov|compression) estimate \(0\.0"):
            source.gather()
        assert source.monitor.failed is None and source.status().startswith("FAILED ")
        with pytest.raises(EntropyError):  # sticky
            source.gather()
    finally:
        link.close()
        twin.close()


def test_the_credit_is_the_estimate_up_to_the_health_tests_claim_times_the_design_factor() -> None:
    """docs/bridge.md, section 7: the datasheets give no entropy per RANDOMBIT read, so no more
    than the 0.5 bit the health tests are tuned for is taken, and half of it credited: at most
    0.25 bit per raw bit, whatever the estimators say."""
    from pathlib import Path

    from firmware_bridge import noise
    from hardware.backends import ENTROPY_SOURCES

    row = ENTROPY_SOURCES.get("bridge")
    assert row.ceiling == noise.TESTED_BITS_PER_SAMPLE and row.ceiling * row.design_factor == 0.25
    docs = " ".join((Path(__file__).resolve().parents[2] / "docs" / "bridge.md").read_text(encoding="utf-8").split())
    assert "**0.25 bit per raw bit at most**" in docs
    twin, link, source = _source(seed=7)
    try:
        c = source.gather()
        assert source.assessor.last.samples == 8192 and source.assessor.last.width == 1
        rate = min(source.assessor.last.minimum[1], row.ceiling) * row.design_factor
        assert source.assessor.rate == rate and 0.125 < rate <= 0.25
        assert c.samples == 1024 and c.credited_bits == min(CREDIT_CAP_BITS, int(8192 * rate))
        second = source.gather()  # a whole window again: every bit credited is judged first
        assert second.samples * 8 == 8192 and second.credited_bits == CREDIT_CAP_BITS
        assert source.assessor.pending == 0 and source.assessor.last is not None
    finally:
        link.close()
        twin.close()


@pytest.mark.parametrize("model", ["alternating", "period7"])
def test_roll_with_a_predictable_pico_exits_3_naming_the_estimator(model: str, monkeypatch, capsys) -> None:
    from firmware_bridge.twin import ROSC_MODELS
    from hardware.cli import main

    with Twin(seed=8, rosc_bits=ROSC_MODELS[model][1]()) as twin:
        monkeypatch.setenv("DICETOWER_BRIDGE_PORT", twin.port)
        assert main(["roll", "d6cv", "--entropy", "bridge"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bridge" in err[0] and "SP 800-90B" in err[0] and "estimate" in err[0]


def test_roll_on_an_rp2350_says_in_one_line_why_there_are_no_bits(monkeypatch, capsys) -> None:
    from hardware.cli import main

    with Twin(seed=9, chip="RP2350") as twin:
        monkeypatch.setenv("DICETOWER_BRIDGE_PORT", twin.port)
        assert main(["roll", "d6cv", "--entropy", "bridge"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "RP2350" in err[0] and "only on an RP2040" in err[0]


def _prbs(degree: int, taps: tuple[int, ...], seed: int = 0x5A5A5A5A):
    """A Fibonacci LFSR's output, bit by bit, as a line tester's PRBS pattern (x^d + x^t + 1)."""
    state = seed & ((1 << degree) - 1) or 1

    def bit() -> int:
        nonlocal state
        out = state & 1
        feedback = 0
        for t in taps:
            feedback ^= (state >> (degree - t)) & 1
        state = (state >> 1) | (feedback << (degree - 1))
        return out

    return bit


@pytest.mark.parametrize(("degree", "taps"), [(15, (15, 14)), (23, (23, 18)), (31, (31, 28))],
                         ids=["PRBS15", "PRBS23", "PRBS31"])
def test_a_prbs_pattern_is_refused_by_its_linear_complexity(degree: int, taps: tuple[int, ...]) -> None:
    """PRBS15/23/31 pass the health tests and every SP 800-90B estimator (they were credited
    0.15-0.31 bits a bit): an LFSR's window has its register's length as linear complexity."""
    twin, link, source = _source(rosc_bits=_prbs(degree, taps), seed=9)
    try:
        with pytest.raises(EntropyError, match=r"failed the linear complexity test \((\d+) over 8192 bits"):
            source.gather()
        assert source.failed is not None and source.status().startswith("FAILED ")
    finally:
        link.close()
        twin.close()


def test_a_source_that_turns_into_a_pattern_is_refused_before_any_of_it_is_credited() -> None:
    """Good bits for the first window, then an alternating pattern: the gather that reads the
    pattern judges it whole before crediting (it used to credit three gathers of it)."""
    import random

    rng = random.Random(5)
    made = [0]

    def turning() -> int:
        made[0] += 1
        return rng.getrandbits(1) if made[0] <= 8192 else made[0] & 1

    twin, link, source = _source(rosc_bits=turning, seed=10)
    try:
        first = source.gather()
        assert first.credited_bits > 0
        with pytest.raises(EntropyError):
            source.gather()
    finally:
        link.close()
        twin.close()


def test_a_reconnect_of_the_same_boot_runs_the_start_up_test_again() -> None:
    """docs/bridge.md: the window reruns after every connection, not only after a new boot."""
    twin, link, source = _source(seed=11)
    try:
        source.gather()
        assert source.monitor.samples_seen
        source._connected(link.hello, False)  # what the link calls on a handshake of the same boot
        assert source.restarts == 1 and source.monitor.samples_seen == 0 and source.assessor.last is None
    finally:
        link.close()
        twin.close()


@pytest.mark.parametrize("model", ["lcg", "lfsr"])
def test_an_algorithm_passes_the_estimators_and_is_credited(model: str) -> None:
    """docs/bridge.md, section 7: the estimators refuse patterns, not algorithms. An LCG's top
    bit and a shift register longer than half a window are fully predictable and credited like
    noise; the table's code, not the credit, is what stops a chosen seed."""
    from firmware_bridge.twin import ROSC_MODELS

    twin, link, source = _source(rosc_bits=ROSC_MODELS[model][1](), seed=8)
    try:
        c = source.gather()
        assert source.status() == "ok" and c.credited_bits > 0
        assert 0.2 < source.assessor.rate <= 0.25  # as much as noise gets
    finally:
        link.close()
        twin.close()


class FileBits:
    """Ring-oscillator bits from a file of the known answers (tests/engine/data/sp800-90b/):
    zeros while the Pico boots (its boot id reads the oscillator), then, once armed, the
    file's bit string round and round, so the first window judged is the file's first 8192 bits."""

    def __init__(self, name: str) -> None:
        from engine.estimators import to_bits

        self.bits = to_bits(list((KNOWN_ANSWERS / f"{name}.bin").read_bytes()))
        self.at: int | None = None

    def arm(self) -> None:
        self.at = 0

    def __call__(self) -> int:
        if self.at is None:
            return 0
        self.at += 1
        return self.bits[(self.at - 1) % len(self.bits)]


def nist_bit_string_figure(name: str) -> float:
    """NIST's figure for the file's bit string, in bits per bit (``H_bitstring``)."""
    import json

    return float(json.loads((KNOWN_ANSWERS / "nist_ea_non_iid.json").read_text(encoding="utf-8"))[name]["H_bitstring"])


def gather_file_bits(name: str, seed: int) -> tuple[int, int, BridgeSource]:
    """One gather from a twin whose oscillator gives the file's bits: (credited bits, raw bits
    taken, the source); a refused window credits nothing."""
    bits = FileBits(name)
    twin, link, source = _source(rosc_bits=bits, seed=seed)
    try:
        bits.arm()
        try:
            c = source.gather()
        except EntropyError:
            return 0, 0, source
        return c.credited_bits, c.samples * 8, source
    finally:
        link.close()
        twin.close()


@pytest.mark.parametrize("name", ["sticky30_8_1024", "sticky60_8_4096", "lag3_8_4096"])
def test_sticky_and_lag_bits_are_never_credited_above_the_standard(name: str) -> None:
    from engine.estimators import assess
    from hardware.backends import ENTROPY_SOURCES

    factor = ENTROPY_SOURCES.get("bridge").design_factor
    credited, taken, source = gather_file_bits(name, seed=11)
    judged = assess(FileBits(name).bits[:8192], 1)  # the window the source judged
    assert credited <= taken * nist_bit_string_figure(name) * factor
    if name == "sticky30_8_1024":  # all 8192 bits of the file: NIST's 0.291 (Lag) is above the floor
        assert source.assessor.last == judged and taken == 8192
        assert math.isclose(judged.minimum[1], nist_bit_string_figure(name), rel_tol=1e-5)
        assert source.assessor.rate <= nist_bit_string_figure(name) * factor * (1 + 1e-5)
    else:  # repeating with p = 0.6, or echoing 3 bytes back: refused by a predictor or compression
        name_, bits = judged.minimum
        assert credited == 0 and source.assessor.failed.startswith(f"failed the SP 800-90B {name_} estimate")
        assert bits < ENTROPY_SOURCES.get("bridge").floor


def test_the_six_estimators_alone_credited_the_sticky_bits_above_the_standard(monkeypatch) -> None:
    # 8192 bits of the sticky bytes scored 0.380 a bit (LRS) with the six; the standard allows 0.291
    import functools

    from engine import estimators
    from hardware.backends import ENTROPY_SOURCES
    from hardware.entropy import assessment

    six = functools.partial(estimators.assess, estimators=estimators.ESTIMATORS[:6])
    monkeypatch.setattr(assessment, "assess", six)
    _, _, source = gather_file_bits("sticky30_8_1024", seed=12)
    factor = ENTROPY_SOURCES.get("bridge").design_factor
    assert source.assessor.last.minimum[0] == "lrs"
    assert source.assessor.rate > nist_bit_string_figure("sticky30_8_1024") * factor * 1.25
