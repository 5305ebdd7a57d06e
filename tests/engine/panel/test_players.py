"""Player slots: what a result leaves behind and what the next roll takes back, as each
system's panel spec declares it."""

from __future__ import annotations

import engine
from engine.panel import slots as players
from engine.systems import get
from tests.support import seeded_dice


def test_fingers_karma_after_becomes_the_players_karma() -> None:
    result = engine.roll_result("fingers", rng=seeded_dice(b"k"), guess=[1], karma=3,
                                winners_set=[2, 3])
    spec = get("fingers")
    slot = players.record(players.PlayerSlot(), result, spec, {})
    assert slot.get("fingers", "karma") == 4  # failed without spending: +1
    assert players.carried(slot, spec) == {"karma": 4}


def test_a_fresh_slot_starts_from_the_start_value_clamped_to_the_range() -> None:
    spec = get("fingers")
    assert players.carried(players.PlayerSlot(), spec, {"karma": 2}) == {"karma": 2}
    assert players.carried(players.PlayerSlot(), spec, {"karma": 9}) == {"karma": 5}
    assert players.carried(players.PlayerSlot(), get("infinity"), {"karma": 2}) == {}


def test_horizons_stability_is_the_rollers_and_the_wound_track_the_targets() -> None:
    params = {"trait": 1, "skill": 0, "need": 3, "body": 2, "resolve": 1, "stability": 1,
              "stability_loss": 2, "wounds": [1]}
    result = engine.roll_result("horizons", rng=seeded_dice(b"q"), **params)
    spec = get("horizons")
    roller = players.record(players.PlayerSlot(), result, spec, {})
    assert players.carried(roller, spec) == {"stability": 3}
    assert roller.get("horizons", "wounds") is None  # the defender's, not the roller's
    target = players.record(players.PlayerSlot(), result, spec, {}, who="target")
    assert target.get("horizons", "wounds")["minor"] == 1
    back = players.carried(target, spec, who="target")
    assert back == {"wounds": (1, 0, 0)}
    resolved = spec.resolve({**params, **back, "stability": 3})  # the system accepts them
    assert resolved["wounds"] == (1, 0, 0)


def test_immortal_skill_lock_is_kept_per_skill_slot_until_reset() -> None:
    spec = get("immortal")
    lock = spec.panel.locks[0]
    failed = next(
        r for r in (engine.roll_result("immortal", rng=seeded_dice(bytes([i])), untrained=True,
                                       tn=18) for i in range(50))
        if not r.success
    )
    slot = players.record(players.PlayerSlot(), failed, spec, {"skill_slot": 2})
    assert players.locked(slot, spec, lock) == (2,)
    again = players.record(slot, failed, spec, {"skill_slot": 5})
    assert players.locked(again, spec, lock) == (2, 5)
    trained = engine.roll_result("immortal", rng=seeded_dice(b"t"), skill=2)
    assert players.locked(players.record(again, trained, spec, {"skill_slot": 2}), spec, lock) == (2, 5)
    assert "skill_locked" in players.player_params(spec)


def test_unusable_stored_values_are_dropped_not_passed_on() -> None:
    slot = players.from_json({"fingers": {"karma": "lots"}, "horizons": ["junk"], 7: {}})
    assert players.carried(slot, get("fingers"), {"karma": 1}) == {"karma": 1}
    assert players.from_json("nonsense") == players.PlayerSlot()
    round_trip = players.from_json(players.to_json(slot))
    assert round_trip == slot
