"""Seed material, its commitment, and the session's canonical byte stream.

A session is one HMAC_DRBG instantiated from :class:`SeedMaterial`. Its byte encoding
(:meth:`SeedMaterial.encode`) is what the commitment hashes and what a reveal publishes::

    b"dicetower-seed-v1\\n"
    || u16be(len(entropy)) || entropy
    || u16be(len(nonce)) || nonce
    || u16be(len(personalization)) || personalization

    commitment = SHA-256(encoding)        reveal = hex(encoding)

:class:`SessionStream` fixes how the DRBG's output becomes one byte stream, so a replay can
recompute it: ``generate`` calls of exactly ``block_bytes`` bytes, block ``j`` getting the
additional input ``additional(j)`` (button timing, logged), blocks concatenated. Dice read
the stream in order; a roll is identified by the stream offsets where it starts and ends.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable
from dataclasses import dataclass

from engine.rng import FROM_SEED_LABEL, MAX_BYTES_PER_REQUEST, HmacDrbg

__all__ = ["BLOCK_BYTES", "ENCODING_MAGIC", "SeedMaterial", "SessionStream"]

ENCODING_MAGIC = b"dicetower-seed-v1\n"
#: Bytes per generate call (the same as ``DrbgDice``'s buffer, so ``--seed`` rolls agree).
BLOCK_BYTES = 512


@dataclass(frozen=True)
class SeedMaterial:
    """Entropy input, nonce and personalization string of one DRBG instantiation."""

    entropy: bytes
    nonce: bytes
    personalization: bytes

    def __repr__(self) -> str:  # never print the secret part
        return f"SeedMaterial(commitment={self.commitment[:16]}…)"

    def encode(self) -> bytes:
        out = [ENCODING_MAGIC]
        for part in (self.entropy, self.nonce, self.personalization):
            if len(part) > 0xFFFF:
                raise ValueError(f"a seed-material field is {len(part)} bytes; at most 65535 fit")
            out.append(struct.pack(">H", len(part)) + part)
        return b"".join(out)

    @classmethod
    def decode(cls, data: bytes) -> SeedMaterial:
        """Parse :meth:`encode`'s bytes; ``ValueError`` says what is wrong."""
        if not data.startswith(ENCODING_MAGIC):
            raise ValueError("not dicetower seed material (it must start with 'dicetower-seed-v1')")
        pos = len(ENCODING_MAGIC)
        parts = []
        for what in ("entropy", "nonce", "personalization"):
            if pos + 2 > len(data):
                raise ValueError(f"seed material ends before its {what} length")
            (n,) = struct.unpack_from(">H", data, pos)
            pos += 2
            if pos + n > len(data):
                raise ValueError(f"seed material ends inside its {what} ({n} bytes announced)")
            parts.append(data[pos : pos + n])
            pos += n
        if pos != len(data):
            raise ValueError(f"{len(data) - pos} stray bytes after the seed material")
        return cls(*parts)

    @classmethod
    def from_hex(cls, text: str) -> SeedMaterial:
        try:
            data = bytes.fromhex(text)
        except ValueError:
            raise ValueError("revealed seed is not hexadecimal") from None
        return cls.decode(data)

    @property
    def commitment(self) -> str:
        """SHA-256 of the encoding, hex: published before the first roll of the session."""
        return hashlib.sha256(self.encode()).hexdigest()

    @classmethod
    def from_seed(cls, seed: bytes) -> SeedMaterial:
        """The material :meth:`engine.rng.DrbgDice.from_seed` instantiates from (``--seed``)."""
        return cls(
            hashlib.sha256(FROM_SEED_LABEL + b"/entropy" + seed).digest(),
            hashlib.sha256(FROM_SEED_LABEL + b"/nonce" + seed).digest()[:16],
            FROM_SEED_LABEL,
        )

    def drbg(self) -> HmacDrbg:
        return HmacDrbg(self.entropy, self.nonce, self.personalization)


class SessionStream:
    """The DRBG's output as one addressable byte stream (see the module docstring).

    It has the ``generate(n, additional=b"")`` method ``engine.rng.DrbgDice`` calls, so a
    ``DrbgDice`` can read from it; the ``additional`` argument must be empty (additional input
    comes per block from the ``additional`` callable). :meth:`seek` moves the read position
    (a replay jumps to where a logged roll starts); bytes before the block holding the lowest
    position sought are forgotten.
    """

    def __init__(
        self,
        material: SeedMaterial,
        *,
        block_bytes: int = BLOCK_BYTES,
        additional: Callable[[int], bytes] | None = None,
        keep: bool = False,
    ) -> None:
        if not 1 <= block_bytes <= MAX_BYTES_PER_REQUEST:
            raise ValueError(f"block_bytes must be within 1..{MAX_BYTES_PER_REQUEST}, got {block_bytes}")
        self._drbg = material.drbg()
        self.block_bytes = block_bytes
        self._additional = additional
        self._keep = keep
        self._buf = bytearray()
        self._base = 0  # stream offset of _buf[0]
        self._pos = 0
        self.blocks = 0

    @property
    def position(self) -> int:
        """Offset of the next byte :meth:`generate` hands out."""
        return self._pos

    def _extend(self, until: int) -> None:
        while self._base + len(self._buf) < until:
            extra = self._additional(self.blocks) if self._additional is not None else b""
            self._buf += self._drbg.generate(self.block_bytes, extra)
            self.blocks += 1

    def generate(self, n_bytes: int, additional: bytes = b"") -> bytes:
        """The next ``n_bytes`` of the stream."""
        if additional:
            raise ValueError("a session stream takes additional input per block, not per call")
        end = self._pos + n_bytes
        self._extend(end)
        out = bytes(self._buf[self._pos - self._base : end - self._base])
        self._pos = end
        if not self._keep:
            self._forget(end)
        return out

    def seek(self, offset: int) -> None:
        """Read from ``offset`` next; it may not lie before bytes already forgotten."""
        if offset < self._base:
            raise ValueError(f"offset {offset} lies before the retained stream (from {self._base})")
        self._extend(offset)
        self._pos = offset
        self._forget(offset)

    def _forget(self, offset: int) -> None:
        cut = (offset - self._base) // self.block_bytes * self.block_bytes
        if cut > 0:
            del self._buf[:cut]
            self._base += cut
