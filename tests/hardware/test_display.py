"""Displays: the serial character display over pyserial's ``loop://``, the terminal, and a
real luma ``ssd1306`` driver on an I2C bus whose cable is pulled mid-frame."""

from __future__ import annotations

import io

import pytest
import serial

from engine.panel.model import Screen
from hardware.cli.sim import SimClock
from hardware.config import reader
from hardware.display import NullDisplay, ResilientDisplay, opener
from hardware.display.serial_text import SerialTextDisplay, frame_rows, to_ascii
from hardware.display.terminal import TerminalDisplay
from hardware.panel.io import open_pin_factory
from hardware.tower import assemble
from tests.support import seeded_dice

# luma's ssd1306 driver reads pixels with Image.getdata, which Pillow has deprecated
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")

SETUP = Screen(title="infinity   28.0%", lines=(">rating 8", " cr 10 difficult"), odds=0.28, selected=0)
RESULT = Screen(title="infinity 13 vs 10", lines=("solid SR1",), big="SOLID", dice=(5, 8), kind="result")


def loop() -> serial.SerialBase:
    return serial.serial_for_url("loop://", timeout=0.2)


def drain(port: serial.SerialBase) -> bytes:
    return port.read(port.in_waiting)


# --- serial character display ------------------------------------------------------------------------


def test_matrix_orbital_frame_bytes() -> None:
    port = loop()
    display = SerialTextDisplay(port=port, cols=16, rows=2, protocol="matrix-orbital")
    assert drain(port) == b"\xfe\x58\xfe\x54"  # clear, no blinking cursor
    display.show(SETUP)
    assert drain(port) == (
        b"\xfe\x99\xff"  # backlight full
        + b"\xfe\x47\x01\x01" + b"infinity   28.0%"
        + b"\xfe\x47\x01\x02" + b">rating 8       "
    )


def test_the_big_word_comes_second_on_a_two_line_display() -> None:
    assert frame_rows(RESULT, 16, 2) == ["infinity 13 vs 1", "SOLID           "]
    assert frame_rows(RESULT, 20, 4) == ["infinity 13 vs 10   ", "SOLID               ", "solid SR1           ",
                                         " " * 20]


def test_an_unchanged_screen_is_not_sent_again_but_a_new_one_is() -> None:
    port = loop()
    display = SerialTextDisplay(port=port, protocol="matrix-orbital")
    display.show(SETUP)
    drain(port)
    display.show(SETUP)
    assert drain(port) == b""
    display.show(Screen(title="horizons   87.0%", lines=(">trait 2",), odds=0.87, selected=0))
    sent = drain(port)
    assert b"horizons   87.0%" in sent and b"\xfe\x99" not in sent  # brightness unchanged: not resent
    display.show(Screen(title="horizons   87.0%", lines=(">trait 2",), contrast=0.25))
    assert drain(port).startswith(b"\xfe\x99\x40")


def test_sparkfun_and_ansi_command_sets() -> None:
    port = loop()
    SerialTextDisplay(port=port, cols=20, rows=4, protocol="sparkfun").show(SETUP)
    sent = drain(port)
    assert sent.startswith(b"\xfe\x01\x7c\x9d\xfe\x80infinity   28.0%    \xfe\xc0>rating 8")
    assert b"\xfe\x94" in sent and b"\xfe\xd4" in sent  # rows 3 and 4 of a 20x4
    port = loop()
    SerialTextDisplay(port=port, cols=16, rows=2, protocol="ansi").show(SETUP)
    sent = drain(port)
    assert sent.startswith(b"\x1b[2J\x1b[H\x1b[?25l\x1b[1;1Hinfinity   28.0%\r\n\x1b[2;1H>rating 8")


def test_plain_protocol_writes_readable_lines_for_a_terminal_on_the_port() -> None:
    port = loop()
    SerialTextDisplay(port=port, cols=16, rows=2, protocol="plain").show(RESULT)
    assert drain(port) == b"infinity 13 vs 1\r\nSOLID           \r\n\r\n"


def test_characters_an_lcd_lacks_become_ascii() -> None:
    assert to_ascii("≥3 → café ✓ 漢") == ">=3 > cafe v ?"


def test_a_serial_port_opened_by_url_and_closed_clears_it() -> None:
    display = SerialTextDisplay(port="loop://", protocol="ansi")
    display.show(SETUP)
    port = display.port
    drain(port)
    display.close()
    assert not port.is_open


def test_the_tower_drives_a_serial_display() -> None:
    config = reader.loads('[display]\nkind = "serial"\nserial_port = "/dev/ttyUSB0"\n')
    port = loop()
    clock = SimClock()
    factory = open_pin_factory("mock")
    tower = assemble(config, pin_factory=factory, display=ResilientDisplay(opener(config.display, port=port)),
                  dice=seeded_dice(b"serial"), clock=clock)
    try:
        assert b"infinity" in drain(port)
        factory.pin(5).drive_low()  # MODE
        tower.pump()
        assert b"horizons" in drain(port)
        factory.pin(5).drive_high()
    finally:
        tower.close()


# --- a display that fails -----------------------------------------------------------------------------


class PullableBus:
    """An I2C bus for luma's real ssd1306 driver: records what reaches the display and, once
    the cable is pulled, raises what smbus raises then (OSError 121, remote I/O error).
    ``fail_after`` lets a few writes through first, so the cable comes out mid-frame."""

    def __init__(self) -> None:
        self.pulled = False
        self.fail_after = 0
        self.data_bytes = 0
        self.commands = 0

    def _check(self) -> None:
        if self.pulled:
            if self.fail_after > 0:
                self.fail_after -= 1
                return
            raise OSError(121, "Remote I/O error")

    def command(self, *cmd: int) -> None:
        self._check()
        self.commands += 1

    def data(self, data) -> None:
        self._check()
        self.data_bytes += len(data)

    def cleanup(self) -> None:
        pass


class Panel:
    """A tower with a real ssd1306 driver on a pullable bus, opened afresh on each retry."""

    def __init__(self) -> None:
        from luma.oled.device import ssd1306

        self.bus = PullableBus()
        self.opened = 0
        self.devices: list = []
        self.messages: list[str] = []
        config = reader.loads('[display]\nretry_seconds = 2.0\n')

        def open_display():
            from hardware.display.oled import OledDisplay

            self.opened += 1
            device = ssd1306(self.bus, width=128, height=64)
            self.devices.append(device)
            return OledDisplay(device=device)

        self.clock = SimClock()
        self.factory = open_pin_factory("mock")
        self.display = ResilientDisplay(open_display, retry_seconds=2.0, log=self.messages.append)
        self.tower = assemble(config, pin_factory=self.factory, display=self.display, dice=seeded_dice(b"oled"),
                           clock=self.clock)

    def run(self, seconds: float) -> None:
        end = self.clock.t + round(seconds * 1e9)
        while self.clock.t < end:
            self.clock.t = min(end, self.clock.t + self.tower.tick_ns)
            self.tower.pump()

    def tap(self, pin: int) -> None:
        self.factory.pin(pin).drive_low()
        self.tower.pump()
        self.run(0.1)
        self.factory.pin(pin).drive_high()
        self.run(0.1)


@pytest.fixture
def panel():
    p = Panel()
    try:
        yield p
    finally:
        p.tower.close()


def test_a_pulled_cable_mid_frame_never_stops_the_tower(panel) -> None:
    assert panel.display.ok and panel.opened == 1
    panel.bus.pulled = True
    panel.bus.fail_after = 2  # the frame's first commands go through, then the bus fails
    panel.tap(26)  # ROLL
    panel.run(2.0)
    assert not panel.display.ok
    assert "Remote I/O error" in panel.display.error
    # the LEDs carried on: the result lit them and the RGB LED
    assert panel.tower.state.result is not None
    assert max(panel.tower.rgb()) > 0
    panel.run(10.0)  # retries every 2 s while the cable is out: reported once, never reopened
    assert len([m for m in panel.messages if "Remote I/O error" in m]) == 1
    assert panel.opened == 1


def test_the_display_comes_back_with_the_latest_screen(panel) -> None:
    panel.bus.pulled = True
    panel.tap(5)  # MODE while the display is out
    assert not panel.display.ok
    wanted = panel.tower.state.view.screen
    panel.bus.pulled = False
    before = panel.bus.data_bytes
    panel.run(2.5)
    assert panel.display.ok
    assert panel.opened == 2  # set up afresh (a replugged OLED has lost its settings)
    assert panel.display.shown == wanted
    assert panel.bus.data_bytes - before >= 1024  # a whole 128x64 frame went out
    assert panel.messages[-1] == "display: working again"


def test_a_replugged_oled_is_set_up_again_on_the_same_luma_device(monkeypatch) -> None:
    """Each reconnect made a new luma device, and luma keeps every device alive in its atexit
    hooks: about 320 KiB a time, for good, on a tower whose loose cable comes and goes."""
    import luma.core.interface.serial as luma_serial

    buses: list[PullableBus] = []

    def i2c(port: int = 1, address: int = 0x3C, **kwargs) -> PullableBus:
        buses.append(PullableBus())
        return buses[-1]

    monkeypatch.setattr(luma_serial, "i2c", i2c)
    display = ResilientDisplay(opener(reader.load().display), retry_seconds=1.0)
    display.show(SETUP, 0)
    first = display.display.device
    assert display.ok and len(buses) == 1
    set_up = buses[0].commands  # the driver's set-up, the contrast and a frame's addressing
    buses[0].pulled = True
    display.show(RESULT, 100_000_000)
    assert not display.ok
    display.poll(1_100_000_000)  # still out: the old bus is pinged, nothing is opened
    assert len(buses) == 1
    buses[0].pulled = False
    display.poll(2_100_000_000)
    assert display.ok and display.shown == RESULT
    assert len(buses) == 2 and display.display.device is first  # a fresh bus handle, the same device
    assert buses[1].commands == set_up and buses[1].data_bytes >= 1024  # set up again, then a whole frame
    display.close()


def test_a_missing_oled_retried_for_an_hour_makes_no_luma_devices(monkeypatch) -> None:
    """Every retry of an OLED that is not there (not wired yet, wrong address) made a luma
    device, which luma keeps alive in its atexit hooks: 320 KiB every 2 s, out of memory on a
    Pi Zero within the hour. Now the bus is asked first (one command) and only then is a
    device made."""
    import atexit

    import luma.core.interface.serial as luma_serial

    buses: list[PullableBus] = []

    def i2c(port: int = 1, address: int = 0x3C, **kwargs) -> PullableBus:
        buses.append(PullableBus())
        buses[-1].pulled = True
        return buses[-1]

    registered: list[object] = []
    real_register = atexit.register

    def register(func, *args, **kwargs):
        registered.append(func)
        return real_register(func, *args, **kwargs)

    monkeypatch.setattr(luma_serial, "i2c", i2c)
    monkeypatch.setattr(atexit, "register", register)
    display = ResilientDisplay(opener(reader.load().display), retry_seconds=2.0)
    display.show(SETUP, 0)
    for second in range(2, 3600, 2):
        display.poll(second * 1_000_000_000)
    assert not display.ok and "Remote I/O error" in display.error
    assert len(buses) == 1800 and registered == []  # asked 1800 times, no device made
    display.close()


def test_an_spi_oled_without_rpi_gpio_is_a_display_failure_not_a_crash(monkeypatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "RPi", None)  # not installed (a Pi 5 with lgpio alone)
    messages: list[str] = []
    display = ResilientDisplay(opener(reader.loads('[display]\nbus = "spi"\n').display), log=messages.append)
    display.show(SETUP, 0)
    assert not display.ok and "RPi.GPIO" in display.error
    assert len(messages) == 1 and "the LEDs carry on" in messages[0]


def test_a_display_that_cannot_be_opened_is_retried() -> None:
    from luma.core.error import DeviceNotFoundError

    attempts: list[int] = []

    def open_display():
        attempts.append(1)
        if len(attempts) < 3:
            raise DeviceNotFoundError("I2C device not found on address: 0x3C")
        return NullDisplay()

    display = ResilientDisplay(open_display, retry_seconds=1.0)
    display.show(SETUP, 0)
    assert not display.ok and display.failures == 1
    display.poll(500_000_000)
    assert len(attempts) == 1  # not before the retry time
    display.poll(1_000_000_000)
    display.poll(2_000_000_000)
    assert display.ok and display.shown == SETUP and len(attempts) == 3


def test_a_serial_display_unplugged_is_reopened() -> None:
    ports = []

    def open_display():
        port = loop()
        ports.append(port)
        if len(ports) == 1:
            port.close()  # the adapter went away: writing raises SerialException (an OSError)
        return SerialTextDisplay(port=port, protocol="plain") if len(ports) > 1 else _Closed(port)

    display = ResilientDisplay(open_display, retry_seconds=1.0)
    display.show(SETUP, 0)
    assert not display.ok
    display.poll(1_000_000_000)
    assert display.ok and b"infinity" in drain(ports[-1])


class _Closed:
    def __init__(self, port) -> None:
        self.port = port

    def show(self, screen: Screen) -> None:
        self.port.write(b"x")

    def clear(self) -> None:
        pass

    def close(self) -> None:
        pass


# --- terminal ----------------------------------------------------------------------------------------


def test_terminal_display_appends_boxes_when_not_a_tty() -> None:
    out = io.StringIO()
    display = TerminalDisplay(stream=out)
    display.show(SETUP)
    display.show(SETUP)
    text = out.getvalue()
    assert text.count("┌") == 1
    assert "│infinity   28.0%" in text
    assert "▌>rating 8" in text  # the selected line is marked
    assert "█" in text and "░" in text  # the odds bar
    display.show(RESULT)
    assert out.getvalue().count("┌") == 2 and "SOLID" in out.getvalue()


def test_terminal_display_redraws_in_place_on_a_tty() -> None:
    out = io.StringIO()
    display = TerminalDisplay(stream=out, in_place=True)
    display.show(SETUP)
    display.show(RESULT)
    assert "\x1b[" in out.getvalue().split("┘", 1)[1]  # moved back up before the second box

