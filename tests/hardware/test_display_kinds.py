"""Display kinds are data: each is one row of facts in ``hardware.backends.DISPLAY_KINDS``
(luma class by name, buses, sizes, image mode), read by the config check, ``run --help`` and
the opener. Adding a monochrome OLED that luma.oled drives is one row, and these tests add
one (luma's ``sh1107``) and follow it through every reader."""

from __future__ import annotations

import pytest

from engine.panel.model import Screen
from hardware import backends
from hardware import tower_config as cfg
from hardware.cli import main

# luma's ssd1306-family drivers read pixels with Image.getdata, which Pillow has deprecated
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")

SH1107 = backends.oled("sh1107", "1.5-inch OLED on I2C or SPI", ((64, 128), (128, 128)))
SCREEN = Screen(title="infinity   28.0%", lines=(">rating 8", " cr 10 difficult"), odds=0.28, selected=0)


class RecordingBus:
    """An I2C bus for luma's real drivers that keeps what was sent."""

    def __init__(self) -> None:
        self.commands: list[int] = []
        self.data_bytes = 0

    def command(self, *cmd: int) -> None:
        self.commands.extend(cmd)

    def data(self, data) -> None:
        self.data_bytes += len(data)

    def cleanup(self) -> None:
        pass


@pytest.fixture
def with_sh1107(monkeypatch):
    """The registry with one more row, as a contributor adding the kind would write it."""
    monkeypatch.setattr(backends, "DISPLAY_KINDS", backends.DISPLAY_KINDS.adding(SH1107))


@pytest.fixture
def buses(monkeypatch) -> list[RecordingBus]:
    import luma.core.interface.serial as luma_serial

    made: list[RecordingBus] = []

    def i2c(port: int = 1, address: int = 0x3C, **kwargs) -> RecordingBus:
        made.append(RecordingBus())
        return made[-1]

    monkeypatch.setattr(luma_serial, "i2c", i2c)
    return made


def test_a_kind_without_a_row_is_refused_not_opened_as_another() -> None:
    with pytest.raises(cfg.ConfigError, match=r"display\.kind: expected one of ssd1306, .*got 'sh1107'"):
        cfg.loads('[display]\nkind = "sh1107"\n')


def test_one_row_makes_a_new_oled_a_display_kind(with_sh1107, buses) -> None:
    from luma.oled.device import sh1107

    from hardware.display import ResilientDisplay, opener

    config = cfg.loads('[display]\nkind = "sh1107"\nwidth = 128\nheight = 128\n')
    display = ResilientDisplay(opener(config.display), retry_seconds=1.0)
    try:
        display.show(SCREEN, 0)
        assert display.ok, display.error
        device = display.display.device
        assert type(device) is sh1107 and device.size == (128, 128)
        assert len(buses) == 1 and buses[0].data_bytes >= 128 * 128 // 8  # a whole frame went out
    finally:
        display.close()


def test_the_new_row_s_sizes_and_buses_are_checked(with_sh1107) -> None:
    with pytest.raises(cfg.ConfigError, match=r"display\.height: sh1107 modules are 64x128, 128x128 pixels, "
                                              r"got 128x64"):
        cfg.loads('[display]\nkind = "sh1107"\n')
    spi = cfg.loads('[display]\nkind = "sh1107"\nbus = "spi"\nwidth = 64\nheight = 128\nspi_reset = 25\n'
                    '[leds]\nroll = false\n')
    assert spi.pin_uses()["display.spi_dc"] == 4 and spi.pin_uses()["display.spi_reset"] == 25
    assert 8 in spi.reserved_pins()  # SPI CE0: the bus is the kind's, so are its pins


def test_the_new_row_is_in_run_help(with_sh1107, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "sh1107    1.5-inch OLED on I2C or SPI (64x128, 128x128)" in out


def test_a_shipped_ssd1309_is_opened_as_an_ssd1309(buses) -> None:
    """Before the kinds were data, every OLED that was not an sh1106 was opened as an ssd1306."""
    from luma.oled.device import ssd1309

    from hardware.display.oled import open_luma

    device = open_luma(cfg.loads('[display]\nkind = "ssd1309"\n').display)
    assert type(device) is ssd1309


@pytest.mark.parametrize("kind", [k for k in backends.DISPLAY_KINDS if k.luma], ids=lambda k: k.name)
def test_every_luma_row_names_a_luma_class_that_takes_its_sizes(kind: backends.DisplayKind) -> None:
    from luma.core.interface.serial import noop

    from hardware.display.oled import luma_class

    make = luma_class(kind)
    for width, height in kind.sizes or ((128, 64),):
        if kind.buses:
            device = make(noop(), width=width, height=height)
        else:
            device = make(width=width, height=height, mode=kind.mode)
        assert device.size == (width, height) and device.mode == kind.mode
    assert set(kind.buses) <= set(backends.DISPLAY_BUSES)
