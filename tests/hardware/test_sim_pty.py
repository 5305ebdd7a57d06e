"""The interactive simulator (and ``run`` without GPIO) in a real pseudo-terminal: keys in,
frame text out. Driven with pexpect; every wait is an expectation with a timeout."""

from __future__ import annotations

import os
import re
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

TIMEOUT = 20
BLOCKS = re.compile("[▀▄█]{3,}")


def spawn(*args: str, rows: int = 45, cols: int = 140):
    env = dict(os.environ, NO_COLOR="1", TERM="xterm", PYTHONUNBUFFERED="1")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    child = pexpect.spawn(sys.executable, ["-m", "hardware", *args], env=env, dimensions=(rows, cols),
                          encoding="utf-8", timeout=TIMEOUT)
    return child


def screen_line(child) -> str:
    child.expect(r"screen: ([^\r\n]*)")
    return child.match.group(1)


def test_keys_drive_the_panel_and_the_frame_is_drawn_in_half_blocks() -> None:
    child = spawn("sim", "--seed", "pty")
    try:
        child.expect("keys: m mode")  # the legend: the first frame is up
        frame = child.before
        assert BLOCKS.search(frame), "no half-block frame"
        assert "┌" + "─" * 128 + "┐" in frame  # a 128-column frame on a 140-column terminal
        child.send("m")
        child.expect(r"screen: horizons")
        child.send("f")
        child.expect(r"screen: horizons[^\r\n]*\| >skill")
        child.send("M")  # capital: MODE held down until the next key
        child.expect("held: MODE")
        child.expect(r"screen: settings")
        child.send("x")  # any key lets go
        child.expect(r"screen: settings")
        child.send("m")  # MODE leaves the menu
        child.expect(r"screen: horizons")
        child.send("r")  # the session's first ROLL asks for a table seed ...
        child.expect(r"screen: table seed\? #[0-9a-f]{8}")
        child.send("r")  # ... and ROLL again rolls without one
        # the result after the animation, with the RGB LED lit by the outcome
        child.expect(r"● RGB\r+\nscreen: horizons +\d+ vs \d+")
        child.send("q")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        assert "\x1b[?1049l" in child.before  # the terminal is given back
    finally:
        child.close(force=True)


def test_ctrl_c_quits_cleanly() -> None:
    child = spawn("sim", "--seed", "pty")
    try:
        child.expect("keys: m mode")
        child.sendcontrol("c")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
    finally:
        child.close(force=True)


def test_a_narrow_terminal_gets_quarter_blocks() -> None:
    child = spawn("sim", "--seed", "pty")
    try:
        child.expect("keys: m mode")
        child.setwinsize(45, 80)
        child.send("m")  # a fresh frame, drawn at the new width
        child.expect("screen: horizons")
        assert "┌" + "─" * 64 + "┐" in child.before
        assert re.search("[▘▝▀▖▌▞▛▗▚▐▜▄▙▟█]{3,}", child.before)
        child.send("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def last_screen(raw: str) -> list[str]:
    """The lines of the last full redraw (each starts by homing the cursor and clearing)."""
    text = raw.rsplit("\x1b[H\x1b[J", 1)[-1]
    return text.replace("\r", "").split("\n")  # the pty turns \n into \r\n once more


def test_an_80x24_terminal_shows_the_whole_compact_layout() -> None:
    child = spawn("sim", "--seed", "pty", rows=24, cols=80)
    try:
        child.expect("keys: m f d u r[^\r\n]*q quit")
        lines = last_screen(child.before + child.after)
        assert 22 <= len(lines) <= 24 and all(len(line) <= 80 for line in lines)
        assert lines[0] == "┌" + "─" * 64 + "┐"  # the top of the frame is on screen
        assert any("\u2801" <= ch <= "\u28ff" for ch in "".join(lines[1:17]))
        assert lines[19].startswith("screen: infinity")  # title, odds and the selected field
        assert ">" in " ".join(lines[19:-2])  # the screen's text may take the rows left over
        child.send("m")
        child.expect("screen: horizons")
        child.send("q")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
    finally:
        child.close(force=True)


def test_a_smaller_terminal_says_what_it_needs_and_redraws_when_enlarged() -> None:
    child = spawn("sim", "--seed", "pty", rows=20, cols=70)
    try:
        child.expect("This terminal is 70x20; the simulator needs at least 66x22")
        child.expect("--press")
        assert "┌" not in child.before
        child.setwinsize(24, 80)
        child.send("m")  # a key after the resize: the next frame is drawn at the new size
        child.expect("screen: horizons")
        child.send("q")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
    finally:
        child.close(force=True)


def test_run_without_gpio_says_so_in_one_line_and_starts_the_simulator() -> None:
    from hardware.panel.io import NoGpioError, open_pin_factory

    try:
        open_pin_factory("auto").close()
    except NoGpioError:
        pass
    else:
        pytest.skip("this machine has GPIO: run would drive it")
    child = spawn("run")
    try:
        child.expect(r"dicetower: no GPIO on this machine \(([^\r\n]*)\); starting the simulator instead")
        assert "Traceback" not in child.before
        child.expect("keys: m mode")
        child.send("q")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
    finally:
        child.close(force=True)
