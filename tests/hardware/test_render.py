"""Screens drawn on luma's dummy device, held to golden images, and the shipped fonts.

The golden images in ``tests/hardware/golden/`` are 1-bit PNGs at the OLED's 128x64. After a
deliberate change to the look (renderer or font), regenerate them and look at them:

    DICETOWER_REGOLD=1 .venv/bin/pytest tests/hardware/test_render.py

then check the diff of the PNGs before committing.
"""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from engine.fingerprints import reveal_card
from engine.panel import screens
from engine.panel.model import Screen
from engine.panel.sessions import Card
from hardware.display.oled import OledDisplay
from hardware.display.render import Renderer, to_text_blocks
from hardware.fonts import FALLBACK, FONT_DIR, load
from hardware.fonts.build import FONTS, SOURCE, build_all, parse, scale2x, slot_map
from tests.support import require_command

GOLDEN = Path(__file__).parent / "golden"
COMMITMENT = "3fa2c1d0b4e5f60718293a4b5c6d7e8f0123456789abcdeffedcba9876543210"
HEAD = "a1b2c3d4" * 8
REGOLD = os.environ.get("DICETOWER_REGOLD") == "1"

SCREENS: dict[str, Screen] = {
    "setup": Screen(
        title="infinity   28.0%",
        lines=(">rating 8", " cr 10 difficult", " declaration no", " retry no", " modifier 0", "P1"),
        odds=0.28, selected=0, kind="setup",
    ),
    "setup-seven-lines": Screen(
        title="d6cv       83.3%",
        lines=(">stat 5", " skill 0 untrained", " modifier 0", " cv 5", " criticals yes", " contest none", "P1"),
        odds=0.8333, selected=0, kind="setup",
    ),
    "setup-few-lines": Screen(title="fingers    40.0%", lines=(">choices 5", " winners 2", "P1 karma 0"),
                              odds=0.4, selected=0, kind="setup"),
    "result": Screen(
        title="infinity 13 vs 10", lines=("solid SR1", "dice 5 8", "hot 5 cold 8 +0"), big="SOLID",
        dice=(5, 8), kind="result",
    ),
    "result-many-dice": Screen(
        title="horizons  3 vs 2", lines=("success 3 succ.", "dice 7 10 3 9 1 8", "1 exploded"),
        big="SUCCESS", dice=(7, 10, 3, 9, 1, 8), kind="result",
    ),
    "result-too-many-dice": Screen(
        title="horizons  2 vs 1", lines=("success 2 succ.", "dice 2 8 6 10 2 4 4 1 9"), big="SUCCESS",
        dice=(2, 8, 6, 10, 2, 4, 4, 1, 9), kind="result",
    ),
    "result-paged": Screen(
        title="horizons  6 vs 0", lines=("success 6 succ. net +6", "dice 3 1 9 9 4 2 10 9 5", "10 1 2 8 5 4",
                                         "opp. 5 4", "2 exploded", "damage 6"),
        big="SUCCESS", dice=(3, 1, 9, 9, 4, 2, 10, 9, 5, 10, 1, 2, 8, 5, 4), page=1, kind="result",
    ),
    "result-scrolled-word": Screen(title="infinity 10 vs 10", lines=("complication SR0", "hot 2 cold 4 +2"),
                                   big="MPLICATION", dice=(2, 4), kind="result"),
    "rolling": Screen(title="d6cv     rolling", lines=("4 2",), dice=(4, 2), kind="rolling"),
    "guess": Screen(title="pick a finger", lines=("fingers 2 of 5", "1=thumb .. 5=pinky"), big="1-5",
                    kind="guess"),
    "settings": Screen(
        title="settings",
        lines=(">player P1", " brightness 100%", " animation 0.8s", " start karma 0", " reset player",
               " reset all", "entropy kernel ok"),
        selected=0, kind="settings",
    ),
    "scrolled": Screen(title="long list", lines=tuple(f" item {i}" for i in range(10)), selected=8, kind="setup"),
    "message": Screen(title="cannot roll", lines=("--cv: expected a whole", "number from 1 to 30,", "got 0"),
                      kind="message"),
    "attract": Screen(title="dicetower", lines=("immortal", "press any button"), offset=(12, 7),
                      contrast=0.25, kind="attract"),
    "session-qr": screens.session(COMMITMENT, "", "", "", 1.0),
    "seed-ask": screens.seed_ask(COMMITMENT, "#3fa2c1d0", 1.0),
    "seed-code": screens.seed_code("#3fa2c1d0", (3, 1, 4), 8, "", 1.0),
    "seed-done": screens.seed_code("#3fa2c1d0", (3, 1, 4, 2, 5, 5, 1, 2), 8, "", 1.0),
    "card": screens.card(Card(COMMITMENT, "31425512", 12, HEAD), 1.0),
    "result-foot": Screen(title="horizons 12 vs 3", big="SUCCESS", lines=(
        "success 12 succ.", "net +9 (opp. 3)", "dice 4 1 10 3 4 8 5 4", "6 9 7 7 9 4 10 1 1 7"), page=1,
        kind="result", foot="roll #12 a1b2c3d4"),
    "unicode": Screen(title="≥3 → ✓ ×2 …", lines=("café naïve", "漢字 ★ ♥ ±1 ≤ ≠", "°C ÷ • ↑↓ ←"), kind="message"),
}


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer()


def draw_on_dummy(screen: Screen, renderer: Renderer):
    from luma.core.device import dummy

    device = dummy(width=128, height=64, mode="1")
    OledDisplay(device=device, renderer=renderer, owns_device=False).show(screen)
    return device.image


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_screen_matches_its_golden_image(name: str, renderer: Renderer) -> None:
    image = draw_on_dummy(SCREENS[name], renderer)
    assert image.size == (128, 64) and image.mode == "1"
    path = GOLDEN / f"{name}.png"
    if REGOLD:
        GOLDEN.mkdir(exist_ok=True)
        image.save(path, "PNG")
    assert path.exists(), f"no golden image {path.name}; regenerate with DICETOWER_REGOLD=1"
    with Image.open(path) as golden:
        expected = golden.convert("1")
    if image.tobytes() != expected.tobytes():
        pytest.fail(f"{name} differs from {path.name}:\n" + "\n".join(to_text_blocks(image)))


def test_every_golden_image_belongs_to_a_screen() -> None:
    assert {p.stem for p in GOLDEN.glob("*.png")} == set(SCREENS)


def lit(image, box) -> int:
    return sum(image.crop(box).histogram()[1:])


def test_the_odds_bar_fills_in_proportion(renderer: Renderer) -> None:
    inside = (1, 10, 127, 12)  # the bar's interior under the title
    counts = [lit(renderer.render(Screen("t", ("a",), odds=p)), inside) for p in (0.0, 0.25, 0.5, 1.0)]
    assert counts[0] == 0
    assert counts[1] < counts[2] < counts[3]
    assert abs(counts[2] - 126) <= 2  # half of 126 columns, two rows


def test_the_selected_line_is_inverted(renderer: Renderer) -> None:
    plain = renderer.render(Screen("t", ("abc", "def")))
    chosen = renderer.render(Screen("t", ("abc", "def"), selected=1))
    layout = renderer.layout(Screen("t", ("abc", "def"), selected=1))
    y = layout.body_top + layout.pitch
    row = (60, y, 128, y + 8)  # right of the text: dark unless highlighted
    assert lit(plain, row) == 0
    assert lit(chosen, row) == 68 * 8


def test_the_window_keeps_the_selected_line_in_view(renderer: Renderer) -> None:
    layout = renderer.layout(SCREENS["scrolled"])
    assert 8 in layout.lines
    assert len(layout.lines) < 10


def test_seven_lines_move_the_chance_to_the_edge_gauge(renderer: Renderer) -> None:
    layout = renderer.layout(SCREENS["setup-seven-lines"])
    assert layout.bar == "edge" and len(layout.lines) == 7


def test_dice_drawn_as_glyphs_drop_the_dice_text_line(renderer: Renderer) -> None:
    shown = [SCREENS["result"].lines[i] for i in renderer.layout(SCREENS["result"]).lines]
    assert "dice 5 8" not in shown
    crowded = renderer.layout(SCREENS["result-too-many-dice"])
    assert not crowded.glyph_dice  # nine dice do not fit as boxes: the text line stays
    assert "dice 2 8 6 10 2 4 4 1 9" in [SCREENS["result-too-many-dice"].lines[i] for i in crowded.lines]


def test_offset_moves_the_whole_picture(renderer: Renderer) -> None:
    still = renderer.render(Screen("dicetower", ("x",)))
    moved = renderer.render(Screen("dicetower", ("x",), offset=(5, 3)))
    left, top, _, bottom = still.getbbox()
    assert moved.getbbox()[:2] == (left + 5, top + 3)
    assert moved.getbbox()[3] == bottom + 3
    assert moved.crop((5, 3, 128, 64)).tobytes() == still.crop((0, 0, 123, 61)).tobytes()


def test_contrast_goes_to_the_device() -> None:
    from luma.core.device import dummy

    sent: list[int] = []

    class Recording(dummy):
        def contrast(self, level: int) -> None:
            sent.append(level)
            super().contrast(level)

    display = OledDisplay(device=Recording(width=128, height=64, mode="1"))
    display.show(Screen("a", contrast=1.0))
    display.show(Screen("b", contrast=1.0))
    display.show(Screen("c", contrast=0.25))
    assert sent == [255, 64]  # set once per change


# --- the fonts ----------------------------------------------------------------------------------------


def test_shipped_font_files_are_built_from_the_glyph_source() -> None:
    for name, (pil, png, pbm) in build_all().items():
        assert (FONT_DIR / f"{name}.pil").read_bytes() == pil, f"{name}.pil is stale: python -m hardware.fonts.build"
        assert (FONT_DIR / f"{name}.pbm").read_bytes() == pbm, f"{name}.pbm is stale"
        with Image.open(FONT_DIR / f"{name}.pbm") as netpbm, Image.open(io.BytesIO(png)) as fresh:
            assert netpbm.convert("1").tobytes() == fresh.convert("1").tobytes(), f"{name}.pbm is not the sheet"
        with Image.open(FONT_DIR / f"{name}.png") as shipped, Image.open(io.BytesIO(png)) as fresh:
            assert shipped.convert("1").tobytes() == fresh.convert("1").tobytes(), f"{name}.png is stale"


def test_the_pbm_and_the_png_give_the_same_font() -> None:
    from hardware.fonts import _from_bits, _from_png

    text = "".join(chr(c) for c in range(0x20, 0x7F))
    for name in ("tower6x8", "tower12x16"):
        fast, slow = _from_bits(FONT_DIR / f"{name}.pil"), _from_png(FONT_DIR / f"{name}.pil")
        assert fast is not None
        drawn = []
        for font in (fast, slow):
            image = Image.new("1", (len(text) * 12, 16))
            ImageDraw.Draw(image).text((0, 0), text, font=font, fill=1)
            drawn.append(image.tobytes())
        assert drawn[0] == drawn[1] and any(drawn[0])


def test_the_font_covers_printable_ascii_and_maps_the_rest() -> None:
    font = load()
    assert font.cell == (6, 8)
    assert all(font.covers(chr(c)) for c in range(0x20, 0x7F))
    assert font.encode("é") == font.encode("e")  # accents dropped when the base letter exists
    assert font.encode("漢") == font.slots[FALLBACK]
    big = load("tower12x16")
    assert big.cell == (12, 16)


def test_glyph_source_problems_name_the_line() -> None:
    with pytest.raises(ValueError, match="line 2"):
        parse("U+0041\n#####x\n")
    glyphs = parse(SOURCE.read_text("utf-8"))
    slots = slot_map(glyphs)
    assert len(set(slots.values())) == len(slots)
    assert {s.name for s in FONTS} == {"tower6x8", "tower12x16"}


def test_scale2x_smooths_a_diagonal() -> None:
    assert scale2x(["#.", ".#"]) == ["##..", "###.", ".###", "..##"]
    assert scale2x(["#"]) == ["##", "##"]


def test_a_session_screen_shows_its_commitment_as_a_qr_code(renderer: Renderer) -> None:
    from hardware.display.qr import qr_matrix
    from hardware.display.render import QR_BOX, QR_SCALE

    screen = SCREENS["session-qr"]
    commitment = "".join(screen.lines[:4])
    assert commitment == COMMITMENT == screen.qr
    image = draw_on_dummy(screen, renderer)
    modules = qr_matrix(commitment)
    assert read_qr(image, len(modules), QR_SCALE) == [list(row) for row in modules]  # dark unlit on a lit zone
    assert all(image.getpixel((x, 1)) for x in range(QR_BOX))  # the quiet zone
    # no commitment on it: the ordinary layout
    plain = screens.session("", "", "no session open", "", 1.0)
    assert not plain.qr and draw_on_dummy(plain, renderer).getpixel((1, 1)) == 0


def read_qr(image, size: int, scale: int) -> list[list[bool]]:
    """The modules of a QR code drawn in the 64-pixel square, read back from the pixels."""
    from hardware.display.render import QR_BOX

    margin = (QR_BOX - size * scale) // 2
    return [[image.getpixel((margin + c * scale, margin + r * scale)) == 0 for c in range(size)]
            for r in range(size)]


@pytest.mark.parametrize("seed", ["31425512", None, "the dragon sleeps under the old mill on the hill, 1987!"])
def test_the_reveal_screen_draws_the_four_facts_as_session_close_codes_them(seed, renderer: Renderer) -> None:
    """The reveal's QR code is the text of engine.fingerprints.reveal_card, the one
    `dicetower session close` codes: 49 to 57 modules at 1 pixel each, quiet zone lit."""
    from hardware.display.qr import qr_matrix
    from hardware.display.render import QR_BOX, qr_scale

    screen = screens.card(Card(COMMITMENT, seed, 1000, HEAD), 1.0)
    assert screen.qr == reveal_card(COMMITMENT, seed, 1000, HEAD)
    modules = qr_matrix(screen.qr)
    assert 49 <= len(modules) <= 57 and qr_scale(len(modules)) == 1
    image = draw_on_dummy(screen, renderer)
    assert read_qr(image, len(modules), 1) == [list(row) for row in modules]
    margin = (QR_BOX - len(modules)) // 2
    assert margin >= 3 and all(image.getpixel((x, y)) for x in range(QR_BOX) for y in range(margin))


@pytest.mark.parametrize("name", ["session-qr", "seed-ask", "card"])
def test_a_qr_code_on_the_oled_reads_back_as_a_phone_would(name: str, renderer: Renderer, tmp_path) -> None:
    """zbar (a QR reader) on a photograph-like copy of the OLED frame (lit pixels bright, 6x
    larger) reads exactly the text the screen codes."""
    screen = SCREENS[name]
    image = draw_on_dummy(screen, renderer).convert("L")
    photo = image.resize((128 * 6, 64 * 6), Image.NEAREST)
    framed = Image.new("L", (photo.width + 96, photo.height + 96), 0)
    framed.paste(photo, (48, 48))  # the OLED's dark glass around the lit quiet zone
    path = tmp_path / f"{name}.png"
    framed.save(path)
    zbarimg = require_command("zbarimg")  # zbar-tools (.ci/apt-packages.txt)
    done = subprocess.run([zbarimg, "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", "-Sbinary", str(path)],
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    read = done.stdout.decode("utf-8").removesuffix("\n")
    assert read == (screen.qr.upper() if len(screen.qr) == 64 else screen.qr)


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=24), big=st.booleans(), fill=st.sampled_from([0, 1]),
       ground=st.sampled_from([0, 1]), x=st.integers(-20, 130), y=st.integers(-20, 70))
def test_stamped_text_has_exactly_the_pixels_of_draw_text(renderer: Renderer, text: str, big: bool, fill: int,
                                                          ground: int, x: int, y: int) -> None:
    stamped = Image.new("1", (128, 64), ground)
    renderer._text(ImageDraw.Draw(stamped), (x, y), text, fill=fill, big=big)
    font = renderer.big_font if big else renderer.font
    drawn = Image.new("1", (128, 64), ground)
    ImageDraw.Draw(drawn).text((x, y), font.encode(text), font=font.font, fill=fill)
    assert stamped.tobytes() == drawn.tobytes()


def test_a_kept_frame_is_handed_out_as_a_copy() -> None:
    renderer = Renderer()
    screen = SCREENS["setup"]
    first = renderer.render(screen)
    first.paste(1, (0, 0, 128, 64))  # a caller drawing over its picture
    again = renderer.render(screen)
    assert again.tobytes() == Renderer().render(screen).tobytes()
    assert again.tobytes() != first.tobytes()


def test_the_kept_frames_and_stamps_stay_bounded() -> None:
    from hardware.display.render import FRAMES_KEPT, STAMPS_KEPT

    renderer = Renderer()
    for n in range(3 * max(FRAMES_KEPT, STAMPS_KEPT)):
        renderer.render(Screen(title=f"t{n}", lines=(f"line {n}",)))
    assert len(renderer._frames) <= FRAMES_KEPT
    assert len(renderer._stamps) <= STAMPS_KEPT
