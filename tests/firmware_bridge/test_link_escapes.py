"""A Pico's ERROR text goes into the journal: its control bytes are escaped on the host, so a
Pico (or a noisy line that passed the CRC) cannot forge journal lines or send terminal codes."""

from __future__ import annotations

import pytest

from firmware_bridge.errors import PicoRefused
from firmware_bridge.firmware import codec
from firmware_bridge.link import Link
from firmware_bridge.twin import Twin


def test_control_bytes_in_an_error_reply_are_escaped(twin: Twin, link: Link) -> None:
    def hostile(payload: bytes) -> bytes:
        raise ValueError("\x1b[2J\rdicetower: forged line\nsecond\x00\x7f\x9b end")

    twin.bridge.handlers[codec.PING] = hostile
    with pytest.raises(PicoRefused) as refused:
        link.request(codec.PING, b"x")
    message = str(refused.value)
    assert message.isprintable(), message
    assert "\\x1b[2J\\rdicetower: forged line\\nsecond\\x00\\x7f\\x9b end" in message
