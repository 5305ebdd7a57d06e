"""The forgery corpus: roll logs made the way a dishonest owner would, each with the problem
every checker must report.

One corpus of data cases (:class:`Case`): a name, the entries of a complete log (its chain
re-hashed, so ``dicetower log verify`` passes: only a replay can tell), what the players noted
at the table (``--expect`` fingerprints, ``--table-seed``), and the words of the problem that
``dicetower replay --all-revealed`` and ``tools/verify_rolls.py`` must each report. The cases
are built by test code from honest logs (:func:`honest_logs`: real ``dicetower`` commands) with
the seeds those logs reveal, as an owner with the seed and write access would build them:
test_replay_forgeries.py runs every case through ``replay``, tests/tools/test_verify_rolls.py
through ``verify_rolls.py``, and test_board_verdict.py through the store's board: its verdict, and
what it would post to a webhook (no forged roll posted as verified).

Attacks (docs/fairness.md, "Who can do what"): grinding through any logged input (the start
of a roll, the mix, the table seed, the block size), hidden sessions beside the one the
players saw, a session opened before the previous reveal, a dropped, cut, edited or eased roll
(against the fingerprints the players noted), reused, zero and short entropy, edited credit
and sources, relabelled roll kinds, an old stream format to get a device-chosen mix back.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.systems import get
from hardware.entropy.seed import RollStream, SeedMaterial
from hardware.rolllog import GENESIS, entry_hash

Entries = list[dict[str, Any]]
TABLE_SEED = "417302"
#: The code the panel's players enter with the buttons (docs/panel.md, "The table's seed").
PANEL_CODE = "31425512"
PANEL_PRESSES = "3 1 4 2 5 5 1 2"
D6CV_HARD = ["roll", "d6cv", "--stat", "2", "--cv", "10"]  # a success one time in six


@dataclass(frozen=True)
class Case:
    """One forged log and what each checker must say about it."""

    name: str
    entries: tuple[dict[str, Any], ...]
    replay: str  # words of the problem `dicetower replay --all-revealed` reports
    verify: str  # words of the problem tools/verify_rolls.py reports
    expect: tuple[str, ...] = ()  # the fingerprints the players noted (--expect)
    table_seeds: tuple[str, ...] = ()  # the table seed the players set (--table-seed)
    source: str = "table"  # the honest log it was made from (what the players noted is true of it)

    def args(self) -> list[str]:
        """The checkers' options for what the players noted."""
        out: list[str] = []
        for prefix in self.expect:
            out += ["--expect", prefix]
        for seed in self.table_seeds:
            out += ["--table-seed", seed]
        return out


@dataclass
class Honest:
    """Honest logs made by real commands, and what the players noted of them."""

    def log(self, name: str) -> Entries:
        return {"table": self.table, "two": self.two, "seeded": self.seeded, "entered": self.entered,
                "panel": self.panel}[name]

    table: Entries  # session open, table seed, 30 hard rolls (some with --mix), close
    two: Entries  # two such sessions one after the other
    seeded: Entries  # a --seed test session
    entered: Entries  # typed-in winners, then one rolled roll
    noted: dict[str, str] = field(default_factory=dict)  # what the players photographed of `table`
    panel: Entries = field(default_factory=list)  # the tower's night: the code on the buttons, 12 rolls
    panel_noted: dict[str, str] = field(default_factory=dict)  # what the players photographed of the OLED


def read(path: Path) -> Entries:
    return [json.loads(line) for line in path.read_text().splitlines()]


def rehash(entries: Entries) -> Entries:
    """Entries with seq/prev/hash rebuilt, as a forger with write access would."""
    prev, out = GENESIS, []
    for seq, e in enumerate(entries, start=1):
        e = {k: v for k, v in e.items() if k not in ("seq", "prev", "hash")}
        e = {**e, "seq": seq, "prev": prev}
        e["hash"] = entry_hash(e)
        prev = e["hash"]
        out.append(e)
    return out


def write(path: Path, entries: Entries) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n" for e in rehash(entries)))


# --- honest logs ---------------------------------------------------------------------------------


def _cli(*argv: str) -> None:
    from hardware.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(list(argv))
    if code != 0:
        raise AssertionError(f"dicetower {' '.join(argv)} -> {code}: {err.getvalue()}")


def _night(state: Path, rolls: int = 30) -> None:
    _cli("session", "open", str(state))
    _cli("session", "seed", str(state), TABLE_SEED)
    _cli(*D6CV_HARD, "--times", str(rolls - 5), "--state-dir", str(state))
    for i in range(5):
        _cli(*D6CV_HARD, "--mix", f"player {i} says hi", "--state-dir", str(state))
    _cli("session", "close", str(state))


def _panel_night(state: Path, rolls: int = 12) -> list[str]:
    """An honest night on the tower (the simulated panel, its roll log in ``state``, entropy
    from the kernel): the table sets its code at the session's first ROLL, then rolls; the
    tower reveals at shutdown. Returns the fingerprints the OLED showed, in order."""
    from hardware import tower_config as cfg
    from hardware.cli.tower import _dice, keep
    from hardware.sim import Simulator, parse_script

    config = cfg.loads(f'[kiosk]\nstate_dir = "{state}"\n[entropy]\nsource = "kernel"\n'
                       '[panel]\nsystems = ["d6cv"]\nanimation_seconds = 0\n')
    kept = keep(config)
    sim = Simulator(config, dice=_dice(config, None, kept=kept), **kept.tower_options())
    try:
        steps = sim.run_script(parse_script(f"field field field plus plus plus roll plus {PANEL_PRESSES} roll "
                                            + "roll " * rolls))
    finally:
        sim.close()
    return [line.split()[-1] for step in steps if step["event"] == "roll" and step["screen"]["kind"] == "result"
            for line in step["screen"]["lines"] if line.startswith("roll #")]


def honest_logs(base: Path) -> Honest:
    """Run the commands of an honest night (and a few others) into directories under ``base``."""
    _night(base / "table")
    _night(base / "two")
    _night(base / "two")
    _cli(*D6CV_HARD, "--times", "5", "--seed", "table", "--state-dir", str(base / "seeded"))
    for _ in range(5):
        _cli("roll", "fingers", "--choices", "5", "--winners", "1", "--guess", "3", "--winners-set", "4",
             "--state-dir", str(base / "entered"), "--player", "1")
    _cli(*D6CV_HARD, "--state-dir", str(base / "entered"))
    logs = {name: read(base / name / "rolls.jsonl") for name in ("table", "two", "seeded", "entered")}
    table = logs["table"]
    rolls = [e for e in table if e["kind"] == "roll"]
    noted = {"commitment": table[0]["commitment"][:8], "last roll": rolls[-1]["hash"][:8],
             "head": table[-1]["hash"][:8], "middle roll": rolls[len(rolls) // 2]["hash"][:8]}
    shown = _panel_night(base / "panel")
    panel = read(base / "panel" / "rolls.jsonl")
    panel_noted = {"panel commitment": panel[0]["commitment"][:8], "panel middle roll": shown[len(shown) // 2],
                   "panel last roll": shown[-1]}
    return Honest(logs["table"], logs["two"], logs["seeded"], logs["entered"], noted, panel, panel_noted)


# --- what a forger with the seed does --------------------------------------------------------------


def _material(entries: Entries, sid: str) -> SeedMaterial:
    return SeedMaterial.from_hex(next(e["seed"] for e in entries if e["kind"] == "reveal" and e["session"] == sid))


def _sid(entries: Entries, n: int = 0) -> str:
    return [e["session"] for e in entries if e["kind"] == "session"][n]


def _fake_material(label: str, names: tuple[str, ...], entropy: bytes | None = None,
                   nonce: bytes | None = None) -> SeedMaterial:
    """Seed material as a forger makes it, random-looking unless told otherwise."""
    if entropy is None:
        entropy = b"".join(hashlib.sha512(f"{label}/{i}".encode()).digest() for i in range(len(names)))
    if nonce is None:
        nonce = hashlib.sha256(f"{label}/nonce".encode()).digest()[:16]
    return SeedMaterial(entropy, nonce, b"dicetower/session/v1;" + ",".join(names).encode())


def _roll_once(stream: RollStream, entry: dict[str, Any], mix: bytes) -> dict[str, Any]:
    spec = get(entry["result"]["system"])
    params = spec.resolve(entry["result"]["params"])
    return json.loads(json.dumps(spec.roll(stream.begin(mix), params).to_dict()))


def recompute(entries: Entries, sid: str, *, material: SeedMaterial | None = None,
              choose: Callable[[RollStream, dict[str, Any]], None] | None = None) -> Entries:
    """The session ``sid`` rewritten consistently: with ``material`` (a new seed: the session's
    id, commitment and reveal follow), every roll recomputed in order from where the last one
    ended (``choose`` may first move the stream or set the roll's mix), the reveal's count and
    end fixed. What a forger who knows the seed writes."""
    out = copy.deepcopy(entries)
    material = material or _material(out, sid)
    new_sid = material.commitment[:16]
    stream = RollStream(material)
    count = 0
    for e in out:
        if e.get("session") != sid:
            continue
        e["session"] = new_sid
        if e["kind"] == "session":
            e["commitment"] = material.commitment
        elif e["kind"] == "table_seed":
            stream.set_table_seed(e["table_seed"])
        elif e["kind"] == "roll":
            if choose is not None:
                choose(stream, e)
            e["start"] = stream.blocks
            e["result"] = _roll_once(stream, e, bytes.fromhex(e["mix"]))
            e["end"] = stream.blocks
            count += 1
        elif e["kind"] == "reveal":
            e["seed"] = material.encode().hex()
            e["rolls"], e["end"] = count, stream.blocks
    return out


def _succeeds(stream: RollStream, entry: dict[str, Any], mix: bytes) -> bool:
    """Whether the roll would succeed from here with ``mix`` (the stream is left as it was)."""
    saved = stream.drbg.export_state()
    try:
        return bool(_roll_once(stream, entry, mix)["success"])
    finally:
        from engine.rng import HmacDrbg

        stream.drbg = HmacDrbg.from_state(*saved)


def grind_offsets(entries: Entries, *, claim_continuity: bool) -> Entries:
    """Skip generate calls before each roll until it succeeds (at most 40 tries)."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    stream = RollStream(_material(out, sid))
    for e in out:
        if e.get("session") != sid:
            continue
        if e["kind"] == "table_seed":
            stream.set_table_seed(e["table_seed"])
        elif e["kind"] == "roll":
            claimed = stream.blocks
            mix = bytes.fromhex(e["mix"])
            for _ in range(40):
                if _succeeds(stream, e, mix):
                    break
                stream.drbg.generate(stream.block_bytes)
            start = stream.blocks
            e["result"] = _roll_once(stream, e, mix)
            e["start"], e["end"] = (claimed if claim_continuity else start), stream.blocks
        elif e["kind"] == "reveal":
            e["end"] = stream.blocks
    return out


def grind_mix(entries: Entries) -> Entries:
    """What the device could do with the ROLL press it measures: try press times a few
    nanoseconds apart (as a stream 2 panel logged them) until each roll succeeds."""
    def choose(stream: RollStream, e: dict[str, Any]) -> None:
        for shift in range(400):
            mix = struct.pack(">QQ", 5_000_000_000_000 + shift, 312_417_903)
            if _succeeds(stream, e, mix):
                break
        e["mix"] = mix.hex()
    return recompute(entries, _sid(entries), choose=choose)


def grind_table_seed(entries: Entries) -> Entries:
    """The device logs a table seed of its own choosing instead of the players': the first that
    makes the session's first three rolls succeed."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    material = _material(out, sid)
    rolls = [e for e in out if e.get("session") == sid and e["kind"] == "roll"][:3]
    for n in range(100_000):
        stream = RollStream(material)
        stream.set_table_seed(f"{n:06d}")
        if all(_succeeds(stream, r, b"") and (_roll_once(stream, r, b"") or True) for r in rolls):
            break
    next(e for e in out if e["kind"] == "table_seed")["table_seed"] = f"{n:06d}"
    return recompute(out, sid)


def table_seed_after_the_first_roll(entries: Entries) -> Entries:
    """A table seed chosen once the first roll was known, logged after it."""
    out = copy.deepcopy(entries)
    i = next(i for i, e in enumerate(out) if e["kind"] == "table_seed")
    seed = out.pop(i)
    first = next(i for i, e in enumerate(out) if e["kind"] == "roll")
    out.insert(first + 1, seed)
    return out


def grind_block_size(entries: Entries) -> Entries:
    """A block size the device picked (rolls recomputed with it)."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    material = _material(out, sid)
    stream = RollStream(material, block_bytes=32)
    for e in out:
        if e.get("session") != sid:
            continue
        if e["kind"] == "session":
            e["block_bytes"] = 32
        elif e["kind"] == "table_seed":
            stream.set_table_seed(e["table_seed"])
        elif e["kind"] == "roll":
            e["start"] = stream.blocks
            e["result"] = _roll_once(stream, e, bytes.fromhex(e["mix"]))
            e["end"] = stream.blocks
        elif e["kind"] == "reveal":
            e["end"] = stream.blocks
    return out


def hidden_sessions(entries: Entries) -> Entries:
    """Four more sessions committed beside the one the players photographed; each roll goes
    into whichever session makes it succeed; all revealed at the end (issue 16's attack 2)."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    main_session = next(e for e in out if e["kind"] == "session")
    extra = [_fake_material(f"hidden {k}", _names(out, sid)) for k in range(4)]
    streams = {sid: RollStream(_material(out, sid)), **{m.commitment[:16]: RollStream(m) for m in extra}}
    materials = {sid: _material(out, sid), **{m.commitment[:16]: m for m in extra}}
    counts = dict.fromkeys(streams, 0)
    forged: Entries = []
    for e in out:
        if e["kind"] == "session":
            forged.append(e)
            for m in extra:
                forged.append({**main_session, "session": m.commitment[:16], "commitment": m.commitment})
        elif e["kind"] == "table_seed":
            forged.append(e)
            streams[sid].set_table_seed(e["table_seed"])
        elif e["kind"] == "roll":
            chosen = next((s for s, st in streams.items() if _succeeds(st, e, b"")), sid)
            stream = streams[chosen]
            start = stream.blocks
            result = _roll_once(stream, e, b"")
            counts[chosen] += 1
            forged.append({**e, "session": chosen, "mix": "", "start": start, "end": stream.blocks, "result": result})
        elif e["kind"] == "reveal":
            for s, stream in streams.items():
                forged.append({**e, "session": s, "seed": materials[s].encode().hex(), "rolls": counts[s],
                               "end": stream.blocks})
    return forged


def session_before_the_reveal(entries: Entries) -> Entries:
    """The second session opened (and its table seed set) before the first one's reveal."""
    out = copy.deepcopy(entries)
    first_reveal = next(i for i, e in enumerate(out) if e["kind"] == "reveal")
    second = next(i for i, e in enumerate(out) if e["kind"] == "session" and i > first_reveal)
    moved = out.pop(second)
    out.insert(first_reveal, moved)
    return out


def drop_a_roll(entries: Entries, *, recompute_later: bool) -> Entries:
    """The middle roll taken out; the reveal's count fixed (and, a full rewrite after the fact,
    every later roll recomputed so the session is continuous)."""
    out = copy.deepcopy(entries)
    rolls = [i for i, e in enumerate(out) if e["kind"] == "roll"]
    del out[rolls[len(rolls) // 2]]
    if recompute_later:
        return recompute(out, _sid(out))
    for e in out:
        if e["kind"] == "reveal":
            e["rolls"] -= 1
    return out


def cut_the_last_rolls(entries: Entries) -> Entries:
    """The last three rolls cut, the reveal's count and end fixed."""
    out = copy.deepcopy(entries)
    rolls = [i for i, e in enumerate(out) if e["kind"] == "roll"]
    for i in reversed(rolls[-3:]):
        del out[i]
    return recompute(out, _sid(out))


def edit_a_result(entries: Entries) -> Entries:
    """A failed d6 roll made a success: the die raised to 6, the outcome and total with it."""
    out = copy.deepcopy(entries)
    roll = next(e for e in out if e["kind"] == "roll" and e.get("session") and not e["result"]["success"]
                and e["result"]["dice"][0] < 6)
    result = roll["result"]
    result["total"] += 6 - result["dice"][0]
    result["dice"][0] = 6
    result["success"] = True
    result["outcome"] = "success"
    return out


def ease_a_roll(entries: Entries) -> Entries:
    """A failed roll's difficulty lowered until the same dice succeed (consistent: the replay of
    that roll alone passes; only the fingerprints noted at the table show it)."""
    out = copy.deepcopy(entries)
    roll = next(e for e in out if e["kind"] == "roll" and not e["result"]["success"]
                and e["result"]["critical"] == "none")
    roll["result"]["params"]["cv"] = roll["result"]["total"]
    return recompute(out, roll["session"])


def _names(entries: Entries, sid: str) -> tuple[str, ...]:
    session = next(e for e in entries if e["kind"] == "session" and e["session"] == sid)
    return tuple(s["name"] for s in session["sources"])


def reseal(entries: Entries, sid: str, material: SeedMaterial) -> Entries:
    """The session ``sid`` given another seed (id, commitment, reveal), its rolls left alone."""
    out = copy.deepcopy(entries)
    for e in out:
        if e.get("session") == sid:
            e["session"] = material.commitment[:16]
            if e["kind"] == "session":
                e["commitment"] = material.commitment
            elif e["kind"] == "reveal":
                e["seed"] = material.encode().hex()
    return out


def reuse_entropy(entries: Entries) -> Entries:
    """The second session reveals the first one's entropy again, with a new nonce."""
    first, second = _sid(entries, 0), _sid(entries, 1)
    old = _material(entries, first)
    again = _fake_material("reused", _names(entries, second), entropy=old.entropy)
    return recompute(entries, second, material=again)


def zero_entropy(entries: Entries) -> Entries:
    """Zero bytes for entropy while the session entry claims its sources' full credit."""
    sid = _sid(entries)
    names = _names(entries, sid)
    return recompute(entries, sid, material=_fake_material("zeros", names, entropy=bytes(64 * len(names))))


def short_entropy(entries: Entries) -> Entries:
    """A 16-byte entropy input, one source claiming 128 bits of it (no HMAC_DRBG takes so short
    an input: the rolls are left as they were)."""
    out = copy.deepcopy(entries)
    for e in out:
        if e["kind"] == "session":
            e["sources"] = [{"name": "file:x", "credited_bits": 128, "samples": 1024}]
            e["credited_bits"] = 128
    material = SeedMaterial(hashlib.sha256(b"short").digest()[:16], b"n" * 16, b"dicetower/session/v1;file:x")
    return reseal(out, _sid(out), material)


def edit_credited_bits(entries: Entries) -> Entries:
    """Each source's credit raised beyond what one conditioned block can carry."""
    out = copy.deepcopy(entries)
    for e in out:
        if e["kind"] == "session":
            for s in e["sources"]:
                s["credited_bits"] = 900
            e["credited_bits"] = 900 * len(e["sources"])
    return out


def edit_credited_total(entries: Entries) -> Entries:
    """The session's credited total raised past the sum of its sources'."""
    out = copy.deepcopy(entries)
    next(e for e in out if e["kind"] == "session")["credited_bits"] += 512
    return out


def edit_sources(entries: Entries) -> Entries:
    """The sources renamed in the session entry (the bridge claimed where the hwrng was)."""
    out = copy.deepcopy(entries)
    for e in out:
        if e["kind"] == "session":
            e["sources"][0]["name"] = "bridge"
    return out


def relabel_test_session_as_rolled(entries: Entries) -> Entries:
    out = copy.deepcopy(entries)
    for e in out:
        if e["kind"] == "session":
            e["mode"] = "auto"
        if e["kind"] == "roll" and e.get("roll_kind") == "test":
            e["roll_kind"] = "rolled"
    return out


def relabel_entered_as_rolled(entries: Entries) -> Entries:
    out = copy.deepcopy(entries)
    for e in out:
        if e["kind"] == "roll" and e.get("roll_kind") == "entered":
            e["roll_kind"] = "rolled"
    return out


def downgrade_to_stream_2(entries: Entries) -> Entries:
    """An old stream format, to get a device-chosen mix back (no table seed in stream 2): the
    table seed dropped and every roll ground through its press time."""
    out = [e for e in copy.deepcopy(entries) if e["kind"] != "table_seed"]
    for e in out:
        if e["kind"] == "session":
            e["stream"] = 2
    return grind_mix(out)


def without_the_table_seed(entries: Entries) -> Entries:
    """The players' table seed taken out of the session and every roll recomputed without it
    (a forger who wants the session's rolls to follow from the seed the owner chose alone)."""
    out = [e for e in copy.deepcopy(entries) if e["kind"] != "table_seed"]
    return recompute(out, _sid(out))


def a_roll_after_the_reveal(entries: Entries) -> Entries:
    out = copy.deepcopy(entries)
    late = dict(next(e for e in out if e["kind"] == "roll"))
    return [*out, late]


#: name -> (honest log, forger, replay's words, verify_rolls.py's words, what the players noted, the
#: table seed they set: True for TABLE_SEED, or the panel's code)
_ATTACKS: dict[str, tuple[str, Callable[[Entries], Entries], str, str, tuple[str, ...], bool | str]] = {
    "grinding the start of each roll, true offsets": (
        "table", lambda e: grind_offsets(e, claim_continuity=False), "continuity: roll starts at generate call",
        "roll starts at generate call", (), False),
    "grinding the start of each roll, continuity claimed": (
        "table", lambda e: grind_offsets(e, claim_continuity=True), "roll does not match the revealed seed",
        "dice logged", (), False),
    "grinding the device-measured mix (press times)": (
        "table", grind_mix, "must be text a player typed", "is not text a player typed", (), False),
    "grinding the table seed (the device's own)": (
        "table", grind_table_seed, "not one the players set", "is not one the players set", (), True),
    "table seed set after the first roll": (
        "table", table_seed_after_the_first_roll, "comes after its first roll", "comes after its first roll", (),
        False),
    "grinding the block size": (
        "table", grind_block_size, "bad block size", "bad block size", (), False),
    "hidden sessions beside the photographed one": (
        "table", hidden_sessions, "opened while session", "opened while session", ("commitment",), True),
    "a session opened before the previous reveal": (
        "two", session_before_the_reveal, "opened while session", "opened while session", (), False),
    "a dropped roll, count fixed": (
        "table", lambda e: drop_a_roll(e, recompute_later=False), "calls skipped: a dropped, moved or re-drawn roll",
        "roll starts at generate call", (), False),
    "a dropped roll, later rolls recomputed": (
        "table", lambda e: drop_a_roll(e, recompute_later=True), "expected fingerprint",
        "expected fingerprint", ("last roll",), False),
    "the last rolls cut, the reveal fixed": (
        "table", cut_the_last_rolls, "expected fingerprint", "expected fingerprint", ("last roll",), False),
    "an edited result": (
        "table", edit_a_result, "roll does not match the revealed seed", "dice logged", (), False),
    "an eased roll (difficulty lowered)": (
        "table", ease_a_roll, "expected fingerprint", "expected fingerprint", ("head",), False),
    "reused entropy with a new nonce": (
        "two", reuse_entropy, "a reused seed", "a reused seed", (), False),
    "zero entropy claiming 896 bits": (
        "table", zero_entropy, "trivially weak entropy", "trivially weak entropy", (), False),
    "an entropy input shorter than 32 bytes": (
        "table", short_entropy, "shorter than 32", "shorter than 32", (), False),
    "edited credited bits": (
        "table", edit_credited_bits, "credited 1 to 448", "credited 1 to 448", (), False),
    "an edited credited total": (
        "table", edit_credited_total, "not the sum of its sources'", "not the sum of its sources'", (), False),
    "edited sources": (
        "table", edit_sources, "sources edited", "sources edited", (), False),
    "a test session relabelled as rolled": (
        "seeded", relabel_test_session_as_rolled, "labelled rolled but it is test", "labelled rolled but it is test",
        (), False),
    "an entered roll relabelled as rolled": (
        "entered", relabel_entered_as_rolled, "must be an entered (typed-in) roll", "not marked entered", (), False),
    "an old stream format to grind the mix again": (
        "table", downgrade_to_stream_2, "has no table seed", "has no table seed", (), True),
    "a roll after its session's reveal": (
        "table", a_roll_after_the_reveal, "after that session was revealed", "after that session was revealed", (),
        False),
    # the panel's own log: the OLED showed each roll's number and entry hash, the players noted some
    "a panel roll dropped, later rolls recomputed (the OLED's fingerprints noted)": (
        "panel", lambda e: drop_a_roll(e, recompute_later=True), "expected fingerprint", "expected fingerprint",
        ("panel middle roll", "panel last roll"), PANEL_CODE),
    "the players' code taken out of a panel session": (
        "panel", without_the_table_seed, "has no table seed, but the players set",
        "has no table seed, but the players set", ("panel commitment",), PANEL_CODE),
}

#: The corpus's case names (known before the honest logs are made, for test parameters).
NAMES: tuple[str, ...] = tuple(_ATTACKS)


def corpus(honest: Honest) -> dict[str, Case]:
    """Every case, built from ``honest``'s logs."""
    noted_all = {**honest.noted, **honest.panel_noted}
    cases = {}
    for name, (source, forge, replay, verify, noted, seeded) in _ATTACKS.items():
        forged = rehash(forge(copy.deepcopy(honest.log(source))))
        seeds = (seeded,) if isinstance(seeded, str) else (TABLE_SEED,) if seeded else ()
        cases[name] = Case(name, tuple(forged), replay, verify, tuple(noted_all[n] for n in noted), seeds, source)
    return cases
