"""Every flow driven with the five buttons: the values set on its page, the roll equal to
``engine.roll`` with the same dice, the chance of success on the page's title equal to
``engine.odds``, and what the player slots keep afterwards."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.panel import pages as rows
from engine.panel import screens
from engine.panel.machine import PanelConfig
from tests.engine.panel.driver import MODE, ROLL, Panel
from tests.support import seeded_dice


def _expected(system: str, seed: bytes, **params: Any) -> dict:
    return engine.roll(system, rng=seeded_dice(seed), **params)


def _set_up(system: str, seed: bytes, fields: dict[str, Any], lists: dict[str, list[tuple[int, ...]]],
            players: int = 4) -> Panel:
    panel = Panel(PanelConfig(animation_seconds=0, players=players), seed=seed)
    panel.to_system(system)
    for name, value in fields.items():
        panel.set_field(name, value)
    for name, items in lists.items():
        panel.set_list(name, items)
    return panel


def _roll_and_check(panel: Panel, system: str, seed: bytes, params: dict[str, Any]) -> dict:
    odds = engine.odds(system, **{k: v for k, v in params.items() if k != "guess"})["success"]
    assert panel.screen.odds == pytest.approx(odds)
    assert screens.percent(odds) in panel.screen.title  # the chance stays on the flow's page
    panel.press(ROLL)
    expected = _expected(system, seed, **params)
    assert panel.effects[-1].rolled == expected
    assert panel.screen.kind in ("result", "reveal", "turn")  # a group roll: each in turn first
    return expected


FLOWS = [
    ("infinity", {}, {"helper": [(12,), (9,)], "related": [(5, 10)]},
     {"helper": [12, 9], "related": ["5:10"]}),
    ("infinity", {"volley": True, "damage": 3, "defense": 20}, {"attacker": [(9, 2), (7, 1)]},
     {"volley": True, "damage": 3, "defense": 20, "attacker": ["9:2", "7:1"]}),
    ("infinity", {"attribute": 7, "skill_points": 3}, {}, {"attribute": 7, "skill_points": 3}),
    ("horizons", {"opponent_pool": 3, "need": 2}, {}, {"opponent_pool": 3, "need": 2}),
    ("horizons", {"opponent_successes": 2, "need": 1}, {}, {"opponent_successes": 2, "need": 1}),
    # entered successes replace a pool still set on the page: only the roller's dice roll
    ("horizons", {"opponent_pool": 4, "opponent_successes": 0}, {}, {"opponent_successes": 0}),
    ("horizons", {"pool": 24}, {}, {"pool": 24}),
    ("horizons", {"mitigation": 1, "mitigation_mode": "successes"}, {},
     {"mitigation": 1, "mitigation_mode": "successes"}),
    ("d6cv", {"contest": "targeted", "opponent_stat": 6, "opponent_skill": 1, "opponent_modifier": -1}, {},
     {"contest": "targeted", "opponent_stat": 6, "opponent_skill": 1, "opponent_modifier": -1}),
    ("d6cv", {"contest": "untargeted"}, {}, {"contest": "untargeted"}),
    ("d6cv", {"repeat": 3, "cv_step": 1, "goal": "any"}, {}, {"repeat": 3, "cv_step": 1, "goal": "any"}),
    ("d6cv", {"construction": "project", "complexity": 2, "skill": 3}, {},
     {"construction": "project", "complexity": 2, "skill": 3}),
    ("immortal", {"bonus_sharing": "each", "attribute": 8}, {"hostile": [(12, 3, 0, 0), (8, -1, 2, 5)]},
     {"bonus_sharing": "each", "attribute": 8, "hostile": ["12:3", "8::2:blue"]}),
    ("immortal", {}, {"opponent": [(4, 2)]}, {"opponent": ["4+2"]}),
    ("immortal", {"opponent_total": 14}, {}, {"opponent_total": 14}),
    ("immortal", {"untrained_rule": "strict", "auto_success": "no", "skill": 3}, {},
     {"untrained_rule": "strict", "auto_success": "no", "skill": 3}),
]


@pytest.mark.parametrize(("system", "fields", "lists", "params"), FLOWS,
                         ids=[f"{f[0]}-{'-'.join([*f[1], *f[2]])}" for f in FLOWS])
def test_a_flow_rolls_what_the_library_rolls(system: str, fields: dict, lists: dict, params: dict) -> None:
    seed = f"flow-{system}-{sorted(params)}".encode()
    panel = _set_up(system, seed, fields, lists)
    _roll_and_check(panel, system, seed, params)


def test_infinity_coordination_each_helper_presses_roll_in_turn_then_the_total() -> None:
    seed = b"coordination"
    panel = _set_up("infinity", seed, {}, {"helper": [(12,), (9,)]})
    params = {"helper": [12, 9]}
    assert panel.screen.odds == pytest.approx(engine.odds("infinity", **params)["success"])
    panel.press(ROLL)  # the leader: every die is drawn (and logged) now
    expected = _expected("infinity", seed, **params)
    assert panel.effects[-1].rolled == expected
    calls = panel.dice.calls
    shown = []
    for _ in expected["participants"]:
        assert panel.screen.kind == "turn"
        shown.append((panel.screen.big, " ".join(panel.screen.lines)))
        panel.press(ROLL)  # the next helper presses ROLL
        assert panel.effects[-1].rolled is None  # reveals, never rolls again
    assert panel.dice.calls == calls
    assert [big for big, _ in shown] == ["LEADER", "HELPER 1", "HELPER 2"]
    for (_, text), p in zip(shown, expected["participants"], strict=True):
        assert f"{p['rating']}: {p['hot']}/{p['cold']} ={p['total']}" in text
    assert panel.screen.kind == "result"
    text = " ".join(panel.screen.lines)
    for p in expected["participants"]:
        assert f"{p['rating']}: {p['hot']}/{p['cold']} ={p['total']}" in text
    assert f"{expected['total']} = base {expected['base']} +{expected['coordination']}" in text


def test_horizons_damage_goes_to_the_defenders_slot_and_spills_over_as_boxes() -> None:
    seed = next(s for s in (f"wounds-{i}".encode() for i in range(200))
                if _expected("horizons", s, trait=6, skill=4, body=0, resolve=0, wounds=[3, 0, 0])["damage"] >= 3)
    panel = _set_up("horizons", seed, {"target": 2, "body": 0, "resolve": 0, "trait": 6, "skill": 4},
                    {"wounds": [(3, 0, 0)]})
    assert panel.state.players[1].get("horizons", "wounds") == (3, 0, 0)  # kept in P2's slot
    expected = _roll_and_check(panel, "horizons", seed,
                               {"trait": 6, "skill": 4, "body": 0, "resolve": 0, "wounds": [3, 0, 0]})
    track = expected["wounds_after"]
    assert track["major"] >= 1  # four Minor boxes full: the damage spilled into Major
    assert panel.state.players[1].get("horizons", "wounds")["minor"] == track["minor"]
    assert panel.state.players[0].get("horizons", "wounds") is None  # not the roller's
    assert any(line.startswith("minor \u2588\u2588\u2588\u2588") for line in panel.screen.lines)
    # the next roll against the same defender starts from the track as it is now
    panel.press(MODE)  # back from the result to the page
    assert screens.percent(panel.state.odds or 0.0) in panel.screen.title


def test_horizons_stability_is_kept_in_the_rollers_slot() -> None:
    seed = next(s for s in (f"stab-{i}".encode() for i in range(200))
                if not _expected("horizons", s, need=3, stability=2, stability_loss=3)["success"])
    panel = _set_up("horizons", seed, {"need": 3, "stability": 2, "stability_loss": 3}, {})
    expected = _roll_and_check(panel, "horizons", seed, {"need": 3, "stability": 2, "stability_loss": 3})
    assert panel.state.slot.get("horizons", "stability") == expected["stability_after"]["marked"] == 5
    assert "stab. \u2588\u2588\u2588\u2588\u2588\u00b7\u00b7\u00b7\u00b7\u00b7 5/10" in panel.screen.lines


def test_immortal_locks_only_the_skill_slot_that_failed_untrained() -> None:
    seed = next(s for s in (f"lock-{i}".encode() for i in range(200))
                if not _expected("immortal", s, untrained=True, tn=14)["success"])
    panel = _set_up("immortal", seed, {"untrained": True, "tn": 14, "skill_slot": 2}, {})
    _roll_and_check(panel, "immortal", seed, {"untrained": True, "tn": 14})
    assert "skill now LOCKED" in panel.screen.lines
    panel.press(ROLL)  # slot 2 again: refused
    assert panel.screen.kind == "message" and "locked" in " ".join(panel.screen.lines)
    panel.set_field("skill_slot", 3)  # another skill: allowed
    calls = panel.dice.calls
    panel.press(ROLL)
    assert panel.screen.kind == "result" and panel.dice.calls > calls
    assert "skill slot locked 2" in " ".join(panel.screen.lines)


def test_fingers_chain_takes_one_finger_per_test() -> None:
    seed = b"chain"
    panel = _set_up("fingers", seed, {"karma": 2}, {"chain": [(1, 5, 0), (2, 5, 1)]})
    params = {"chain": ["1/5", "2/5+1"], "karma": 2}
    assert panel.screen.odds == pytest.approx(engine.odds("fingers", **params)["success"])
    panel.press(ROLL)
    assert panel.screen.kind == "guess" and panel.dice.calls == 0
    panel.press(MODE)  # thumb for test 1
    assert panel.screen.kind == "guess" and "test 2" in " ".join(panel.screen.lines)
    assert panel.dice.calls == 0  # no hand drawn before every test has its finger
    panel.press(ROLL)  # pinky for test 2
    expected = _expected("fingers", seed, guess=[1, 5], **params)
    assert panel.effects[-1].rolled == expected
    assert panel.state.slot.get("fingers", "karma") == expected["karma_after"]


@pytest.mark.parametrize(("fields", "lists", "params"), [
    ({"long_term": True, "max_tests": 3}, {}, {"long_term": True, "max_tests": 3}),
    ({}, {"winners_set": [(2,), (4,)]}, {"winners_set": [2, 4]}),
    ({"multi_spend": True, "karma": 3, "spend": 2}, {}, {"multi_spend": True, "karma": 3, "spend": 2}),
])
def test_fingers_flows_roll_what_the_library_rolls(fields: dict, lists: dict, params: dict) -> None:
    seed = f"fingers-{sorted(params)}".encode()
    panel = _set_up("fingers", seed, fields, lists)
    panel.press(ROLL)
    panel.press(ROLL)  # pinky
    expected = _expected("fingers", seed, guess=[5], karma=params.pop("karma", 0), **params)
    assert panel.effects[-1].rolled == expected


def test_every_page_is_reached_and_left_with_the_buttons() -> None:
    panel = Panel()
    for system in engine.ids():
        panel.to_system(system)
        spec = panel.state.spec
        for page in rows.pages(spec):
            panel.to_page(page)
            assert panel.state.page == page
            for _ in range(3):
                if panel.state.page == rows.FIRST:
                    break
                panel.press(MODE)
            assert panel.state.system_id == system and panel.state.page == rows.FIRST


def test_immortal_shows_both_chances_when_automatic_success_changes_them() -> None:
    panel = _set_up("immortal", b"auto", {"skill": 4, "tn": 12}, {})
    yes = engine.odds("immortal", skill=4, tn=12, auto_success="yes")["success"]
    no = engine.odds("immortal", skill=4, tn=12, auto_success="no")["success"]
    assert yes != no
    panel.to_page(rows.FIRST)
    text = " ".join(panel.screen.lines)
    assert f"auto success: yes {screens.percent(yes)} no {screens.percent(no)}" in text
    panel.set_field("auto_success", "no")  # the player's choice, on the advanced page
    assert panel.screen.odds == pytest.approx(no)
    panel.set_field("tn", 20)  # skill x 3 < TN: no automatic success either way, one chance
    panel.to_page(rows.FIRST)
    assert "auto success" not in " ".join(panel.screen.lines)


def test_horizons_a_row_that_does_not_count_shows_off() -> None:
    panel = _set_up("horizons", b"off", {"opponent_pool": 3}, {})
    assert any(line.strip(" >") == "opp. pool 3" for line in panel.screen.lines)
    panel.set_field("opponent_successes", 2)
    assert any(line.strip(" >") == "opp. pool 3 off" for line in panel.screen.lines)
    panel.set_field("opponent_successes", None)
    assert not any(line.strip().endswith("off") for line in panel.screen.lines)
