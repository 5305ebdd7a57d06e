"""``dicetower board``: the store's towers live, verified, on a web page (docs/network.md).

The board's web stack is the ``store`` extra (pyproject.toml), which a tower installs
without: this module imports none of it, and ``dicetower board`` without it is one line
naming what to install, exit 2 (a command that cannot start here: docs/roll-log.md).
"""

from __future__ import annotations

import argparse
import importlib

from hardware.cli.output import say

#: The top-level modules of the ``store`` extra (pyproject.toml's ``[store]``) that the board
#: imports itself.
STORE_MODULES = ("starlette", "uvicorn", "anyio")
#: Modules of the extra that the web stack imports only once it serves (uvicorn's HTTP
#: protocol): looked up before, so a half install is the same one line, not a traceback later.
SERVING_MODULES = ("h11",)
#: A module of ours missing is a bug, not a missing extra.
OUR_PACKAGES = frozenset({"engine", "hardware", "firmware_bridge"})
#: What to run to get them: in a clone (the README's quick start), and on an installed tower.
STORE_HINT = (".venv/bin/pip install -e '.[store]' in a clone, or deploy/install.sh --store (as root) on an "
              "installed tower")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "board",
        help="watch a store's towers over MQTT: verify every roll, serve a live page, overlay and API",
        description="Subscribes to the towers' roll logs on an MQTT broker, checks every tower's hash chain, "
        "replays every revealed session, keeps its record in SQLite under --data, and serves a live web page (/), "
        "an OBS overlay (/overlay?tower=T) and JSON (/api/towers, /api/towers/T/rolls). With --webhook, posts "
        "each verified roll and each red verdict to Discord or any URL.",
    )
    p.add_argument("--config", metavar="FILE",
                   help="a TOML file with a [board] table (the options below) and [[board.webhook]] tables; "
                        "options given here win")
    p.add_argument("--mqtt", metavar="URL", help="the broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    p.add_argument("--listen", metavar="HOST:PORT", default=None,
                   help="where the web page is served (default 127.0.0.1:8080: this machine only)")
    p.add_argument("--store", metavar="STORE", help="watch this store only (default: every store on the broker)")
    p.add_argument("--data", metavar="DIR",
                   help="where the board keeps its record (default: board/ in the state directory, "
                        "$STATE_DIRECTORY under systemd, else ~/.local/state/dicetower/board)")
    p.add_argument("--username", metavar="USER", help="broker login (the board's own user, see deploy/mosquitto)")
    p.add_argument("--password-file", metavar="FILE", help="file whose first line is the broker password")
    p.add_argument("--ca-file", metavar="FILE", help="mqtts: the CA certificate to trust (default: the system's)")
    p.add_argument("--webhook", metavar="URL", action="append", default=[],
                   help="post each verified roll and red verdict here (repeatable): Discord's webhook JSON for a "
                        "Discord webhook URL, the board's plain JSON otherwise (a URL is a secret: --config "
                        "keeps it out of ps)")
    p.add_argument("--allow-origin", metavar="ORIGIN", action="append", default=[],
                   help="let pages of this origin (a virtual tabletop's, https://HOST[:PORT]) read the API and "
                        "/events from the browser (repeatable; CORS, GET only)")
    p.set_defaults(func=cmd_board)


def cmd_board(args: argparse.Namespace) -> int:
    from hardware.cli import EXIT_UNRECORDED, EXIT_USAGE

    missing = store_missing()
    if missing:
        say(_no_store(missing))
        return EXIT_USAGE
    try:
        for module in ("hardware.board.serve", "uvicorn"):  # the web stack, before any option is read
            importlib.import_module(module)
    except ModuleNotFoundError as exc:  # the extra is there, but a module it needs is not (a half install)
        if not exc.name or exc.name.split(".")[0] in OUR_PACKAGES:
            raise
        say(_no_store([exc.name]))
        return EXIT_USAGE
    late = store_missing(SERVING_MODULES)
    if late:
        say(_no_store(late))
        return EXIT_USAGE
    from hardware.board.record import RecordError

    try:
        return _board(args)
    except RecordError as exc:  # damaged, full, read-only: the record cannot be used (docs/network.md)
        say(f"dicetower: cannot record: {exc}")
        return EXIT_UNRECORDED


def store_missing(modules: tuple[str, ...] = STORE_MODULES) -> list[str]:
    """The store extra's modules this Python cannot import (looked up, not imported)."""
    from importlib.util import find_spec

    return [name for name in modules if find_spec(name) is None]


def _no_store(missing: list[str]) -> str:
    return (f"dicetower board: the store's board needs the store extra, which is not installed here "
            f"(no {', '.join(missing)}): {STORE_HINT}")


def _board(args: argparse.Namespace) -> int:
    from hardware.board import BoardError
    from hardware.board.boardconf import BoardConfig, load
    from hardware.board.serve import DEFAULT_LISTEN, bind, board_app, data_dir, parse_listen, parse_origin, serve
    from hardware.board.webhooks import make_webhook
    from hardware.network.broker import Credentials, parse_url, read_password
    from hardware.network.topics import check_id

    config = load(args.config) if args.config else BoardConfig({})
    option = {name: _given(getattr(args, name), config.options.get(name)) for name in (
        "mqtt", "listen", "store", "data", "username", "password_file", "ca_file")}
    if not option["mqtt"]:
        raise BoardError("--mqtt", "the broker is needed (--mqtt mqtt://HOST[:PORT], or mqtt in --config's [board])")
    url = parse_url(option["mqtt"], what="--mqtt")
    if option["store"] is not None:
        check_id("--store", option["store"])
    password_file = option["password_file"]
    password = read_password(password_file, what="--password-file") if password_file is not None else None
    credentials = Credentials(username=option["username"], password=password, ca_file=option["ca_file"])
    listen = parse_listen(option["listen"] or DEFAULT_LISTEN)
    data = data_dir(option["data"], "--data" if args.data is not None else f"{args.config}: board.data")
    webhooks = [*config.webhooks, *(make_webhook(u) for u in args.webhook)]
    names = [h.name for h in webhooks]
    if len({h.ident for h in webhooks}) < len(webhooks):
        raise BoardError("--webhook", "the same URL is given twice; each hook once")
    origins = [*config.allow_origins, *(parse_origin(o) for o in args.allow_origin)]
    app, towers = board_app(url, store=option["store"], data=data, credentials=credentials, log=_stderr,
                            webhooks=webhooks, allow_origins=origins)
    try:
        sock = bind(listen)
    except BaseException:
        towers.close()
        raise
    hooks = f", {len(webhooks)} webhook(s): {', '.join(names)}" if webhooks else ""
    _stderr(f"board: http://{listen}/ (overlay /overlay?tower=T, API /api/towers), broker {url}, record {data}{hooks}")
    serve(app, sock, towers)
    _stderr("board: stopped")
    return 0


def _stderr(message: str) -> None:
    say(f"dicetower: {message}")


def _given(flag: str | None, configured: str | None) -> str | None:
    """The command line's value where one was given (even an empty one, so it is refused), else the file's."""
    return flag if flag is not None else configured
