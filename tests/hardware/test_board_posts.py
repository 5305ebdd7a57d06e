"""What the board posts to a webhook, and how it reads a receiver's answer, without a network:
the plain body, Discord's JSON within Discord's limits whatever a tower wrote, the escaping
of tower text, the idempotency keys, the URL rules (a secret never shown), the retry
decisions (429, 5xx, other 4xx), the bounded queue, and the board's config file."""

from __future__ import annotations

import json
import random
import re
import string
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.board import BoardError, posts
from hardware.board.boardconf import from_mapping, load
from hardware.board.delivery import Answer, HookQueue, Streaks, backoff, decide, pause_after, retry_after
from hardware.board.webhooks import is_discord, make_webhook, redact
from hardware.config import ConfigError

PUNCTUATION = set(string.punctuation)
ENTRY = {"seq": 12, "hash": "ab" * 32, "prev": "cd" * 32, "kind": "roll", "time": "2026-12-02T20:15:03.120Z",
         "session": "0011223344556677", "roll_kind": "rolled",
         "result": {"system": "infinity", "params": {"rating": 8}, "dice": [3, 14], "outcome": "success",
                    "total": 14, "success": True}}


def roll(entry=ENTRY, problem=None, problems=0, number=3):
    return posts.roll_body("shop1", "table3", entry, problem=problem, problems=problems, decided_at=1_796_000_000.5,
                           number=number)


def all_escaped(text: str) -> bool:
    """Every ASCII punctuation character in ``text`` is escaped with a backslash."""
    i = 0
    while i < len(text):
        if text[i] == "\\":
            if i + 1 >= len(text) or text[i + 1] not in PUNCTUATION:
                return False
            i += 2
        elif text[i] in PUNCTUATION:
            return False
        else:
            i += 1
    return True


# --- the plain body ------------------------------------------------------------------------------------


def test_the_plain_body_nests_the_entry_exactly_and_names_its_verdict():
    body = roll()
    assert body == {"version": 1, "type": "roll", "id": f"roll/shop1/table3/12/{'ab' * 32}", "store": "shop1",
                    "tower": "table3", "decided_at": "2026-11-30T00:53:20.500Z",
                    "verdict": {"check": "verified", "tower_verified": True, "problem": None, "problems": 0},
                    "roll": {"number": 3, "name": f"#3 {'ab' * 8}"}, "entry": ENTRY}
    assert json.loads(posts.encode(body)) == body
    posts.encode(body).decode("ascii")  # ASCII on the wire


def test_a_tower_cannot_pass_its_own_keys_for_the_boards():
    sly = {**ENTRY, "verdict": "verified", "version": 99, "type": "alert", "id": "x"}
    body = roll(sly)
    assert body["verdict"]["check"] == "verified" and body["version"] == 1 and body["type"] == "roll"
    assert body["id"].startswith("roll/shop1/table3/12/") and body["entry"]["verdict"] == "verified"


def test_an_alert_names_the_first_finding_and_its_key_is_stable():
    a = posts.alert_body("shop1", "t1", seq=277, problem="entry 277: edited", problems=3, decided_at=0.0)
    b = posts.alert_body("shop1", "t1", seq=277, problem="entry 277: edited", problems=4, decided_at=9.0)
    assert a["type"] == "alert" and a["seq"] == 277 and a["verdict"] == {
        "check": "red", "tower_verified": False, "problem": "entry 277: edited", "problems": 3}
    assert a["id"] == b["id"] != posts.alert_body("shop1", "t1", seq=278, problem="x", problems=1,
                                                  decided_at=0.0)["id"]


# --- Discord ---------------------------------------------------------------------------------------------


def test_a_discord_post_is_an_embed_per_roll_mentioning_nobody():
    post = posts.discord_post([roll(), roll(problem="entry 3: conflicting entries at seq 3", problems=2)])
    assert post["allowed_mentions"] == {"parse": []} and "content" not in post
    first, second = post["embeds"]
    assert first["author"]["name"] == "🎲 table3 (shop1)"
    assert first["description"] == "**infinity** — **success** · total **14**"
    assert first["fields"] == [{"name": "Dice", "value": "3 · 14", "inline": True},
                               {"name": "Setting", "value": "rating 8", "inline": True}]
    assert first["footer"]["text"] == f"#3 {'ab' * 8} · ✓ verified by the dicetower board"
    assert first["timestamp"] == "2026-12-02T20:15:03.120Z" and first["color"] == posts.GREEN
    assert second["fields"][-1] == {"name": "⚠ This tower is red", "inline": False,
                                    "value": "entry 3\\: conflicting entries at seq 3"}
    alert = posts.embed(posts.alert_body("shop1", "t1", seq=2, problem="entry 2: a_b", problems=2, decided_at=0.0))
    assert alert["color"] == posts.RED and alert["description"].startswith("entry 2\\: a\\_b")


def setting_of(system: str, given: dict) -> str:
    """The Discord post's Setting field for a roll of ``system`` with ``given`` parameters
    (resolved by the engine, so every parameter is in the entry, as a tower logs it)."""
    from engine.systems import get

    params = json.loads(json.dumps(get(system).resolve(given)))  # as the log holds them (lists, not tuples)
    entry = {**ENTRY, "result": {**ENTRY["result"], "system": system, "params": params}}
    fields = {f["name"]: f["value"] for f in posts.embed(roll(entry))["fields"]}
    return fields["Setting"]


@pytest.mark.parametrize(("system", "given", "shown"), [
    ("d6cv", {"stat": 3, "skill": 0, "cv": 7}, "stat 3 · skill 0 · cv 7"),
    ("horizons", {"trait": 3, "skill": 2, "stability": 4}, "trait 3 · skill 2 · stability 4"),
    ("infinity", {"rating": 8, "volley": True, "damage": 12, "defense": 3},
     "rating 8 · volley yes · damage 12 · defense 3"),  # cr does not apply to a volley: None, left out
    ("immortal", {"attribute": 4, "skill": 2, "tn": 12}, "attribute 4 · skill 2 · tn 12"),
    ("fingers", {"guess": [2]}, "choices 5 · winners 2 · guess 2"),
])
def test_the_setting_field_shows_each_systems_main_parameters_first(system, given, shown):
    """Its main parameters (the first two the system declares) always, then those not at their
    default, in the system's own order: never cut off by alphabetical order (issue 27)."""
    assert setting_of(system, given).replace("\\", "") == shown


def test_a_post_that_may_be_in_the_channel_already_says_so():
    post = posts.discord_post([{**roll(), "repeat": True}])
    assert post["embeds"][0]["footer"]["text"] == (f"#3 {'ab' * 8} · ✓ verified by the dicetower board · "
                                                   "sent again after the board restarted: it may be above already")


@given(st.text(max_size=300), st.integers(min_value=2, max_value=200))
def test_md_escapes_every_markdown_character_within_its_limit(text, limit):
    out = posts.md(text, limit)
    assert len(out) <= limit
    assert all_escaped(out)
    assert not any(c in out for c in "\n\r\u202e\u200b\x00")


JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                       | st.text(max_size=200), lambda kids: st.lists(kids, max_size=5)
                       | st.dictionaries(st.text(max_size=40), kids, max_size=14), max_leaves=30)
HOSTILE = st.sampled_from(["@everyone", "@here", "<@123456789>", "[click](https://evil.example)", "`x`",
                           "||spoiler||", "# heading", "> quote", "https://evil.example/x", ":joy:", "**b**",
                           "\u202eevil", "a" * 5000, "\n\n- list"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.fixed_dictionaries({}, optional={
    "system": HOSTILE | JSONISH, "outcome": HOSTILE | JSONISH, "params": JSONISH, "dice": JSONISH,
    "total": JSONISH, "success": JSONISH}), min_size=1, max_size=14), st.one_of(st.none(), HOSTILE),
    st.lists(HOSTILE | JSONISH, min_size=2, max_size=2))
def test_whatever_a_tower_wrote_the_discord_post_keeps_discords_limits_and_pings_nobody(results, problem, extra):
    bodies = []
    for n, result in enumerate(results):
        entry = {**ENTRY, "seq": n + 1, "result": result, "time": extra[0], "player": extra[1]}
        bodies.append(roll(entry, problem=problem, problems=1 if problem else 0))
    fit = posts.discord_fit(bodies)
    assert 1 <= fit <= min(len(bodies), posts.EMBEDS)
    post = posts.discord_post(bodies[:fit])
    json.dumps(post, allow_nan=False)
    assert post["allowed_mentions"] == {"parse": []}
    assert sum(posts.embed_chars(e) for e in post["embeds"]) <= posts.EMBED_TOTAL_CHARS
    for e in post["embeds"]:
        assert len(e.get("title", "")) <= posts.TITLE_CHARS and len(e["description"]) <= posts.DESCRIPTION_CHARS
        assert len(e["author"]["name"]) <= 256 and len(e["footer"]["text"]) <= posts.FOOTER_CHARS
        assert len(e["fields"]) <= posts.FIELDS
        for f in e["fields"]:
            assert 0 < len(f["name"]) <= posts.FIELD_NAME_CHARS and 0 < len(f["value"]) <= posts.FIELD_VALUE_CHARS
        for text in (e["description"], *(f["value"] for f in e["fields"])):
            for payload in ("@everyone", "@here", "<@", "](", "https://", "http://", "||", ":joy:", "`", "\u202e"):
                assert not re.search(r"(?<!\\)" + re.escape(payload), text), (payload, text)
        if "timestamp" in e:
            datetime.fromisoformat(e["timestamp"].replace("Z", "+00:00"))


def test_a_batch_is_the_posts_in_order_within_a_megabyte():
    encoded = [posts.encode(roll()), posts.encode(roll({**ENTRY, "seq": 13}))]
    body = json.loads(posts.batch(encoded))
    assert body == {"version": 1, "type": "batch", "posts": [roll(), roll({**ENTRY, "seq": 13})]}
    assert posts.batch_fit([100] * 50) == 50 and posts.batch_fit([600_000] * 3) == 1
    assert posts.batch_fit([2_000_000]) == 1  # one post always goes, whatever its size
    assert posts.batch_key(["a", "b"]) == posts.batch_key(["a", "b"]) != posts.batch_key(["a"])


def test_a_long_burst_is_cut_to_what_one_message_holds():
    big = posts.roll_body("shop1", "t", {**ENTRY, "result": {**ENTRY["result"], "params": {
        f"k{i}": "v" * 40 for i in range(12)}}}, problem="p" * 600, problems=9, decided_at=0.0)
    assert posts.discord_fit([big] * 10) < 10
    assert posts.discord_fit([roll()] * 30) == 10 and posts.discord_fit([roll()]) == 1


# --- the webhook URL ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("url", "discord"), [
    ("https://discord.com/api/webhooks/1234/tok-en_X", True),
    ("https://discordapp.com/api/webhooks/1234/tok", True),
    ("https://ptb.discord.com/api/v10/webhooks/1234/tok?thread_id=9", True),
    ("https://discord.com/api/users/@me", False),
    ("https://example.com/api/webhooks/1/2", False),
    ("http://127.0.0.1:8000/hook", False),
])
def test_discord_urls_are_recognised(url, discord):
    assert is_discord(url) is discord
    hook = make_webhook(url)
    assert hook.format == ("discord" if discord else "json")
    if discord:
        assert hook.target.path.endswith("wait=true") and hook.target.path.count("?") == 1
        assert ("thread_id=9" in hook.target.path) == ("thread_id" in url)


def test_a_webhooks_secret_is_never_shown():
    url = "https://user:pa55@discord.com/api/webhooks/1234/SECRET-TOKEN?x=1"
    hook = make_webhook(url, format="json")
    for shown in (hook.name, repr(hook), redact(url), str(hook.target)):
        assert "SECRET" not in shown and "pa55" not in shown and "1234" not in shown
    assert hook.name.startswith("https://discord.com/… #") and hook.target.authorization.startswith("Basic ")
    assert make_webhook(url, name="shop discord").name == "shop discord"


@pytest.mark.parametrize(("url", "message"), [
    ("ftp://h/SECRET", "--webhook: expected an http:// or https:// URL, got one starting with ftp:"),
    ("discord.com/api/webhooks/1/SECRET", "--webhook: expected an http:// or https:// URL"),
    ("https:///SECRET", "--webhook: no host in the URL"),
    ("https://h/SECRET#frag", "--webhook: a webhook URL has no #fragment"),
    ("https://h:99999/SECRET", "--webhook: not a URL (Port out of range 0-65535)"),
    ("https://h/SE CRET", "--webhook: expected an http:// or https:// URL (printable ASCII, no spaces"),
    ("http://discord.com/api/webhooks/1/SECRET", "--webhook: a Discord webhook URL must start with https://"),
])
def test_a_bad_webhook_url_is_one_line_without_the_url(url, message):
    with pytest.raises(BoardError) as err:
        make_webhook(url)
    assert str(err.value).startswith(message) and "SECRET" not in str(err.value) and "\n" not in str(err.value)


# --- answers ---------------------------------------------------------------------------------------------------


RNG = random.Random(7)


@pytest.mark.parametrize(("answer", "action", "wait"), [
    (Answer(204, "No Content"), "sent", 0.0),
    (Answer(200, "OK"), "sent", 0.0),
    (Answer(429, "Too Many Requests", {"retry-after": "2"}), "wait", 2.0),
    (Answer(429, "Too Many Requests", {"retry-after": "1", "content-type": "application/json"},
            b'{"message": "You are being rate limited.", "retry_after": 0.25, "global": false}'), "wait", 0.25),
    (Answer(429, "", {"retry-after": "86400"}), "wait", 600.0),  # capped
    (Answer(429, "", {"retry-after": "-5"}), "wait", 0.0),
    (Answer(503, "Service Unavailable", {"retry-after": "3"}), "retry", 3.0),
    (Answer(400, "Bad Request", {"retry-after": "3"}), "give_up", 0.0),
    (Answer(401, "Unauthorized"), "give_up", 0.0),
    (Answer(404, "Not Found"), "give_up", 0.0),
    (Answer(301, "Moved Permanently"), "give_up", 0.0),
])
def test_what_an_answer_means(answer, action, wait):
    d = decide(answer, 0, rng=RNG, now=1000.0)
    assert d.action == action and d.wait == pytest.approx(wait)


def test_a_retry_after_date_is_a_wait_from_now():
    when = datetime(2030, 1, 1, 0, 0, 10, tzinfo=UTC)
    answer = Answer(429, "", {"retry-after": format_datetime(when, usegmt=True)})
    assert retry_after(answer, when.timestamp() - 7) == pytest.approx(7.0)


@pytest.mark.parametrize("answer", [Answer(500, "Internal Server Error"), Answer(502, "Bad Gateway"),
                                    Answer(408, "Request Timeout"), Answer(None, error="connection refused"),
                                    Answer(429, "", {"retry-after": "soon"})])
def test_no_answer_and_server_errors_back_off_doubling_to_a_minute(answer):
    waits = [decide(answer, n, rng=RNG, now=0.0) for n in range(12)]
    assert all(d.action == ("wait" if answer.status == 429 else "retry") for d in waits)
    assert 0.4 <= waits[0].wait <= 0.6 and 0.8 <= waits[1].wait <= 1.2 and 1.6 <= waits[2].wait <= 2.4
    assert all(48 <= d.wait <= 72 for d in waits[8:])
    assert max(backoff(n, RNG) for n in range(100)) <= 72


def test_a_429_starts_the_5xx_backoff_again_from_its_first_step():
    """The docs' rule: 5xx backs off doubling from 0.5 s; a 429 between (the receiver is there,
    it says when) ends that run, so the next 5xx waits 0.5 s again, not the sixth step."""
    streaks = Streaks()
    server, busy = Answer(503, "Service Unavailable"), Answer(429, "", {"retry-after": "1"})
    waits = []
    for answer in [server] * 6 + [busy] + [server] * 2:
        d = decide(answer, streaks.attempt(answer), rng=RNG, now=0.0)
        streaks.count(d)
        waits.append((d.action, d.wait))
    assert [a for a, _ in waits] == ["retry"] * 6 + ["wait"] + ["retry"] * 2
    assert 12.8 <= waits[5][1] <= 19.2 and waits[6][1] == 1.0
    assert 0.4 <= waits[7][1] <= 0.6 and 0.8 <= waits[8][1] <= 1.2


def test_discord_asks_for_a_pause_when_its_bucket_is_empty():
    assert pause_after(Answer(204, "", {"x-ratelimit-remaining": "0", "x-ratelimit-reset-after": "1.5"})) == 1.5
    assert pause_after(Answer(204, "", {"x-ratelimit-remaining": "4", "x-ratelimit-reset-after": "1.5"})) == 0.0
    assert pause_after(Answer(204, "", {"x-ratelimit-remaining": "0", "x-ratelimit-reset-after": "x"})) == 0.0


# --- the queue -------------------------------------------------------------------------------------------------


def test_a_full_queue_drops_the_oldest_rolls_first_never_what_is_in_hand():
    q = HookQueue(4)
    assert q.extend([(1, "roll"), (2, "alert"), (3, "roll")]) == []
    assert q.claim(1, 0) == [(1, "roll")]  # in hand
    assert q.extend([(4, "roll"), (5, "roll")]) == [3]  # 1 in hand, 2 an alert: 3 is the oldest roll waiting
    assert q.extend([(6, "alert"), (7, "alert")]) == [4, 5]
    assert q.extend([(8, "alert")]) == [2]  # only alerts left: the oldest alert goes
    assert len(q) == 4
    assert q.claim(10, 0) == [(6, "alert"), (7, "alert"), (8, "alert")]
    q.unclaim([(7, "alert"), (8, "alert")])
    assert q.claim(1, 0) == [(7, "alert")]


def test_posts_are_claimed_oldest_first_across_kinds():
    q = HookQueue(100)
    q.extend([(1, "roll"), (2, "alert"), (3, "roll"), (5, "alert"), (9, "roll")])
    assert [i for i, _ in q.claim(10, 0)] == [1, 2, 3, 5, 9]


# --- the config file ------------------------------------------------------------------------------------------


def test_the_config_file_holds_the_options_and_the_webhooks(tmp_path):
    secret = tmp_path / "discord-url"
    secret.write_text("https://discord.com/api/webhooks/1/TOKEN\n")
    conf = tmp_path / "board.toml"
    conf.write_text(f"""
[board]
mqtt = "mqtt://127.0.0.1:1883"
store = "shop1"

[[board.webhook]]
url_file = "{secret}"
name = "shop discord"

[[board.webhook]]
url = "http://127.0.0.1:30000/dicetower"
format = "json"
send = ["rolls"]
queue = 50
""")
    config = load(conf)
    assert config.options == {"mqtt": "mqtt://127.0.0.1:1883", "store": "shop1"}
    discord, vtt = config.webhooks
    assert (discord.name, discord.format, discord.url) == ("shop discord", "discord",
                                                           "https://discord.com/api/webhooks/1/TOKEN")
    assert (vtt.format, vtt.send, vtt.queue, vtt.wants("alert")) == ("json", frozenset({"rolls"}), 50, False)


@pytest.mark.parametrize(("data", "message"), [
    ({"tower": {}}, "c.toml: tower: unknown key (allowed here: board)"),
    ({"board": {"mqtt": 1}}, "c.toml: board.mqtt: expected a string, got 1"),
    ({"board": {"webhook": {"url": "http://h/"}}}, "c.toml: board.webhook: expected [[board.webhook]] tables"),
    ({"board": {"webhook": [{}]}}, "c.toml: board.webhook[0].url: give the webhook's url, or url_file"),
    ({"board": {"webhook": [{"url": "http://h/", "url_file": "f"}]}}, "c.toml: board.webhook[0].url: give"),
    ({"board": {"webhook": [{"url": "http://h/", "format": "slack"}]}},
     "c.toml: board.webhook[0].format: expected one of auto, discord, json, got 'slack'"),
    ({"board": {"webhook": [{"url": "http://h/", "send": ["rolls", "gossip"]}]}},
     "c.toml: board.webhook[0]: send: expected a non-empty list of rolls, alerts"),
    ({"board": {"webhook": [{"url": "http://h/", "queue": 0}]}},
     "c.toml: board.webhook[0].queue: expected a whole number from 1 to 1000000, got 0"),
    ({"board": {"webhook": [{"url": "gopher://h/SECRET"}]}},
     "c.toml: board.webhook[0]: expected an http:// or https:// URL, got one starting with gopher:"),
    ({"board": {"webhook": [{"url": "https://discord.com/api/webhooks/1/SECRET", "batch": 5}]}},
     "c.toml: board.webhook[0]: batch: a Discord hook sends up to 10 rolls a message by itself"),
    ({"board": {"webhook": [{"url": "http://h/", "batch": 101}]}},
     "c.toml: board.webhook[0].batch: expected a whole number from 1 to 100, got 101"),
    ({"board": {"allow_origins": ["https://vtt.example/x"]}},
     "c.toml: board.allow_origins: expected an origin such as https://vtt.example.com"),
    ({"board": {"webhook": [{"url_file": "/nonexistent/url"}]}},
     "c.toml: board.webhook[0].url_file: cannot read /nonexistent/url: No such file or directory"),
])
def test_config_mistakes_name_the_key(data, message):
    with pytest.raises(ConfigError) as err:
        from_mapping(data, "c.toml")
    assert str(err.value).startswith(message), str(err.value)
    assert "SECRET" not in str(err.value)


@pytest.mark.parametrize(("args", "message"), [
    ([], "--mqtt: the broker is needed"),
    (["--mqtt", "mqtt://x", "--webhook", "ftp://x/SECRET"], "--webhook: expected an http:// or https:// URL"),
    (["--mqtt", "mqtt://x", "--webhook", "http://h/SECRET", "--webhook", "http://h/SECRET"],
     "--webhook: the same URL is given twice"),
    (["--config", "/nonexistent/board.toml"], "/nonexistent/board.toml: file: cannot read it"),
])
def test_board_command_line_mistakes_are_one_line(args, message, capsys):
    from hardware.cli import main

    assert main(["board", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "SECRET" not in err
