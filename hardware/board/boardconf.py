"""The board's config file (``dicetower board --config FILE``): its options and its webhooks.

The board takes all its options on the command line, but a webhook URL is a secret (anyone
who has a Discord webhook's URL can post to its channel): on a command line it shows in
``ps`` and in the shell's history, in a systemd unit it is readable by every user. So the
webhooks can also live in a TOML file that only the board's user reads::

    [board]
    mqtt = "mqtt://127.0.0.1:1883"
    store = "shop1"

    [[board.webhook]]
    url_file = "/etc/dicetower/discord-webhook"   # its first line: the URL (or url = "https://...")
    name = "shop discord"                          # shown in logs and on the page (default: host #fingerprint)
    format = "auto"                                # auto | discord | json
    send = ["rolls", "alerts"]
    queue = 10000                                  # posts that may wait (then the oldest rolls are dropped)
    batch = 1                                      # json: up to this many posts a request (a busy store)

Every ``[board]`` key is the option of the same name (``password_file`` is
``--password-file``, ``allow_origins = ["https://vtt.example.com"]`` the ``--allow-origin``
options); an option given on the command line wins, and ``--webhook`` and ``--allow-origin``
add to those of the file. Unknown keys and wrong types are a :class:`~hardware.config.ConfigError`
naming the key, one line, exit 2, as in a tower's config.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.board import BoardError
from hardware.board.serve import parse_origin
from hardware.board.webhooks import DEFAULT_QUEUE, FORMATS, MAX_BATCH, MAX_QUEUE, SENDS, Webhook, make_webhook
from hardware.config import ConfigError
from hardware.config.reader import MAX_CONFIG_BYTES, MAX_CONFIG_DEPTH
from hardware.config.table import Table

#: The ``[board]`` keys that are options (``None``: not given).
OPTIONS = ("mqtt", "listen", "store", "data", "username", "password_file", "ca_file")
#: A url_file is read up to this many bytes (a URL is one short line).
URL_FILE_BYTES = 16 << 10


@dataclass(frozen=True)
class BoardConfig:
    options: dict[str, str]  # the [board] keys given (OPTIONS)
    webhooks: tuple[Webhook, ...] = ()
    allow_origins: tuple[str, ...] = ()


def load(path: str | Path) -> BoardConfig:
    """The board's config from ``path``, or a :class:`ConfigError` naming the key."""
    source = str(path)
    return from_mapping(_read_toml(Path(path), source), source)


def from_mapping(data: dict[str, Any], source: str = "config") -> BoardConfig:
    root = Table(data, "", source)
    board = root.table("board")
    root.done()
    options = {}
    for name in OPTIONS:
        value = board.text(name, "")
        if value:
            options[name] = value
    origins = board.string_list("allow_origins", ())
    raw = board.raw("webhook", [])
    board.done()
    if not isinstance(raw, list):
        raise ConfigError("board.webhook", "expected [[board.webhook]] tables (an array of tables)", source)
    hooks = tuple(_webhook(Table(item, f"board.webhook[{n}]", source), source) for n, item in enumerate(raw))
    for origin in origins:
        try:
            parse_origin(origin, "allow_origins")
        except BoardError as exc:
            raise ConfigError("board.allow_origins", exc.detail, source) from None
    return BoardConfig(options, hooks, origins)


def _webhook(t: Table, source: str) -> Webhook:
    url, url_file = t.text("url", ""), t.text("url_file", "")
    if bool(url) == bool(url_file):
        raise t.error("url", "give the webhook's url, or url_file naming a file whose first line is the URL "
                             "(exactly one of them)")
    name = t.text("name", "") or None
    format_ = t.choice("format", "auto", FORMATS)
    send = t.string_list("send", SENDS)
    queue = t.integer("queue", DEFAULT_QUEUE, 1, MAX_QUEUE)
    batch = t.integer("batch", 1, 1, MAX_BATCH)
    t.done()
    if url_file:
        url = _read_url(url_file, t.key("url_file"), source)
    try:
        return make_webhook(url, what=f"{source}: {t.prefix}", format=format_, name=name, send=tuple(send),
                            queue=queue, batch=batch)
    except BoardError as exc:
        raise ConfigError(t.prefix, exc.detail, source) from None


def _read_url(path: str, key: str, source: str) -> str:
    from hardware.files.safefile import FileRefused, read_capped

    try:
        data = read_capped(Path(path).expanduser(), URL_FILE_BYTES)
    except FileRefused as exc:
        raise ConfigError(key, f"{path}: {exc.strerror}", source) from None
    except OSError as exc:
        raise ConfigError(key, f"cannot read {path}: {exc.strerror or exc}", source) from None
    lines = data.decode("utf-8", "replace").splitlines()
    if not lines or not lines[0].strip():
        raise ConfigError(key, f"{path} is empty; put the webhook's URL on its first line", source)
    return lines[0].strip()


def _read_toml(path: Path, source: str) -> dict[str, Any]:
    import tomllib

    from hardware.files.safefile import FileRefused, check_nesting, read_capped

    try:
        data = read_capped(path, MAX_CONFIG_BYTES)
        text = data.decode("utf-8")
        check_nesting(text, MAX_CONFIG_DEPTH, "the config")
        return tomllib.loads(text)
    except FileRefused as exc:
        raise ConfigError("file", str(exc.strerror), source) from None
    except OSError as exc:
        raise ConfigError("file", f"cannot read it: {exc.strerror or exc}", source) from None
    except UnicodeDecodeError as exc:
        raise ConfigError("file", f"not UTF-8 text (byte {exc.start}); TOML files are UTF-8", source) from None
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError("toml", f"not valid TOML: {exc}", source) from None
