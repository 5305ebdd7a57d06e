"""The config check with ``[gpio] factory = "bridge"``: GP numbers a Pico has, and no others."""

from __future__ import annotations

import pytest

from hardware.config import ConfigError
from hardware.config.reader import from_mapping


def _bridge(**tables) -> dict:
    return {"gpio": {"factory": "bridge"}, **tables}


def test_the_default_pins_fit_a_pico() -> None:
    config = from_mapping(_bridge(), source="test")
    assert config.leds.pins[-1] == 25  # ROLL's LED: the Pico's on-board LED (docs/wiring.md)


@pytest.mark.parametrize(("tables", "key", "pin"), [
    ({"encoder": {"enabled": True}}, "encoder.a", 23),
    ({"encoder": {"enabled": True, "a": 2, "b": 24}}, "encoder.b", 24),
    ({"buttons": {"roll": 29}}, "buttons.roll", 29),
])
def test_gp_numbers_a_pico_does_not_bring_out_are_refused(tables, key: str, pin: int) -> None:
    with pytest.raises(ConfigError, match=rf"{key}: GP{pin} is not a pin a Raspberry Pi Pico brings out"):
        from_mapping(_bridge(**tables), source="test")


def test_gp28_is_a_pico_pin_but_not_a_pi_pin() -> None:
    assert from_mapping(_bridge(buzzer={"pin": 28}), source="test").buzzer.pin == 28
    with pytest.raises(ConfigError, match=r"buzzer.pin: expected a BCM pin number from 0 to 27, got 28"):
        from_mapping({"buzzer": {"pin": 28}}, source="test")


def test_a_pin_used_twice_is_named_by_its_gp_number() -> None:
    with pytest.raises(ConfigError, match=r"GP5 is already used by buttons.mode"):
        from_mapping(_bridge(buttons={"field": 5}), source="test")
