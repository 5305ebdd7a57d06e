"""Button timing: credit only deliberate taps, nothing for repeats, holds, bounces or a bad clock."""

from __future__ import annotations

import hashlib
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import EntropyError
from hardware.entropy.buttons import CREDIT_BITS_PER_PRESS, STARTUP_PRESSES, ButtonTiming
from hardware.entropy.sources import CREDIT_CAP_BITS

MS = 1_000_000
#: What the start-up window of 16 presses (15 intervals) is credited per press: no predictor of
#: SP 800-90B 6.3.7-6.3.10 guesses a person's timing right there, and with no right guess in N
#: the standard still allows a predictability of 1 - 0.01^(1/N); MultiMMC's N = 14 makes that
#: 1.83 bits a press, under the 2 credited at most, until the 64-press window scores higher.
STARTUP_BITS_PER_PRESS = -math.log2(1 - 0.01 ** (1 / 14))
# Press-to-press intervals of a person: irregular, never whole milliseconds.
HUMAN_GAPS = [312_417_903, 287_003_118, 455_120_007, 198_734_561, 603_002_449, 351_877_205, 240_119_873,
              517_660_301, 276_443_009, 389_015_557, 433_781_129, 221_907_641, 298_551_373, 367_204_821,
              502_338_917, 259_116_433, 341_770_089, 418_992_651, 233_447_017, 376_501_229]


def tap(bt: ButtonTiming, t: int, button: str = "ROLL", hold: int = 93 * MS + 417) -> int:
    bt.edge(button, True, t)
    return bt.edge(button, False, t + hold)


def human_gap(i: int, start: int) -> int:
    """A person's press-to-press interval: 180 to 580 ms, scattered (a hash, so no rhythm the
    entropy estimators could find repeating), never whole milliseconds."""
    h = int.from_bytes(hashlib.sha256(b"%d/%d" % (start, i)).digest()[:8], "big")
    return 180 * MS + h % (400 * MS) + 417 + i * 7919


def human_taps(bt: ButtonTiming, count: int, start: int = 10**12) -> list[int]:
    t = start
    credits = []
    for i in range(count):
        t += human_gap(i, start) if i >= len(HUMAN_GAPS) else HUMAN_GAPS[i] + i * 7919
        credits.append(tap(bt, t, button=("MODE", "FIELD", "MINUS", "PLUS", "ROLL")[i % 5]))
    return credits


def test_deliberate_taps_earn_two_bits_each_except_the_first() -> None:
    bt = ButtonTiming()
    credits = human_taps(bt, 20)
    assert credits[0] == 0  # no interval to measure yet
    assert credits[1:] == [CREDIT_BITS_PER_PRESS] * 19
    assert bt.ready  # 19 interval samples >= the 16 of the start-up test
    # once the start-up window is judged, the pool is credited its estimate: 1.83 a press
    assert bt.assessor.last.minimum == ("multi-mmc", pytest.approx(STARTUP_BITS_PER_PRESS))
    assert bt.credited_bits == int(19 * STARTUP_BITS_PER_PRESS) == 34


def test_holds_earn_nothing() -> None:
    bt = ButtonTiming(hold_ns=500 * MS)
    human_taps(bt, 3)
    before = bt.credited_bits
    assert tap(bt, 10**13, hold=800 * MS + 3) == 0
    assert bt.credited_bits == before


def test_bounces_and_presses_faster_than_a_human_earn_nothing() -> None:
    bt = ButtonTiming()
    t = 10**12
    tap(bt, t)
    assert tap(bt, t + 300 * MS + 17, hold=5 * MS + 1) == 0  # 5 ms press: a bounce
    assert tap(bt, t + 330 * MS + 29) == 0  # 30 ms after the previous press


def test_repeats_at_a_machine_regular_rhythm_earn_nothing() -> None:
    bt = ButtonTiming()
    t = 10**12
    credits = []
    for i in range(10):
        credits.append(tap(bt, t + i * (250 * MS + 123_457) + (i % 2) * 500))  # intervals within 1 ms
    assert credits[1] == CREDIT_BITS_PER_PRESS  # the second press has no previous interval to match
    assert credits[2:] == [0] * 8


def test_a_clock_without_sub_millisecond_resolution_earns_nothing() -> None:
    bt = ButtonTiming()
    t = 10**12
    credits = [tap(bt, t + sum(HUMAN_GAPS[:i]) // MS * MS, hold=90 * MS) for i in range(8)]
    assert credits == [0] * 8


def test_press_without_release_and_release_without_press_earn_nothing() -> None:
    bt = ButtonTiming()
    t = 10**12
    tap(bt, t)
    bt.edge("PLUS", True, t + 300 * MS + 11)
    bt.edge("PLUS", True, t + 400 * MS + 13)  # pressed again without a release: a repeat
    assert bt.edge("PLUS", False, t + 450 * MS + 17) == 0  # would be a 150 ms tap, but it was repeated
    assert bt.edge("MODE", False, t + 900 * MS + 19) == 0  # never pressed
    assert bt.credited_bits == 0
    assert bt.presses == 2  # the repeat is not a press


def test_time_running_backwards_earns_nothing() -> None:
    bt = ButtonTiming()
    human_taps(bt, 4)
    before = bt.credited_bits
    assert tap(bt, 10**6) == 0
    assert bt.credited_bits == before


def test_a_stuck_clock_fails_the_health_test_and_stops_all_use() -> None:
    bt = ButtonTiming()
    human_taps(bt, 18)
    assert bt.ready
    t = 10**14
    for i in range(12):  # every interval 256 µs * k + 5 µs: the sampled low byte never changes
        tap(bt, t + i * (256_000 * 1000 + 5_000), hold=50 * MS + 7)
    assert bt.failed and "repetition count" in bt.failed
    assert bt.status() == "FAILED RCT"
    assert bt.credited_bits == 0
    assert bt.take_credited() is None
    assert tap(bt, t + 10**13) == 0
    with pytest.raises(EntropyError, match="buttons: failed the repetition count test"):
        bt.gather()


def test_nothing_is_used_before_the_start_up_test_passes() -> None:
    bt = ButtonTiming()
    human_taps(bt, STARTUP_PRESSES)  # 15 intervals: one short
    assert not bt.ready
    assert bt.credited_bits > 0
    assert bt.take_credited() is None
    human_taps(bt, 2, start=10**13)
    assert bt.ready
    pooled = bt.credited_bits
    share = bt.take_credited()
    assert share is not None and share.source == "buttons"
    assert share.credited_bits == pooled == int(STARTUP_BITS_PER_PRESS * (STARTUP_PRESSES - 1 + 2))
    assert bt.credited_bits == 0 and bt.take_credited() is None  # each press seeds one session only


def test_every_edge_seeds_the_next_session_and_none_is_a_rolls_input() -> None:
    """Press timing is entropy for the next session, never the roll a press makes (the device
    measures it after the commitment): a press that earns no credit (a hold, a bounce) still
    changes the next session's conditioned block, and nothing hands a roll its timing."""
    blocks = []
    for extra_hold in (None, 700 * MS + 3, 701 * MS + 9):
        bt = ButtonTiming(startup_presses=1)
        human_taps(bt, 20)
        if extra_hold is not None:  # a hold: no credit
            tap(bt, 10**14, "MODE", hold=extra_hold)
        share = bt.take_credited()
        assert share is not None and share.credited_bits == int(STARTUP_BITS_PER_PRESS * 19)
        blocks.append(share.block)
    assert len(set(blocks)) == 3
    assert not hasattr(ButtonTiming, "roll_mix")


def test_the_credit_pool_is_capped() -> None:
    bt = ButtonTiming(startup_presses=1)
    human_taps(bt, CREDIT_CAP_BITS // CREDIT_BITS_PER_PRESS + 40)
    assert bt.credited_bits == CREDIT_CAP_BITS


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["MODE", "ROLL", "PLUS"]), st.booleans(),
                          st.integers(min_value=0, max_value=10**12)), max_size=60))
def test_credit_never_exceeds_two_bits_per_press(edges) -> None:
    bt = ButtonTiming()
    total = 0
    presses = 0
    for button, pressed, t in edges:
        got = bt.edge(button, pressed, t)
        assert got in (0, CREDIT_BITS_PER_PRESS)
        assert not (pressed and got)  # credit comes with the release of a tap
        total += got
        presses += pressed
    assert total <= CREDIT_BITS_PER_PRESS * max(0, presses - 1)


def test_real_press_timings_pass_their_estimates_and_a_machine_rhythm_does_not() -> None:
    bt = ButtonTiming()
    human_taps(bt, 100)
    assert not bt.failed and bt.assessor.last is not None
    assert bt.assessor.last.minimum[1] >= 2  # 64 presses: 2 bits a press are covered
    machine = ButtonTiming()
    t = 10**12
    for i in range(80):  # every 250 ms, give or take a few microseconds: a machine, not a hand
        t += 250 * MS + 1_000 + (i % 3) * 1_000
        tap(machine, t)
    assert machine.failed
