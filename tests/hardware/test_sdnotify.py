"""sd_notify against a real AF_UNIX datagram socket: path and abstract addresses, the watchdog
rate, a manager that went away, and ``dicetower run`` telling a listening "systemd" READY,
WATCHDOG, STATUS and STOPPING."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Iterator

import pytest

from hardware.tower.sdnotify import SystemdNotifier, socket_address, watchdog_interval_ns


class Manager:
    """The service manager's end: a bound AF_UNIX datagram socket that collects messages."""

    def __init__(self, address: str | bytes) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)
        self.messages: list[dict[str, str]] = []

    def receive(self, timeout: float = 20.0) -> dict[str, str]:
        self.sock.settimeout(timeout)
        data = self.sock.recv(4096).decode("utf-8")
        message = dict(line.split("=", 1) for line in data.split("\n"))
        self.messages.append(message)
        return message

    def until(self, key: str, timeout: float = 20.0) -> dict[str, str]:
        """Messages up to and including the first carrying ``key``."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(max(0.01, deadline - time.monotonic()))
            if key in message:
                return message

    def pending(self) -> list[dict[str, str]]:
        got = []
        self.sock.setblocking(False)
        try:
            while True:
                got.append(dict(line.split("=", 1) for line in self.sock.recv(4096).decode().split("\n")))
        except BlockingIOError:
            return got
        finally:
            self.sock.setblocking(True)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def manager(tmp_path) -> Iterator[tuple[Manager, str]]:
    path = str(tmp_path / "notify")
    m = Manager(path)
    try:
        yield m, path
    finally:
        m.close()


def test_socket_address_forms() -> None:
    assert socket_address("/run/systemd/notify") == "/run/systemd/notify"
    assert socket_address("@dicetower/x") == b"\0dicetower/x"
    with pytest.raises(ValueError, match="'relative'"):
        socket_address("relative")


def test_watchdog_interval_is_for_this_process_only() -> None:
    assert watchdog_interval_ns({}, 10) is None
    assert watchdog_interval_ns({"WATCHDOG_USEC": "30000000"}, 10) == 30_000_000_000
    assert watchdog_interval_ns({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "10"}, 10) == 30_000_000_000
    assert watchdog_interval_ns({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "11"}, 10) is None
    assert watchdog_interval_ns({"WATCHDOG_USEC": "0"}, 10) is None
    assert watchdog_interval_ns({"WATCHDOG_USEC": "soon"}, 10) is None


def test_without_notify_socket_nothing_is_sent() -> None:
    notifier = SystemdNotifier.from_environ({})
    assert not notifier.enabled
    assert notifier.send(READY="1") is False
    notifier.ready("x")
    notifier.watchdog()
    notifier.stopping()
    notifier.close()


def test_messages_reach_a_path_socket(manager) -> None:
    m, path = manager
    notifier = SystemdNotifier.from_environ({"NOTIFY_SOCKET": path})
    try:
        notifier.ready("infinity, 0 rolls")
        notifier.status("infinity,   1 roll\n")
        notifier.status("infinity, 1 roll")  # unchanged: not sent again
        notifier.stopping("bye")
    finally:
        notifier.close()
    assert [m.receive(), m.receive(), m.receive()] == [
        {"READY": "1", "STATUS": "infinity, 0 rolls"},
        {"STATUS": "infinity, 1 roll"},
        {"STOPPING": "1", "STATUS": "bye"},
    ]
    assert m.pending() == []


def test_messages_reach_an_abstract_socket() -> None:
    name = f"@dicetower-test-{os.getpid()}-{time.monotonic_ns()}"
    m = Manager(socket_address(name))
    notifier = SystemdNotifier.from_environ({"NOTIFY_SOCKET": name})
    try:
        notifier.ready()
        assert m.receive() == {"READY": "1"}
    finally:
        notifier.close()
        m.close()


def test_watchdog_beats_at_half_the_interval(manager) -> None:
    m, path = manager
    now = [0]
    notifier = SystemdNotifier(path, watchdog_ns=1000, clock=lambda: now[0])
    try:
        notifier.ready()
        m.receive()
        for t in range(0, 2001, 100):  # a loop pass every 100 ns for 2000 ns
            now[0] = t
            notifier.watchdog()
    finally:
        notifier.close()
    beats = m.pending()
    assert beats == [{"WATCHDOG": "1"}] * 4  # at 500, 1000, 1500, 2000


def test_a_manager_that_went_away_is_logged_once_and_never_raises(tmp_path) -> None:
    said: list[str] = []
    path = str(tmp_path / "gone")
    notifier = SystemdNotifier(path, log=said.append)
    try:
        assert notifier.send(STATUS="a") is False
        assert notifier.send(STATUS="b") is False
        assert len(said) == 1 and said[0].startswith("systemd notify: ")
        m = Manager(path)  # the manager is back
        try:
            assert notifier.send(STATUS="c") is True
            assert said[-1] == "systemd notify: working again"
            assert m.receive() == {"STATUS": "c"}
        finally:
            m.close()
    finally:
        notifier.close()


def test_a_bad_notify_socket_value_is_one_line_and_no_notifier() -> None:
    said: list[str] = []
    notifier = SystemdNotifier.from_environ({"NOTIFY_SOCKET": "notify"}, log=said.append)
    assert not notifier.enabled
    assert said == ["systemd notify: NOTIFY_SOCKET must be an absolute path or start with @, got 'notify'; "
                    "not notifying"]


def test_run_tells_systemd_ready_watchdog_status_and_stopping(tmp_path, manager) -> None:
    """``dicetower run`` as systemd runs it (Type=notify, WatchdogSec=): READY with the status
    once the panel is up, watchdog beats from the loop, STOPPING on SIGTERM."""
    pexpect = pytest.importorskip("pexpect")
    m, path = manager
    config = tmp_path / "tower.toml"
    config.write_text(
        '[gpio]\nfactory = "mock"\n[display]\nkind = "terminal"\n'
        f'[kiosk]\nstate_dir = "{tmp_path / "state"}"\n[entropy]\nsource = "kernel"\nbutton_timing = false\n'
    )
    # a 0.4 s watchdog: a beat every 0.2 s or so (the loop passes at least 4 times a second)
    env = dict(os.environ, PYTHONUNBUFFERED="1", NOTIFY_SOCKET=path, WATCHDOG_USEC="400000")
    child = pexpect.spawn(sys.executable, ["-m", "hardware", "run", "--config", str(config)], env=env,
                          encoding="utf-8", timeout=20, dimensions=(40, 100))
    try:
        ready = m.until("READY")
        assert ready == {"READY": "1", "STATUS": "infinity, 0 rolls since start"}
        for _ in range(3):
            assert m.until("WATCHDOG") == {"WATCHDOG": "1"}
        child.kill(signal.SIGTERM)
        stopping = m.until("STOPPING")
        assert stopping == {"STOPPING": "1", "STATUS": "stopping after infinity, 0 rolls since start"}
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        assert "Traceback" not in (child.before or "")
    finally:
        child.close(force=True)
