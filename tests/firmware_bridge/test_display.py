"""The ``bridge`` display kind: screens rendered as on a local OLED, changed bytes sent."""

from __future__ import annotations

from PIL import Image, ImageDraw

from firmware_bridge.display import BridgeOled, changed_spans, pages_of
from firmware_bridge.link import Link, State
from firmware_bridge.twin import Twin
from hardware.config.schema import DisplayConfig
from hardware.display import opener
from tests.firmware_bridge.polling import wait_for


def _image(text_box: tuple[int, int, int, int]) -> Image.Image:
    img = Image.new("1", (128, 64), 0)
    ImageDraw.Draw(img).rectangle(text_box, fill=1)
    return img


def test_changed_spans_cover_every_difference() -> None:
    old = bytes(300)
    new = bytearray(old)
    for i in (3, 4, 6, 100, 299):
        new[i] = 0xFF
    rebuilt = bytearray(old)
    for offset, data in changed_spans(old, bytes(new), piece=2):
        assert len(data) <= 2
        rebuilt[offset : offset + len(data)] = data
    assert rebuilt == new


def test_frames_reach_the_pico_and_come_back_after_a_reboot(twin: Twin, link: Link) -> None:
    device = BridgeOled(link)
    img = _image((10, 10, 60, 30))
    device.display(img)
    assert bytes(twin.pico.oled.gddram) == pages_of(img, 128, 64)
    sent = device.bytes_sent
    device.display(_image((10, 10, 60, 31)))  # one more row: only that column's bytes change
    assert device.bytes_sent - sent <= 51 + 8
    first = link.hello.boot_id
    twin.replug()
    wait_for(lambda: link.state is State.UP and link.hello.boot_id != first, what="the replug")
    wait_for(lambda: bytes(twin.pico.oled.gddram) == pages_of(_image((10, 10, 60, 31)), 128, 64),
             what="the frame sent again to the rebooted Pico")


def test_display_kind_bridge_through_the_registry(twin: Twin, link: Link) -> None:
    from engine.panel.model import Screen

    display = opener(DisplayConfig(kind="bridge"), link=link)()
    try:
        display.show(Screen(title="DICE", lines=("TOWER",)))
        assert any(twin.pico.oled.gddram) and twin.pico.oled.on
    finally:
        display.close()
