"""Deterministic random bits and unbiased dice: HMAC_DRBG (NIST SP 800-90A) and rejection sampling.

:class:`HmacDrbg` is the SP 800-90A HMAC_DRBG with SHA-256 (security strength 256 bits, no
prediction-resistance requests: the caller reseeds when it has fresh entropy).
:class:`DrbgDice` turns its output into dice: uniform integers by rejection sampling, never
``x % n`` on raw bits, so every face is exactly equally likely.

Nothing here gathers entropy; the caller passes it in (``hardware/`` does, after the
SP 800-90B health tests of :mod:`engine.health`). See ``docs/fairness-maths.md``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable

from engine.errors import EntropyError

__all__ = [
    "FROM_SEED_LABEL",
    "MAX_BYTES_PER_REQUEST",
    "MAX_RESEED_INTERVAL",
    "MIN_ENTROPY_BYTES",
    "DrbgDice",
    "HmacDrbg",
    "ReseedRequired",
]

#: Security strength of HMAC_DRBG with SHA-256, in bytes: entropy input must carry this much.
MIN_ENTROPY_BYTES = 32
#: SP 800-90A table 2: at most 2^19 bits per generate request.
MAX_BYTES_PER_REQUEST = 2**19 // 8
#: SP 800-90A table 2: at most 2^48 requests between reseeds.
MAX_RESEED_INTERVAL = 2**48
#: Domain-separation label of :meth:`DrbgDice.from_seed` (changing it changes every replay).
FROM_SEED_LABEL = b"dicetower/from_seed/v1"

_OUTLEN = 32  # SHA-256 output, bytes


def _hmac(key: bytes, data: bytes) -> bytes:
    return hmac.digest(key, data, hashlib.sha256)


class ReseedRequired(EntropyError):
    """The DRBG has served its reseed interval; :meth:`HmacDrbg.reseed` before generating more."""

    def __init__(self, requests: int, interval: int) -> None:
        super().__init__(
            "drbg",
            f"reseed required: {requests} generate requests served, the reseed interval is {interval}",
        )
        self.requests = requests
        self.interval = interval


def _check_entropy(entropy: bytes, what: str) -> bytes:
    if not isinstance(entropy, bytes | bytearray | memoryview):
        raise TypeError(f"{what} entropy must be bytes, got {type(entropy).__name__}")
    entropy = bytes(entropy)
    if len(entropy) < MIN_ENTROPY_BYTES:
        raise ValueError(
            f"{what} entropy is {len(entropy)} bytes ({8 * len(entropy)} bits); "
            f"HMAC_DRBG-SHA256 needs at least {MIN_ENTROPY_BYTES} bytes ({8 * MIN_ENTROPY_BYTES} bits)"
        )
    return entropy


class HmacDrbg:
    """HMAC_DRBG (SP 800-90A rev 1, section 10.1.2) with SHA-256.

    ``entropy`` must hold at least 256 bits of min-entropy; its length is checked (at least
    32 bytes), its quality is the caller's job. ``generate`` serves at most 65536 bytes per
    request and raises :class:`ReseedRequired` once ``reseed_interval`` requests have been
    served since the last (re)seed. The internal state (Key, V) is not shown by ``repr``; it
    leaves only through :meth:`export_state`, for a session kept in a private file between
    commands (that file is as secret as the seed).
    """

    __slots__ = ("_key", "_reseed_counter", "_reseed_interval", "_v")

    def __init__(
        self,
        entropy: bytes,
        nonce: bytes = b"",
        personalization: bytes = b"",
        *,
        reseed_interval: int = MAX_RESEED_INTERVAL,
    ) -> None:
        entropy = _check_entropy(entropy, "instantiate")
        if isinstance(reseed_interval, bool) or not isinstance(reseed_interval, int):
            raise TypeError(f"reseed_interval must be an int, got {reseed_interval!r}")
        if not 1 <= reseed_interval <= MAX_RESEED_INTERVAL:
            raise ValueError(
                f"reseed_interval must be within 1..2**48, got {reseed_interval}"
            )
        self._reseed_interval = reseed_interval
        self._key = b"\x00" * _OUTLEN
        self._v = b"\x01" * _OUTLEN
        self._update(entropy + bytes(nonce) + bytes(personalization))
        self._reseed_counter = 1

    def __repr__(self) -> str:  # never show Key or V
        return (
            f"HmacDrbg(reseed_counter={self._reseed_counter}, "
            f"reseed_interval={self._reseed_interval})"
        )

    def export_state(self) -> tuple[bytes, bytes, int]:
        """``(Key, V, reseed_counter)``: everything :meth:`from_state` needs to continue."""
        return self._key, self._v, self._reseed_counter

    @classmethod
    def from_state(
        cls, key: bytes, v: bytes, reseed_counter: int, *, reseed_interval: int = MAX_RESEED_INTERVAL
    ) -> HmacDrbg:
        """The DRBG :meth:`export_state` described, continuing exactly where it stopped."""
        if len(key) != _OUTLEN or len(v) != _OUTLEN:
            raise ValueError(f"Key and V must be {_OUTLEN} bytes each, got {len(key)} and {len(v)}")
        if isinstance(reseed_counter, bool) or not isinstance(reseed_counter, int) or reseed_counter < 1:
            raise ValueError(f"reseed_counter must be a whole number >= 1, got {reseed_counter!r}")
        drbg = cls.__new__(cls)
        drbg._reseed_interval = reseed_interval
        drbg._key, drbg._v, drbg._reseed_counter = bytes(key), bytes(v), reseed_counter
        return drbg

    @property
    def reseed_counter(self) -> int:
        """SP 800-90A reseed_counter: 1 after (re)seeding, +1 per generate request."""
        return self._reseed_counter

    @property
    def reseed_interval(self) -> int:
        """Generate requests allowed between reseeds."""
        return self._reseed_interval

    def _update(self, provided: bytes) -> None:
        # HMAC_DRBG_Update (10.1.2.2).
        key = _hmac(self._key, self._v + b"\x00" + provided)
        v = _hmac(key, self._v)
        if provided:
            key = _hmac(key, v + b"\x01" + provided)
            v = _hmac(key, v)
        self._key, self._v = key, v

    def reseed(self, entropy: bytes, additional: bytes = b"") -> None:
        """Mix in fresh entropy (at least 32 bytes) and restart the reseed counter (10.1.2.4)."""
        entropy = _check_entropy(entropy, "reseed")
        self._update(entropy + bytes(additional))
        self._reseed_counter = 1

    def generate(self, n_bytes: int, additional: bytes = b"") -> bytes:
        """``n_bytes`` pseudorandom bytes (10.1.2.5); ``additional`` is optional extra input."""
        if isinstance(n_bytes, bool) or not isinstance(n_bytes, int):
            raise TypeError(f"n_bytes must be an int, got {n_bytes!r}")
        if not 0 <= n_bytes <= MAX_BYTES_PER_REQUEST:
            raise ValueError(
                f"generate asks for {n_bytes} bytes; one request allows 0..{MAX_BYTES_PER_REQUEST}"
                " (2^19 bits, SP 800-90A)"
            )
        if self._reseed_counter > self._reseed_interval:
            raise ReseedRequired(self._reseed_counter - 1, self._reseed_interval)
        additional = bytes(additional)
        if additional:
            self._update(additional)
        key, v = self._key, self._v
        blocks = []
        for _ in range(-(-n_bytes // _OUTLEN)):
            v = _hmac(key, v)
            blocks.append(v)
        self._v = v
        self._update(additional)
        self._reseed_counter += 1
        return b"".join(blocks)[:n_bytes]


def _plan(n: int) -> tuple[int, int]:
    """``(nbytes, limit)`` for drawing below ``n``: the fewest whole bytes that cover ``0..n-1``,
    and the largest multiple of ``n`` they can express. Values ``>= limit`` are rejected, so
    ``value % n`` is exactly uniform (each residue has ``limit // n`` preimages)."""
    nbytes = max(1, ((n - 1).bit_length() + 7) // 8)
    span = 1 << (8 * nbytes)
    return nbytes, span - span % n


def _reject(sample_bytes: Callable[[int], bytes], n: int) -> int:
    """Uniform integer in ``0..n-1`` from a source of uniform bytes, by rejection sampling.

    ``sample_bytes(k)`` returns ``k`` bytes. This is the reference form of what
    :meth:`DrbgDice.randbelow` does inline; tests feed it every byte string exactly once.
    """
    if n < 1:
        raise ValueError(f"randbelow needs n >= 1, got {n}")
    nbytes, limit = _plan(n)
    while True:
        value = int.from_bytes(sample_bytes(nbytes), "big")
        if value < limit:
            return value % n


# Single-byte rejection limits for n = 0..256, so the d6/d10/d20/d100 path is one lookup.
_BYTE_LIMITS: tuple[int, ...] = (0, *(256 - 256 % n for n in range(1, 257)))


class DrbgDice:
    """A dice source (``randbelow``, ``roll``, ``sample``) drawing from an :class:`HmacDrbg`.

    Bytes are generated ``buffer_bytes`` at a time. If ``additional`` is given it is called at
    every refill and its bytes are passed to ``generate`` as additional input: this is how
    button-press timing gets mixed in without a full reseed.

    Integers come from rejection sampling on whole bytes (see :func:`_plan`): one byte for
    ``n <= 256`` (a d10 rejects 6 values of 256), more for larger ``n``. Whole bytes beat a
    bit mask here: a d10 by 4-bit mask rejects 6 of 16 and needs bit bookkeeping in Python.

    Failure contract: if the DRBG (or ``additional``) raises during a refill, the exception
    propagates and every buffered byte is discarded first, so no number is ever handed out
    from a partial buffer of a DRBG that failed. A later call tries the DRBG again (it works
    again once the owner has reseeded it). :meth:`discard` drops the buffer on demand, e.g.
    when an entropy source fails its health tests.
    """

    __slots__ = ("_additional", "_buf", "_buffer_bytes", "_drbg", "_pos")

    def __init__(
        self,
        drbg: HmacDrbg,
        *,
        additional: Callable[[], bytes] | None = None,
        buffer_bytes: int = 512,
    ) -> None:
        if isinstance(buffer_bytes, bool) or not isinstance(buffer_bytes, int):
            raise TypeError(f"buffer_bytes must be an int, got {buffer_bytes!r}")
        if not 1 <= buffer_bytes <= MAX_BYTES_PER_REQUEST:
            raise ValueError(
                f"buffer_bytes must be within 1..{MAX_BYTES_PER_REQUEST}, got {buffer_bytes}"
            )
        self._drbg = drbg
        self._additional = additional
        self._buffer_bytes = buffer_bytes
        self._buf = b""
        self._pos = 0

    def __repr__(self) -> str:
        return f"DrbgDice({self._drbg!r}, buffer_bytes={self._buffer_bytes})"

    @classmethod
    def from_seed(cls, seed: bytes | str, *, additional: Callable[[], bytes] | None = None,
                  buffer_bytes: int = 512) -> DrbgDice:
        """A deterministic source for tests and replays (``--seed``); never the default.

        ``entropy = SHA-256(FROM_SEED_LABEL || b"/entropy" || seed)`` (32 bytes) and
        ``nonce = SHA-256(FROM_SEED_LABEL || b"/nonce" || seed)[:16]``, personalization
        ``FROM_SEED_LABEL``. Any seed length works, including short text (``str`` is UTF-8
        encoded). The seed's own entropy is all there is: a guessable seed gives guessable dice.
        """
        if isinstance(seed, str):
            seed = seed.encode("utf-8")
        if not isinstance(seed, bytes | bytearray | memoryview):
            raise TypeError(f"seed must be bytes or str, got {type(seed).__name__}")
        seed = bytes(seed)
        entropy = hashlib.sha256(FROM_SEED_LABEL + b"/entropy" + seed).digest()
        nonce = hashlib.sha256(FROM_SEED_LABEL + b"/nonce" + seed).digest()[:16]
        return cls(HmacDrbg(entropy, nonce, FROM_SEED_LABEL), additional=additional, buffer_bytes=buffer_bytes)

    @property
    def drbg(self) -> HmacDrbg:
        return self._drbg

    @property
    def buffered(self) -> int:
        """Bytes generated but not yet used."""
        return len(self._buf) - self._pos

    def discard(self) -> None:
        """Drop every buffered byte; the next draw generates fresh output."""
        self._buf = b""
        self._pos = 0

    def reseed(self, entropy: bytes, additional: bytes = b"") -> None:
        """Reseed the DRBG and drop bytes generated before the reseed."""
        self.discard()
        self._drbg.reseed(entropy, additional)

    def _refill(self, need: int) -> None:
        """Make at least ``need`` unused bytes available (keeping the unused tail)."""
        tail = self._buf[self._pos :]
        self.discard()
        chunks = [tail]
        have = len(tail)
        # The buffer is already empty here: if additional() or generate() raises, nothing
        # generated before or during the failure can be handed out.
        while have < need:
            extra = self._additional() if self._additional is not None else b""
            size = max(self._buffer_bytes, min(need - have, MAX_BYTES_PER_REQUEST))
            chunks.append(self._drbg.generate(size, extra))
            have += size
        self._buf = b"".join(chunks)

    def randbelow(self, n: int) -> int:
        """Uniform integer in ``0..n-1``."""
        if 1 < n <= 256:
            limit = _BYTE_LIMITS[n]
            while True:
                pos = self._pos
                if pos >= len(self._buf):
                    self._refill(1)
                    pos = 0
                byte = self._buf[pos]
                self._pos = pos + 1
                if byte < limit:
                    return byte % n
        if 256 < n <= 65536 and type(n) is int:
            # Two bytes: the same rule as below, without int.from_bytes on a slice.
            limit = 65536 - 65536 % n
            while True:
                pos = self._pos
                if pos + 2 > len(self._buf):
                    self._refill(2)
                    pos = 0
                buf = self._buf
                value = buf[pos] << 8 | buf[pos + 1]
                self._pos = pos + 2
                if value < limit:
                    return value % n
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"randbelow needs an int, got {n!r}")
        if n == 1:
            return 0
        if n < 1:
            raise ValueError(f"randbelow needs n >= 1, got {n}")
        # Same rule as _reject, inlined: a method call per attempt costs more than the draw.
        nbytes, limit = _plan(n)
        while True:
            pos = self._pos
            end = pos + nbytes
            if end > len(self._buf):
                self._refill(nbytes)
                pos, end = 0, nbytes
            value = int.from_bytes(self._buf[pos:end], "big")
            self._pos = end
            if value < limit:
                return value % n

    def roll(self, sides: int) -> int:
        """One die with faces ``1..sides``."""
        if isinstance(sides, bool) or not isinstance(sides, int) or sides < 1:
            raise ValueError(f"a die needs at least 1 side, got {sides!r}")
        return self.randbelow(sides) + 1

    def sample(self, n: int, k: int) -> frozenset[int]:
        """A uniformly chosen ``k``-subset of ``1..n`` (partial Fisher-Yates, ``k`` draws)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"sample needs a whole population size n >= 0, got {n!r}")
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= n:
            raise ValueError(f"subset size must be within 0..{n}, got {k!r}")
        pool = list(range(1, n + 1))
        for i in range(k):
            j = i + self.randbelow(n - i)
            pool[i], pool[j] = pool[j], pool[i]
        return frozenset(pool[:k])
