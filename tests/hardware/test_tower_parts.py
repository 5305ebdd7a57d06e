"""The tower's small parts on their own: what dice offer is read from their class (never by
reading ``commitment``, which would open a session), and a problem is said once."""

from __future__ import annotations

from hardware.entropy import open_dice
from hardware.once import Once
from hardware.tower.dice import abilities
from tests.support import seeded_dice


class _CommitsOnly:
    """A stand-in that commits and reveals but keeps no log; reading its commitment is an error."""

    def randbelow(self, n: int) -> int:
        return 0

    @property
    def commitment(self) -> str:
        raise AssertionError("abilities() must not read the commitment")

    @property
    def session_id(self) -> str | None:
        return None

    def reveal(self) -> str | None:
        return None


def test_session_dice_offer_every_seam() -> None:
    dice = open_dice(seed=b"parts")
    able = abilities(dice)
    assert all(getattr(able, f) is dice for f in able.__dataclass_fields__)
    assert dice.session_id is None  # no session was opened by looking


def test_seeded_dice_only_roll() -> None:
    able = abilities(seeded_dice(b"parts"))
    assert all(getattr(able, f) is None for f in able.__dataclass_fields__)
    assert able.describe() == {}


def test_a_stand_in_offers_what_it_has() -> None:
    dice = _CommitsOnly()
    able = abilities(dice)
    assert able.committing is dice
    assert able.recording is None and able.describing is None and able.closing is None


def test_a_problem_is_said_once_and_its_end_once() -> None:
    said: list[str] = []
    once = Once(said.append)
    assert once.say("disk full", "memory: disk full; not saved")
    assert not once.say("disk full")
    assert once.say("read-only")
    assert once.over("saved again")
    assert not once.over("saved again")
    assert once.say("read-only")
    assert said == ["memory: disk full; not saved", "read-only", "saved again", "read-only"]
