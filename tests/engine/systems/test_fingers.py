"""fingers: every worked example of the rules text as its own test, then the rules around
them (karma earn/spend, multi-spend, ailments, chains, long-term challenges), the hidden hand
(``--winners-set``, ``dice``), and every class of bad input."""

from __future__ import annotations

from fractions import Fraction

import pytest

import engine
from engine.errors import FacesError, ParameterError
from engine.systems import get
from tests.support import seeded_dice

SPEC = get("fingers")


def hand(winners_set, guess, **params):
    """A roll with the GM's hand fixed."""
    return engine.roll("fingers", winners_set=winners_set, guess=guess, **params)


def chance(**params) -> Fraction:
    return Fraction(engine.odds("fingers", **params)["exact"]["success"])


# --- worked examples of the rules text -------------------------------------------------------

CHALLENGE_TABLE = [
    # "Challenge Chance of success": the text's own figures (2/3 and 1/3 cut to 66% and 33%).
    (4, 5, 80), (3, 5, 60), (2, 5, 40), (1, 5, 20),
    (3, 4, 75), (2, 4, 50), (1, 4, 25),
    (2, 3, 66), (1, 3, 33),
    (1, 2, 50),
]


@pytest.mark.parametrize(("k", "n", "percent"), CHALLENGE_TABLE)
def test_challenge_table_row(k, n, percent):
    p = chance(winners=k, choices=n)
    assert p == Fraction(k, n)
    assert int(p * 100) == percent  # the text truncates: 2/3 is 66.67%, printed 66%


def test_challenge_table_has_ten_scenarios():
    # "Ten possible scenarios of varying difficulty"
    assert len({Fraction(k, n) for k, n, _ in CHALLENGE_TABLE}) == 9  # 2 of 4 = 1 of 2 ...
    assert len(CHALLENGE_TABLE) == 10  # ... yet ten scenarios: karma tells them apart


def test_horse_jump_2_of_5_thumb_and_middle_closed_guess_index_fails():
    # "You close your thumb and middle fingers (1 & 3). He guesses 2 (Index). You reveal that
    # he failed." Judged "about 40%": a 2 out of 5.
    r = hand([1, 3], 2, winners=2, choices=5)
    assert (r["outcome"], r["success"]) == ("failure", False)
    assert r["winners"] == [1, 3]
    assert r["guess"] == 2
    assert r["total"] is None
    assert r["karma_after"] == 1  # "Every time a player fails a test, they gain 1 karma."
    assert chance(winners=2, choices=5) == Fraction(2, 5)


def test_horse_jump_guessing_a_closed_finger_succeeds():
    r = hand([1, 3], 3, winners=2, choices=5)
    assert r["success"] is True and r["karma_after"] == 0


def test_2_of_4_ignores_the_pinky():
    # "You could test 2 out of 4 as well, which tells him just ignore the pinky"
    with pytest.raises(ParameterError, match="--guess"):
        engine.roll("fingers", winners=2, choices=4, guess=5, rng=seeded_dice(b"pinky"))
    with pytest.raises(ParameterError, match="--winners-set"):
        hand([1, 5], 1, winners=2, choices=4)


def test_karma_turns_2_of_5_into_3_of_5():
    # "If the test was a 2 of 5, it becomes a 3 of 5."
    assert chance(winners=2, choices=5, karma=1, spend=1) == Fraction(3, 5)
    r = hand([1, 3, 5], 5, winners=2, choices=5, karma=1, spend=1)
    test = r["tests"][0]
    assert (test["winning"], test["choices"], test["spent"]) == (3, 5, 1)
    assert r["success"] is True and r["karma_after"] == 0


def test_karma_makes_1_of_2_a_sure_2_of_2_but_2_of_4_only_3_of_4():
    # "A 1 of 2 would become a 2 of 2 with a karma point while a 2 of 4 would only become a
    # 3 of 4."
    assert chance(winners=1, choices=2) == chance(winners=2, choices=4) == Fraction(1, 2)
    assert chance(winners=1, choices=2, karma=1, spend=1) == 1
    assert chance(winners=2, choices=4, karma=1, spend=1) == Fraction(3, 4)
    r = engine.roll("fingers", winners=1, choices=2, karma=1, spend=1, guess=2,
                    rng=seeded_dice(b"sure"))
    assert (r["success"], r["automatic"], r["winners"]) == (True, True, [1, 2])


def test_failing_earns_one_karma():
    assert hand([1], 2, winners=1, choices=5, karma=2)["karma_after"] == 3


def test_failing_while_spending_karma_earns_nothing():
    # "If you fail a test when spending a karma point, you do not earn a new one."
    r = hand([1, 3, 4], 2, winners=2, choices=5, karma=2, spend=1)
    assert r["success"] is False
    assert r["karma_after"] == 1


def test_karma_never_above_5_nor_below_0():
    # "A player may never accumulate more than 5, nor have less than 0."
    assert hand([1], 2, winners=1, choices=5, karma=5)["karma_after"] == 5
    assert hand([1, 2], 2, winners=1, choices=5, karma=1, spend=1)["karma_after"] == 0
    with pytest.raises(ParameterError, match="--karma"):
        engine.odds("fingers", karma=6)
    with pytest.raises(ParameterError, match="--spend"):
        engine.odds("fingers", karma=0, spend=1)


def test_spend_at_most_one_karma_per_test_by_default():
    # "Before any test, a player may choose to spend 1 of his or her karma points"
    with pytest.raises(ParameterError, match=r"--spend.*--multi-spend"):
        engine.odds("fingers", winners=1, choices=5, karma=3, spend=2)


def test_multi_spend_option_burns_karma_faster():
    # "you may choose to allow your players to spend more than one karma at a time. They may
    # burn through their points faster, but may also accomplish much more heroic actions"
    assert chance(winners=1, choices=5, karma=3, spend=3, multi_spend=True) == Fraction(4, 5)
    r = hand([1, 2, 3, 4], 4, winners=1, choices=5, karma=3, spend=3, multi_spend=True)
    assert r["success"] is True and r["karma_after"] == 0
    # Winners stop at every finger: spending past that would buy nothing, so it is refused
    # rather than taken (a kind device does not burn a player's karma for nothing).
    assert chance(winners=4, choices=5, karma=5, spend=1) == 1
    with pytest.raises(ParameterError, match=r"^--spend: 4 of 5 is certain with 1 karma; spending 5 would waste 4"):
        chance(winners=4, choices=5, karma=5, spend=5, multi_spend=True)
    with pytest.raises(ParameterError, match=r"^--spend: 3 of 3 is certain with 0 karma.*allowed 0..0"):
        chance(winners=3, choices=3, karma=1, spend=1)


@pytest.mark.parametrize("n", [5, 4, 3, 2])
def test_guaranteed_tests_are_automatic_successes(n):
    # "If a challenge is ever raised to the point where the successes are guaranteed (5 of 5,
    # 4 of 4, 3 of 3, or 2 of 2), it is an automatic success."
    assert chance(winners=n, choices=n) == 1
    for guess in range(1, n + 1):
        r = engine.roll("fingers", winners=n, choices=n, guess=guess, rng=seeded_dice(b"g"))
        assert (r["success"], r["automatic"], r["winners"]) == (True, True, list(range(1, n + 1)))


@pytest.mark.parametrize("n", [5, 4, 3, 2])
def test_zero_tests_have_no_chance_without_karma(n):
    # "simply make it a 0 success test. 0 of 5, 0 of 4, 0 of 3, 0 of 2."
    assert chance(winners=0, choices=n) == 0
    r = engine.roll("fingers", winners=0, choices=n, guess=1, rng=seeded_dice(b"z"))
    assert (r["success"], r["automatic"], r["winners"], r["karma_after"]) == (False, True, [], 1)
    # "... without some luck (or karma) playing a vital role"
    assert chance(winners=0, choices=n, karma=1, spend=1) == Fraction(1, n)


def test_optional_starting_karma_is_the_karma_parameter():
    # "you may choose to have your players start with a number of karma at the beginning of
    # your game session": a session starts each player's --karma at that number.
    assert chance(winners=1, choices=3, karma=3, spend=1) == Fraction(2, 3)
    assert SPEC.param("karma").default == 0


def test_ailment_turns_1_of_3_into_1_of_4():
    # "If a challenge is set as a 1 of 3, a player with an ailment will make a 1 of 4 instead."
    assert chance(winners=1, choices=3, ailment=True) == Fraction(1, 4)
    r = hand([4], 4, winners=1, choices=3, ailment=True)
    assert r["success"] is True
    assert (r["tests"][0]["winning"], r["tests"][0]["choices"]) == (1, 4)


def test_ailment_leaves_1_of_5_a_1_of_5():
    # "If the challenge were set at 1 of 5, it will remain a 1 of 5."
    assert chance(winners=1, choices=5, ailment=True) == Fraction(1, 5)


def test_chain_1_of_5_followed_by_1_of_3():
    # "Requiring a 1 of 5 followed by a 1 of 3, for instance, provides more difficulty than
    # either test alone."
    p = chance(chain="1/5,1/3")
    assert p == Fraction(1, 15)
    assert p < chance(winners=1, choices=5) and p < chance(winners=1, choices=3)
    r = hand([2, 3], [2, 3], chain="1/5,1/3")
    assert r["success"] is True and len(r["tests"]) == 2
    assert r["dice"] == [2, 3]


def test_chain_stops_at_the_first_failure():
    r = hand([4], [2, 3], chain="1/5,1/3")
    assert r["success"] is False
    assert len(r["tests"]) == 1 and r["karma_after"] == 1
    with pytest.raises(ParameterError, match=r"--winners-set.*too many"):
        hand([4, 3], [2, 3], chain="1/5,1/3")


def test_chain_karma_is_spent_per_test():
    # Karma goes on the test it helps: 1/3+1 is a 2 of 3.
    assert chance(chain="1/5,1/3+1", karma=1) == Fraction(1, 5) * Fraction(2, 3)
    passed = hand([1, 1, 3], [1, 3], chain="1/5,1/3+1", karma=1)
    assert passed["success"] is True and passed["karma_after"] == 0
    # Failing the first test: the karma meant for the second is never spent, and one is
    # earned (nothing was spent on the failed test).
    failed = hand([2], [1, 1], chain="1/5,1/3+1", karma=1)
    assert failed["success"] is False and failed["karma_after"] == 2
    with pytest.raises(ParameterError, match="--chain"):
        engine.odds("fingers", chain="1/5+1,1/3+1", karma=1)
    with pytest.raises(ParameterError, match="--spend"):
        engine.odds("fingers", chain="1/5,1/3", karma=1, spend=1)


def test_long_term_4_challenges_of_2_of_5_succeed_given_enough_time():
    # "you require that the player pass 4 challenges of 2 of 5. Every test will take 10
    # minutes in game time. Success is guaranteed given enough time"
    odds = engine.odds("fingers", chain="2/5,2/5,2/5,2/5", long_term=True)
    assert odds["exact"]["success"] == "1"
    tests = {int(t): Fraction(p) for t, p in odds["exact"]["tests"].items()}
    assert min(tests) == 4 and tests[4] == Fraction(2, 5) ** 4
    assert 0 < odds["truncated"] <= 1e-15
    # 4 passes at 2/5 each take 10 tests on average: 100 minutes of game time.
    mean = sum(t * p for t, p in tests.items())
    assert abs(mean - 10) < 1e-9


def test_long_term_with_a_time_limit_can_fail():
    # "... but that may have other consequences in your story": one hour is six tests.
    assert chance(chain="2/5,2/5,2/5,2/5", long_term=True, max_tests=6) == Fraction(112, 625)
    r = engine.roll("fingers", chain="2/5,2/5,2/5,2/5", long_term=True, max_tests=6, guess=1,
                    winners_set=[1, 2, 3, 4, 1, 5, 2, 3, 1, 2, 4, 5])
    assert [t["success"] for t in r["tests"]] == [True, False, True, False, True, False]
    assert r["success"] is False and r["karma_after"] == 3


def test_long_term_retries_a_failed_test_and_earns_karma():
    r = engine.roll("fingers", winners=1, choices=2, long_term=True, guess=1,
                    winners_set=[2, 2, 1])
    assert [t["success"] for t in r["tests"]] == [False, False, True]
    assert r["success"] is True and r["karma_after"] == 2


# --- the hand, dice and the result -------------------------------------------------------------


def test_dice_hold_the_winning_fingers_and_replay_as_winners_set():
    for params in ({"winners": 2, "choices": 5, "guess": 3},
                   {"chain": "2/4,1/3", "guess": [1, 2]},
                   {"chain": "2/5,2/5", "long_term": True, "guess": 4}):
        rolled = engine.roll("fingers", rng=seeded_dice(b"fingers-replay"), **params)
        again = engine.roll("fingers", winners_set=rolled["dice"], **params)
        assert {k: v for k, v in again.items() if k != "params"} == \
               {k: v for k, v in rolled.items() if k != "params"}
        assert rolled["dice"] == [f for t in rolled["tests"] for f in t["winners"]]


def test_guess_as_one_finger_the_panel_way():
    r = hand([2, 4], 4, winners=2, choices=5)
    assert r["params"]["guess"] == [4] and r["guess"] == 4 and r["success"] is True


def test_last_guess_repeats_through_a_chain():
    r = hand([1, 2, 2], 2, chain="2/5,1/3")
    assert [t["guess"] for t in r["tests"]] == [2, 2] and r["success"] is True


def test_a_roll_needs_a_guess_the_odds_do_not():
    with pytest.raises(ParameterError) as info:
        engine.roll("fingers", winners=2, choices=5, rng=seeded_dice(b"no-guess"))
    assert str(info.value).startswith("--guess:")
    assert engine.odds("fingers", winners=2, choices=5)["success"] == pytest.approx(0.4)


def test_faces_are_refused_pointing_to_winners_set():
    with pytest.raises(FacesError, match="--winners-set") as info:
        engine.roll("fingers", faces=[1, 3], guess=2)
    assert str(info.value).startswith("--faces:")


def test_result_has_the_contract_fields():
    r = hand([1, 3], 2)
    for key in ("system", "params", "dice", "total", "outcome", "success", "karma_after",
                "winners"):
        assert key in r
    assert r["system"] == "fingers" and r["total"] is None
    assert set(SPEC.outcomes) == {"success", "failure"}


def test_describe_is_a_few_short_lines():
    cases = [([1, 3], 2, {}), ([1, 2, 3], 3, {"karma": 1, "spend": 1}),
             ([], 1, {"winners": 0}), ([2, 3], [2, 3], {"chain": "1/5,1/3"}),
             ([4], 4, {"winners": 1, "choices": 3, "ailment": True})]
    for fixed, guess, params in cases:
        result = engine.roll_result("fingers", winners_set=fixed, guess=guess, **params)
        lines = SPEC.describe(result)
        assert 2 <= len(lines) <= 4 and all(lines)
    lines = SPEC.describe(engine.roll_result("fingers", winners_set=[1, 3], guess=2))
    assert "thumb (1), middle (3)" in lines[1] and "index (2)" in lines[1]
    assert lines[-1] == "FAILURE, karma 0 -> 1"


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "flag"),
    [
        ({"choices": 1}, "--choices"),
        ({"choices": 6}, "--choices"),
        ({"winners": 6}, "--winners"),
        ({"winners": 4, "choices": 3}, "--winners"),
        ({"karma": -1}, "--karma"),
        ({"karma": 1, "spend": 2}, "--spend"),
        ({"karma": 3, "spend": 2}, "--spend"),
        ({"karma": 5, "spend": 6, "multi_spend": True}, "--spend"),
        ({"ailment": "sick"}, "--ailment"),
        ({"guess": 6}, "--guess"),
        ({"guess": 0}, "--guess"),
        ({"guess": "pinky"}, "--guess"),
        ({"guess": 4, "choices": 3}, "--guess"),
        ({"guess": [1, 2]}, "--guess"),
        ({"winners_set": [1]}, "--winners-set"),
        ({"winners_set": [1, 1]}, "--winners-set"),
        ({"winners_set": [1, 6]}, "--winners-set"),
        ({"winners_set": [1, 5], "choices": 4}, "--winners-set"),
        ({"chain": "1/6"}, "--chain"),
        ({"chain": "3/2"}, "--chain"),
        ({"chain": "one of five"}, "--chain"),
        ({"chain": ",".join(["1/2"] * 11)}, "--chain"),
        ({"chain": "1/5+2", "karma": 2}, "--chain"),
        ({"chain": "1/5,1/3", "guess": [1, 2, 3]}, "--guess"),
        ({"chain": "1/5,1/3", "guess": [1, 4]}, "--guess"),
        ({"long_term": True, "karma": 0, "spend": 1}, "--spend"),
        ({"long_term": True, "chain": "1/5+2", "karma": 2}, "--chain"),
        ({"long_term": True, "winners": 0}, "--winners"),
        ({"long_term": True, "chain": "1/2,0/3"}, "--chain"),
        ({"max_tests": 5}, "--max-tests"),
        ({"max_tests": 101, "long_term": True}, "--max-tests"),
        ({"fingers": 3}, "--fingers"),
    ],
)
def test_bad_parameters_name_the_parameter(params, flag):
    with pytest.raises(ParameterError) as info:
        engine.odds("fingers", **params)
    assert str(info.value).startswith(flag + ":")


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"chain": "1/5,1/3", "winners_set": [1], "guess": 1}, "too few"),
        ({"chain": "1/5,1/3", "winners_set": [1, 1, 2], "guess": 1}, "too many"),
        ({"chain": "2/5,1/3", "winners_set": [1, 1], "guess": 1}, "different fingers"),
        ({"chain": "2/5,1/3", "winners_set": [1, 2, 5], "guess": 1}, "from 1 to 3"),
        ({"long_term": True, "winners": 1, "choices": 2, "winners_set": [2], "guess": 1},
         "too few"),
        ({"long_term": True, "chain": "1/5,1/2", "winners_set": [5, 1], "guess": 5},
         "--guess"),
    ],
)
def test_hands_that_do_not_fit_the_tests_played(params, match):
    with pytest.raises(ParameterError, match=match):
        engine.roll("fingers", **params)


# --- regressions -------------------------------------------------------------------------------


def test_long_term_guess_that_may_meet_a_narrower_challenge_is_refused_before_the_roll():
    # A long-term challenge retries, so --guess 5 on 1/5,1/2 used to give a result when the
    # hands kept the player on the 1 of 5 until time ran out, and an error otherwise: the same
    # command succeeded or failed depending on the hidden hands.
    params = {"long_term": True, "max_tests": 3, "chain": "1/5,1/2", "guess": 5}
    for seed in range(12):
        with pytest.raises(ParameterError) as info:
            engine.roll("fingers", rng=seeded_dice(b"lt-guess-%d" % seed), **params)
        assert str(info.value).startswith("--guess:") and "1 of 2" in str(info.value)
    with pytest.raises(ParameterError, match=r"^--guess:"):
        engine.odds("fingers", **params)
    # The last guess is repeated, so it may meet an earlier, narrower challenge on a retry.
    with pytest.raises(ParameterError, match=r"^--guess:.*last guess.*challenge 1"):
        engine.odds("fingers", long_term=True, chain="1/2,1/5", guess=[1, 5])
    # A guess that fits every challenge it may meet is fine.
    r = engine.roll("fingers", long_term=True, max_tests=2, chain="1/5,1/2", guess=[5, 2],
                    winners_set=[5, 1])
    assert [t["guess"] for t in r["tests"]] == [5, 2] and r["success"] is False


def test_long_term_more_guesses_than_max_tests_is_an_error():
    # Guesses past --max-tests could never be used (a chain with more guesses than tests is
    # already an error); they used to be dropped silently.
    with pytest.raises(ParameterError, match=r"^--guess:.*--max-tests \(2\)"):
        engine.odds("fingers", winners=1, choices=2, long_term=True, max_tests=2,
                    guess=[1, 2, 1])
    assert engine.odds("fingers", winners=1, choices=2, long_term=True, max_tests=2,
                       guess=[1, 2])["success"] == pytest.approx(0.75)


def test_params_echo_guess_as_a_list_that_replays_the_roll():
    # The decision documented in docs/rules/fingers.md: params.guess is always a list (one
    # type for a JSON consumer), the result's guess is the finger of the deciding test.
    rolled = engine.roll("fingers", rng=seeded_dice(b"echo"), chain="1/5,1/3+1", karma=1,
                         guess=3)
    assert rolled["params"]["guess"] == [3]
    assert isinstance(rolled["guess"], int) and rolled["guess"] == rolled["tests"][-1]["guess"]
    again = engine.roll("fingers", **{**rolled["params"], "winners_set": rolled["dice"]})
    assert {k: v for k, v in again.items() if k != "params"} == \
           {k: v for k, v in rolled.items() if k != "params"}


def test_one_test_and_one_finger_are_singular():
    # Was "passed in 1 tests" and "1 different fingers from 1 to 2".
    lines = SPEC.describe(engine.roll_result("fingers", chain="1/5,1/3", winners_set=[3],
                                             guess=1))
    assert lines[0] == "chain: 0 of 2 passed in 1 test; last 1 of 5"
    with pytest.raises(ParameterError) as info:
        engine.roll("fingers", long_term=True, winners=1, choices=2, winners_set=[3], guess=1)
    assert str(info.value) == "--winners-set: test 1 is a 1 of 2: 1 finger from 1 to 2, got 3"


def test_long_term_spends_karma_on_each_test_while_it_lasts():
    # Karma 1 on 1/2+1: the first test is a 2 of 2; the second has no karma left (a 1 of 2),
    # fails and earns one; the third spends it again.
    r = engine.roll_result("fingers", chain="1/2+1,1/2+1", long_term=True, karma=1, guess=1,
                           winners_set=[1, 2, 2, 1, 2])
    assert [(t.winning, t.choices, t.spent, t.success, t.karma_after) for t in r.tests] == [
        (2, 2, 1, True, 0), (1, 2, 0, False, 1), (2, 2, 1, True, 0)]
    assert r.success and r.karma_after == 0
    # Four 2 of 5 with karma 5, one spent on each: every test is a 3 of 5 (karma lasts).
    odds = engine.odds("fingers", winners=2, choices=5, long_term=True, karma=5, spend=1,
                       max_tests=1)
    assert odds["exact"]["success"] == "3/5"
    plain = engine.odds("fingers", chain="2/5,2/5,2/5,2/5", long_term=True, max_tests=6)
    spent = engine.odds("fingers", chain="2/5+1,2/5+1,2/5+1,2/5+1", long_term=True, karma=5,
                        max_tests=6)
    assert spent["success"] > plain["success"]
