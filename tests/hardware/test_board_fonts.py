"""The board's page and overlay draw every character they write with the fonts of the Pi
image (Raspberry Pi OS ships DejaVu: fonts-dejavu-core): no glyph is a missing-glyph box.

Two checks: every non-ASCII character in the page's HTML, CSS and JS (and in the board's
own words that the page shows) is in the cmap of each DejaVu face the page uses, read from
the font files themselves (tests/hardware/fontparts.py); and a real headless Chromium that
has only fonts-dejavu-core's files (its own fontconfig) draws each of them differently from
the missing-glyph box. The screenshot docs/screenshots/board-pi-fonts.png comes from that
test (the board while its broker is down, so every card shows "not verified now"):
regenerate it with ``DICETOWER_SCREENSHOTS=1 ./run-tests tests/hardware/test_board_fonts.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.sim_towers import SimTower
from tests.hardware.fontparts import DEJAVU, PI_FONTS, covered
from tests.hardware.netparts import running_board, running_broker, wait_for
from tests.support import require_command

REPO = Path(__file__).resolve().parents[2]
STATIC = REPO / "hardware" / "board" / "static"
#: The board's modules whose words the page shows (findings, states, the card's texts).
SHOWN_MODULES = ("messages.py", "ledger.py", "towers.py", "health.py", "verdict.py", "subscriber.py")
STORE = "shop1"


def page_characters() -> dict[str, list[str]]:
    """Every non-ASCII character the page and the overlay can write -> the files it is in."""
    files = [*sorted(STATIC.iterdir()), *(REPO / "hardware" / "board" / name for name in SHOWN_MODULES)]
    out: dict[str, list[str]] = {}
    for path in files:
        for c in sorted(set(path.read_text(encoding="utf-8"))):
            if ord(c) > 127:
                out.setdefault(c, []).append(path.name)
    return out


def pi_fonts() -> list[Path]:
    paths = [DEJAVU / name for name in PI_FONTS]
    if not all(p.is_file() for p in paths):
        why = f"fonts-dejavu-core is not installed ({DEJAVU})"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return paths


def test_every_character_the_page_writes_is_a_glyph_of_the_pi_images_fonts():
    chars = page_characters()
    assert "✓" in chars and "…" in chars  # the scan finds what the page writes
    for font in pi_fonts():
        has = covered(font)
        missing = {f"U+{ord(c):04X} {c}": files for c, files in chars.items() if ord(c) not in has}
        assert not missing, f"{font.name} has no glyph for {missing}"


def test_the_web_side_serves_the_fonts_the_css_names():
    css = (STATIC / "board.css").read_text() + (STATIC / "overlay.css").read_text()
    from hardware.board.web import FONTS

    assert set(FONTS) == set(PI_FONTS)
    for name in FONTS:
        assert f'url("/fonts/{name}")' in css


@pytest.fixture
def pi_browser(tmp_path):
    """Headless Chromium whose fontconfig knows only fonts-dejavu-core's files: what a browser
    on the Pi image has (nothing else to fall back on, so a missing glyph is the box)."""
    chromium = shutil.which("chromium") or require_command("chromium")
    driver_path = require_command("chromedriver")
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    core = subprocess.run(["dpkg", "-L", "fonts-dejavu-core"], capture_output=True, text=True).stdout.split()
    for path in [Path(p) for p in core if p.endswith(".ttf")] or pi_fonts():
        (fonts / path.name).symlink_to(path)
    conf = tmp_path / "fonts.conf"
    conf.write_text(f"""<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>{fonts}</dir>
  <cachedir>{tmp_path / 'fontconfig-cache'}</cachedir>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
</fontconfig>
""")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from tests.hardware.test_board_browser import CHROMIUM_FLAGS

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
    driver = webdriver.Chrome(options=options, service=Service(driver_path, env=env))
    try:
        yield driver
    finally:
        driver.quit()


#: Draws each character in a canvas with the page's own font stacks (regular and bold sans,
#: the mono) and returns those drawn exactly as a character no font has (U+10FFFD): the box.
BOXES = """
const [chars, selector, done] = arguments;
const sans = getComputedStyle(document.body).fontFamily;
const mono = getComputedStyle(document.querySelector(selector)).fontFamily;
const fonts = [`400 28px ${sans}`, `700 28px ${sans}`, `400 28px ${mono}`, `700 28px ${mono}`];
Promise.all(fonts.map((f) => document.fonts.load(f, chars.join("")))).then(() => {
  const canvas = document.createElement("canvas");
  canvas.width = 80; canvas.height = 60;
  const ctx = canvas.getContext("2d", {willReadFrequently: true});
  const draw = (font, ch) => {
    ctx.clearRect(0, 0, 80, 60);
    ctx.font = font; ctx.textBaseline = "top"; ctx.fillStyle = "#000";
    ctx.fillText(ch, 8, 8);
    return canvas.toDataURL();
  };
  const boxes = [];
  for (const font of fonts) {
    const box = draw(font, "\\u{10FFFD}");
    for (const ch of chars) {
      if (draw(font, ch) === box) boxes.push(`${font}: U+${ch.codePointAt(0).toString(16)} ${ch}`);
    }
  }
  done({boxes, sans, mono, loaded: [...document.fonts].map((f) => `${f.family} ${f.weight} ${f.status}`)});
});
"""


def test_the_page_draws_every_glyph_with_only_the_pi_images_fonts(tmp_path, pi_browser):
    binary = require_command("mosquitto")
    (tmp_path / "broker").mkdir()
    chars = sorted(page_characters())
    with running_broker(binary, tmp_path / "broker") as broker, running_board(broker.url, STORE) as board:
        towers = [SimTower(tmp_path / name, broker.url, STORE, name, session_rolls=3) for name in ("table1", "table2")]
        try:
            for t in towers:
                for _ in range(4):
                    t.roll()
            wait_for(lambda: len(board.get("/api/towers")) == 2, what="two towers")
            board.towers.check_now()
            pi_browser.get(board.base + "/")
            wait_for(lambda: pi_browser.execute_script("return document.querySelectorAll('article.card').length") == 2,
                     what="two cards")
            drawn = pi_browser.execute_async_script(BOXES, chars, ".commitment")
            assert "Board Sans" in drawn["sans"] and "Board Mono" in drawn["mono"]
            assert not drawn["boxes"], f"missing glyphs: {drawn['boxes']} (fonts: {drawn['loaded']})"
            broker.kill()  # every card says it is not verified now, with its sign
            wait_for(lambda: "not verified now" in pi_browser.execute_script(
                "return document.querySelector('article.card .badge').textContent"), what="not verified now")
            wait_for(lambda: "cannot reach" in pi_browser.execute_script(
                "return document.getElementById('live').textContent"), what="the status line's reason")
            sign = pi_browser.execute_script("return document.querySelector('article.card .badge').textContent")[0]
            assert ord(sign) in covered(DEJAVU / "DejaVuSans.ttf")
            shot = tmp_path / "board-pi-fonts.png"
            pi_browser.save_screenshot(str(shot))
            assert shot.stat().st_size > 10_000
            if os.environ.get("DICETOWER_SCREENSHOTS"):
                shutil.copyfile(shot, REPO / "docs" / "screenshots" / "board-pi-fonts.png")
            pi_browser.get(board.base + "/overlay?tower=table1")
            wait_for(lambda: pi_browser.execute_script("return document.getElementById('overlay').dataset.seq"),
                     what="the overlay's roll")
            drawn = pi_browser.execute_async_script(BOXES, chars, "#name")
            assert not drawn["boxes"], f"missing glyphs on the overlay: {drawn['boxes']}"
        finally:
            for t in towers:
                t.close(timeout=1.0)
