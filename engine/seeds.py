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

Stream 3 (:data:`STREAM_VERSION`) adds the *table seed*: text the players set after the
commitment is shown and before the first roll. It is the additional input of one
``generate(block_bytes, TABLE_SEED_LABEL || text)`` call whose output is thrown away (generate
call 0), so every later byte of the session depends on it. A roll's mix is then only text a
player typed (``--mix``; the panel gives none): nothing the device measures after the
commitment enters a roll. Stream 2 (logs of earlier versions) had no table seed and took any
bytes as a mix (the panel's press time).
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from functools import cached_property

from engine.errors import EngineError
from engine.rng import FROM_SEED_LABEL, MAX_BYTES_PER_REQUEST, DrbgDice, HmacDrbg

__all__ = [
    "BLOCK_BYTES", "ENCODING_MAGIC", "MIX_MAX_BYTES", "ROLL_KINDS", "SESSION_ROLLS", "STREAMS", "STREAM_VERSION",
    "TABLE_SEED_LABEL", "TABLE_SEED_MAX", "RollStream", "SeedMaterial", "TableSeedError", "check_table_seed",
    "mix_problem", "table_seed_input",
]

ENCODING_MAGIC = b"dicetower-seed-v1\n"
#: Bytes per generate call. A roll draws a few bytes (a d10 one, a rejected byte one more), so
#: 64 bytes serve almost every roll in one call of 6 HMACs (512 bytes would take 20). The
#: output's first bytes are the same whatever the request size, so a ``--seed`` session's
#: first roll still equals ``DrbgDice.from_seed``'s whenever it draws at most 64 bytes.
BLOCK_BYTES = 64
#: How rolls use the DRBG (``stream`` in the session entry); see the module docstring.
STREAM_VERSION = 3
#: Stream versions a replay knows the rules of (older logs must verify for ever).
STREAMS = (2, 3)
#: Domain separation of the table seed's generate call.
TABLE_SEED_LABEL = b"dicetower/table-seed/v1;"
#: The longest table seed, in characters (printable ASCII: a code typed on buttons or a keyboard).
TABLE_SEED_MAX = 64
#: The longest mix (``--mix`` text, printable ASCII) of a stream 3 roll.
MIX_MAX_BYTES = 256
#: Rolls per session before the tower reveals and reseeds (a replay holds a session's rolls
#: until its reveal: at most this many).
SESSION_ROLLS = 1000
#: What a logged roll is: recomputable from a revealed random seed, typed in by a player
#: (``--faces``, ``--winners-set``), or from a ``--seed`` test session.
ROLL_KINDS = ("rolled", "entered", "test")


class TableSeedError(EngineError, ValueError):
    """A table seed that cannot be set: not printable text, empty, too long, or too late (the
    session has a roll or a table seed already). Its text is ``table seed: DETAIL``;
    ``detail`` alone is for a caller that names the seed its own way (``--table-seed``, the
    panel's screen)."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"table seed: {detail}")
        self.detail = detail


def check_table_seed(text: object) -> str:
    """``text`` if it is a table seed (1 to 64 printable ASCII characters, no space at either
    end, so what the players noted is exactly what is logged); else :class:`TableSeedError`."""
    if not isinstance(text, str):
        raise TableSeedError(f"expected text, got {type(text).__name__}")
    if not text.strip():
        raise TableSeedError("empty; give 1 to 64 printable ASCII characters, e.g. 417302")
    if len(text) > TABLE_SEED_MAX:
        raise TableSeedError(f"{len(text)} characters; at most {TABLE_SEED_MAX}")
    bad = next((c for c in text if not " " <= c <= "~"), None)
    if bad is not None:
        raise TableSeedError(f"{bad!r} is not printable ASCII (letters, digits, punctuation, "
                             "inner spaces)")
    if text != text.strip(" "):
        raise TableSeedError(f"{text!r} starts or ends with a space")
    return text


def table_seed_input(text: str) -> bytes:
    """The additional input of the table seed's generate call."""
    return TABLE_SEED_LABEL + check_table_seed(text).encode("ascii")


def mix_problem(mix: bytes) -> str | None:
    """Why ``mix`` cannot be a stream 3 roll's mix (to follow "it is"), or None: it must be text
    a player typed and can read back, printable ASCII (space to ``~``), at most 256 bytes. A
    device's measurement (a press time in nanoseconds) is binary and fails this; so does an
    invisible character (a zero-width space, a direction mark) that would let a device grind a
    mix a player could not see in the log."""
    if len(mix) > MIX_MAX_BYTES:
        return f"{len(mix)} bytes long (at most {MIX_MAX_BYTES})"
    bad = next((b for b in mix if not 0x20 <= b <= 0x7E), None)
    if bad is not None:
        return f"not printable ASCII (byte 0x{bad:02x})"
    return None


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

    def set_table_seed(self, text: str) -> None:
        """The table seed's generate call (its output is thrown away; see the module docstring)."""
        self.drbg.generate(self.block_bytes, table_seed_input(text))

    def skip(self, start: int, end: int, mix: bytes) -> None:
        """Move past a roll that used generate calls ``start..end`` with ``mix`` without drawing
        its dice (a roll another process logged); ``ValueError`` if it does not start here."""
        if start != self.blocks or end < start:
            raise ValueError(f"a roll of generate calls {start}..{end} does not follow call {self.blocks}")
        for i in range(end - start):
            self.drbg.generate(self.block_bytes, bytes(mix) if i == 0 else b"")

    def random_bytes(self, n: int) -> bytes:
        """``n`` raw bytes for the statistical battery (never logged, never a roll)."""
        out = []
        while n > 0:
            size = min(n, MAX_BYTES_PER_REQUEST)
            out.append(self.drbg.generate(size))
            n -= size
        return b"".join(out)
