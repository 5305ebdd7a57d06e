"""The kiosk on gpiozero's mock pins: the operator lock in the real loop, and the attract
screen counting today's rolls from the roll log in the state directory."""

from __future__ import annotations

from datetime import date, datetime

import pytest

import engine
from engine.panel.model import Button
from engine.panel.state import Mode
from hardware.files.rolllog import RollLog
from hardware.tower.daystats import DAY_STATS_EVERY_NS
from tests.hardware.test_runtime import CONFIG, Rig
from tests.support import seeded_dice

LOCKED = CONFIG + "[kiosk]\nlock = true\n"
HOLD_S = 0.9  # the default hold time is 0.8 s


@pytest.fixture
def locked():
    rig = Rig(LOCKED)
    try:
        yield rig
    finally:
        rig.tower.close()


def test_holding_mode_alone_does_not_open_the_settings(locked) -> None:
    locked.pin(Button.MODE).drive_low()
    locked.run(HOLD_S)
    locked.pin(Button.MODE).drive_high()
    locked.run(0.1)
    assert locked.tower.state.mode is Mode.SETUP


def test_the_operator_buttons_open_them_and_roll_does_not_roll(locked) -> None:
    locked.pin(Button.MODE).drive_low()
    locked.run(0.1)
    locked.pin(Button.ROLL).drive_low()
    locked.run(HOLD_S)
    assert locked.tower.state.mode is Mode.SETTINGS
    locked.pin(Button.ROLL).drive_high()
    locked.pin(Button.MODE).drive_high()
    locked.run(0.2)
    assert locked.tower.state.mode is Mode.SETTINGS
    assert locked.tower.rolls == 0


def test_unlocked_mode_hold_still_opens_the_settings() -> None:
    rig = Rig(CONFIG)
    try:
        rig.pin(Button.MODE).drive_low()
        rig.run(HOLD_S)
        assert rig.tower.state.mode is Mode.SETTINGS
    finally:
        rig.tower.close()


def test_the_attract_screen_shows_todays_rolls_from_the_log(tmp_path) -> None:
    noon = datetime.combine(date.today(), datetime.min.time()).replace(hour=12).astimezone()
    log = RollLog(tmp_path / "rolls.jsonl", clock=lambda: int(noon.timestamp() * 1e9), fsync=False)
    for faces in ([4], [1], [6]):
        log.append("roll", session="s", roll_kind="rolled", result=engine.roll("d6cv", stat=5, cv=7, faces=faces))
    rig = Rig(CONFIG + "idle_seconds = 10\n", dice=seeded_dice(b"kiosk"), memory=tmp_path)  # in [panel]
    try:
        rig.run(11.0)
        assert rig.tower.screen.kind == "attract"
        titles = set()
        for _ in range(40):
            rig.run(2.0)
            titles.add(rig.tower.screen.title)
            if rig.tower.screen.title == "d6cv":
                assert rig.tower.screen.lines[:2] == ("3 rolls today", "won 2 = 67%")
        assert "d6cv" in titles
        # a roll logged now shows within DAY_STATS_EVERY_NS
        log.append("roll", session="s", roll_kind="rolled", result=engine.roll("d6cv", stat=5, cv=7, faces=[2]))
        rig.run(DAY_STATS_EVERY_NS / 1e9 + 0.1)
        assert rig.tower.state.day is not None and rig.tower.state.day[0].rolls == 4
    finally:
        rig.tower.close()
