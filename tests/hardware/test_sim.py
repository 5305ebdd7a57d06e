"""``dicetower sim`` scripted: script items, the simulated clock, the transcript and frames."""

from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image

from engine.errors import ParameterError
from engine.panel.model import Button
from hardware.cli import main
from hardware.cli.sim import Action, Simulator, parse_script, split_keys
from hardware.config import reader
from tests.support import seeded_dice


def test_script_items() -> None:
    actions = parse_script("mode, field\nminus plus # a comment\nroll hold:mode:1.5 wait:2 3")
    assert [(a.kind, a.button, a.seconds) for a in actions] == [
        ("press", Button.MODE, 0.1), ("press", Button.FIELD, 0.1), ("press", Button.MINUS, 0.1),
        ("press", Button.PLUS, 0.1), ("press", Button.ROLL, 0.1), ("hold", Button.MODE, 1.5),
        ("wait", None, 2.0), ("press", Button.MINUS, 0.1),  # fingers 1-5 name the buttons too
    ]


@pytest.mark.parametrize("text", ["rol", "hold:mode", "hold:spin:1", "wait:x", "wait:0", "wait:-1", "", "# nothing"])
def test_script_mistakes_name_the_option_and_the_item(text: str) -> None:
    with pytest.raises(ParameterError) as err:
        parse_script(text, option="script")
    assert str(err.value).startswith("--script: ")


def sim(seed: bytes = b"sim", text: str = "") -> Simulator:
    return Simulator(reader.loads(text), dice=seeded_dice(seed))


def test_a_script_runs_on_the_simulated_clock() -> None:
    s = sim()
    try:
        steps = s.run_script(parse_script("roll wait:301"))
    finally:
        s.close()
    assert [st["event"] for st in steps] == ["start", "roll", "wait:301"]
    assert steps[2]["t"] > 301  # five simulated minutes in a fraction of a second
    roll = steps[1]
    assert roll["screen"]["kind"] == "result"
    assert roll["screen"]["big"] in roll["screen"]["lines"]
    assert "roll" in roll["sounds"]
    assert steps[2]["screen"]["kind"] == "attract"  # idle long enough for the attract screen


def test_an_hour_idle_the_oled_picture_moves_and_dims_and_the_waking_press_only_wakes() -> None:
    s = sim()
    oled = s.display.display
    try:
        s.run_script(parse_script("roll"))
        rolls, lit = s.tower.rolls, oled._contrast
        s.advance(301)  # the result goes, then five minutes without a press
        boxes = set()
        for _ in range(31):  # an hour, looked at every 117 s (not a multiple of the steps)
            s.advance(117)
            boxes.add(s.device.image.getbbox())
            assert s.tower.screen.kind == "attract"
        assert len(boxes) > 5  # the picture wanders (OLED burn-in)
        assert oled._contrast < lit  # and is dimmed
        assert s.tower.leds() == (0.0,) * 5 and max(s.tower.rgb()) == 0
        s.act(parse_script("roll")[0])  # the waking press
        assert s.tower.rolls == rolls and s.tower.screen.kind == "setup"
        assert oled._contrast == lit
        s.act(parse_script("roll")[0])
        assert s.tower.rolls == rolls + 1
    finally:
        s.close()


def test_every_step_reports_its_own_sounds_however_long_the_script() -> None:
    s = sim()
    try:
        steps = s.run_script(parse_script("roll " * 40))
    finally:
        s.close()
    assert all(step["sounds"][0] == "roll" and len(step["sounds"]) == 2 for step in steps[1:])


def test_the_same_seed_gives_the_same_transcript() -> None:
    script = parse_script("roll mode roll mode mode roll mode mode roll 2 roll")
    runs = []
    for _ in range(2):
        s = sim(b"same")
        try:
            runs.append(s.run_script(script))
        finally:
            s.close()
    assert runs[0] == runs[1]
    other = sim(b"other")
    try:
        assert other.run_script(script) != runs[0]
    finally:
        other.close()


def test_hold_mode_opens_settings_and_fingers_take_a_finger() -> None:
    s = sim(text='[panel]\nsystems = ["fingers", "d6cv"]\n')
    try:
        steps = s.run_script(parse_script("hold:mode:1 mode roll 3"))
    finally:
        s.close()
    assert steps[1]["screen"]["kind"] == "settings"
    assert steps[2]["screen"]["kind"] == "setup"
    assert steps[3]["screen"]["kind"] == "guess"
    assert steps[3]["rgb"] is not None and max(steps[3]["rgb"]) > 0
    reveal = steps[4]
    assert reveal["screen"]["kind"] == "reveal"
    assert any("picked 3" in line for line in reveal["screen"]["lines"])


def test_out_dir_holds_the_transcript_and_a_png_per_step(tmp_path, capsys) -> None:
    code = main(["sim", "--seed", "docs", "--press", "roll,mode", "--out", str(tmp_path), "--scale", "2"])
    assert code == 0
    assert "wrote 3 steps" in capsys.readouterr().err
    steps = json.loads((tmp_path / "transcript.json").read_text())
    assert [s["event"] for s in steps] == ["start", "roll", "mode"]
    for step in steps:
        assert set(step) >= {"event", "screen", "leds", "frame"}
        assert isinstance(step["screen"]["lines"], list) and len(step["leds"]) == 5
        with Image.open(tmp_path / step["frame"]) as frame:
            assert frame.size == (256, 128)
    assert steps[0]["frame"] == "frames/000-start.png"


def test_the_text_transcript_and_json(capsys) -> None:
    assert main(["sim", "--seed", "t", "--press", "mode"]) == 0
    out = capsys.readouterr().out
    assert "] start" in out and "] mode" in out and "horizons" in out and "LEDs" in out
    assert main(["sim", "--seed", "t", "--press", "mode", "--json"]) == 0
    steps = json.loads(capsys.readouterr().out)
    assert steps[1]["screen"]["title"].startswith("horizons")


def test_a_script_file(tmp_path, capsys) -> None:
    script = tmp_path / "demo.txt"
    script.write_text("# cycle the systems\nmode\nmode\n")
    assert main(["sim", "--seed", "f", "--script", str(script), "--json"]) == 0
    steps = json.loads(capsys.readouterr().out)
    assert steps[-1]["screen"]["title"].startswith("d6cv")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["sim", "--press", "jump"], "--press: unknown script item 'jump'"),
        (["sim", "--script", "/nonexistent/script.txt"], "--script: cannot read"),
        (["sim", "--out", "x"], "--out: needs a script"),
        (["sim", "--press", "roll", "--scale", "0"], "--scale: expected a whole number from 1 to 16"),
        (["sim", "--press", "roll", "--script", "f"], "--script: not allowed with --press"),
    ],
)
def test_sim_mistakes_are_one_line_exit_2(capsys, argv: list[str], words: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_a_script_file_mistake_names_its_line(tmp_path, capsys) -> None:
    script = tmp_path / "demo.txt"
    script.write_text("mode\n# the roll\n\nroll, fild   # typo\nwait:5\n")
    assert main(["sim", "--seed", "f", "--script", str(script)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dicetower: error: --script: line 4: unknown script item 'fild'")
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(ParameterError, match=r"^--script: line 2: 'wait:x': seconds"):
        parse_script("mode\nwait:x", option="script")
    with pytest.raises(ParameterError, match=r"^--press: 'wait:x'"):  # one line: the item is enough
        parse_script("mode wait:x", option="press")


def test_a_script_file_that_is_not_utf8_is_one_line(tmp_path, capsys) -> None:
    script = tmp_path / "latin1.txt"
    script.write_bytes("mode # d\u00e9\n".encode("latin-1"))
    assert main(["sim", "--script", str(script)]) == 2
    err = capsys.readouterr().err
    assert "--script: " in err and "not UTF-8" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("blocked", ["frames", "frames/000-start.png", "transcript.json"])
def test_an_out_dir_that_cannot_be_written_is_one_line(tmp_path, capsys, blocked: str) -> None:
    """A read-only, full or occupied --out was a traceback from PIL or pathlib."""
    path = tmp_path / blocked
    path.parent.mkdir(parents=True, exist_ok=True)
    if blocked == "frames":
        path.write_text("a file where the frames directory goes")
    else:
        path.mkdir()  # a directory where a file goes
    assert main(["sim", "--seed", "o", "--press", "mode", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dicetower: error: --out: cannot write {path}: ")
    assert len(err.strip().splitlines()) == 1


def test_arrow_keys_stay_whole() -> None:
    assert split_keys("m\x1b[Cr") == ["m", "\x1b[C", "r"]


def test_an_action_without_a_button_is_refused() -> None:
    s = sim()
    try:
        with pytest.raises(ValueError, match="needs a button"):
            s.act(Action("press"))
    finally:
        s.close()


def test_the_readme_screenshots_show_every_system_and_are_up_to_date(tmp_path) -> None:
    """docs/screenshots is generated by the simulator; this replays the tour (in an empty
    state directory, as its regenerate line does)."""
    from pathlib import Path

    from engine.systems import ids
    from tests.hardware.test_sim_flows import run_flow

    docs = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
    steps = run_flow(docs / "tour.txt", tmp_path, b"screenshots")
    shown = {(step["screen"]["kind"], step["screen"]["title"].split()[0]) for step in steps}
    for system in ids():
        assert ("setup", system) in shown, f"no setup screen of {system}"
        assert ("result", system) in shown or ("reveal", system) in shown, f"no result screen of {system}"
    kinds = {step["screen"]["kind"] for step in steps}
    assert {"seed", "session", "card"} <= kinds
    foot = re.compile(r"#\d+ [0-9a-f]{16}")  # a result's number and fingerprint, as the OLED shows them
    assert any(foot.fullmatch(line) for step in steps for line in step["screen"]["lines"])
    committed = json.loads((docs / "transcript.json").read_text(encoding="utf-8"))

    def without_frame(transcript: list[dict]) -> list[dict]:
        return [{k: v for k, v in step.items() if k != "frame"} for step in transcript]

    assert without_frame(steps) == without_frame(committed), (
        'docs/screenshots is stale: .venv/bin/dicetower sim --seed screenshots --state-dir "$(mktemp -d)" '
        "--script docs/screenshots/tour.txt --out docs/screenshots --scale 2")
    for step in committed:
        assert (docs / step["frame"]).is_file()


def interactive():
    from hardware.cli.sim import Interactive

    s = sim()
    return s, Interactive(s, stdout=io.BytesIO(), colour=False, size=(140, 45))


def drive(s, ui, seconds: float) -> None:
    end = s.clock.t + round(seconds * 1e9)
    while s.clock.t < end:
        s.clock.t += 10_000_000
        ui.service(s.clock.t)
        s.tower.pump()


def test_interactive_keys_press_and_queue() -> None:
    s, ui = interactive()
    try:
        for key in ("m", "m", "\x1b[C"):  # two MODEs and a PLUS, typed faster than presses
            assert ui.key(key)
        drive(s, ui, 1.0)
        assert s.tower.state.system_id == "d6cv"
        assert len(ui.queue) == 0 and not ui.down_until
        text = ui.frame_text()
        assert "screen: d6cv" in text and "▀" in text and "┌" + "─" * 128 + "┐" in text
        assert not ui.key("q")
    finally:
        s.close()


def test_a_capital_holds_the_button_until_the_next_key() -> None:
    s, ui = interactive()
    try:
        ui.key("M")
        drive(s, ui, 1.2)  # past the 0.8 s hold time: the settings menu
        assert Button.MODE in ui.held and "held: MODE" in ui.frame_text()
        assert s.tower.state.mode.value == "settings"
        ui.key("x")  # any key lets go
        drive(s, ui, 0.1)
        assert not ui.held and not ui.down_until
        assert s.tower.io.inputs.pressed() == frozenset()
    finally:
        s.close()


@pytest.mark.parametrize("release", ["f", "r", "m", "U", "x"])
def test_the_key_that_lets_go_of_a_hold_does_nothing_else(release: str) -> None:
    """`f` after `M` ends the hold and does not also move FIELD (nor `r` roll, nor `U` hold)."""
    s, ui = interactive()
    try:
        ui.key("M")
        drive(s, ui, 1.2)
        assert s.tower.state.mode.value == "settings"
        before = (s.tower.state.item_index, s.tower.rolls)
        ui.key(release)
        drive(s, ui, 1.2)
        assert not ui.held and not ui.queue and not ui.down_until
        assert s.tower.state.mode.value == "settings"
        assert (s.tower.state.item_index, s.tower.rolls) == before
        ui.key("f")  # the next key acts as usual
        drive(s, ui, 0.5)
        assert s.tower.state.item_index == (before[0] + 1)
    finally:
        s.close()


def test_the_legend_says_the_releasing_key_only_lets_go() -> None:
    from hardware.cli.sim import LAYOUTS, LEGEND, SHORT_HELP

    assert "only lets go" in LEGEND and "only lets go" in SHORT_HELP
    for layout in LAYOUTS:
        assert "lets go" in layout.legend
        assert len(layout.legend) <= layout.size()[0]  # the whole legend is on its line


def test_a_narrow_terminal_draws_quarter_blocks() -> None:
    from hardware.cli.sim import Interactive

    s = sim()
    try:
        ui = Interactive(s, stdout=io.BytesIO(), colour=True, size=(80, 45))
        text = ui.frame_text()
        assert "┌" + "─" * 64 + "┐" in text
        assert "\x1b[38;2;" in text  # the LEDs as coloured dots
        assert 38 <= len(text.splitlines()) <= 45
    finally:
        s.close()


def visible(line: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", line)


@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (66, 22), (100, 30)])
def test_an_80x24_terminal_gets_the_compact_layout_and_every_line_fits(cols, rows) -> None:
    from hardware.cli.sim import Interactive

    s = sim()
    try:
        ui = Interactive(s, stdout=io.BytesIO(), colour=True, size=(cols, rows))
        lines = ui.frame_text().splitlines()
        assert 22 <= len(lines) <= rows  # the screen's text may take the rows left over
        assert all(len(visible(line)) <= cols for line in lines)
        assert lines[0] == "┌" + "─" * 64 + "┐"
        assert any("\u2801" <= ch <= "\u28ff" for ch in "".join(lines[1:17]))  # Braille dots
        assert lines[19].startswith("screen: infinity")  # the title and odds are there
        assert lines[-1].startswith("keys: m f d u r")
        ui.key("?")
        assert len(ui.frame_text().splitlines()[-1]) <= cols
    finally:
        s.close()


@pytest.mark.parametrize(("cols", "rows"), [(80, 21), (65, 40), (40, 10)])
def test_a_smaller_terminal_is_told_what_the_simulator_needs(cols, rows) -> None:
    from hardware.cli.sim import Interactive

    s = sim()
    try:
        text = Interactive(s, stdout=io.BytesIO(), colour=False, size=(cols, rows)).frame_text()
        assert f"This terminal is {cols}x{rows}; the simulator needs at least 66x22" in " ".join(
            text.splitlines())
        assert "--press" in text
        assert all(len(line) <= max(cols, 20) for line in text.splitlines())
    finally:
        s.close()


def test_braille_keeps_every_pixel() -> None:
    from PIL import Image

    from hardware.cli.sim import to_braille

    image = Image.new("1", (4, 8))
    for xy in ((0, 0), (1, 3), (2, 4), (3, 7)):
        image.putpixel(xy, 1)
    assert to_braille(image) == [chr(0x2800 + 0x01 + 0x80) + " ", " " + chr(0x2800 + 0x01 + 0x80)]


def test_the_screen_line_keeps_the_title_and_the_selected_field_in_view() -> None:
    from hardware.cli.sim import screen_lines

    lines = ["infinity  28%", " rating 8", " cr 10 difficult", " declaration no", " retry no",
             ">modifier 0"]
    assert screen_lines(lines, 200) == ["screen: " + " | ".join(lines)]
    assert screen_lines(lines, 60) == ["screen: infinity  28% | ... | >modifier 0"]
    assert screen_lines(["infinity  28%", ">rating 8", " cr 10"], 30) == ["screen: infinity  28% | >ratin"]
    assert screen_lines([], 80) == ["screen: -"]
    # more rows: the text wraps between its lines, and what gives way is before the selected field
    assert screen_lines(lines, 50, 4) == ["screen: infinity  28% |  rating 8",
                                          "         cr 10 difficult |  declaration no",
                                          "         retry no | >modifier 0"]
    assert screen_lines(lines, 50, 2) == ["screen: infinity  28% | ... | >modifier 0"]
    session = ["commitment", *["0123456789abcdef"] * 4, "seed revealed: in log", "any button: back"]
    # elsewhere the end of the text stays: what a reveal did, under the new commitment
    assert screen_lines(session, 40, 3) == ["screen: commitment | ...", "        seed revealed: in log",
                                            "        any button: back"]


def test_at_80x24_the_session_view_after_a_reveal_is_read_whole() -> None:
    """docs/fairness.md step 3: the screen shows "seed revealed: in log" and the new
    commitment; at 80x24 the simulator's text under the frame holds all of it."""
    from hardware.cli.sim import Interactive
    from hardware.entropy import open_dice

    s = Simulator(reader.load(), dice=open_dice(seed=b"reveal"))  # dice with sessions, like sim --seed
    try:
        ui = Interactive(s, stdout=io.BytesIO(), colour=False, size=(80, 24))
        s.run_script(parse_script("hold:mode:1 field field field field field field roll roll"))  # reveal seed
        screen = s.tower.screen
        assert screen is not None and "seed revealed: in log" in screen.lines, screen.lines
        lines = ui.frame_text().splitlines()
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
        text = " ".join(lines)
        assert "seed revealed: in log" in text
        hex_lines = [line for line in screen.lines if re.fullmatch(r"[0-9a-f]{16}", line)]
        assert len(hex_lines) == 4 and all(h in text for h in hex_lines)  # the last group too
    finally:
        s.close()
