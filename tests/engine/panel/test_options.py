"""PanelConfig's checks carry the option's name (ParameterError.key), so the config file names
``panel.KEY`` without reading the message; the message reads as before."""

from __future__ import annotations

import pytest

from engine.errors import EngineError, ParameterError
from engine.panel.options import PanelConfig


@pytest.mark.parametrize(("given", "key", "text"), [
    ({"players": 0}, "players", "players: a whole number from 1 to 9, got 0"),
    ({"systems": ()}, "systems", "systems: enable at least one of "),
    ({"systems": ("chess",)}, "systems", "systems: unknown system 'chess'; choose from "),
    ({"idle_seconds": 0}, "idle_seconds", "idle_seconds: a number of seconds above 0, got 0"),
    ({"brightness": 2.0}, "brightness", "brightness: a number above 0 up to 1, got 2.0"),
])
def test_a_bad_option_names_its_key(given: dict, key: str, text: str) -> None:
    with pytest.raises(ParameterError) as caught:
        PanelConfig(**given)
    assert caught.value.key == key
    assert str(caught.value).startswith(text)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, EngineError)


def test_a_rolls_parameter_is_still_shown_as_a_flag() -> None:
    err = ParameterError("opponent-pool", "required")
    assert (str(err), err.key, err.detail) == ("--opponent-pool: required", "opponent-pool", "required")
