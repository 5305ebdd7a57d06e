"""Display kinds are data: each is one row in ``hardware.backends.DISPLAY_KINDS`` (luma class
by name, buses), read by the config check, ``run --help`` and the opener; the sizes and the
image mode are the luma class's own (hardware/display/luma_facts.py). Adding an OLED that
luma.oled drives is one row, and these tests add one (luma's ``ssd1316``, which the project
does not ship) and follow it through every reader; a greyscale kind (``ssd1322``) draws."""

from __future__ import annotations

import pytest

from engine.panel.model import Screen
from hardware import backends
from hardware.cli import main
from hardware.config import ConfigError, reader, schema
from hardware.config.pins import pin_uses, reserved_pins

# luma's ssd1306-family drivers read pixels with Image.getdata, which Pillow has deprecated
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")

SSD1316 = backends.oled("ssd1316", "OLED on I2C or SPI")
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
def with_ssd1316(monkeypatch):
    """The registry with one more row, as a contributor adding the kind would write it."""
    monkeypatch.setattr(backends, "DISPLAY_KINDS", backends.DISPLAY_KINDS.adding(SSD1316))


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
    with pytest.raises(ConfigError, match=r"display\.kind: expected one of ssd1306, .*got 'ssd1316'"):
        reader.loads('[display]\nkind = "ssd1316"\n')


def test_one_row_makes_a_new_oled_a_display_kind(with_ssd1316, buses) -> None:
    from luma.oled.device import ssd1316

    from hardware.display import ResilientDisplay, opener

    config = reader.loads('[display]\nkind = "ssd1316"\nwidth = 128\nheight = 32\n')
    display = ResilientDisplay(opener(config.display), retry_seconds=1.0)
    try:
        display.show(SCREEN, 0)
        assert display.ok, display.error
        device = display.display.device
        assert type(device) is ssd1316 and device.size == (128, 32)
        assert len(buses) == 1 and buses[0].data_bytes >= 128 * 32 // 8  # a whole frame went out
    finally:
        display.close()


def test_the_new_row_s_sizes_and_buses_are_checked(with_ssd1316) -> None:
    """The sizes are luma's (ssd1316's driver is ssd1306's), asked of the class."""
    with pytest.raises(ConfigError, match=r"display\.height: ssd1316 modules are 64x32, 64x48, 128x32, "
                                              r"128x64 pixels, got 128x128"):
        reader.loads('[display]\nkind = "ssd1316"\nheight = 128\n')
    spi = reader.loads('[display]\nkind = "ssd1316"\nbus = "spi"\nwidth = 128\nheight = 32\nspi_reset = 25\n'
                       '[leds]\nroll = false\n')
    assert pin_uses(spi)["display.spi_dc"] == 4 and pin_uses(spi)["display.spi_reset"] == 25
    assert 8 in reserved_pins(spi)  # SPI CE0: the bus is the kind's, so are its pins


def test_the_new_row_is_in_run_help(with_ssd1316, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "ssd1316   OLED on I2C or SPI (64x32, 64x48, 128x32, 128x64)" in out
    assert "ssd1306   OLED on I2C or SPI (the 0.96-inch module) (64x32, 64x48, 128x32, 128x64)" in out


def test_a_shipped_ssd1309_is_opened_as_an_ssd1309(buses) -> None:
    """Before the kinds were data, every OLED that was not an sh1106 was opened as an ssd1306."""
    from luma.oled.device import ssd1309

    from hardware.display.oled import open_luma

    device = open_luma(reader.loads('[display]\nkind = "ssd1309"\n').display)
    assert type(device) is ssd1309


@pytest.mark.parametrize("kind", [k for k in backends.DISPLAY_KINDS if k.luma and k.buses], ids=lambda k: k.name)
def test_every_luma_row_names_a_luma_class_and_luma_s_sizes_are_what_it_takes(kind: backends.DisplayKind) -> None:
    """Brute force against the shortcut: every size luma_facts lists is made, and a size just
    outside each is refused by the class and by the config check."""
    from luma.core.error import DeviceDisplayModeError
    from luma.core.interface.serial import noop

    from hardware.display import luma_facts
    from hardware.display.oled import luma_class

    make = luma_class(kind)
    sizes = luma_facts.sizes(kind)
    assert sizes, f"{kind.name}: luma takes no size in the config's range"
    for width, height in sizes:
        device = make(noop(), width=width, height=height)
        assert device.size == (width, height) and luma_facts.mode(kind, width, height) == device.mode
        assert luma_facts.takes(kind, width, height)
    bus = kind.buses[0]
    for width, height in {(w, h) for w, h in luma_facts_grid() if (w, h) not in sizes}:
        with pytest.raises(DeviceDisplayModeError):
            make(noop(), width=width, height=height)
        with pytest.raises(ConfigError, match=rf"display\.(width|height): {kind.name} modules are "):
            reader.loads(f'[display]\nkind = "{kind.name}"\nbus = "{bus}"\nwidth = {width}\nheight = {height}\n'
                         '[leds]\nroll = false\n')
    assert set(kind.buses) <= set(backends.DISPLAY_BUSES)


def luma_facts_grid() -> list[tuple[int, int]]:
    """A sample of the config's range, off the step of 8 too (a size luma_facts never tries)."""
    return [(64, 32), (72, 40), (96, 64), (128, 64), (128, 128), (256, 64), (100, 50)]


def test_a_greyscale_oled_draws_its_frames_converted_to_its_mode(buses, monkeypatch) -> None:
    """luma's greyscale drivers take "RGB" frames (``assert image.mode == self.mode``): the
    one-bit frame is converted, so an ssd1322 works from its row alone."""
    from luma.oled.device import ssd1322

    from hardware.display import ResilientDisplay, opener

    monkeypatch.setattr(luma_serial_module(), "spi", lambda **kwargs: buses.append(RecordingBus()) or buses[-1])
    config = reader.loads('[display]\nkind = "ssd1322"\nbus = "spi"\nwidth = 256\nheight = 64\n'
                          '[leds]\nroll = false\n')
    display = ResilientDisplay(opener(config.display), retry_seconds=1.0)
    try:
        display.show(SCREEN, 0)
        assert display.ok, display.error
        device = display.display.device
        assert type(device) is ssd1322 and device.mode == "RGB" and display.display.image.mode == "1"
        assert buses[-1].data_bytes >= 256 * 64 // 2  # four bits a pixel: a whole frame went out
    finally:
        display.close()


def luma_serial_module():
    import luma.core.interface.serial as luma_serial

    return luma_serial


def test_any_error_luma_raises_for_a_frame_is_a_failing_display_not_a_crash() -> None:
    """A frame luma refuses (here the wrong size: luma asserts) is caught where the display is
    guarded: logged once, retried, and the tower carries on."""
    from luma.core.device import dummy

    from hardware.display import ResilientDisplay
    from hardware.display.oled import OledDisplay
    from hardware.display.render import Renderer

    heard: list[str] = []
    wrong = OledDisplay(device=dummy(width=128, height=64, mode="1"), renderer=Renderer((128, 32)))
    display = ResilientDisplay(lambda: wrong, retry_seconds=1.0, log=heard.append)
    display.show(SCREEN, 0)
    assert not display.ok and display.failures == 1
    assert heard == [f"display: {display.error}; retrying every 1 s, the LEDs carry on"]
    assert "dummy refused the frame: AssertionError" in display.error
    display.poll(2_000_000_000)
    assert display.failures == 2 and len(heard) == 1


def test_asking_luma_for_sizes_keeps_no_device_alive(monkeypatch) -> None:
    """luma registers an atexit hook per device (which keeps it alive): the probes do not."""
    import atexit

    from hardware.display import luma_facts

    registered: list[object] = []
    monkeypatch.setattr(atexit, "register", lambda func, *a, **k: registered.append(func) or func)
    luma_facts.sizes.cache_clear()
    try:
        assert luma_facts.sizes(backends.DISPLAY_KINDS.get("ssd1306")) == ((64, 32), (64, 48), (128, 32), (128, 64))
        assert luma_facts.takes(backends.DISPLAY_KINDS.get("sh1106"), 128, 128)
    finally:
        luma_facts.sizes.cache_clear()
    assert registered == []
    import luma.core.device

    assert luma.core.device.atexit is atexit  # put back


def test_the_shipped_display_which_the_config_check_does_not_probe_is_one_luma_takes() -> None:
    from hardware.display import luma_facts

    shipped = schema.DisplayConfig()
    assert luma_facts.takes(backends.DISPLAY_KINDS.get(shipped.kind), shipped.width, shipped.height)
