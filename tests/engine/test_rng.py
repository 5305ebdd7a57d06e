"""HMAC_DRBG against NIST's known answers, and the dice built on it: exact uniformity of the
rejection sampler (by enumerating every input), reproducible seeds, failure handling."""

from __future__ import annotations

import ast
import hashlib
import itertools
import json
import math
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import roll_die, sample_subset
from engine.errors import EntropyError
from engine.rng import (
    FROM_SEED_LABEL,
    MAX_BYTES_PER_REQUEST,
    DrbgDice,
    HmacDrbg,
    ReseedRequired,
    _plan,
    _reject,
)
from tests.support import chi_square_p

REPO = Path(__file__).resolve().parents[2]
VECTOR_FILES = [
    REPO / "tests" / "engine" / "data" / "hmac_drbg_sha256.json",  # always present
    REPO.parent / "shared" / "vectors" / "hmac_drbg_sha256.json",  # beside the clone, if any
]
ENTROPY = bytes(range(32))


def _load_vectors() -> list[tuple[str, dict]]:
    cases = []
    for path in VECTOR_FILES:
        if path.is_file():
            for i, vec in enumerate(json.loads(path.read_text())["vectors"]):
                cases.append((f"{path.parent.name}/{i}", vec))
    return cases


VECTORS = _load_vectors()


def _hex(text: str | None) -> bytes:
    return bytes.fromhex(text) if text else b""


def test_bundled_vector_file_is_loaded() -> None:
    # The bundled copy guarantees the known-answer tests never silently vanish.
    assert sum(1 for name, _ in VECTORS if name.startswith("data/")) >= 4


@pytest.mark.parametrize(("name", "vec"), VECTORS, ids=[name for name, _ in VECTORS])
def test_nist_known_answers(name: str, vec: dict) -> None:
    drbg = HmacDrbg(_hex(vec["entropy"]), _hex(vec["nonce"]), _hex(vec["personalization"]))
    if vec["reseed_entropy"] is not None:
        drbg.reseed(_hex(vec["reseed_entropy"]), _hex(vec["reseed_additional"]))
    n = len(_hex(vec["returned_bits"]))
    drbg.generate(n, _hex(vec["additional_1"]))
    assert drbg.generate(n, _hex(vec["additional_2"])).hex() == vec["returned_bits"]


def test_bundled_copy_matches_shared_file_when_present() -> None:
    shared = [vec for name, vec in VECTORS if name.startswith("vectors/")]
    bundled = [vec for name, vec in VECTORS if name.startswith("data/")]
    assert shared in ([], bundled)


# --- HmacDrbg limits and counters -------------------------------------------------------------


@pytest.mark.parametrize("length", [0, 1, 16, 31])
def test_short_entropy_is_refused_showing_its_length(length: int) -> None:
    with pytest.raises(ValueError, match=rf"\b{length} bytes"):
        HmacDrbg(b"\x00" * length)
    drbg = HmacDrbg(ENTROPY)
    with pytest.raises(ValueError, match=rf"\b{length} bytes"):
        drbg.reseed(b"\x00" * length)


def test_request_size_limit() -> None:
    drbg = HmacDrbg(ENTROPY)
    assert len(drbg.generate(MAX_BYTES_PER_REQUEST)) == 65536
    assert drbg.generate(0) == b""
    with pytest.raises(ValueError, match="65537"):
        drbg.generate(MAX_BYTES_PER_REQUEST + 1)
    with pytest.raises(ValueError):
        drbg.generate(-1)


def test_partial_block_is_a_prefix_of_the_full_block() -> None:
    a, b = HmacDrbg(ENTROPY, b"n"), HmacDrbg(ENTROPY, b"n")
    assert a.generate(10) == b.generate(32)[:10]
    # One request each, and the state after a 10- or 32-byte request is the same.
    assert a.generate(32) == b.generate(32)


def test_reseed_counter_and_interval() -> None:
    drbg = HmacDrbg(ENTROPY, reseed_interval=3)
    assert (drbg.reseed_counter, drbg.reseed_interval) == (1, 3)
    for expected in (2, 3, 4):
        drbg.generate(8)
        assert drbg.reseed_counter == expected
    with pytest.raises(ReseedRequired) as info:
        drbg.generate(8)
    assert isinstance(info.value, EntropyError)
    assert "3" in str(info.value)
    assert drbg.reseed_counter == 4  # a refused request changes nothing
    drbg.reseed(bytes(range(32, 64)))
    assert drbg.reseed_counter == 1
    assert len(drbg.generate(8)) == 8


@pytest.mark.parametrize("interval", [0, -1, 2**48 + 1])
def test_reseed_interval_range(interval: int) -> None:
    with pytest.raises(ValueError, match=str(interval)):
        HmacDrbg(ENTROPY, reseed_interval=interval)


def test_inputs_all_matter_and_state_is_not_shown() -> None:
    outputs = {
        HmacDrbg(ENTROPY).generate(32),
        HmacDrbg(ENTROPY, b"nonce").generate(32),
        HmacDrbg(ENTROPY, b"", b"person").generate(32),
        HmacDrbg(ENTROPY).generate(32, b"extra"),
        HmacDrbg(bytes(range(1, 33))).generate(32),
    }
    assert len(outputs) == 5
    text = repr(HmacDrbg(ENTROPY))
    assert "reseed_counter=1" in text and "key" not in text.lower()


# --- rejection sampling: exact uniformity by enumeration --------------------------------------


@pytest.mark.parametrize("n", [*range(1, 257), 257, 1000, 40000, 65535, 65536])
def test_plan_accepts_an_exact_multiple(n: int) -> None:
    nbytes, limit = _plan(n)
    span = 256**nbytes
    assert 256 ** (nbytes - 1) < n <= span or nbytes == 1  # fewest whole bytes
    assert limit % n == 0 and 0 <= span - limit < n  # largest multiple of n
    assert limit * 2 > span  # never rejects half or more


@pytest.mark.parametrize("n", [2, 3, 6, 7, 10, 12, 20, 100, 129, 255, 256, 257, 1000, 65535])
def test_reject_is_exactly_uniform_over_every_input(n: int) -> None:
    nbytes, limit = _plan(n)
    # Every nbytes-long string exactly once, in a scrambled order; then the source runs dry.
    values = [(i * 40503 + 7) % 256**nbytes for i in range(256**nbytes)]
    strings = iter([v.to_bytes(nbytes, "big") for v in values])

    def sample_bytes(k: int) -> bytes:
        assert k == nbytes
        return next(strings)

    counts: Counter[int] = Counter()
    with pytest.raises(StopIteration):
        while True:
            counts[_reject(sample_bytes, n)] += 1
    assert counts == {r: limit // n for r in range(n)}


class _Enumeration:
    """A DRBG stand-in whose whole output is one given byte stream, then it fails."""

    class Exhausted(EntropyError):
        def __init__(self) -> None:
            super().__init__("stand-in", "exhausted")

    def __init__(self, stream: bytes) -> None:
        self._stream = stream
        self._pos = 0
        self.additional: list[bytes] = []

    def generate(self, n_bytes: int, additional: bytes = b"") -> bytes:
        if self._pos + n_bytes > len(self._stream):
            raise self.Exhausted()
        self.additional.append(additional)
        out = self._stream[self._pos : self._pos + n_bytes]
        self._pos += n_bytes
        return out


def _drain(dice: DrbgDice, n: int) -> Counter[int]:
    counts: Counter[int] = Counter()
    with pytest.raises(_Enumeration.Exhausted):
        while True:
            counts[dice.randbelow(n)] += 1
    return counts


@pytest.mark.parametrize("n", [2, 3, 4, 6, 8, 10, 12, 20, 100, 129, 200, 255, 256])
def test_drbg_dice_single_byte_path_is_exactly_uniform(n: int) -> None:
    stream = bytes((i * 167 + 13) % 256 for i in range(256))  # each byte once
    dice = DrbgDice(_Enumeration(stream), buffer_bytes=256)  # type: ignore[arg-type]
    limit = _plan(n)[1]
    assert _drain(dice, n) == {r: limit // n for r in range(n)}


@pytest.mark.parametrize(("n", "buffer_bytes"), [(257, 512), (1000, 3), (65535, 512), (40000, 7)])
def test_drbg_dice_multi_byte_path_is_exactly_uniform(n: int, buffer_bytes: int) -> None:
    # Every 2-byte string, repeated so the stream length is a multiple of the buffer size;
    # odd buffer sizes make draws straddle refills.
    strings = b"".join(((i * 40503 + 7) % 65536).to_bytes(2, "big") for i in range(65536))
    repeats = buffer_bytes // math.gcd(buffer_bytes, len(strings))
    dice = DrbgDice(_Enumeration(strings * repeats), buffer_bytes=buffer_bytes)  # type: ignore[arg-type]
    limit = _plan(n)[1]
    assert _drain(dice, n) == {r: repeats * (limit // n) for r in range(n)}


@pytest.mark.parametrize("n", [65537, 2**24, 10**9, 2**64 + 1, 3**100])
def test_drbg_dice_wide_path_draws_exactly_like_reject(n: int) -> None:
    # Beyond two bytes, full enumeration is too big: check the inlined sampler against the
    # reference _reject (whose uniformity is enumerated above) on the same byte stream.
    stream = b"".join(hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(3000))
    dice = DrbgDice(_Enumeration(stream), buffer_bytes=512)  # type: ignore[arg-type]
    reader = iter(stream)

    def sample_bytes(k: int) -> bytes:
        return bytes(next(reader) for _ in range(k))

    draws = 5000 // _plan(n)[0]
    assert [dice.randbelow(n) for _ in range(draws)] == [
        _reject(sample_bytes, n) for _ in range(draws)
    ]


# --- DrbgDice behaviour -------------------------------------------------------------------------


def test_additional_input_is_taken_at_every_refill() -> None:
    calls = itertools.count()
    stand_in = _Enumeration(bytes(64))
    dice = DrbgDice(stand_in, additional=lambda: b"t%d" % next(calls), buffer_bytes=16)  # type: ignore[arg-type]
    for _ in range(40):
        dice.randbelow(6)
    assert stand_in.additional == [b"t0", b"t1", b"t2"]
    # With a real DRBG the timing bytes change the dice.
    plain = DrbgDice.from_seed(b"s")
    mixed = DrbgDice(HmacDrbg(*_from_seed_inputs(b"s")), additional=lambda: b"\x01")
    assert [plain.randbelow(256) for _ in range(16)] != [mixed.randbelow(256) for _ in range(16)]


def _from_seed_inputs(seed: bytes) -> tuple[bytes, bytes, bytes]:
    return (
        hashlib.sha256(FROM_SEED_LABEL + b"/entropy" + seed).digest(),
        hashlib.sha256(FROM_SEED_LABEL + b"/nonce" + seed).digest()[:16],
        FROM_SEED_LABEL,
    )


@pytest.mark.parametrize("seed", [b"", b"x", b"dicetower", bytes(100)])
def test_from_seed_follows_its_documented_derivation(seed: bytes) -> None:
    documented = DrbgDice(HmacDrbg(*_from_seed_inputs(seed)))
    seeded = DrbgDice.from_seed(seed)
    assert [seeded.randbelow(1000) for _ in range(50)] == [
        documented.randbelow(1000) for _ in range(50)
    ]
    a, b = DrbgDice.from_seed(seed), DrbgDice.from_seed(seed)
    assert [a.randbelow(10) for _ in range(2000)] == [b.randbelow(10) for _ in range(2000)]


def test_from_seed_text_and_distinct_seeds() -> None:
    text, raw = DrbgDice.from_seed("é1"), DrbgDice.from_seed("é1".encode())
    assert [text.randbelow(100) for _ in range(20)] == [raw.randbelow(100) for _ in range(20)]
    dice = [DrbgDice.from_seed(s) for s in (b"1", b"2", b"3")]
    runs = {tuple(d.roll(20) for _ in range(12)) for d in dice}
    assert len(runs) == 3


def test_seeded_d10s_are_the_drbg_bytes_below_250() -> None:
    # Recorded replays (--seed) depend on this exact mapping from DRBG output to faces (the
    # derivation and the DRBG are pinned above): changing the buffering or the sampler breaks
    # them, so such a change needs a new FROM_SEED_LABEL version.
    dice = DrbgDice.from_seed(b"dicetower")
    expected_first = DrbgDice(HmacDrbg(*_from_seed_inputs(b"dicetower"))).drbg.generate(512)
    faces = []
    for byte in expected_first:
        if byte < 250:
            faces.append(byte % 10 + 1)
    assert [dice.roll(10) for _ in range(len(faces))] == faces
    assert dice.buffered == 0


def test_randbelow_edges() -> None:
    dice = DrbgDice.from_seed(b"edges")
    assert dice.randbelow(1) == 0
    with pytest.raises(ValueError, match="-3"):
        dice.randbelow(-3)
    with pytest.raises(ValueError, match="got 0"):
        dice.randbelow(0)
    with pytest.raises(TypeError):
        dice.randbelow(2.5**9)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        dice.roll(0)
    with pytest.raises(ValueError, match=r"0\.\.5"):
        dice.sample(5, 6)
    with pytest.raises(ValueError):
        DrbgDice(dice.drbg, buffer_bytes=0)
    with pytest.raises(ValueError):
        DrbgDice(dice.drbg, buffer_bytes=MAX_BYTES_PER_REQUEST + 1)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=1, max_value=2**200), seed=st.binary(max_size=8))
def test_randbelow_stays_in_range(n: int, seed: bytes) -> None:
    dice = DrbgDice.from_seed(seed, buffer_bytes=40)
    assert all(0 <= dice.randbelow(n) < n for _ in range(20))


def test_d10_and_d100_look_uniform() -> None:
    dice = DrbgDice.from_seed(b"uniform")
    n = 60000
    for sides in (10, 100):
        counts = Counter(roll_die(dice, sides) for _ in range(n))
        assert chi_square_p(counts, {f: 1 / sides for f in range(1, sides + 1)}, n) > 1e-4


def test_sample_is_uniform_over_all_subsets() -> None:
    dice = DrbgDice.from_seed(b"subsets")
    n = 40000
    for size, k in ((5, 2), (5, 3), (6, 1)):
        subsets = [frozenset(c) for c in itertools.combinations(range(1, size + 1), k)]
        counts = Counter(dice.sample(size, k) for _ in range(n))
        assert set(counts) <= set(subsets)
        assert chi_square_p(counts, {s: 1 / len(subsets) for s in subsets}, n) > 1e-4
    assert dice.sample(5, 0) == frozenset()
    assert dice.sample(5, 5) == frozenset(range(1, 6))


def test_sample_subset_uses_the_dice_own_sample() -> None:
    a, b = DrbgDice.from_seed(b"hand"), DrbgDice.from_seed(b"hand")
    assert [sample_subset(a, 5, 2) for _ in range(50)] == [b.sample(5, 2) for _ in range(50)]


# --- failures never leak a partial buffer -------------------------------------------------------


class _FailsAfter:
    """A real DRBG that raises on the ``ok + 1``-th request."""

    def __init__(self, ok: int) -> None:
        self._drbg = HmacDrbg(ENTROPY)
        self._left = ok

    def generate(self, n_bytes: int, additional: bytes = b"") -> bytes:
        if self._left == 0:
            raise EntropyError("test", "failed the repetition count test")
        self._left -= 1
        return self._drbg.generate(n_bytes, additional)


def test_failed_refill_discards_the_partial_buffer() -> None:
    dice = DrbgDice(_FailsAfter(1), buffer_bytes=12)  # type: ignore[arg-type]
    dice.randbelow(2**64)  # 8 of the 12 bytes
    assert dice.buffered == 4
    with pytest.raises(EntropyError):
        dice.randbelow(2**64)  # needs a refill, which fails
    assert dice.buffered == 0
    with pytest.raises(EntropyError):
        dice.randbelow(10)  # the 4 leftover bytes would have served this: they must be gone


def test_failing_additional_input_also_discards() -> None:
    def timing() -> bytes:
        raise EntropyError("buttons", "failed the adaptive proportion test")

    dice = DrbgDice(HmacDrbg(ENTROPY), additional=timing)
    with pytest.raises(EntropyError, match="adaptive"):
        dice.roll(6)
    assert dice.buffered == 0


def test_reseed_required_propagates_and_reseeding_recovers() -> None:
    dice = DrbgDice(HmacDrbg(ENTROPY, reseed_interval=2), buffer_bytes=4)
    for _ in range(2):
        dice.randbelow(2**32)  # one request of 4 bytes each, never rejected
    with pytest.raises(ReseedRequired):
        dice.randbelow(2)
    dice.reseed(bytes(range(100, 132)))
    assert dice.drbg.reseed_counter == 1
    assert 1 <= dice.roll(6) <= 6


def test_reseed_and_discard_drop_old_bytes() -> None:
    a, b = DrbgDice.from_seed(b"r"), DrbgDice.from_seed(b"r")
    a.roll(6)
    b.roll(6)
    assert a.buffered == b.buffered > 0
    a.discard()
    assert a.buffered == 0
    # b continues from its buffer, a from a fresh request: the streams part ways.
    assert [a.randbelow(256) for _ in range(32)] != [b.randbelow(256) for _ in range(32)]


# --- purity -------------------------------------------------------------------------------------


def test_no_engine_module_imports_random() -> None:
    offenders = []
    for path in sorted((REPO / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            if any(name == "random" or name.startswith("random.") for name in names):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []
