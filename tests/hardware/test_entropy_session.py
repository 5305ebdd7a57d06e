"""Session dice: auto mixing and failover, strict named sources, commit/reveal, reseeding by
new sessions, button timing as credit and as additional input."""

from __future__ import annotations

import hashlib
import json

import pytest

from engine.dice import sample_subset
from engine.errors import EntropyError, ParameterError
from engine.rng import DrbgDice
from engine.seeds import RollStream
from engine.systems import get
from hardware.entropy import NotEnoughEntropy, SeedMaterial, open_dice, parse_spec
from hardware.entropy.buttons import ButtonTiming
from hardware.entropy.replay import replay_log
from hardware.entropy.sources import SourceUnavailable
from hardware.files.rolllog import RollLog, verify
from tests.hardware.test_entropy_buttons import STARTUP_BITS_PER_PRESS, human_taps
from tests.hardware.test_entropy_sources import good_bytes


def entries(log: RollLog) -> list[dict]:
    return [json.loads(line) for line in log.path.read_text().splitlines()]


@pytest.fixture
def log(tmp_path) -> RollLog:
    return RollLog(tmp_path / "rolls.jsonl")


@pytest.fixture
def zeros(tmp_path) -> str:
    path = tmp_path / "stuck-hwrng"
    path.write_bytes(bytes(4096))
    return str(path)


def test_auto_continues_without_a_failed_source_and_logs_the_failure(log, zeros) -> None:
    dice = open_dice("auto", log=log, hwrng_path=zeros)
    faces = [dice.roll(6) for _ in range(50)]
    assert set(faces) <= set(range(1, 7))
    assert dice.sources == ("kernel",)
    assert dice.status() == "hwrng FAILED RCT, kernel ok"
    kinds = [e["kind"] for e in entries(log)]
    assert kinds == ["source_failed", "session"]
    failed = entries(log)[0]
    assert failed["source"] == "hwrng" and "repetition count" in failed["error"]
    session = entries(log)[1]
    assert [s["name"] for s in session["sources"]] == ["kernel"] and session["credited_bits"] >= 256
    # The failed source stays out of service: the next session does not read it again.
    dice.reveal()
    dice.roll(6)
    assert [e["kind"] for e in entries(log)].count("source_failed") == 1


def test_auto_mixes_every_healthy_source(log, tmp_path) -> None:
    hw = tmp_path / "hwrng"
    hw.write_bytes(good_bytes(4096))
    dice = open_dice("auto", log=log, hwrng_path=str(hw))
    dice.roll(20)
    assert dice.sources == ("hwrng", "kernel")
    assert entries(log)[0]["credited_bits"] == 448 * 2


def test_auto_skips_a_missing_hwrng_quietly(log, tmp_path) -> None:
    dice = open_dice("auto", log=log, hwrng_path=str(tmp_path / "none"))
    dice.roll(6)
    assert dice.sources == ("kernel",)
    assert dice.status() == "hwrng absent, kernel ok"
    assert [e["kind"] for e in entries(log)] == ["session"]


def test_auto_refuses_when_the_healthy_sources_cannot_credit_256_bits(log, zeros) -> None:
    dice = open_dice("auto", log=log, hwrng_path=zeros, getrandom=lambda n: b"\x00" * n)
    with pytest.raises(NotEnoughEntropy) as info:
        dice.roll(6)
    text = str(info.value)
    assert "only 0 of the 256 bits" in text and "hwrng failed the repetition count test" in text
    assert "kernel failed the repetition count test" in text
    assert [e["kind"] for e in entries(log)] == ["source_failed", "source_failed"]


def test_a_named_source_that_fails_refuses_to_roll(log, zeros) -> None:
    dice = open_dice("hwrng", log=log, hwrng_path=zeros)
    with pytest.raises(EntropyError) as info:
        dice.randbelow(6)
    assert str(info.value).startswith("entropy source hwrng: failed the repetition count test")
    assert [e["kind"] for e in entries(log)] == ["source_failed"]
    with pytest.raises(EntropyError):
        dice.randbelow(6)


def test_a_named_list_needs_every_source(zeros) -> None:
    with pytest.raises(EntropyError, match="hwrng: failed the repetition count"):
        open_dice("kernel,hwrng", hwrng_path=zeros).roll(6)


def test_buttons_on_the_command_line_is_unavailable() -> None:
    with pytest.raises(SourceUnavailable, match="buttons: no button panel here"):
        open_dice("buttons").roll(6)


def test_seed_dice_are_exactly_drbg_from_seed() -> None:
    dice = open_dice(seed=b"table 7")
    first = DrbgDice.from_seed(b"table 7")
    assert [dice.randbelow(6) for _ in range(40)] == [first.randbelow(6) for _ in range(40)]
    # one roll's draws read generate calls of 64 bytes from the from_seed DRBG
    dice = open_dice(seed=b"table 7")
    ref = DrbgDice(SeedMaterial.from_seed(b"table 7").drbg(), buffer_bytes=64)
    for sides in (6, 10, 100, 1000, 2**20):
        assert [dice.randbelow(sides) for _ in range(300)] == [ref.randbelow(sides) for _ in range(300)]
    assert [sample_subset(dice, 5, 2) for _ in range(50)] == [sample_subset(ref, 5, 2) for _ in range(50)]
    assert dice.sources == ("seed",) and dice.status() == "seed (deterministic)"


def test_seed_and_entropy_exclude_each_other() -> None:
    with pytest.raises(ParameterError, match="--seed"):
        open_dice("kernel", seed=b"x")


@pytest.mark.parametrize("spec", ["", "foo", "file:", "kernel,kernel", "kernel,"])
def test_bad_specs_name_the_option(spec) -> None:
    with pytest.raises(ParameterError) as info:
        parse_spec(spec)
    assert str(info.value).startswith("--entropy: ")


def test_spec_parsing() -> None:
    assert parse_spec(" AUTO ") == ("auto",)
    assert parse_spec("hwrng,kernel") == ("hwrng", "kernel")
    assert parse_spec("file:/tmp/a b.bin") == ("file:/tmp/a b.bin",)


def test_commitment_is_sha256_of_the_revealed_seed_and_reveal_starts_a_new_session(log) -> None:
    dice = open_dice("kernel", log=log)
    first = dice.commitment
    rolls = [dice.roll(10) for _ in range(20)]
    dice.record({"system": "test", "dice": rolls})
    seed_hex = dice.reveal()
    assert hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest() == first
    material = SeedMaterial.from_hex(seed_hex)
    assert len(material.entropy) == 64 and material.personalization.endswith(b";kernel")
    # The revealed material reproduces the rolls.
    roll = entries(log)[1]
    assert roll["start"] == 0 and roll["end"] == 1 and roll["roll_kind"] == "rolled"
    assert roll["mix"] == ""  # nothing the device measures enters a roll: no mix unless a player types one
    again = RollStream(material).begin(bytes.fromhex(roll["mix"]))
    assert [again.randbelow(10) + 1 for _ in range(20)] == rolls
    assert dice.reveal() == seed_hex  # nothing open: the last reveal again
    second = dice.commitment
    assert second != first
    kinds = [e["kind"] for e in entries(log)]
    assert kinds == ["session", "roll", "reveal", "session"]
    assert entries(log)[0]["commitment"] == first and entries(log)[2]["seed"] == seed_hex


def test_sessions_rotate_after_the_configured_number_of_rolls(log) -> None:
    dice = open_dice("kernel", log=log, session_rolls=2)
    commitments = []
    for _ in range(5):
        dice.roll(6)
        commitments.append(dice.commitment)
        dice.record({"system": "x"})
    dice.close()
    assert len(set(commitments)) == 3
    kinds = [e["kind"] for e in entries(log)]
    assert kinds.count("session") == 3 and kinds.count("reveal") == 3
    assert [e["rolls"] for e in entries(log) if e["kind"] == "reveal"] == [2, 2, 1]
    assert verify(log.path).ok


def test_button_presses_seed_the_sessions_and_never_mix_into_a_roll(tmp_path) -> None:
    log = RollLog(tmp_path / "rolls.jsonl", fsync=False)  # 2400 entries; fsync is tested elsewhere
    bt = ButtonTiming()
    human_taps(bt, 30)
    dice = open_dice("auto", buttons=bt, log=log, hwrng_path=str(tmp_path / "none"))
    pooled = bt.credited_bits
    assert pooled == int(STARTUP_BITS_PER_PRESS * 29)  # the start-up window's estimate a press
    spec = get("d6cv")
    params = spec.resolve({"stat": 3, "cv": 7})
    for i in range(4):
        if i:
            human_taps(bt, 3, start=10**13 * (i + 2))
        for _ in range(600):
            dice.record(spec.roll(dice, params))
    dice.close()
    log_entries = entries(log)
    session = log_entries[0]
    assert session["kind"] == "session"
    assert {s["name"] for s in session["sources"]} == {"kernel", "buttons"}
    assert {s["name"]: s["credited_bits"] for s in session["sources"]}["buttons"] == pooled
    assert bt.credited_bits == 0  # the session took the pool
    rolls = [e for e in log_entries if e["kind"] == "roll"]
    assert {e["mix"] for e in rolls} == {""}  # the presses between the batches went to the next session
    sessions = [e for e in log_entries if e["kind"] == "session"]
    assert len(sessions) == 3 and all("buttons" in {s["name"] for s in e["sources"]} for e in sessions)
    report = replay_log(log.path)
    assert report.ok, report.problems
    assert report.rolls_checked == 2400


def test_buttons_alone_need_enough_presses_then_roll() -> None:
    bt = ButtonTiming()
    human_taps(bt, 40)
    dice = open_dice("buttons", buttons=bt)
    with pytest.raises(NotEnoughEntropy, match=r"only 71 of the 256 bits .*about 93 more deliberate presses"):
        dice.roll(6)
    assert bt.credited_bits == 71 == int(39 * STARTUP_BITS_PER_PRESS)  # a refusal does not use up the presses
    # 2 bits a press, or what the timing's SP 800-90B estimate says if that is less (1.83 on
    # the 16-press start-up window)
    human_taps(bt, 93 + 10, start=10**14)
    assert 1 <= dice.roll(6) <= 6
    assert dice.sources == ("buttons",)


def test_a_button_failure_mid_roll_abandons_the_roll_and_reseeds_without_buttons(log, tmp_path) -> None:
    bt = ButtonTiming()
    human_taps(bt, 30)
    dice = open_dice("auto", buttons=bt, log=log, hwrng_path=str(tmp_path / "none"))
    dice.roll(6)  # a roll in progress (not recorded yet)
    t = 10**15
    for i in range(12):  # a stuck clock: the sampled byte repeats
        bt.edge("ROLL", True, t + i * (256_000 * 1000 + 5_000))
        bt.edge("ROLL", False, t + i * (256_000 * 1000 + 5_000) + 60_000_003)
    assert bt.failed
    with pytest.raises(EntropyError, match=r"buttons: failed the repetition count .*roll in progress was abandoned"):
        dice.roll(6)
    dice.roll(6)  # a fresh session from the kernel alone
    assert dice.sources == ("kernel",)
    kinds = [e["kind"] for e in entries(log)]
    assert kinds == ["session", "source_failed", "reveal", "session"]
    reveal = next(e for e in entries(log) if e["kind"] == "reveal")
    assert reveal["reason"] == "source failed" and reveal["rolls"] == 0
