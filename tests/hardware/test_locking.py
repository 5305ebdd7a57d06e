"""The state directory lock excludes other threads and other processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from hardware.files.locking import LOCK_NAME, LockError, state_lock


def test_excludes_another_thread(tmp_path):
    """flock belongs to the open file description: a second opening in the same process,
    as another thread's state_lock makes, cannot take the lock while the first holds it."""
    import fcntl

    with state_lock(tmp_path):
        fd = os.open(tmp_path / LOCK_NAME, os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    counter = {"n": 0}

    def bump():
        for _ in range(200):
            with state_lock(tmp_path):
                n = counter["n"]
                os.sched_yield()
                counter["n"] = n + 1

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert counter["n"] == 800


def test_excludes_another_process(tmp_path):
    code = (
        "import sys; from hardware.files.locking import state_lock\n"
        "with state_lock(sys.argv[1]):\n"
        "    print('locked', flush=True); sys.stdin.readline()\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "locked"
        import fcntl

        fd = os.open(tmp_path / LOCK_NAME, os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    finally:
        child.communicate("\n", timeout=10)
    with state_lock(tmp_path):
        pass


def test_symlinked_lock_file_is_refused(tmp_path):
    (tmp_path / LOCK_NAME).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(LockError, match="cannot open the lock file"), state_lock(tmp_path):
        pass
    assert not (tmp_path / "elsewhere").exists()
