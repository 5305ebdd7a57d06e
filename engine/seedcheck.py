"""Checks on a revealed seed that need no roll: is it what the session entry claimed, and is it
a seed at all?

A session entry claims its sources and the bits credited to each; the reveal shows the seed
material. For a session seeded from entropy (not a ``--seed`` test session) the two must
agree, and the entropy input must look like what the conditioning hash outputs:

- layout: the personalization is ``dicetower/session/v1;`` and the sources' names joined by
  commas, in the session entry's order; the entropy input is one 64-byte block per source;
- size: at least 32 bytes (HMAC_DRBG-SHA256's security strength);
- credit: each source at most 448 bits (one block's cap), the session's ``credited_bits`` the
  sum of its sources', at least 256 and at most 8 bits per byte of entropy input;
- diversity: every 64-byte block (a shorter input as a whole) has at least
  :data:`MIN_DISTINCT` distinct byte values (64 random bytes have about 57; fewer than 16
  happens with probability below 2^-200), and no block repeats another of the same input;
- reuse: no block was used by an earlier session (same entropy, any nonce): the verifier
  keeps a 64-bit digest of each block it has seen (:func:`block_digests`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from engine.seeds import SeedMaterial

__all__ = ["BLOCK", "CREDIT_CAP_BITS", "MIN_CREDIT_BITS", "MIN_DISTINCT", "MIN_ENTROPY_BYTES", "PERSONALIZATION",
           "block_digests", "seed_problems"]

PERSONALIZATION = b"dicetower/session/v1;"
BLOCK = 64
MIN_ENTROPY_BYTES = 32
MIN_DISTINCT = 16
CREDIT_CAP_BITS = 448
MIN_CREDIT_BITS = 256


def blocks(entropy: bytes) -> list[bytes]:
    """The entropy input's 64-byte blocks (one shorter input: itself)."""
    if len(entropy) < BLOCK:
        return [entropy]
    return [entropy[i:i + BLOCK] for i in range(0, len(entropy), BLOCK)]


def block_digests(material: SeedMaterial) -> list[str]:
    """64-bit digests (16 hex digits) of the entropy input's blocks, for the reuse check."""
    return [hashlib.sha256(b).hexdigest()[:16] for b in blocks(material.entropy)]


def seed_problems(material: SeedMaterial, session: dict[str, Any]) -> list[str]:
    """What is wrong with a random session's revealed ``material`` given its session entry."""
    sources = session.get("sources")
    if not isinstance(sources, list) or not all(isinstance(s, dict) for s in sources):
        return ["its session entry's sources are not a list of sources"]
    names = [str(s.get("name")) for s in sources]
    problems = []
    want = PERSONALIZATION + ",".join(names).encode("utf-8", "replace")
    if material.personalization != want:
        problems.append(f"the revealed personalization {material.personalization.decode('ascii', 'replace')!r} "
                        f"does not name the sources the session entry lists ({', '.join(names) or 'none'}): "
                        "sources edited")
    size = len(material.entropy)
    if size < MIN_ENTROPY_BYTES:
        problems.append(f"its entropy input is {size} bytes, shorter than {MIN_ENTROPY_BYTES}")
    elif size != BLOCK * len(names):
        problems.append(f"its entropy input is {size} bytes, not one {BLOCK}-byte block for each of its "
                        f"{len(names)} source(s): sources edited")
    problems += _credit_problems(sources, session.get("credited_bits"), size)
    problems += _diversity_problems(material.entropy, names)
    return problems


def _credit_problems(sources: list[dict[str, Any]], claimed: Any, size: int) -> list[str]:
    problems = []
    total = 0
    for s in sources:
        bits = s.get("credited_bits")
        if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= CREDIT_CAP_BITS:
            problems.append(f"source {s.get('name')} claims {bits!r} credited bits; one {BLOCK}-byte block is "
                            f"credited 1 to {CREDIT_CAP_BITS}")
        elif isinstance(total, int):
            total += bits
    if isinstance(claimed, bool) or not isinstance(claimed, int):
        problems.append(f"its credited_bits {claimed!r} is not a whole number")
        return problems
    if claimed != total and not problems:
        problems.append(f"its credited_bits {claimed} is not the sum of its sources' ({total}): credit edited")
    if claimed > 8 * size:
        problems.append(f"it claims {claimed} credited bits, more than its {size}-byte entropy input could carry "
                        "(8 bits a byte)")
    if claimed < MIN_CREDIT_BITS:
        problems.append(f"it claims {claimed} credited bits; a session needs at least {MIN_CREDIT_BITS}")
    return problems


def _diversity_problems(entropy: bytes, names: list[str]) -> list[str]:
    problems = []
    seen: dict[bytes, int] = {}
    for i, block in enumerate(blocks(entropy)):
        what = f"entropy block {i + 1}" + (f" ({names[i]})" if i < len(names) else "")
        distinct = len(set(block))
        if block and distinct < MIN_DISTINCT:
            problems.append(f"{what} has only {distinct} distinct byte value(s) (at least {MIN_DISTINCT}): not the "
                            "output of a conditioning hash but zeros or a pattern; trivially weak entropy")
        if block in seen:
            problems.append(f"{what} repeats entropy block {seen[block] + 1}")
        seen.setdefault(block, i)
    return problems
