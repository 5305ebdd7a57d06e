"""Seed material, its commitment, and the session's canonical byte stream.

A session is one HMAC_DRBG instantiated from :class:`SeedMaterial`. Its byte encoding
(:meth:`SeedMaterial.encode`) is what the commitment hashes and what a reveal publishes::

    b"dicetower-seed-v1\\n"
    || u16be(len(entropy)) || entropy
    || u16be(len(nonce)) || nonce
    || u16be(len(personalization)) || personalization

    commitment = SHA-256(encoding)        reveal = hex(encoding)

:class:`RollStream` fixes how the DRBG's output becomes rolls, so a replay can recompute
them: every roll starts with a fresh ``generate(block_bytes, mix)`` call whose additional
input is the roll's *mix* (the player's input, logged with the roll), and takes further
``generate(block_bytes)`` calls (no additional input) only if it needs more bytes. A roll
reads the bytes of its own calls in order and the rest of its last block is thrown away, so
the next roll starts exactly at the next generate call. A roll is identified by the indexes
of the generate calls it used (``start`` to ``end``, counted from 0 in the session).
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from functools import cached_property

from engine.rng import FROM_SEED_LABEL, MAX_BYTES_PER_REQUEST, DrbgDice, HmacDrbg

__all__ = ["BLOCK_BYTES", "ENCODING_MAGIC", "RollStream", "SeedMaterial"]

ENCODING_MAGIC = b"dicetower-seed-v1\n"
#: Bytes per generate call. A roll draws a few bytes (a d10 one, a rejected byte one more), so
#: 64 bytes serve almost every roll in one call of 6 HMACs (512 bytes would take 20). The
#: output's first bytes are the same whatever the request size, so a ``--seed`` session's
#: first roll still equals ``DrbgDice.from_seed``'s whenever it draws at most 64 bytes.
BLOCK_BYTES = 64


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

    @cached_property
    def commitment(self) -> str:
        """SHA-256 of the encoding, hex: published before the first roll of the session.
        Kept once computed (the material never changes): the tower asks on every step."""
        return hashlib.sha256(self.encode()).hexdigest()

    @classmethod
    def from_seed(cls, seed: bytes) -> SeedMaterial:
        """The material :meth:`engine.rng.DrbgDice.from_seed` instantiates from (``--seed``)."""
        return cls(
            hashlib.sha256(FROM_SEED_LABEL + b"/entropy" + seed).digest(),
            hashlib.sha256(FROM_SEED_LABEL + b"/nonce" + seed).digest()[:16],
            FROM_SEED_LABEL,
        )

    @property
    def is_test(self) -> bool:
        """Whether this is ``--seed`` material (its personalization is the from_seed label):
        whoever knows the seed text knows every roll, so its rolls are tests, never fair."""
        return self.personalization == FROM_SEED_LABEL

    def drbg(self) -> HmacDrbg:
        return HmacDrbg(self.entropy, self.nonce, self.personalization)


class _Once:
    """Additional input for a roll's generate calls: the roll's mix first, nothing after."""

    __slots__ = ("_mix",)

    def __init__(self, mix: bytes) -> None:
        self._mix = mix

    def __call__(self) -> bytes:
        mix, self._mix = self._mix, b""
        return mix


class RollStream:
    """One session's DRBG, read roll by roll (see the module docstring).

    :meth:`begin` starts a roll: the dice it returns make ``generate(block_bytes, mix)`` at
    their first draw and ``generate(block_bytes)`` whenever the roll needs more; bytes a roll
    leaves unused are never used by anyone. :attr:`blocks` counts every generate call of the
    session, so a roll is logged as the block indexes ``start..end`` it used.
    """

    def __init__(self, material: SeedMaterial, *, block_bytes: int = BLOCK_BYTES,
                 drbg: HmacDrbg | None = None) -> None:
        if not 1 <= block_bytes <= MAX_BYTES_PER_REQUEST:
            raise ValueError(f"block_bytes must be within 1..{MAX_BYTES_PER_REQUEST}, got {block_bytes}")
        self.material = material
        self.block_bytes = block_bytes
        self.drbg = drbg if drbg is not None else material.drbg()

    @property
    def blocks(self) -> int:
        """Generate calls made since the session was instantiated."""
        return self.drbg.reseed_counter - 1

    def begin(self, mix: bytes) -> DrbgDice:
        """Dice for one roll, starting at a fresh generate call that takes ``mix``."""
        return DrbgDice(self.drbg, additional=_Once(bytes(mix)), buffer_bytes=self.block_bytes)

    def random_bytes(self, n: int) -> bytes:
        """``n`` raw bytes for the statistical battery (never logged, never a roll)."""
        out = []
        while n > 0:
            size = min(n, MAX_BYTES_PER_REQUEST)
            out.append(self.drbg.generate(size))
            n -= size
        return b"".join(out)
