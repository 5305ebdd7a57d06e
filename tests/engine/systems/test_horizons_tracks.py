"""Infinite Horizons' Wound and Stability tracks: the text's examples, spill-over, invariants."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.systems.horizons.tracks import (
    CRITICAL_BOXES,
    MAJOR_BOXES,
    TIERS,
    StabilityTrack,
    WoundTrack,
    minor_boxes,
)

# -- worked examples of the text ------------------------------------------------------------


def test_minor_boxes_are_four_plus_body_plus_resolve():
    # "4 + your Body Trait score + your Resolve Trait score"
    assert minor_boxes(0, 0) == 4
    assert minor_boxes(2, 1) == 7
    assert WoundTrack.for_character(body=3, resolve=2).size("minor") == 9


def test_minor_track_max_10():
    # "(to a maximum of 10)"
    assert minor_boxes(3, 3) == 10
    assert minor_boxes(5, 4) == 10
    assert WoundTrack.for_character(body=10, resolve=10).minor_boxes == 10


def test_major_and_critical_have_four_boxes():
    # "Your Major and Critical Wound Tracks each have a fixed 4 boxes."
    track = WoundTrack.for_character(body=1, resolve=1)
    assert (track.size("major"), track.size("critical")) == (4, 4)
    assert MAJOR_BOXES == CRITICAL_BOXES == 4


def test_spill_over_minor_full_fills_a_major_box():
    # "if all your Minor boxes are filled, and you take another source of Minor damage, it
    # instead fills one Major box."
    full = WoundTrack.for_character(body=2, resolve=1, minor=7)
    after = full.take("minor", 1)
    assert (after.minor, after.major, after.critical) == (7, 1, 0)
    assert after.status == "major"


def test_spill_over_major_full_fills_a_critical_box():
    # "If all your Major boxes are filled, and you take Major damage, it fills a Critical box."
    track = WoundTrack.for_character(body=2, resolve=1, minor=3, major=4)
    after = track.take("major", 1)
    assert (after.minor, after.major, after.critical) == (3, 4, 1)
    assert after.status == "critical"


def test_take_marks_boxes_in_the_appropriate_tier():
    # "When your character takes damage, you mark off boxes in the appropriate tier."
    track = WoundTrack.for_character(body=1, resolve=1)
    assert track.take("minor", 2).minor == 2
    assert track.take("major", 3).major == 3
    assert track.take("critical", 1).critical == 1
    assert track.take("minor", 0) == track


# -- decisions ------------------------------------------------------------------------------


def test_part_of_a_hit_spills_box_for_box():
    track = WoundTrack.for_character(body=0, resolve=0, minor=3)  # one Minor box left
    after = track.take("minor", 4)
    assert (after.minor, after.major, after.critical, after.overflow) == (4, 3, 0, 0)


def test_spill_can_cross_two_tiers():
    track = WoundTrack.for_character(body=0, resolve=0, minor=4, major=3)
    after = track.take("minor", 3)
    assert (after.minor, after.major, after.critical) == (4, 4, 2)


def test_hit_spill_rule_turns_the_rest_of_a_hit_into_one_box():
    track = WoundTrack.for_character(body=0, resolve=0, minor=3)
    after = track.take("minor", 4, spill="hit")
    assert (after.minor, after.major, after.critical) == (4, 1, 0)
    full = WoundTrack.for_character(body=0, resolve=0, minor=4, major=4)
    assert full.take("minor", 5, spill="hit").critical == 1


def test_critical_full_is_incapacitated_and_counts_overflow():
    track = WoundTrack.for_character(body=0, resolve=0, minor=4, major=4, critical=3)
    assert not track.incapacitated
    after = track.take("critical", 3)
    assert after.critical == 4
    assert after.incapacitated
    assert after.status == "incapacitated"
    assert after.overflow == 2
    assert after.take("minor", 1).overflow == 3


def test_status_names_the_worst_marked_tier():
    track = WoundTrack.for_character(body=1, resolve=1)
    assert track.status == "unhurt"
    assert track.take("minor", 1).status == "minor"
    assert track.take("critical", 1).status == "critical"


def test_tracks_are_immutable_values():
    track = WoundTrack.for_character(body=1, resolve=1)
    after = track.take("minor", 2)
    assert track.minor == 0 and after.minor == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        track.minor = 3  # type: ignore[misc]
    stab = StabilityTrack(10, 2)
    assert stab.lose(3) == StabilityTrack(10, 5) and stab.marked == 2


def test_heal_erases_marks_in_one_tier():
    track = WoundTrack.for_character(body=0, resolve=0, minor=4, major=2)
    assert track.heal("major", 1).major == 1
    assert track.heal("minor", 9).minor == 0


def test_stability_fills_to_a_breakdown():
    # "When your Stability track is completely filled, your character suffers a mental breakdown."
    stab = StabilityTrack(boxes=10)
    assert not stab.lose(9).breakdown
    broken = stab.lose(10)
    assert broken.breakdown and broken.overflow == 0
    assert broken.lose(2).overflow == 2
    assert broken.recover(3) == StabilityTrack(10, 7)
    assert StabilityTrack().boxes == 10


def test_to_dict_reports_sizes_and_status():
    after = WoundTrack.for_character(body=2, resolve=1, minor=7).take("minor", 1)
    assert after.to_dict() == {
        "minor": 7,
        "major": 1,
        "critical": 0,
        "minor_boxes": 7,
        "major_boxes": 4,
        "critical_boxes": 4,
        "overflow": 0,
        "status": "major",
        "incapacitated": False,
    }
    assert StabilityTrack(6, 6).to_dict() == {
        "marked": 6,
        "boxes": 6,
        "overflow": 0,
        "breakdown": True,
    }


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda: WoundTrack(3), "4 to 10"),
        (lambda: WoundTrack(11), "4 to 10"),
        (lambda: WoundTrack(6, minor=7), "7 minor boxes marked"),
        (lambda: WoundTrack(6, major=5), "only 4"),
        (lambda: WoundTrack(6, critical=-1), "critical boxes marked"),
        (lambda: WoundTrack(6).take("fatal", 1), "fatal"),
        (lambda: WoundTrack(6).take("minor", -1), "-1"),
        (lambda: WoundTrack(6).take("minor", 1, spill="splash"), "splash"),
        (lambda: minor_boxes(-1, 2), "body=-1"),
        (lambda: StabilityTrack(0), "at least 1"),
        (lambda: StabilityTrack(5, 6), "6 Stability boxes"),
        (lambda: StabilityTrack(5).lose(-2), "-2"),
    ],
)
def test_bad_track_values_raise_value_error_showing_the_value(make, fragment):
    with pytest.raises(ValueError, match=fragment):
        make()


# -- invariants -----------------------------------------------------------------------------

tracks = st.builds(
    lambda size, m, j, c: WoundTrack(size, min(m, size), j, c),
    st.integers(4, 10),
    st.integers(0, 10),
    st.integers(0, MAJOR_BOXES),
    st.integers(0, CRITICAL_BOXES),
)


@settings(max_examples=150, deadline=None)
@given(tracks, st.sampled_from(TIERS), st.integers(0, 30))
def test_box_spill_keeps_every_box_of_damage(track, tier, boxes):
    after = track.take(tier, boxes)
    before_total = track.minor + track.major + track.critical + track.overflow
    after_total = after.minor + after.major + after.critical + after.overflow
    assert after_total == before_total + boxes
    for name in TIERS:
        assert track.marked(name) <= after.marked(name) <= after.size(name)
    # Damage never lands below the tier it was aimed at.
    for name in TIERS[: TIERS.index(tier)]:
        assert after.marked(name) == track.marked(name)


@settings(max_examples=150, deadline=None)
@given(tracks, st.sampled_from(TIERS), st.integers(0, 15), st.integers(0, 15))
def test_box_spill_composes(track, tier, first, second):
    assert track.take(tier, first).take(tier, second) == track.take(tier, first + second)


@settings(max_examples=150, deadline=None)
@given(tracks, st.sampled_from(TIERS), st.integers(1, 30))
def test_hit_spill_marks_at_most_as_much_as_box_spill(track, tier, boxes):
    by_hit = track.take(tier, boxes, spill="hit")
    by_box = track.take(tier, boxes)
    assert by_hit.marked(tier) == by_box.marked(tier)
    total = lambda t: t.minor + t.major + t.critical + t.overflow  # noqa: E731
    assert total(track) < total(by_hit) <= total(by_box)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 20), st.integers(0, 20), st.integers(0, 30))
def test_stability_loss_keeps_every_box(boxes, marked, loss):
    stab = StabilityTrack(boxes, min(marked, boxes))
    after = stab.lose(loss)
    assert after.marked + after.overflow == stab.marked + loss
    assert after.marked <= boxes
    assert after.breakdown == (after.marked == boxes)
