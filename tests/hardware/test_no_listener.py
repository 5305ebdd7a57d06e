"""``dicetower run`` opens no network listener (nor any internet socket) unless a network
feature is configured: the running process's sockets, looked up in /proc."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")


def socket_inodes(pid: int) -> set[str]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            found.add(target[len("socket:["):-1])
    return found


def inet_sockets(pid: int, inodes: set[str]) -> list[str]:
    """Lines of /proc/PID/net/{tcp,udp}{,6} (the process's network namespace) that are its own."""
    mine = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        path = Path(f"/proc/{pid}/net/{table}")
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            if line.split()[9] in inodes:
                mine.append(f"{table}: {line.strip()}")
    return mine


def listening_unix(pid: int, inodes: set[str]) -> list[str]:
    """Unix sockets of the process that accept connections (__SO_ACCEPTCON)."""
    mine = []
    for line in Path(f"/proc/{pid}/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[6] in inodes and int(fields[3], 16) & 0x10000:
            mine.append(line.strip())
    return mine


@pytest.mark.skipif(not Path("/proc/self/net/tcp").exists(), reason="needs Linux /proc")
def test_run_has_no_network_sockets(tmp_path) -> None:
    config = tmp_path / "tower.toml"
    config.write_text(
        '[gpio]\nfactory = "mock"\n[display]\nkind = "terminal"\n'
        f'[kiosk]\nstate_dir = "{tmp_path / "state"}"\nlock = true\n'
        '[entropy]\nsource = "kernel"\nbutton_timing = false\n'
    )
    child = pexpect.spawn(sys.executable, ["-m", "hardware", "run", "--config", str(config)],
                          env=dict(os.environ, PYTHONUNBUFFERED="1"), encoding="utf-8", timeout=20,
                          dimensions=(40, 100))
    try:
        child.expect(r"dicetower: running \(")
        inodes = socket_inodes(child.pid)
        assert inet_sockets(child.pid, inodes) == []
        assert listening_unix(child.pid, inodes) == []
        child.kill(signal.SIGTERM)
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


@pytest.mark.skipif(not Path("/proc/self/net/tcp").exists(), reason="needs Linux /proc")
def test_the_check_sees_a_listener(tmp_path) -> None:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp, \
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen()
        unix.bind(str(tmp_path / "sock"))
        unix.listen()
        inodes = socket_inodes(os.getpid())
        assert len(inet_sockets(os.getpid(), inodes)) == 1
        assert len(listening_unix(os.getpid(), inodes)) == 1
