"""Player slots: what a result leaves behind and what the next roll takes back."""

from __future__ import annotations

import engine
from engine.panel import players
from engine.systems import get
from tests.support import seeded_dice


def test_fingers_karma_after_becomes_the_players_karma() -> None:
    result = engine.roll_result("fingers", rng=seeded_dice(b"k"), guess=[1], karma=3,
                                winners_set=[2, 3])
    slot = players.record(players.PlayerSlot(), result)
    assert slot.get("fingers", "karma") == 4  # failed without spending: +1
    assert players.carried(slot, get("fingers"), start_karma=0) == {"karma": 4}


def test_a_fresh_slot_starts_from_the_start_karma_clamped_to_the_range() -> None:
    spec = get("fingers")
    assert players.carried(players.PlayerSlot(), spec, start_karma=2) == {"karma": 2}
    assert players.carried(players.PlayerSlot(), spec, start_karma=9) == {"karma": 5}
    assert players.carried(players.PlayerSlot(), get("infinity"), start_karma=2) == {}


def test_horizons_tracks_are_stored_generically_and_passed_back_as_parameters() -> None:
    params = {"trait": 1, "skill": 0, "need": 3, "body": 2, "resolve": 1, "stability": 1,
              "stability_loss": 2, "wounds": [1]}
    result = engine.roll_result("horizons", rng=seeded_dice(b"q"), **params)
    slot = players.record(players.PlayerSlot(), result)
    assert slot.get("horizons", "wounds")["minor"] == 1
    back = players.carried(slot, get("horizons"), start_karma=0)
    assert back == {"wounds": (1, 0, 0), "stability": 3}
    spec = get("horizons")
    resolved = spec.resolve({**params, **back})  # the system accepts what comes back
    assert resolved["stability"] == 3


def test_immortal_skill_lock_sticks_until_reset() -> None:
    spec = get("immortal")
    failed = next(
        r for r in (engine.roll_result("immortal", rng=seeded_dice(bytes([i])), untrained=True,
                                       tn=18) for i in range(50))
        if not r.success
    )
    slot = players.record(players.PlayerSlot(), failed)
    assert players.carried(slot, spec, 0) == {"skill_locked": True}
    trained = engine.roll_result("immortal", rng=seeded_dice(b"t"), skill=2)
    assert players.record(slot, trained).get("immortal", "skill_locked") is True
    assert "skill_locked" in players.PLAYER_PARAMS


def test_unusable_stored_values_are_dropped_not_passed_on() -> None:
    slot = players.from_json({"fingers": {"karma": "lots"}, "horizons": ["junk"], 7: {}})
    assert players.carried(slot, get("fingers"), start_karma=1) == {"karma": 1}
    assert players.from_json("nonsense") == players.PlayerSlot()
    round_trip = players.from_json(players.to_json(slot))
    assert round_trip == slot
