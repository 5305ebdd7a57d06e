"""What the board posts to a webhook: the plain JSON body (version 1) and Discord's webhook JSON.

Two kinds of post (docs/network.md, "Rolls in your Discord" and "Rolls in your virtual
tabletop"): a **roll**, once its session is revealed and replayed clean (``verdict.check`` is
``"verified"``; its ``entry`` exactly as ``/api/towers/T/rolls`` lists it), and an **alert**,
when a tower's verdict turns red (``verdict.check`` is ``"red"``, the first finding in
``verdict.problem``). Every post carries an idempotency key (``id``, and the
``Idempotency-Key`` header) built from what it is about, so a receiver can drop a post it has
had already: the board posts each once, but a board killed between a receiver's answer and
its record's commit posts that one again after its restart.

The plain body is made once, when the roll is verified, and kept in the board's outbox; a
Discord post is drawn from it when it is sent. Everything a tower wrote reaches Discord
through :func:`md` (markdown escaped, control characters removed, clipped) and no post may
mention anyone (``allowed_mentions`` empty), within Discord's limits (a post is embeds
only, no content; an embed's title 256, description 4096, 25 fields of 256 + 1024, footer 2048;
6000 characters and 10 embeds per message).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from datetime import UTC, datetime
from typing import Any

from engine.fingerprints import FINGERPRINT_HEX, fingerprint_line
from hardware.board.messages import MARKS, clip, params_view, result_of, roll_view

#: The plain body's version: a new one only when a field changes meaning or goes away.
VERSION = 1

#: Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits).
TITLE_CHARS = 256
DESCRIPTION_CHARS = 4096
FIELDS = 25
FIELD_NAME_CHARS = 256
FIELD_VALUE_CHARS = 1024
FOOTER_CHARS = 2048
EMBED_TOTAL_CHARS = 6000
EMBEDS = 10
#: How long a tower-supplied value may be in a post (shorter than Discord's limits: a card).
SHOWN_CHARS = 80
PROBLEM_CHARS = 600

GREEN, GREY, AMBER, RED = 0x2E9E5B, 0x747F8D, 0xC9892A, 0xD2413A
#: What a Discord post says when it may be in the channel already (the board stopped while
#: Discord was answering it: Discord's webhooks keep no idempotency key, so it cannot tell).
REPEAT = "sent again after the board restarted: it may be above already"
#: ASCII punctuation: every one of them can be escaped with a backslash in Discord's markdown.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
VERIFIED = MARKS.index("verified")

Body = dict[str, Any]


# --- the plain body ------------------------------------------------------------------------------------


def iso(when: float) -> str:
    """A Unix time as the roll log writes times: ``2026-12-02T20:15:03.120Z``."""
    return datetime.fromtimestamp(when, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def roll_key(store: str, tower: str, entry: dict[str, Any]) -> str:
    """A roll's idempotency key: the same for the same entry from any board."""
    return f"roll/{store}/{tower}/{entry['seq']}/{entry['hash']}"


def alert_key(store: str, tower: str, seq: int | None, problem: str) -> str:
    digest = hashlib.sha256(problem.encode("utf-8")).hexdigest()[:16]
    return f"alert/{store}/{tower}/{seq or 0}/{digest}"


def roll_body(store: str, tower: str, entry: dict[str, Any], *, problem: str | None, problems: int,
              decided_at: float, number: int | None = None) -> Body:
    """The plain body of a verified roll. The entry is nested, never merged: a tower may put
    any key in its entries, and none of them can pass for the board's. ``roll`` names it as the
    OLED did: its number in its session and its fingerprint (``#12 a1b2c3d4e5f6a7b8``)."""
    digest = str(entry.get("hash", ""))
    return {"version": VERSION, "type": "roll", "id": roll_key(store, tower, entry), "store": store, "tower": tower,
            "decided_at": iso(decided_at),
            "verdict": {"check": "verified", "tower_verified": problem is None, "problem": problem,
                        "problems": problems},
            "roll": {"number": number, "name": fingerprint_line(number, digest) if number else None},
            "entry": entry}


def alert_body(store: str, tower: str, *, seq: int | None, problem: str, problems: int, decided_at: float) -> Body:
    """The plain body of a red verdict: the tower's first finding (``seq``: the entry it names)."""
    return {"version": VERSION, "type": "alert", "id": alert_key(store, tower, seq, problem), "store": store,
            "tower": tower, "decided_at": iso(decided_at), "seq": seq,
            "verdict": {"check": "red", "tower_verified": False, "problem": problem, "problems": problems}}


#: A batch request holds posts up to this many bytes (and at least one, whatever its size).
BATCH_BYTES = 1 << 20


def batch_fit(sizes: list[int]) -> int:
    """How many posts (of these encoded sizes, from the first) go into one batch request."""
    total = 0
    for n, size in enumerate(sizes):
        total += size + 1
        if total > BATCH_BYTES:
            return max(1, n)
    return len(sizes)


def batch(encoded: list[bytes]) -> bytes:
    """A batch request's body: ``{"version": 1, "type": "batch", "posts": [...]}``, the posts'
    plain bodies in order."""
    return b'{"version":%d,"type":"batch","posts":[' % VERSION + b",".join(encoded) + b"]}"


def batch_key(keys: list[str]) -> str:
    """A batch's Idempotency-Key header (each post's own is its ``id``)."""
    return "batch/" + hashlib.sha256("\n".join(keys).encode("utf-8")).hexdigest()[:32]


def encode(body: Body) -> bytes:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("ascii")


# --- Discord ----------------------------------------------------------------------------------------------


def _clean(value: Any) -> str:
    """Any value as one line of text: control and format characters (bidi overrides,
    zero-width) removed, line breaks made spaces."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return "".join(" " if c in "\n\r\t" else c for c in text
                   if c in "\n\r\t" or unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"))


def plain(value: Any, limit: int = SHOWN_CHARS) -> str:
    """Text for the parts of an embed Discord shows as they are (author, footer: no markdown,
    no mentions, no links), clipped to ``limit``."""
    return clip(_clean(value), limit)


def md(value: Any, limit: int = SHOWN_CHARS) -> str:
    """Text for the parts Discord reads as markdown (description, field values), shown
    literally: every ASCII punctuation character escaped (so no markdown, link, mention, emoji
    code or heading), at most ``limit`` characters counting the escapes."""
    pieces = ["\\" + c if _PUNCTUATION.fullmatch(c) else c for c in _clean(value)]
    if sum(len(p) for p in pieces) <= limit:
        return "".join(pieces)
    out, used = [], 0
    for piece in pieces:
        if used + len(piece) > limit - 1:
            break
        out.append(piece)
        used += len(piece)
    return "".join(out) + "…"


def embed(body: Body) -> dict[str, Any]:
    """One Discord embed for a post's plain body. Only the board's own words are in the title
    and the field names; a tower's values are in the author line and the footer (plain text
    there) and in the description and field values (escaped there)."""
    return _roll_embed(body) if body.get("type") == "roll" else _alert_embed(body)


def _roll_embed(body: Body) -> dict[str, Any]:
    entry = body["entry"]
    view = roll_view(entry, VERIFIED)
    result = result_of(entry)
    verdict = body["verdict"]
    headline = f"**{md(view['system'] or '?', 40)}** — **{md(view['outcome'] or 'rolled')}**"
    if view["total"] is not None:
        headline += f" · total **{md(view['total'], 24)}**"
    fields = []
    if view["dice"]:
        fields.append(_field("Dice", " · ".join(str(d) for d in view["dice"])))
    # The system's main parameters and those not at their defaults (params_view): a chat line, not the record.
    shown = params_view(result.get("params"), result.get("system"))
    setting = " · ".join(f"{md(k, 30)} {md('yes' if v is True else v, 40)}" for k, v in shown.items()
                         if v is not None and v != "")
    if setting:
        fields.append(_field("Setting", setting))
    if view["player"] is not None:
        fields.append(_field("Player", str(view["player"])))
    if not verdict["tower_verified"]:
        fields.append(_field("⚠ This tower is red", md(verdict["problem"], PROBLEM_CHARS), inline=False))
    out: dict[str, Any] = {
        "author": {"name": plain(f"🎲 {body['tower']} ({body['store']})", 256)},
        "description": headline,
        "color": GREEN if view["success"] is True else GREY if view["success"] is False else AMBER,
        "fields": fields[:FIELDS],
        "footer": {"text": plain(f"{_name(body, entry)} · ✓ verified by the dicetower board"
                                 + (f" · {REPEAT}" if body.get("repeat") else ""), FOOTER_CHARS)},
    }
    when = _timestamp(entry.get("time"))
    if when is not None:
        out["timestamp"] = when
    return out


def _alert_embed(body: Body) -> dict[str, Any]:
    verdict = body["verdict"]
    more = verdict["problems"] - 1
    return {
        "author": {"name": plain(f"⚠ {body['tower']} ({body['store']})", 256)},
        "title": "This tower's verdict is red",
        "description": md(verdict["problem"], PROBLEM_CHARS) + (f"\n\n*and {more} more finding(s) on the board*"
                                                                  if more > 0 else ""),
        "color": RED,
        "footer": {"text": "the dicetower board: its page and /api/towers/T/evidence say more"},
        "timestamp": body["decided_at"],
    }


def _field(name: str, value: str, *, inline: bool = True) -> dict[str, Any]:
    return {"name": clip(name, FIELD_NAME_CHARS), "value": clip(value or "\u200b", FIELD_VALUE_CHARS),
            "inline": inline}


def _timestamp(value: Any) -> str | None:
    """A tower's ``time`` as ISO 8601 for Discord, or None when it is not one."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def embed_chars(e: dict[str, Any]) -> int:
    """What Discord counts against the 6000 characters of a message's embeds."""
    return (len(e.get("title", "")) + len(e.get("description", "")) + len(e.get("footer", {}).get("text", ""))
            + len(e.get("author", {}).get("name", ""))
            + sum(len(f["name"]) + len(f["value"]) for f in e.get("fields", [])))


def _name(body: Body, entry: dict[str, Any]) -> str:
    """The roll as the OLED named it (``#12 a1b2c3d4e5f6a7b8``); a body of an earlier board
    without it, by its place in the log."""
    shown = body.get("roll")
    if isinstance(shown, dict):
        name = shown.get("name")
        if isinstance(name, str) and shown.get("number"):
            return name
    return f"entry {entry.get('seq')} · {str(entry.get('hash', ''))[:FINGERPRINT_HEX]}"


def discord_fit(bodies: list[Body]) -> int:
    """How many of ``bodies`` (from the first) go into one Discord message (at least one)."""
    total = 0
    for n, body in enumerate(bodies[:EMBEDS]):
        total += embed_chars(embed(body))
        if total > EMBED_TOTAL_CHARS:
            return max(1, n)
    return max(1, min(len(bodies), EMBEDS))


def discord_post(bodies: list[Body]) -> Body:
    """Discord's webhook JSON for up to :data:`EMBEDS` posts (one embed each), mentioning nobody."""
    return {"embeds": [embed(b) for b in bodies[:EMBEDS]], "allowed_mentions": {"parse": []}}
