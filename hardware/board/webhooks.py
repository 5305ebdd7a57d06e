"""What a webhook is: where the board posts verified rolls and red verdicts (docs/network.md,
"Rolls in your Discord").

A :class:`Webhook` is a URL (``http://`` or ``https://``), the body it gets (Discord's webhook
JSON for a Discord URL, the board's plain JSON otherwise, or as the config says), what it is
sent (rolls, alerts) and how many posts may wait for it. A webhook URL is a secret (Discord's
carries the token that lets anyone post to the channel), so it is never shown whole: logs, the
API and the page show :attr:`Webhook.name`, the given name or :func:`redact` of the URL (its
scheme and host and a fingerprint), and error messages never repeat the URL.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from hardware.board import BoardError

#: What a hook's body is: ``auto`` picks ``discord`` for a Discord webhook URL, else ``json``.
FORMATS = ("auto", "discord", "json")
#: What a hook can be sent.
SENDS = ("rolls", "alerts")
#: Posts that may wait for one hook (beyond: the oldest rolls are dropped and counted).
DEFAULT_QUEUE = 10_000
MAX_QUEUE = 1_000_000
#: Posts one request of a JSON hook may carry (1: one post per request, the plain body itself).
MAX_BATCH = 100
#: Hosts whose ``/api/webhooks/...`` URLs are Discord webhooks.
DISCORD_HOSTS = frozenset({"discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com",
                           "ptb.discordapp.com", "canary.discordapp.com"})
MAX_URL_CHARS = 2048
MAX_NAME_CHARS = 60


@dataclass(frozen=True)
class Target:
    """Where to connect and what to ask for (parsed once from the URL)."""

    tls: bool
    host: str
    port: int
    path: str = field(repr=False)  # path and query, as sent in the request line (a token may be in it)
    authorization: str | None = field(default=None, repr=False)  # Basic, from credentials in the URL


@dataclass(frozen=True)
class Webhook:
    """One hook. ``url`` is secret: show :attr:`name`."""

    url: str = field(repr=False)
    format: str  # "discord" or "json" ("auto" is resolved when the hook is made)
    name: str
    target: Target = field(repr=False)
    send: frozenset[str] = frozenset(SENDS)
    queue: int = DEFAULT_QUEUE
    batch: int = 1  # JSON: more than 1, requests carry {"version", "type": "batch", "posts": [...]}

    @property
    def ident(self) -> str:
        """The record's key for this hook: a hash of the URL (the URL itself is not stored)."""
        return hashlib.sha256(self.url.encode("utf-8")).hexdigest()

    def wants(self, kind: str) -> bool:
        """Whether a post of ``kind`` ("roll", "alert") goes to this hook."""
        return f"{kind}s" in self.send


def fingerprint(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:8]


def redact(url: str) -> str:
    """What may be shown of a URL: its scheme, host and port, and a fingerprint of the whole
    (so two hooks on one host can be told apart); never its credentials, path or query, where
    tokens live (``https://discord.com/… #3f2a9c1b``)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "?"
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return f"(a URL) #{fingerprint(url)}"
    host = f"[{host}]" if ":" in host else host
    rest = "/…" if (parts.path not in ("", "/") or parts.query or parts.username) else "/"
    return f"{parts.scheme}://{host}{port}{rest} #{fingerprint(url)}"


def is_discord(url: str) -> bool:
    """A Discord webhook URL: ``https://discord.com/api/webhooks/ID/TOKEN`` (or discordapp.com,
    ptb., canary., an API version in the path)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    segments = [s for s in parts.path.split("/") if s]
    if segments[:1] != ["api"]:
        return False
    if len(segments) > 1 and segments[1].startswith("v") and segments[1][1:].isdigit():
        segments = segments[:1] + segments[2:]
    return (parts.hostname or "").lower() in DISCORD_HOSTS and segments[1:2] == ["webhooks"]


def make_webhook(url: str, *, what: str = "--webhook", format: str = "auto", name: str | None = None,
                 send: tuple[str, ...] | frozenset[str] = SENDS, queue: int = DEFAULT_QUEUE,
                 batch: int = 1) -> Webhook:
    """A checked hook, or a :class:`BoardError` naming ``what`` (the option or config key) and
    what is wrong, without repeating the URL."""
    if format not in FORMATS:
        raise BoardError(what, f"format: expected one of {', '.join(FORMATS)}, got {format!r}")
    unknown = sorted(set(send) - set(SENDS))
    if unknown or not send:
        raise BoardError(what, f"send: expected a non-empty list of {', '.join(SENDS)}, got "
                         f"{sorted(send)!r}")
    if not 1 <= queue <= MAX_QUEUE:
        raise BoardError(what, f"queue: expected a whole number from 1 to {MAX_QUEUE}, got {queue}")
    if not 1 <= batch <= MAX_BATCH:
        raise BoardError(what, f"batch: expected a whole number from 1 to {MAX_BATCH}, got {batch}")
    target = _target(url, what)
    discord = is_discord(url)
    if format == "auto":
        format = "discord" if discord else "json"
    if discord and not target.tls:
        raise BoardError(what, "a Discord webhook URL must start with https://")
    if format == "discord":  # Discord answers once the message is saved (else it says 204 even if it was not)
        target = Target(target.tls, target.host, target.port, _with_query(target.path, "wait=true"),
                        target.authorization)
    if name is not None and (not name.strip() or len(name) > MAX_NAME_CHARS or not name.isprintable()):
        raise BoardError(what, f"name: expected 1 to {MAX_NAME_CHARS} printable characters, got {name!r}")
    if batch > 1 and format == "discord":
        raise BoardError(what, "batch: a Discord hook sends up to 10 rolls a message by itself; batch is for "
                         "json hooks")
    return Webhook(url, format, name or redact(url), target, frozenset(send), queue, batch)


def _target(url: str, what: str) -> Target:
    if not url.isascii() or not url.isprintable() or " " in url:
        raise BoardError(what, "expected an http:// or https:// URL (printable ASCII, no spaces; "
                         "non-ASCII must be percent-encoded)")
    if len(url) > MAX_URL_CHARS:
        raise BoardError(what, f"a URL of {len(url)} characters, more than the {MAX_URL_CHARS} allowed")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise BoardError(what, f"not a URL ({exc}); expected http://HOST[:PORT]/PATH or https://...") from None
    if parts.scheme not in ("http", "https"):
        shown = parts.scheme if parts.scheme.isalnum() and len(parts.scheme) < 20 else "?"
        raise BoardError(what, f"expected an http:// or https:// URL, got one starting with {shown}:")
    if not parts.hostname:
        raise BoardError(what, f"no host in the URL ({redact(url)}); expected {parts.scheme}://HOST/PATH")
    if parts.fragment:
        raise BoardError(what, f"a webhook URL has no #fragment ({redact(url)})")
    tls = parts.scheme == "https"
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    auth = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        auth = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
    return Target(tls, parts.hostname, port or (443 if tls else 80), path, auth)


def _with_query(path: str, pair: str) -> str:
    base, _, query = path.partition("?")
    params = [p for p in query.split("&") if p and p.split("=", 1)[0] != pair.split("=", 1)[0]]
    return base + "?" + "&".join([*params, pair])
