"""Byte sources: health tests before use, conditioning and credit, OS errors as one-line fixes."""

from __future__ import annotations

import errno
import hashlib
import math
import os

import pytest

from engine.errors import EntropyError
from hardware.entropy.file_offsets import FileOffsets
from hardware.entropy.sources import (
    CONDITION_LABEL,
    CREDIT_CAP_BITS,
    HWRNG_UDEV_RULE,
    SourceUnavailable,
    claim,
    file_source,
    hwrng_source,
    kernel_source,
)


def good_bytes(n: int, label: bytes = b"x") -> bytes:
    """Deterministic bytes that look random (SHA-256 in counter mode)."""
    out = b"".join(hashlib.sha256(label + i.to_bytes(4, "big")).digest() for i in range(-(-n // 32)))
    return out[:n]


def test_file_source_with_good_bytes_passes_and_credits_the_cap(tmp_path) -> None:
    path = tmp_path / "capture.bin"
    path.write_bytes(good_bytes(8192))
    src = file_source(str(path), offsets=FileOffsets(tmp_path))
    share = src.gather()
    assert share.source == f"file:{path}"
    assert share.samples == 1024  # the start-up test needs 1024 samples
    assert share.credited_bits == CREDIT_CAP_BITS
    assert len(share.block) == 64
    expected = hashlib.sha512(CONDITION_LABEL + b"\x00" + share.source.encode() + b"\x00" + good_bytes(1024)).digest()
    assert share.block == expected
    assert src.monitor.ready and src.status() == "ok"
    # Later sessions read on from where the last one stopped, only what the credit cap needs at
    # the estimated rate (the minimum SP 800-90B estimate times the file's design factor 1/4).
    _, bits = src.assessor.last.minimum
    assert 3 < bits <= 8 and src.assessor.rate == bits / 4
    second = src.gather()
    assert second.samples == math.ceil(CREDIT_CAP_BITS / src.assessor.rate) > CREDIT_CAP_BITS / claim("file")
    assert second.block != share.block


def test_dev_zero_fails_the_repetition_count_test_and_stays_failed() -> None:
    src = file_source("/dev/zero")
    with pytest.raises(EntropyError) as info:
        src.gather()
    assert info.value.source == "file:/dev/zero"
    assert "repetition count test" in str(info.value)
    assert not isinstance(info.value, SourceUnavailable)
    assert src.failed and src.status() == "FAILED RCT"
    with pytest.raises(EntropyError, match="repetition count"):
        src.gather()


def test_a_biased_source_fails_the_adaptive_proportion_test(tmp_path) -> None:
    # 0, 0, then a random byte: never 21 repeats in a row, but 0 fills 2/3 of every window,
    # above the cutoff (589 of 1024) for the 1 bit/byte a file is credited.
    noise = good_bytes(1024)
    path = tmp_path / "biased.bin"
    path.write_bytes(bytes(b for i in range(1024) for b in (0, 0, noise[i] | 1)))
    with pytest.raises(EntropyError, match="adaptive proportion test"):
        file_source(str(path), offsets=FileOffsets(tmp_path)).gather()


def test_kernel_source_works() -> None:
    src = kernel_source()
    share = src.gather()
    assert share.source == "kernel" and share.credited_bits == CREDIT_CAP_BITS
    assert src.gather().block != share.block


def test_kernel_source_health_tests_its_bytes_too() -> None:
    src = kernel_source(getrandom=lambda n: b"\x07" * n)
    with pytest.raises(EntropyError, match="kernel: failed the repetition count test"):
        src.gather()


def test_missing_hwrng_says_what_is_missing(tmp_path) -> None:
    src = hwrng_source(str(tmp_path / "hwrng"))
    with pytest.raises(SourceUnavailable) as info:
        src.gather()
    text = str(info.value)
    assert text.startswith("entropy source hwrng: ")
    assert "does not exist" in text and "--entropy kernel" in text
    assert "\n" not in text
    assert src.status() == "absent"


def test_hwrng_permission_denied_names_the_udev_rule_and_group() -> None:
    def denied(path: str):
        raise PermissionError(errno.EACCES, "Permission denied", path)

    src = hwrng_source("/dev/hwrng", opener=denied)
    with pytest.raises(SourceUnavailable) as info:
        src.gather()
    text = str(info.value)
    assert HWRNG_UDEV_RULE in text and "dicetower group" in text and "usermod" in text
    assert "\n" not in text
    assert src.status() == "no permission"


def test_hwrng_without_data_times_out_instead_of_hanging(tmp_path) -> None:
    class Empty:
        def read(self, n: int):
            return None  # what a non-blocking read returns when no data is ready

        def close(self) -> None:
            pass

    ticks = iter(range(0, 1000))
    waits: list[float] = []
    src = hwrng_source("/dev/hwrng", opener=lambda p: Empty(), timeout_s=5, monotonic=lambda: next(ticks),
                       wait=waits.append)
    with pytest.raises(SourceUnavailable, match="no data from /dev/hwrng within 5 s"):
        src.gather()
    assert waits  # it backed off between polls


def test_a_short_file_runs_out_with_a_clear_message(tmp_path) -> None:
    path = tmp_path / "short.bin"
    path.write_bytes(good_bytes(100))
    with pytest.raises(SourceUnavailable, match=r"short.bin: short.bin is exhausted: 100 of its 100 bytes are "
                                                r"left unread, a session needs 1024"):
        file_source(str(path), offsets=FileOffsets(tmp_path)).gather()


def test_a_directory_is_not_a_source(tmp_path) -> None:
    with pytest.raises(SourceUnavailable, match="is a directory"):
        file_source(str(tmp_path)).gather()


def test_a_readable_device_path_can_stand_in_for_hwrng(tmp_path) -> None:
    path = tmp_path / "fake-hwrng"
    path.write_bytes(os.urandom(4096))
    share = hwrng_source(str(path)).gather()
    assert share.source == "hwrng" and share.credited_bits == CREDIT_CAP_BITS
