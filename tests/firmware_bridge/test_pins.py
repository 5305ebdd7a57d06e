"""gpiozero devices on the Pico's pins through the ``dicetower-bridge`` pin factory."""

from __future__ import annotations

import pytest
from gpiozero import LED, PWMLED, Button, Device

from firmware_bridge.link import Link, State
from firmware_bridge.pins import BridgeFactory
from firmware_bridge.twin import Twin
from tests.firmware_bridge.polling import wait_for


@pytest.fixture
def env_factory(monkeypatch):
    """gpiozero's own default-factory lookup, through the entry point and the environment."""
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "dicetower-bridge")
    monkeypatch.setenv("DICETOWER_BRIDGE_PORT", "twin")
    old = Device.pin_factory
    Device.pin_factory = None
    try:
        Device.ensure_pin_factory()
        yield Device.pin_factory
    finally:
        factory, Device.pin_factory = Device.pin_factory, old
        if factory is not None:
            factory.close()


def test_gpiozero_pin_factory_env_drives_a_button_and_an_led(env_factory) -> None:
    factory = env_factory
    assert isinstance(factory, BridgeFactory) and factory.twin is not None
    twin = factory.twin
    pressed: list[bool] = []
    with Button(5) as button, LED(25) as led:
        button.when_pressed = lambda: pressed.append(True)
        button.when_released = lambda: pressed.append(False)
        led.on()
        assert twin.level(25) == 1.0
        twin.press(5)
        wait_for(lambda: pressed == [True], what="the press")
        assert button.is_pressed
        twin.press(5, down=False)
        wait_for(lambda: pressed == [True, False], what="the release")
        led.off()
        assert twin.level(25) == 0.0


def test_pwm_and_resend_after_a_reboot() -> None:
    with Twin(seed=5) as twin, Link(find=twin.find) as link:
        factory = BridgeFactory(link=link)
        try:
            led = PWMLED(12, pin_factory=factory)
            button = Button(6, pin_factory=factory)
            led.value = 0.25
            assert twin.level(12) == pytest.approx(0.25, abs=1e-4)
            first = link.hello.boot_id
            twin.replug()
            wait_for(lambda: link.state is State.UP and link.hello.boot_id != first, what="the replug")
            wait_for(lambda: twin.level(12) == pytest.approx(0.25, abs=1e-4), what="the level sent again")
            twin.press(6)
            wait_for(lambda: button.is_pressed, what="a press on the rebooted Pico")
            led.close()
            button.close()
        finally:
            factory.close()


def test_a_pin_the_pico_does_not_have_is_refused() -> None:
    from gpiozero.exc import PinInvalidPin

    with Twin(seed=6) as twin, Link(find=twin.find) as link:
        factory = BridgeFactory(link=link)
        try:
            with pytest.raises(PinInvalidPin, match=r"GP0\.\.GP22, GP25\.\.GP28"):
                LED(24, pin_factory=factory)
        finally:
            factory.close()
