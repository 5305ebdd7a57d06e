"""Telling systemd how the tower is doing: the sd_notify protocol, in a few lines of stdlib.

Under ``Type=notify`` systemd passes ``$NOTIFY_SOCKET`` (a filesystem path, or an abstract
socket name written with a leading ``@``) and, with ``WatchdogSec=``, ``$WATCHDOG_USEC``. The
service sends datagrams of ``KEY=VALUE`` lines: ``READY=1`` once the panel is up,
``WATCHDOG=1`` from the main loop (so a loop stuck on a dead bus is restarted),
``STATUS=...`` for ``systemctl status``, and ``STOPPING=1`` when shutdown begins.

Outside systemd (no ``$NOTIFY_SOCKET``) every call does nothing. A send that fails (the
manager went away) is reported once through ``log`` and never stops the tower. This is our
own code rather than a library because the protocol is one ``sendto`` and the libraries
either need a C build (``systemd-python``) or do not read the watchdog interval.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping
from typing import Protocol


class Notifier(Protocol):
    """What the main loop tells its service manager."""

    def ready(self, status: str = "") -> None: ...

    def status(self, text: str) -> None: ...

    def watchdog(self, now_ns: int | None = None) -> None: ...

    def stopping(self, status: str = "") -> None: ...

    def close(self) -> None: ...


def socket_address(name: str) -> str | bytes:
    """The address to ``sendto`` for a ``$NOTIFY_SOCKET`` value: ``@NAME`` is the abstract
    socket NAME (a leading NUL byte); anything else must be an absolute path."""
    if name.startswith("@"):
        return b"\0" + name[1:].encode("utf-8", "surrogateescape")
    if not name.startswith("/"):
        raise ValueError(f"NOTIFY_SOCKET must be an absolute path or start with @, got {name!r}")
    return name


def watchdog_interval_ns(environ: Mapping[str, str], pid: int) -> int | None:
    """The watchdog timeout systemd expects this process to beat within, in ns, or None.

    ``$WATCHDOG_PID`` (when set) names the process the watchdog is meant for: a child that
    inherited the environment must not feed it."""
    usec = environ.get("WATCHDOG_USEC", "")
    wanted_pid = environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if wanted_pid and (not wanted_pid.isdigit() or int(wanted_pid) != pid):
        return None
    return int(usec) * 1000


class SystemdNotifier:
    """A :class:`Notifier` over the AF_UNIX datagram socket systemd gave (or nothing).

    ``watchdog`` sends at most once per half the watchdog interval (systemd's advice), so it
    may be called on every pass of the loop."""

    def __init__(
        self,
        address: str | bytes | None,
        *,
        watchdog_ns: int | None = None,
        clock: Callable[[], int] = time.monotonic_ns,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.address = address
        self.watchdog_ns = watchdog_ns
        self.clock = clock
        self.log = log or (lambda message: None)
        self._sock: socket.socket | None = None
        self._fed_at: int | None = None
        self._status = ""
        self._failed = False

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None, *,
                     log: Callable[[str], None] | None = None) -> SystemdNotifier:
        """The notifier systemd's environment asks for (one that does nothing without it)."""
        env = os.environ if environ is None else environ
        name = env.get("NOTIFY_SOCKET", "")
        if not name:
            return cls(None, log=log)
        try:
            address: str | bytes | None = socket_address(name)
        except ValueError as exc:
            if log is not None:
                log(f"systemd notify: {exc}; not notifying")
            address = None
        return cls(address, watchdog_ns=watchdog_interval_ns(env, os.getpid()), log=log)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, **fields: str) -> bool:
        """Send one notification (``send(READY="1", STATUS="...")``); False when not sent."""
        if self.address is None:
            return False
        message = "\n".join(f"{key}={value}" for key, value in fields.items()).encode("utf-8")
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto(message, self.address)
        except OSError as exc:
            if not self._failed:
                self._failed = True
                self.log(f"systemd notify: {exc.strerror or exc}")
            return False
        if self._failed:
            self._failed = False
            self.log("systemd notify: working again")
        return True

    def ready(self, status: str = "") -> None:
        fields = {"READY": "1"}
        if status:
            fields["STATUS"] = self._status = _one_line(status)
        self.send(**fields)
        self._fed_at = self.clock()

    def status(self, text: str) -> None:
        """Send STATUS= when the text changed (every pass of the loop may call this)."""
        text = _one_line(text)
        if text != self._status:
            self._status = text
            self.send(STATUS=text)

    def watchdog(self, now_ns: int | None = None) -> None:
        if self.watchdog_ns is None:
            return
        now = self.clock() if now_ns is None else now_ns
        if self._fed_at is not None and now - self._fed_at < self.watchdog_ns // 2:
            return
        self._fed_at = now
        self.send(WATCHDOG="1")

    def stopping(self, status: str = "") -> None:
        fields = {"STOPPING": "1"}
        if status:
            fields["STATUS"] = self._status = _one_line(status)
        self.send(**fields)

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def _one_line(text: str) -> str:
    return " ".join(text.split())
