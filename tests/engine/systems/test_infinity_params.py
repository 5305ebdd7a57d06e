"""Infinity: parameters, bad input and ``--faces`` round trips."""

from __future__ import annotations

import pytest

import engine
from engine.errors import FacesError, ParameterError
from engine.systems.infinity import Attacker, Related


def roll_error(**kw: object) -> ParameterError:
    with pytest.raises(ParameterError) as info:
        engine.roll("infinity", **kw)
    return info.value


# --- faces ------------------------------------------------------------------------------


def test_faces_round_trip_single() -> None:
    r = engine.roll("infinity", rating=8, cr="difficult", faces="3,4")
    assert r["dice"] == [3, 4]
    assert (r["total"], r["result"], r["outcome"], r["success"]) == (11, 1, "success", True)


def test_faces_order_is_roller_then_helpers_then_related() -> None:
    r = engine.roll("infinity", rating=10, helper=[20, 30], related=[40], faces=[1, 2, 3, 4, 5, 6, 7, 8])
    assert r["dice"] == [1, 2, 3, 4, 5, 6, 7, 8]
    parts = r["participants"]
    assert [(p["role"], p["rating"], p["hot"], p["cold"]) for p in parts] == [
        ("roller", 10, 1, 2), ("helper", 20, 3, 4), ("helper", 30, 5, 6), ("related", 40, 7, 8),
    ]
    assert [p["total"] for p in parts] == [11, 23, 35, 47]
    assert [p["base"] for p in parts] == [False, False, True, False]


def test_faces_order_in_a_volley_is_roller_then_attackers_then_related() -> None:
    r = engine.roll(
        "infinity", rating=10, volley=True, damage=1, defense=5, attacker=["20:2"], related=[30],
        faces=[1, 2, 3, 4, 5, 6],
    )
    assert [(p["role"], p["hot"], p["cold"], p["damage"]) for p in r["participants"]] == [
        ("roller", 1, 2, 1), ("attacker", 3, 4, 2), ("related", 5, 6, None),
    ]


def test_seeded_roll_replays_through_faces() -> None:
    from tests.support import seeded_dice

    first = engine.roll("infinity", rng=seeded_dice(b"replay"), rating=9, helper=[7], related=[2], cr=12)
    again = engine.roll("infinity", faces=first["dice"], rating=9, helper=[7], related=[2], cr=12)
    assert again == first


@pytest.mark.parametrize(
    ("faces", "fragment"),
    [
        ([3], "too few"),
        ([3, 4, 5], "too many"),
        ([0, 4], "face 0"),
        ([3, 11], "face 11"),
        ("3,x", "'x'"),
        ("", "comma-separated"),
    ],
)
def test_bad_faces(faces: object, fragment: str) -> None:
    with pytest.raises(FacesError) as info:
        engine.roll("infinity", rating=8, faces=faces)
    assert info.value.param == "faces"
    assert fragment in str(info.value)


def test_group_needs_two_faces_per_character() -> None:
    with pytest.raises(FacesError, match="too few"):
        engine.roll("infinity", rating=8, helper=[5], faces=[3, 4, 5])


# --- parameters -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "param"),
    [
        ({"rating": -1}, "rating"),
        ({"rating": 151}, "rating"),
        ({"rating": "eight"}, "rating"),
        ({"cr": 229}, "cr"),
        ({"cr": "tricky"}, "cr"),
        ({"cr": -5}, "cr"),
        ({"modifier": 51}, "modifier"),
        ({"declaration": "maybe"}, "declaration"),
        ({"retry": 3}, "retry"),
        ({"helper": ["x"]}, "helper"),
        ({"helper": [200]}, "helper"),
        ({"helper": list(range(10))}, "helper"),
        ({"related": [-1]}, "related"),
        ({"attribute": 201, "skill_points": 1}, "attribute"),
        ({"attribute": 5, "skill_points": 101}, "skill-points"),
        ({"speed": 3}, "speed"),
    ],
)
def test_out_of_range_or_unknown_parameter_names_it(kw: dict, param: str) -> None:
    err = roll_error(faces=[1, 2], **kw)
    assert err.param == param
    assert str(err).startswith(f"--{param}:")


def test_range_errors_say_what_is_allowed() -> None:
    err = roll_error(rating=500)
    assert "0 to 150" in str(err) and "500" in str(err)
    err = roll_error(cr="tricky")
    assert "routine" in str(err) and "nearly-impossible" in str(err)


@pytest.mark.parametrize(
    ("kw", "param", "fragment"),
    [
        ({"attribute": 10}, "skill-points", "give both"),
        ({"skill_points": 4}, "attribute", "give both"),
        ({"attribute": 10, "skill_points": 4, "rating": 12}, "rating", "give a rating of 6"),
        ({"volley": True, "defense": 10}, "damage", "required with --volley"),
        ({"volley": True, "damage": 10}, "defense", "required with --volley"),
        ({"volley": True, "damage": 1, "defense": 2, "helper": [4]}, "helper", "--attacker"),
        ({"volley": True, "damage": 1, "defense": 2, "cr": 5}, "cr", "--defense"),
        ({"damage": 5}, "damage", "only used with --volley"),
        ({"defense": 5}, "defense", "only used with --volley"),
        ({"attacker": ["5:5"]}, "attacker", "only used with --volley"),
    ],
)
def test_cross_parameter_errors(kw: dict, param: str, fragment: str) -> None:
    err = roll_error(faces=[1, 2], **kw)
    assert err.param == param
    assert fragment in str(err)


def test_attribute_and_rating_may_agree() -> None:
    r = engine.roll("infinity", attribute=10, skill_points=4, rating=6, faces=[10, 10])
    assert r["total"] == 6


@pytest.mark.parametrize(
    "item", ["12:18", " 12 : 18 ", (12, 18), [12, 18], {"rating": 12, "damage": 18}, Attacker(12, 18)]
)
def test_attacker_item_forms(item: object) -> None:
    r = engine.roll("infinity", volley=True, damage=1, defense=0, attacker=[item], faces=[1, 2, 3, 4])
    assert r["params"]["attacker"] == [{"rating": 12, "damage": 18}]


def test_attacker_list_from_one_comma_string() -> None:
    r = engine.roll("infinity", volley=True, damage=1, defense=0, attacker="12:18,9:3", faces=[1, 2, 3, 4, 5, 6])
    assert [p["damage"] for p in r["participants"]] == [1, 18, 3]


@pytest.mark.parametrize("item", ["12", "12:", "a:3", "3:b", "3:201", "151:3", "1:2:3", (1, 2, 3), {"rating": 3}])
def test_bad_attacker_items_name_the_parameter(item: object) -> None:
    err = roll_error(volley=True, damage=1, defense=0, attacker=[item], faces=[1, 2, 3, 4])
    assert err.param == "attacker"
    assert "RATING:DAMAGE" in str(err)


def test_odds_reject_the_same_bad_input() -> None:
    with pytest.raises(ParameterError, match="--cr:"):
        engine.odds("infinity", cr="hard")
    with pytest.raises(ParameterError, match="--damage:"):
        engine.odds("infinity", volley=True, defense=3)


def test_json_params_replay() -> None:
    first = engine.roll(
        "infinity", rating=10, volley=True, damage=16, defense=25, attacker=["9:18"], related=[17],
        faces=[3, 4, 3, 4, 3, 4],
    )
    replay = engine.roll("infinity", faces=first["dice"], **first["params"])
    assert replay == first


# --- Review: --faces for a group says exactly how many faces it takes ----------------------


@pytest.mark.parametrize(
    ("kw", "faces", "fragment"),
    [
        ({"helper": [5]}, [3, 4, 5], "too few faces: 3 given, this roll takes exactly 4"),
        ({"helper": [5], "related": [4]}, [3, 4, 5, 6], "too few faces: 4 given, this roll takes exactly 6"),
        ({"helper": [5], "related": [4]}, [3, 4, 5, 6, 7, 8, 9], "too many faces: 7 given, this roll takes exactly 6"),
        ({}, [3], "too few faces: 1 given, this roll takes exactly 2"),
    ],
)
def test_group_faces_error_says_exactly_how_many(kw: dict, faces: list[int], fragment: str) -> None:
    # The dice source alone could only say "needs at least 3" for a roll that takes 4.
    with pytest.raises(FacesError) as info:
        engine.roll("infinity", rating=8, faces=faces, **kw)
    assert fragment in str(info.value)
    assert "at least" not in str(info.value)


# --- Review: --related RATING:CR (a distant related skill's Coordination CR) ---------------


@pytest.mark.parametrize(
    "item", ["16:8", " 16 : 8 ", "16:moderate", (16, 8), [16, 8], {"rating": 16, "cr": 8}, Related(16, 8)]
)
def test_related_item_forms_with_a_coordination_cr(item: object) -> None:
    r = engine.roll("infinity", rating=8, related=[item], faces=[1, 2, 3, 4])
    assert r["params"]["related"] == [{"rating": 16, "cr": 8}]
    assert r["participants"][1]["coordination_cr"] == 8


def test_related_at_coordination_cr_0_stays_a_plain_rating() -> None:
    for item in ("16", "16:0", "16:routine", 16, Related(16, 0)):
        r = engine.roll("infinity", rating=8, related=[item], faces=[1, 2, 3, 4])
        assert r["params"]["related"] == [16]
        assert r["participants"][1]["coordination_cr"] == 0


@pytest.mark.parametrize("item", ["16:", ":5", "a:5", "16:x", "16:229", "16:-1", "151:5", "1:2:3", (1, 2, 3)])
def test_bad_related_items_name_the_parameter(item: object) -> None:
    err = roll_error(related=[item], faces=[1, 2, 3, 4])
    assert err.param == "related"
    assert "RATING:CR" in str(err)


def test_json_params_replay_with_a_coordination_cr() -> None:
    first = engine.roll("infinity", rating=9, helper=[7], related=["13:15", 4], cr=12, faces=[3, 4, 3, 4, 3, 4, 5, 6])
    assert first["params"]["related"] == [{"rating": 13, "cr": 15}, 4]
    replay = engine.roll("infinity", faces=first["dice"], **first["params"])
    assert replay == first
