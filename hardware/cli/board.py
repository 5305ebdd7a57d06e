"""``dicetower board``: the store's towers live, verified, on a web page (docs/network.md)."""

from __future__ import annotations

import argparse

from hardware.cli.output import say


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "board",
        help="watch a store's towers over MQTT: verify every roll, serve a live page, overlay and API",
        description="Subscribes to the towers' roll logs on an MQTT broker, checks every tower's hash chain, "
        "replays every revealed session, keeps its record in SQLite under --data, and serves a live web page (/), "
        "an OBS overlay (/overlay?tower=T) and JSON (/api/towers, /api/towers/T/rolls).",
    )
    p.add_argument("--mqtt", metavar="URL", required=True, help="the broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    p.add_argument("--listen", metavar="HOST:PORT", default=None,
                   help="where the web page is served (default 127.0.0.1:8080: this machine only)")
    p.add_argument("--store", metavar="STORE", help="watch this store only (default: every store on the broker)")
    p.add_argument("--data", metavar="DIR",
                   help="where the board keeps its record (default: board/ in the state directory, "
                        "$STATE_DIRECTORY under systemd, else ~/.local/state/dicetower/board)")
    p.add_argument("--username", metavar="USER", help="broker login (the board's own user, see deploy/mosquitto)")
    p.add_argument("--password-file", metavar="FILE", help="file whose first line is the broker password")
    p.add_argument("--ca-file", metavar="FILE", help="mqtts: the CA certificate to trust (default: the system's)")
    p.set_defaults(func=cmd_board)


def cmd_board(args: argparse.Namespace) -> int:
    from hardware.board.serve import DEFAULT_LISTEN, bind, board_app, data_dir, parse_listen, serve
    from hardware.network.broker import Credentials, parse_url, read_password
    from hardware.network.topics import check_id

    url = parse_url(args.mqtt, what="--mqtt")
    if args.store is not None:
        check_id("--store", args.store)
    password = read_password(args.password_file, what="--password-file") if args.password_file is not None else None
    credentials = Credentials(username=args.username, password=password, ca_file=args.ca_file)
    listen = parse_listen(args.listen or DEFAULT_LISTEN)
    data = data_dir(args.data)
    app, towers = board_app(url, store=args.store, data=data, credentials=credentials, log=_stderr)
    try:
        sock = bind(listen)
    except BaseException:
        towers.close()
        raise
    _stderr(f"board: http://{listen}/ (overlay /overlay?tower=T, API /api/towers), broker {url}, record {data}")
    serve(app, sock, towers)
    _stderr("board: stopped")
    return 0


def _stderr(message: str) -> None:
    say(f"dicetower: {message}")
