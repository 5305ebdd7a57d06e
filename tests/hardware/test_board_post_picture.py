"""What a Discord post of the board looks like, from what a real board really posted.

A real Mosquitto broker, a simulated tower, the board posting to a receiver on localhost in
Discord's format; the embeds the receiver got are drawn the way Discord draws an embed (the
author line, a coloured bar, markdown with its backslash escapes taken out, inline fields,
the footer) by a page in a real headless Chromium. The test checks that what a reader sees is
the tower's own words, unescaped and clipped nowhere, and that the colours follow the outcome.

The picture docs/screenshots/discord-post.png comes from this test: regenerate it with
``DICETOWER_SCREENSHOTS=1 ./run-tests tests/hardware/test_board_post_picture.py``. It is our
drawing of Discord's embed layout (no Discord account is used in CI), not a photograph of
Discord.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from hardware.board import posts
from hardware.board.webhooks import make_webhook
from hardware.network.topics import log_message
from tests.hardware.hookparts import Receiver
from tests.hardware.netparts import Collector, running_board, wait_for
from tests.hardware.test_board_browser import browser  # noqa: F401 (the fixture)
from tests.hardware.test_board_webhooks import tower  # noqa: F401 (the fixture)

REPO = Path(__file__).resolve().parents[2]
STORE = "shop1"
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"\*(.+?)\*")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def markdown(text: str) -> str:
    """The markdown the board writes (bold, italics, backslash escapes, line breaks) as HTML.
    An escaped character is kept literal: it is put back only after bold and italics are read."""
    kept: list[str] = []

    def keep(m: re.Match[str]) -> str:
        kept.append(m.group(1))
        return f"\x00{len(kept) - 1}\x00"

    text = html.escape(_ESCAPE.sub(keep, text))
    text = _ITALIC.sub(r"<em>\1</em>", _BOLD.sub(r"<strong>\1</strong>", text)).replace("\n", "<br>")
    return re.sub("\x00(\\d+)\x00", lambda m: html.escape(kept[int(m.group(1))]), text)


def page(embeds: list[dict]) -> str:
    cards = []
    for e in embeds:
        fields = "".join(
            f'<div class="field{" inline" if f.get("inline") else ""}"><div class="fname">{markdown(f["name"])}</div>'
            f'<div class="fvalue">{markdown(f["value"])}</div></div>' for f in e.get("fields", []))
        title = f'<div class="title">{markdown(e["title"])}</div>' if "title" in e else ""
        cards.append(
            f'<div class="embed" style="border-left-color:#{e["color"]:06x}">'
            f'<div class="author">{html.escape(e["author"]["name"])}</div>{title}'
            f'<div class="description">{markdown(e.get("description", ""))}</div>'
            f'<div class="fields">{fields}</div><div class="footer">{html.escape(e["footer"]["text"])}</div></div>')
    return """<!doctype html><meta charset="utf-8"><style>
body { background: #313338; color: #dbdee1; font: 15px/1.4 "DejaVu Sans", sans-serif; margin: 16px; }
.message { display: grid; grid-template-columns: 48px 1fr; gap: 0 14px; width: 560px; }
.avatar { width: 40px; height: 40px; border-radius: 50%; background: #5865f2; color: white; font-size: 22px;
          display: flex; align-items: center; justify-content: center; }
.who { font-weight: 600; color: #f2f3f5; } .who small { font-weight: 400; color: #949ba4; margin-left: 6px; }
.embed { background: #2b2d31; border-left: 4px solid; border-radius: 4px; padding: 8px 16px 12px 12px;
         margin-top: 6px; max-width: 480px; }
.author { font-size: 13px; font-weight: 600; color: #f2f3f5; margin: 4px 0; }
.title { font-weight: 600; color: #f2f3f5; margin: 4px 0; } .description { margin: 4px 0; }
.fields { display: flex; flex-wrap: wrap; gap: 4px 24px; margin-top: 6px; }
.field { flex: 1 1 100%; } .field.inline { flex: 0 1 auto; min-width: 120px; }
.fname { font-size: 13px; font-weight: 600; color: #f2f3f5; } .fvalue { font-size: 14px; }
.footer { font-size: 12px; color: #b5bac1; margin-top: 8px; }
</style><div class="message"><div class="avatar">🎲</div><div>
<div class="who">dicetower board <small>APP · today</small></div>""" + "".join(cards) + "</div></div>"


def test_a_discord_post_shows_the_towers_words_unescaped(broker, tower, browser, tmp_path):  # noqa: F811
    discord = Receiver([]).start()
    raw = Collector(broker.port, "dicetower/none")
    try:
        with running_board(broker.url, STORE, webhooks=[make_webhook(discord.url, format="discord",
                                                                     name="table chat")]):
            t = tower("table3", session_rolls=3)
            entries = [t.roll() for _ in range(3)]
            wait_for(lambda: sum(len(p.body["embeds"]) for p in discord.answered()) >= 3, what="three embeds")
            forged = {**json.loads(json.dumps(entries[-1])), "seq": entries[-1]["seq"] + 1,
                      "prev": entries[-1]["hash"]}
            forged["result"]["dice"] = [20, 20]  # the hash not recomputed: an edited entry
            raw.client.publish(f"dicetower/{STORE}/table3/log", log_message(STORE, "table3", forged), qos=1)
            wait_for(lambda: any(e.get("title") for p in discord.answered() for e in p.body["embeds"]),
                     what="the red verdict's alert")
        embeds = [e for p in discord.answered() for e in p.body["embeds"]]
    finally:
        raw.close()
        discord.stop()
    assert len(embeds) == 4
    assert [e["color"] for e in embeds[:3]] == [
        posts.GREEN if x["result"].get("success") is True else posts.GREY if x["result"].get("success") is False
        else posts.AMBER for x in entries]
    assert embeds[3]["color"] == posts.RED

    shot = tmp_path / "discord-post.png"
    (tmp_path / "post.html").write_text(page(embeds), encoding="utf-8")
    browser.set_window_size(640, 1000)
    browser.get((tmp_path / "post.html").as_uri())
    shown = browser.execute_script(
        "return [...document.querySelectorAll('.embed')].map(e => ({author: e.querySelector('.author').textContent,"
        " description: e.querySelector('.description').innerText, fields: [...e.querySelectorAll('.field')]"
        ".map(f => f.innerText), footer: e.querySelector('.footer').textContent}))")
    for entry, card in zip(entries, shown, strict=False):
        system, outcome = entry["result"]["system"], entry["result"]["outcome"]
        assert card["author"] == "🎲 table3 (shop1)"
        assert card["description"].startswith(f"{system} — {outcome}")  # escapes gone, bold read
        assert "\\" not in card["description"] + "".join(card["fields"])
        assert any(f.startswith("Dice") and "·".join(map(str, entry["result"]["dice"])).replace("·", " · ") in f
                   for f in card["fields"])
        assert re.fullmatch(rf"#\d+ {entry['hash'][:16]} · ✓ verified by the dicetower board", card["footer"])
    assert shown[3]["description"].startswith(f"entry {forged['seq']}: its content does not match its own hash")
    height = browser.execute_script("return document.querySelector('.message').getBoundingClientRect().bottom")
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 640, "height": int(height) + 24, "deviceScaleFactor": 1, "mobile": False})
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    if os.environ.get("DICETOWER_SCREENSHOTS"):
        shutil.copyfile(shot, REPO / "docs" / "screenshots" / "discord-post.png")


@pytest.mark.parametrize(("text", "shown"), [
    (r"**infinity** — **success** · total **14**", "<strong>infinity</strong> — <strong>success</strong> · total "
                                                    "<strong>14</strong>"),
    (r"entry 12\: a \*\*bold\*\* lie", "entry 12: a **bold** lie"),
    (r"\<b\>", "&lt;b&gt;"),
])
def test_the_drawing_reads_markdown_as_discord_does(text, shown):
    assert markdown(text) == shown
