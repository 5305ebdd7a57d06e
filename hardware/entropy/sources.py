"""Byte entropy sources: the kernel (``getrandom``), ``/dev/hwrng`` and ``file:PATH``.

Each source reads raw bytes, runs every byte through its SP 800-90B health monitor and its
entropy estimators (:mod:`hardware.entropy.assessment`) before any of them is used, and
conditions the batch with SHA-512 into one 64-byte block. Each source claims a min-entropy per
byte (its row's ``claim`` in :data:`hardware.backends.ENTROPY_SOURCES`) that is deliberately
below what a working source delivers: the claim sets the health-test cutoffs, and a low claim
keeps false alarms (which take a source out of service) astronomically rare. The credit is what
the estimators measured times the source's design factor. See docs/fairness.md for the reasoning
behind each figure.

Operating-system errors become :class:`SourceUnavailable` (an ``EntropyError``) here, at the
edge, with one line that says how to fix them.
"""

from __future__ import annotations

import errno
import hashlib
import math
import os
import stat
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from engine.errors import EntropyError
from engine.health import HealthMonitor
from hardware.entropy.assessment import EntropyAssessor
from hardware.errors import HardwareError

if TYPE_CHECKING:
    from hardware.entropy.buttons import ButtonTiming
    from hardware.entropy.file_offsets import FileOffsets

__all__ = [
    "CONDITION_LABEL",
    "CREDIT_CAP_BITS",
    "HWRNG_PATH",
    "HWRNG_UDEV_RULE",
    "ByteSource",
    "Contribution",
    "EntropySource",
    "FileSource",
    "SourceContext",
    "SourceUnavailable",
    "claim",
    "condition",
    "file_source",
    "hwrng_source",
    "kernel_source",
]



def claim(kind: str) -> float:
    """The min-entropy a byte source claims per raw byte (the health tests' H): its row's."""
    from hardware.backends import ENTROPY_SOURCES

    claimed = ENTROPY_SOURCES.get(kind).claim
    if claimed is None:
        raise ValueError(f"entropy source {kind!r} claims nothing per byte: it is not a byte source")
    return claimed

#: At most this many bits are credited to one 512-bit conditioned block (SHA-512 output less
#: a 64-bit margin, SP 800-90B 3.1.5.1.2 / SP 800-90C's full-entropy margin).
CREDIT_CAP_BITS = 448
#: Domain separation of the conditioning hash.
CONDITION_LABEL = b"dicetower/condition/v1"
HWRNG_PATH = "/dev/hwrng"
#: The udev rule the deploy step installs so the ``dicetower`` group may read the device.
HWRNG_UDEV_RULE = 'KERNEL=="hwrng", GROUP="dicetower", MODE="0640"'
#: SP 800-90B's APT window for non-binary samples.
BYTE_WINDOW = 1024


class SourceUnavailable(HardwareError, EntropyError):
    """The source cannot be read at all (missing device, no permission, no data).

    Unlike a failed health test this is not sticky: ``auto`` skips the source and tries it
    again at the next session.
    """


@dataclass(frozen=True)
class Contribution:
    """One source's conditioned share of a session's entropy input."""

    source: str
    block: bytes
    credited_bits: int
    samples: int


def condition(source: str, raw: bytes, h_in: float) -> Contribution:
    """SHA-512 of ``label || 0 || source || 0 || raw``; credits ``min(h_in, 448)`` bits.

    SHA-512 is an SP 800-90B vetted conditioning function: with input min-entropy ``h_in`` its
    512-bit output carries about ``min(h_in, 512)`` bits; crediting at most 448 keeps a margin.
    """
    block = hashlib.sha512(CONDITION_LABEL + b"\x00" + source.encode("utf-8") + b"\x00" + raw).digest()
    return Contribution(source, block, min(CREDIT_CAP_BITS, math.floor(h_in)), len(raw))


class EntropySource(Protocol):
    """What a session needs from a source (a bridge source implements the same)."""

    name: str

    def gather(self) -> Contribution:
        """Read, health-test and condition a fresh batch; raise ``EntropyError`` if it can't."""
        ...

    def status(self) -> str:
        """One short word or two for the settings screen: ``ok``, ``failed: …``, ``absent``."""
        ...

    @property
    def failed(self) -> str | None:
        """The sticky health-test failure, or None."""
        ...


Opener = Callable[[str], BinaryIO]


def _open_nonblocking(path: str) -> BinaryIO:
    # O_NONBLOCK so that an hwrng without data makes read() return EAGAIN instead of hanging.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        return os.fdopen(fd, "rb", buffering=0)
    except OSError as exc:  # a directory opens, then fails here: name the path, not the fd
        os.close(fd)
        raise type(exc)(exc.errno, exc.strerror, path) from None


class ByteSource:
    """Raw bytes from a device or file (or a callable), health-tested byte by byte.

    ``read`` overrides the file path (the kernel source passes ``os.getrandom``). ``explain``
    turns an ``OSError`` from opening into the one-line fix shown to the user.
    """

    def __init__(
        self,
        name: str,
        bits_per_byte: float,
        *,
        path: str | None = None,
        read: Callable[[int], bytes] | None = None,
        opener: Opener = _open_nonblocking,
        explain: Callable[[OSError], str] | None = None,
        timeout_s: float = 5.0,
        monotonic: Callable[[], float] = time.monotonic,
        wait: Callable[[float], None] = time.sleep,
    ) -> None:
        if (path is None) == (read is None):
            raise ValueError("give a byte source either a path or a read function")
        self.name = name
        self.bits_per_byte = float(bits_per_byte)
        self.path = path
        self.monitor = HealthMonitor(name, bits_per_byte, window=BYTE_WINDOW)
        self.assessor = EntropyAssessor(name, name.split(":", 1)[0])
        self._read_fn = read
        self._opener = opener
        self._explain = explain or _explain_file
        self._timeout_s = timeout_s
        self._monotonic = monotonic
        self._wait = wait
        self._file: BinaryIO | None = None
        self._unavailable: str | None = None

    def __repr__(self) -> str:
        return f"ByteSource({self.name!r}, {self.bits_per_byte:g} bits/byte, {self.status()})"

    @property
    def failed(self) -> str | None:
        return self.monitor.failed or self.assessor.failed

    def status(self) -> str:
        if self.failed:
            return "FAILED " + _test_name(self.failed)
        if self._unavailable:
            return self._unavailable
        return "ok" if self.monitor.ready else "idle"

    def samples_needed(self) -> int:
        """Bytes read per session: enough for the start-up test and the first estimate, and
        for the credit cap at the estimated rate."""
        startup = max(0, self.monitor.startup_samples - self.monitor.samples_seen)
        rate = self.assessor.rate
        if rate is None:
            return max(startup, self.assessor.needed, math.ceil(CREDIT_CAP_BITS / self.bits_per_byte))
        return max(startup, math.ceil(CREDIT_CAP_BITS / rate))

    def gather(self) -> Contribution:
        if self.failed:
            raise EntropyError(self.name, self.failed)
        n = self.samples_needed()
        raw = self._read(n)
        self.monitor.feed(raw)  # raises EntropyError (sticky) before anything is used
        self.assessor.feed(raw)  # so does an estimate below the floor
        self._unavailable = None
        rate = self.assessor.rate or 0.0
        return condition(self.name, raw, len(raw) * rate)

    def _read(self, n: int) -> bytes:
        if self._read_fn is not None:
            try:
                data = self._read_fn(n)
            except OSError as exc:
                raise self._gone(f"read failed: {exc.strerror or exc}") from None
            if len(data) != n:
                raise self._gone(f"returned {len(data)} bytes, {n} were asked for")
            return data
        f = self._open()
        chunks: list[bytes] = []
        have = 0
        deadline = self._monotonic() + self._timeout_s
        while have < n:
            try:
                chunk = f.read(n - have)
            except BlockingIOError:
                chunk = None
            except OSError as exc:
                self.close()
                raise self._gone(f"read from {self.path} failed: {exc.strerror or exc}") from None
            if chunk is None:  # no data yet (non-blocking device)
                if self._monotonic() > deadline:
                    raise self._gone(f"no data from {self.path} within {self._timeout_s:g} s")
                self._wait(0.01)
                continue
            if not chunk:
                self.close()
                raise self._gone(
                    f"ran out of data: {self.path} gave {have} of the {n} bytes a session needs"
                )
            chunks.append(chunk)
            have += len(chunk)
        return b"".join(chunks)

    def _open(self) -> BinaryIO:
        if self._file is None:
            try:
                self._file = self._opener(str(self.path))
            except OSError as exc:
                raise self._gone(self._explain(exc)) from None
        return self._file

    def _gone(self, message: str) -> SourceUnavailable:
        self._unavailable = _short_unavailable(message)
        return SourceUnavailable(self.name, message)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _short_unavailable(message: str) -> str:
    if "permission" in message:
        return "no permission"
    if "does not exist" in message or "no such" in message:
        return "absent"
    return "unavailable"


def _test_name(failure: str) -> str:
    if "repetition count" in failure:
        return "RCT"
    if "adaptive proportion" in failure:
        return "APT"
    if "SP 800-90B" in failure and "estimate" in failure:
        return failure.split("SP 800-90B ", 1)[1].split(" estimate", 1)[0]
    return "health"


def _explain_file(exc: OSError) -> str:
    name = exc.filename or "the file"
    if isinstance(exc, FileNotFoundError):
        return f"{name}: no such file or device"
    if isinstance(exc, PermissionError):
        return f"{name}: permission denied (make it readable by this user)"
    if isinstance(exc, IsADirectoryError) or exc.errno == errno.EISDIR:
        return f"{name} is a directory; give a file or device"
    return f"cannot open {name}: {exc.strerror or exc}"


def _explain_hwrng(exc: OSError) -> str:
    path = exc.filename or HWRNG_PATH
    if isinstance(exc, FileNotFoundError) or exc.errno in (errno.ENODEV, errno.ENXIO):
        return (
            f"{path} does not exist: no hardware RNG driver is loaded "
            "(Raspberry Pi: the bcm2835-rng or iproc-rng200 module); or use --entropy kernel"
        )
    if isinstance(exc, PermissionError):
        return (
            f"permission denied reading {path}: install the udev rule {HWRNG_UDEV_RULE} "
            "(see docs/fairness.md), add the user to the dicetower group "
            "(sudo usermod -aG dicetower $USER) and log in again"
        )
    return f"cannot open {path}: {exc.strerror or exc}"


def kernel_source(*, getrandom: Callable[[int], bytes] | None = None) -> ByteSource:
    """The kernel CSPRNG through ``os.getrandom`` (blocks only until the kernel pool is seeded)."""
    return ByteSource("kernel", claim("kernel"), read=getrandom or os.getrandom)


def hwrng_source(path: str = HWRNG_PATH, *, opener: Opener = _open_nonblocking, timeout_s: float = 5.0,
                 monotonic: Callable[[], float] = time.monotonic,
                 wait: Callable[[float], None] = time.sleep) -> ByteSource:
    """The hardware RNG character device (``/dev/hwrng``); ``timeout_s``, ``monotonic`` and
    ``wait`` as :class:`ByteSource` takes them (a test's clock)."""
    return ByteSource("hwrng", claim("hwrng"), path=path, opener=opener, explain=_explain_hwrng,
                      timeout_s=timeout_s, monotonic=monotonic, wait=wait)


class FileSource(ByteSource):
    """``file:PATH``: a device or FIFO is read on as a stream; a regular file (a capture) is
    read from where it was last read, as the state directory keeps it (``offsets``:
    :mod:`hardware.entropy.file_offsets`), so no byte of it ever seeds two sessions. Without
    ``offsets`` (no state directory) a regular file is refused: each run would read it again
    from its start."""

    def __init__(self, path: str, *, offsets: FileOffsets | None = None, opener: Opener = _open_nonblocking,
                 **kwargs: Any) -> None:
        super().__init__(f"file:{path}", claim("file"), path=path, opener=opener, **kwargs)
        self.offsets = offsets

    def _read(self, n: int) -> bytes:
        f = self._open()
        try:
            info = os.fstat(f.fileno())
        except (OSError, ValueError):  # not a real file (a test's stream): read on
            return super()._read(n)
        if not stat.S_ISREG(info.st_mode):
            return super()._read(n)
        from hardware.entropy.file_offsets import OffsetError

        if self.offsets is None:
            raise self._gone(f"{os.path.basename(str(self.path))} is a regular file, and with no state directory to "
                             "keep how far it was read each run would read it again from its start: give --state-dir "
                             "DIR (the tower's state_dir), or a device")
        try:
            return self.offsets.take(os.path.realpath(str(self.path)), f.fileno(), info.st_size, n)
        except (ValueError, OffsetError) as exc:
            raise self._gone(str(exc)) from None
        except OSError as exc:
            self.close()
            raise self._gone(f"read from {self.path} failed: {exc.strerror or exc}") from None


def file_source(path: str, *, offsets: FileOffsets | None = None, opener: Opener = _open_nonblocking,
                **kwargs: Any) -> ByteSource:
    """Raw bytes from a file or device (``file:PATH``; see :class:`FileSource`): ``offsets`` is
    the state directory's record of how far each file was read."""
    return FileSource(path, offsets=offsets, opener=opener, **kwargs)


@dataclass(frozen=True)
class SourceContext:
    """What building a named source may use (the registry's entries in
    :mod:`hardware.entropy.pipeline` take it)."""

    buttons: ButtonTiming | None
    hwrng_path: str
    getrandom: Callable[[int], bytes] | None
    extras: Mapping[str, EntropySource]
    auto: bool = False  # for ``auto``: a source that is not here is left out, not opened
