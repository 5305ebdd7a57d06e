"""Where the broker is and how to log in: ``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]``.

One place builds every paho-mqtt client (tower and board alike): protocol, TLS, credentials
and the reconnect back-off, so both ends behave the same towards the broker.
"""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from hardware.network import NetworkError

if TYPE_CHECKING:
    from paho.mqtt.client import Client

#: scheme -> (TLS, default port)
SCHEMES = {"mqtt": (False, 1883), "mqtts": (True, 8883)}
#: Reconnect back-off: first retry soon (a broker restart), then at most this far apart.
RECONNECT_MIN_S = 0.2
RECONNECT_MAX_S = 5
KEEPALIVE_S = 15


@dataclass(frozen=True)
class BrokerURL:
    """A parsed broker URL; credentials in the URL are allowed but a password file is better."""

    host: str
    port: int
    tls: bool
    username: str | None = None
    password: str | None = None

    def __str__(self) -> str:
        scheme = "mqtts" if self.tls else "mqtt"
        user = f"{self.username}@" if self.username else ""
        return f"{scheme}://{user}{self.host}:{self.port}"


def parse_url(text: str, *, what: str = "mqtt") -> BrokerURL:
    """``mqtt://HOST[:PORT]`` or ``mqtts://...``; a :class:`NetworkError` names what is wrong."""
    allowed = "mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise NetworkError(what, f"{exc}: expected {allowed}, got {text!r}") from None
    if parts.scheme not in SCHEMES:
        raise NetworkError(what, f"expected {allowed}, got {text!r}")
    if not parts.hostname:
        raise NetworkError(what, f"no host in {text!r}: expected {allowed}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise NetworkError(what, f"expected {allowed} with nothing after the port, got {text!r}")
    tls, default_port = SCHEMES[parts.scheme]
    return BrokerURL(
        host=parts.hostname, port=port or default_port, tls=tls,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
    )


#: A password file is one line; a CA file a few certificates.
MAX_PASSWORD_BYTES = 4096
MAX_CA_BYTES = 1 << 20


def read_password(path: str, *, what: str = "password_file") -> str:
    """The first line of a password file (the rest of the config may be world-readable),
    read by the one rule (:mod:`hardware.files.safefile`: no link followed, no FIFO waited on)."""
    text = _read_small(path, MAX_PASSWORD_BYTES, what)
    lines = text.splitlines()
    if not lines or not lines[0]:
        raise NetworkError(what, f"{path} is empty; put the broker password on its first line")
    return lines[0]


def _read_small(path: str, max_bytes: int, what: str) -> str:
    """A small text file named in the config or on the command line; :class:`NetworkError`
    naming ``what`` when it cannot be used."""
    import errno

    from hardware.files.paths import PathError, user_path
    from hardware.files.safefile import FileRefused, read_text

    try:
        return read_text(user_path(path, what), max_bytes)
    except PathError as exc:
        raise NetworkError(exc.what, exc.detail) from None
    except FileRefused as exc:
        raise NetworkError(what, str(exc.strerror)) from None
    except OSError as exc:
        why = ("it is a symbolic link; name the file it points to" if exc.errno == errno.ELOOP
               else exc.strerror or exc)
        raise NetworkError(what, f"cannot read {path}: {why}") from None


@dataclass(frozen=True)
class Credentials:
    """How to log in: user and password (None: anonymous) and the CA file for mqtts (None:
    the system's trusted certificates)."""

    username: str | None = None
    password: str | None = None
    ca_file: str | None = None


def make_client(url: BrokerURL, client_id: str, credentials: Credentials, *, ca_what: str = "ca_file") -> Client:
    """A paho-mqtt client (callback API version 2, MQTT 3.1.1, clean session), not yet connected.
    ``ca_what`` names the CA file's option in messages."""
    from paho.mqtt.client import Client
    from paho.mqtt.enums import CallbackAPIVersion  # paho's own home of it (the client module re-exports it)

    client = Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True)
    username = credentials.username or url.username
    password = credentials.password if credentials.password is not None else url.password
    if username:
        client.username_pw_set(username, password)
    if credentials.ca_file and not url.tls:  # given for a reason: a plain connection would ignore it
        raise NetworkError(ca_what, "mqtt:// does not use TLS, so a CA file does nothing there; use "
                           f"mqtts://HOST:8883 for a broker with a certificate, or leave {ca_what} out")
    if url.tls:
        ca_file = credentials.ca_file
        try:
            if ca_file:  # read by the one rule, then handed to TLS as text
                if not os.path.lexists(ca_file) and not ca_file.startswith("~"):
                    raise NetworkError(ca_what, f"no such file {ca_file}")
                cadata = _read_small(ca_file, MAX_CA_BYTES, ca_what)
                client.tls_set_context(ssl.create_default_context(cadata=cadata))
            else:
                client.tls_set(ca_certs=None, cert_reqs=ssl.CERT_REQUIRED)
        except (ssl.SSLError, OSError, ValueError) as exc:
            if isinstance(exc, NetworkError):
                raise
            raise NetworkError(ca_what, f"cannot use {ca_file}: {exc}") from None
    # paho annotates whole seconds, but its back-off is plain arithmetic: 0.2 s works (a broker restart)
    client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)  # type: ignore[arg-type]
    return client


def release(client: Client) -> None:
    """Disconnect, stop the network thread and close every socket of a paho client now.

    paho keeps a loopback socket pair (to wake its loop) until the client object is garbage
    collected; ``reinitialise`` is its public way to close them at once."""
    client.disconnect()
    client.loop_stop()
    client.reinitialise()
