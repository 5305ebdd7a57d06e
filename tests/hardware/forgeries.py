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
and sources, relabelled roll kinds, an old stream format to get a device-chosen mix back; and
what an owner with root tried against the photographed facts (issue 26): the reopen loop run
for real with the unmodified command line, a chain of sessions ground under the players' code,
a head ground at a short fingerprint's length, invisible and decimal mixes, failing rolls
rewritten as typed-in faces, a noted value matched by an entry of a kind the players never
see, and the night's rolls put in a session logged before the one the players photographed.

Each case names the problem code (docs/fairness.md, "Problem codes") every checker must report
first, and the codes it must report at all. For an attack by a modified device, what the
players noted is what that device showed them (the forged log's own fingerprints); for a rewrite
after the fact, what an honest tower showed (the honest log's).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import re
import shutil
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.fingerprints import FINGERPRINT_HEX
from engine.seeds import RollStream, SeedMaterial
from engine.systems import get
from hardware.files.rolllog import GENESIS, entry_hash

Entries = list[dict[str, Any]]
TABLE_SEED = "417302"
#: The code of the "two" log's second session (one code, one session).
TABLE_SEED_2 = "905518"
#: What the players of the "table" log typed with --mix (named with --allow-mix).
MIXES = tuple(f"player {i} says hi" for i in range(5))
#: The code the panel's players enter with the buttons (docs/panel.md, "The table's seed").
PANEL_CODE = "31425512"
PANEL_PRESSES = "3 1 4 2 5 5 1 2"
D6CV_HARD = ["roll", "d6cv", "--stat", "2", "--cv", "10"]  # a success one time in six
#: An attack's ``seeds`` that stand for every code its forged log holds (the players passed them all).
LOGGED_CODES = ("(the log's codes)",)


@dataclass(frozen=True)
class Case:
    """One forged log and what each checker must say about it."""

    name: str
    entries: tuple[dict[str, Any], ...]
    codes: tuple[str, ...]  # the first problem's code, then every code that must be reported
    expect: tuple[str, ...] = ()  # what the players noted (--expect)
    table_seeds: tuple[str, ...] = ()  # the codes the players set (--table-seed)
    allow_mix: tuple[str, ...] = ()  # the mixes the players typed (--allow-mix), once per roll
    source: str = "table"  # the honest log it was made from
    honest_notes: bool = True  # what the players noted is true of the honest log too (a rewrite after the fact)
    cards: tuple[str, ...] = ()  # the reveal cards the players photographed (--card: the QR code's text)
    count: int | None = None  # the rolls the players counted (--count), when they counted
    #: caught only with the rules' arithmetic (odds, outcomes): by replay and the board, not by
    #: tools/verify_rolls.py, which recomputes dice only (docs/fairness.md, "What this does not cover")
    rules_only: bool = False

    @property
    def code(self) -> str:
        """The code of the first problem every checker reports."""
        return self.codes[0]

    @property
    def player_mode(self) -> bool:
        return bool(self.expect or self.table_seeds or self.cards)

    def args(self) -> list[str]:
        """The checkers' options for what the players noted."""
        out: list[str] = []
        for prefix in self.expect:
            out += ["--expect", prefix]
        for seed in self.table_seeds:
            out += ["--table-seed", seed]
        for mix in self.allow_mix:
            out += ["--allow-mix", mix]
        for card in self.cards:
            out += ["--card", card]
        if self.count is not None:
            out += ["--count", str(self.count)]
        return out

    def notes(self) -> Any:
        """What the players noted, as the verifier takes it (:class:`engine.verify.Notes`)."""
        from engine.verify import Notes

        return Notes.of(self.expect, self.table_seeds, self.allow_mix, cards=self.cards, count=self.count)


@dataclass
class Honest:
    """Honest logs made by real commands, and what the players noted of them."""

    def log(self, name: str) -> Entries:
        return {"table": self.table, "two": self.two, "seeded": self.seeded, "entered": self.entered,
                "panel": self.panel, "reopened": self.reopened, "fingers": self.fingers}[name]

    table: Entries  # session open, table seed, 30 hard rolls (some with --mix), close
    two: Entries  # two such sessions one after the other, each with its own code
    seeded: Entries  # a --seed test session
    entered: Entries  # typed-in winners, then one rolled roll
    noted: dict[str, str] = field(default_factory=dict)  # what the players photographed of `table`
    panel: Entries = field(default_factory=list)  # the tower's night: the code on the buttons, 12 rolls
    panel_noted: dict[str, str] = field(default_factory=dict)  # what the players photographed of the OLED
    reopened: Entries = field(default_factory=list)  # root's reopen loop with the unmodified command line
    reopened_noted: tuple[str, ...] = ()  # what the players noted of it (each result as the CLI showed it)
    panel_shown: tuple[str, ...] = ()  # every result the OLED showed of `panel`, as the players note it
    fingers: Entries = field(default_factory=list)  # a fingers night on the command line, player 1's karma

    def table_args(self) -> list[str]:
        """The checkers' options for what the players of `table` noted (the commitment, two
        results, the head; the 30 rolls they counted): an honest night passes them."""
        return [*(a for n in self.noted.values() for a in ("--expect", n)), "--table-seed", TABLE_SEED,
                *(a for m in MIXES for a in ("--allow-mix", m)), "--count", "30"]


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


def _night(state: Path, code: str = TABLE_SEED, rolls: int = 30) -> None:
    _cli("session", "open", str(state))
    _cli("session", "seed", str(state), code)
    _cli(*D6CV_HARD, "--times", str(rolls - 5), "--state-dir", str(state))
    for mix in MIXES:
        _cli(*D6CV_HARD, "--mix", mix, "--state-dir", str(state))
    _cli("session", "close", str(state))


def _fingers_night(state: Path, rolls: int = 8) -> None:
    """Player 1's fingers challenges on the command line: the karma each failure earns, carried
    in the state directory from roll to roll."""
    _cli("session", "open", str(state))
    _cli("session", "seed", str(state), "karma night")
    for n in range(rolls):
        _cli("roll", "fingers", "--choices", "5", "--winners", "2", "--guess", str(n % 5 + 1),
             "--state-dir", str(state), "--player", "1")
    _cli("session", "close", str(state))


def _panel_night(state: Path, rolls: int = 12) -> list[str]:
    """An honest night on the tower (the simulated panel, its roll log in ``state``, entropy
    from the kernel): the table sets its code at the session's first ROLL, then rolls; the
    tower reveals at shutdown. Returns the fingerprints the OLED showed, in order."""
    from hardware.cli.sim import Simulator, parse_script
    from hardware.cli.tower import _dice, keep
    from hardware.config import reader

    config = reader.loads(f'[kiosk]\nstate_dir = "{state}"\n[entropy]\nsource = "kernel"\n'
                          '[panel]\nsystems = ["d6cv"]\nanimation_seconds = 0\n')
    kept = keep(config)
    sim = Simulator(config, dice=_dice(config, None, kept=kept), **kept.tower_options())
    try:
        steps = sim.run_script(parse_script(f"field field field plus plus plus roll plus {PANEL_PRESSES} roll "
                                            + "roll " * rolls))
    finally:
        sim.close()
    return [_note(line) for step in steps if step["event"] == "roll" and step["screen"]["kind"] == "result"
            for line in step["screen"]["lines"] if _FOOT.fullmatch(line)]


_FOOT = re.compile(r"#?(\d+) ([0-9a-f]{" + str(FINGERPRINT_HEX) + "})")


def _note(line: str) -> str:
    """A result's fingerprint as the OLED shows it (``#12 a1b2…``), as a player types it (``12:a1b2…``)."""
    found = _FOOT.fullmatch(line)
    if found is None:
        raise AssertionError(f"not a fingerprint line: {line!r}")
    return f"{found[1]}:{found[2]}"


def number_of(entries: Entries, entry: dict[str, Any]) -> int:
    """A roll entry's number in its session (what its result showed: ``roll #N``)."""
    sid, n = entry["session"], 0
    for e in entries:
        if e.get("kind") == "roll" and e.get("session") == sid:
            n += 1
            if e is entry or e.get("hash") == entry.get("hash"):
                return n
    raise AssertionError("the roll is not in the log")


def noted_roll(entries: Entries, entry: dict[str, Any]) -> str:
    """What a player notes of a result: ``N:`` and the first 16 hex digits of its entry hash."""
    return f"{number_of(entries, entry)}:{entry['hash'][:FINGERPRINT_HEX]}"


def shown(entries: Entries, *, commitment: int = 0, rolls: str = "last", head: bool = True) -> tuple[str, ...]:
    """What a device that wrote ``entries`` (rehashed) showed the players, as they note it: the
    ``commitment``-th session's commitment, the last result (or every result) and the last
    reveal's head."""
    entries = rehash(entries)
    sessions = [e for e in entries if e["kind"] == "session"]
    out = [sessions[commitment]["commitment"][:FINGERPRINT_HEX]]
    results = [e for e in entries if e["kind"] == "roll" and e.get("session")]
    for e in (results if rolls == "all" else results[-1:] if rolls == "last" else []):
        out.append(noted_roll(entries, e))
    if head:
        out.append([e for e in entries if e["kind"] == "reveal"][-1]["hash"])
    return tuple(out)


def reopen_loop(state: Path, code: str = TABLE_SEED, rolls: int = 3) -> tuple[Entries, tuple[str, ...]]:
    """Issue 26's first attack, run for real with the unmodified command line by an owner with
    root: the players note the commitment and set their code; before each roll the owner works
    out what it will be (the open session's seed is in ``open-sessions/``: here, by rolling in a
    copy of the state directory), and while it would fail closes the session, opens another and
    seeds it (the command line refuses the players' code on a second session, so the owner
    gives each reopened session a code of their own). Returns the log and what the players noted
    (the first commitment, every result as the command line showed it, the last head)."""
    _cli("session", "open", str(state))
    first = read(state / "rolls.jsonl")[-1]["commitment"]
    _cli("session", "seed", str(state), code)
    noted: list[str] = [first[:FINGERPRINT_HEX]]
    reopened = 0
    for _ in range(rolls):
        for _attempt in range(60):
            if _would_succeed(state):
                break
            reopened += 1
            _cli("session", "close", str(state))
            _cli("session", "open", str(state))
            _cli("session", "seed", str(state), f"owner{reopened}")
        result = _cli_json(*D6CV_HARD, "--state-dir", str(state), "--json")
        if not result["success"]:
            raise AssertionError("the reopen loop should have found a success")
        noted.append(f"{result['recorded']['number']}:{result['recorded']['entry']}")
    _cli("session", "close", str(state))
    entries = read(state / "rolls.jsonl")
    noted.append(entries[-1]["hash"])
    return entries, tuple(noted)


def _would_succeed(state: Path) -> bool:
    """Whether the next d6cv roll in ``state``'s open session succeeds, found by rolling it in a
    copy of the directory (what root, who can read the open session's seed, can work out)."""
    with _scratch() as scratch:
        copy_dir = scratch / "copy"
        shutil.copytree(state, copy_dir)
        return bool(_cli_json(*D6CV_HARD, "--state-dir", str(copy_dir), "--json")["success"])


@contextlib.contextmanager
def _scratch():
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        yield Path(where)


def _cli_json(*argv: str) -> dict[str, Any]:
    from hardware.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(list(argv))
    if code != 0:
        raise AssertionError(f"dicetower {' '.join(argv)} -> {code}: {err.getvalue()}")
    return json.loads(out.getvalue().splitlines()[-1])


def honest_logs(base: Path) -> Honest:
    """Run the commands of an honest night (and a few others) into directories under ``base``."""
    _night(base / "table")
    _night(base / "two", TABLE_SEED)
    _night(base / "two", TABLE_SEED_2)
    _cli(*D6CV_HARD, "--times", "5", "--seed", "table", "--state-dir", str(base / "seeded"))
    for _ in range(5):
        _cli("roll", "fingers", "--choices", "5", "--winners", "1", "--guess", "3", "--winners-set", "4",
             "--state-dir", str(base / "entered"), "--player", "1")
    _cli(*D6CV_HARD, "--state-dir", str(base / "entered"))
    logs = {name: read(base / name / "rolls.jsonl") for name in ("table", "two", "seeded", "entered")}
    table = logs["table"]
    rolls = [e for e in table if e["kind"] == "roll"]
    noted = {"commitment": table[0]["commitment"][:FINGERPRINT_HEX], "last roll": noted_roll(table, rolls[-1]),
             "head": table[-1]["hash"], "middle roll": noted_roll(table, rolls[len(rolls) // 2])}
    shown_rolls = _panel_night(base / "panel")
    panel = read(base / "panel" / "rolls.jsonl")
    panel_noted = {"panel commitment": panel[0]["commitment"][:FINGERPRINT_HEX],
                   "panel middle roll": shown_rolls[len(shown_rolls) // 2], "panel last roll": shown_rolls[-1]}
    reopened, reopened_noted = reopen_loop(base / "reopened")
    _fingers_night(base / "fingers")
    return Honest(logs["table"], logs["two"], logs["seeded"], logs["entered"], noted, panel, panel_noted, reopened,
                  reopened_noted, tuple(shown_rolls), read(base / "fingers" / "rolls.jsonl"))


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


def ground_session_chain(entries: Entries) -> Entries:
    """A modified tower: before each roll it grinds a fresh session (a new seed, committed and
    revealed around that one roll) until the roll succeeds, and logs the players' code on every
    one. The players noted the first session's commitment (shown at the question), their code,
    each result as shown and the last head."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    session = next(e for e in out if e["kind"] == "session")
    seed = next(e for e in out if e["kind"] == "table_seed")
    reveal = next(e for e in out if e["kind"] == "reveal")
    names = _names(out, sid)
    forged: Entries = []
    for n, roll in enumerate(e for e in out if e["kind"] == "roll"):
        for k in range(200):
            material = _fake_material(f"ground {n}/{k}", names) if n or k else _material(out, sid)
            stream = RollStream(material)
            stream.set_table_seed(seed["table_seed"])
            if _succeeds(stream, roll, b""):
                break
        new_sid = material.commitment[:16]
        start = stream.blocks
        result = _roll_once(stream, roll, b"")
        forged += [{**session, "session": new_sid, "commitment": material.commitment},
                   {**seed, "session": new_sid},
                   {**roll, "session": new_sid, "mix": "", "start": start, "end": stream.blocks, "result": result},
                   {**reveal, "session": new_sid, "seed": material.encode().hex(), "rolls": 1, "end": stream.blocks}]
    return forged


def ease_the_last_roll(entries: Entries) -> Entries:
    """The last failed roll's difficulty eased after the fact until its dice succeed
    (consistent: the replay alone passes), the later rolls, the reveal and the chain rewritten."""
    out = copy.deepcopy(entries)
    # the last roll that failed on its total (an honest log's very last roll succeeds one time in
    # six; a critical failure fails at any CV)
    roll = [e for e in out if e["kind"] == "roll" and e.get("session") and not e["result"]["success"]
            and e["result"]["critical"] == "none"][-1]
    roll["result"]["params"]["cv"] = roll["result"]["total"]
    return recompute(out, roll["session"])


def grind_the_head(entries: Entries, noted_head: str, digits: int = 4) -> Entries:
    """The last roll eased, then the reveal's time re-ground until the head starts with the
    ``digits`` hex digits the players noted (issue 26: two timestamps ground until an 8-digit
    head matched, 2^32 work). With a 16-digit note it is 2^64 work: this corpus grinds 4 digits
    to show the attack's shape; the players noted 16, as the docs tell them."""
    out = ease_the_last_roll(entries)
    reveal = out[-1]
    # only the reveal changes: the chain is hashed once, then only the reveal, per tick
    last = {k: v for k, v in rehash(out)[-1].items() if k != "hash"}
    for tick in range(16 ** (digits + 2)):
        reveal["time"] = last["time"] = \
            f"2026-12-05T20:{(tick // 60000) % 60:02d}:{(tick // 1000) % 60:02d}.{tick % 1000:03d}Z"
        if entry_hash(last).startswith(noted_head[:digits]):
            return out
    raise AssertionError("could not grind the head")


def _tower_grinds_mix(entries: Entries, mixes: Callable[[int], bytes], source: str | None = None) -> Entries:
    """A modified tower that grinds a mix of its own choosing into each roll until it succeeds."""
    def choose(stream: RollStream, e: dict[str, Any]) -> None:
        for shift in range(400):
            mix = mixes(shift)
            if _succeeds(stream, e, mix):
                break
        e["mix"] = mix.hex()
        if source is not None:
            e["source"] = source
    return recompute(entries, _sid(entries), choose=choose)


def invisible_mix(entries: Entries) -> Entries:
    """Zero-width characters ground into panel rolls: text no player could see in the log."""
    return _tower_grinds_mix(entries, lambda k: ("\u200b" * (k + 1)).encode("utf-8"))


def decimal_press_time(entries: Entries) -> Entries:
    """The press time written as decimal text (printable ASCII) and ground, on panel rolls."""
    return _tower_grinds_mix(entries, lambda k: str(5_000_000_000_000 + k).encode("ascii"))


def decimal_press_time_as_typed(entries: Entries) -> Entries:
    """The same, the rolls relabelled as command-line rolls (where a mix is allowed)."""
    return _tower_grinds_mix(entries, lambda k: str(5_000_000_000_000 + k).encode("ascii"), source="cli")


def failing_rolls_typed_in(entries: Entries) -> Entries:
    """A modified tower logs each roll that would fail as a typed-in roll with faces of its
    choosing (a success), outside the session; the session's other rolls recomputed."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    stream = RollStream(_material(out, sid))
    forged: Entries = []
    for e in out:
        if e.get("session") == sid and e["kind"] == "table_seed":
            stream.set_table_seed(e["table_seed"])
        if e.get("session") == sid and e["kind"] == "roll" and not _succeeds(stream, e, b""):
            spec = get(e["result"]["system"])
            params = spec.resolve(e["result"]["params"])
            from engine.dice import FacesDice

            result = json.loads(json.dumps(spec.roll(FacesDice([6, 6]), params).to_dict()))
            forged.append({**e, "session": None, "roll_kind": "entered", "start": 0, "end": 0, "mix": "",
                           "result": result})
            continue
        if e.get("session") == sid and e["kind"] == "roll":
            _roll_once(stream, e, b"")  # a success: rolled as it was
        forged.append(e)
    return recompute(forged, sid)


def noted_on_a_kind_players_never_see(entries: Entries, kind: str) -> Entries:
    """The last roll eased after the fact, and an entry of ``kind`` (a source failure, or a kind
    no checker knows) appended whose hash the forged device showed as the reveal's head."""
    out = ease_the_last_roll(entries)
    extra = {"kind": kind, "source": "hwrng", "error": "forged"} if kind == "source_failed" else \
        {"kind": kind, "text": "forged"}
    return [*out, extra]


def rolls_before_the_photographed_session(entries: Entries) -> Entries:
    """The night's rolls put in a session ground and logged *before* the one whose commitment
    the players photographed (which keeps their code and no roll): a span that started at the
    first photographed session would leave them out."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    names = _names(out, sid)
    session = next(e for e in out if e["kind"] == "session")
    reveal = next(e for e in out if e["kind"] == "reveal")
    rolls = [e for e in out if e["kind"] == "roll"]
    ground = _fake_material("before", names)
    zid = ground.commitment[:16]
    stream = RollStream(ground)
    stream.set_table_seed("owner")
    before: Entries = [{**session, "session": zid, "commitment": ground.commitment},
                       {"kind": "table_seed", "session": zid, "table_seed": "owner"}]
    for e in rolls:
        for _ in range(40):
            if _succeeds(stream, e, b""):
                break
            stream.drbg.generate(stream.block_bytes)
        start = stream.blocks
        before.append({**e, "session": zid, "mix": "", "start": start, "end": stream.blocks,
                       "result": _roll_once(stream, e, b"")})
    before = recompute([*before, {**reveal, "session": zid}], zid, material=ground)
    after = [e for e in out if e["kind"] != "roll"]
    for e in after:
        if e["kind"] == "reveal":
            e["rolls"], e["end"] = 0, 1
    return before + after


def typed_in_inside_the_session(entries: Entries, typed: dict[str, Any]) -> Entries:
    """A modified tower puts a typed-in roll (a game master's fingers hand, its winners given:
    ``typed``) into the session in place of each roll that would fail: it draws nothing, so the
    session stays continuous, and it is labelled ``entered`` as its content says (the bytes the
    failing roll would have drawn are the next roll's, so from the first failure on every roll
    is typed in)."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    stream = RollStream(_material(out, sid))
    forged: Entries = []
    for e in out:
        if e.get("session") == sid and e["kind"] == "table_seed":
            stream.set_table_seed(e["table_seed"])
        if e.get("session") == sid and e["kind"] == "roll" and not _succeeds(stream, e, bytes.fromhex(e["mix"])):
            forged.append({**typed, "session": sid, "source": e.get("source"), "start": stream.blocks,
                           "end": stream.blocks, "mix": ""})
            continue
        if e.get("session") == sid and e["kind"] == "roll":
            _roll_once(stream, e, bytes.fromhex(e["mix"]))
        forged.append(e)
    return recompute(forged, sid, choose=_keep_typed)


def _keep_typed(stream: RollStream, e: dict[str, Any]) -> None:
    """``recompute``'s chooser: a typed-in roll stays as it is (it draws nothing)."""
    if e["result"]["params"].get("winners_set"):
        e["mix"] = ""


def reuse_the_players_mix(entries: Entries) -> Entries:
    """A modified program puts the text a player typed once (``--mix``) on whichever of the
    session's rolls it makes succeed, and leaves it off the others: two tries a roll."""
    def choose(stream: RollStream, e: dict[str, Any]) -> None:
        mix = b""
        for mix in (b"", MIXES[0].encode("ascii")):
            if _succeeds(stream, e, mix):
                break
        e["mix"] = mix.hex()
    return recompute(entries, _sid(entries), choose=choose)


def skip_with_a_command_line_roll(entries: Entries) -> Entries:
    """Root with the unmodified program: it reads the open session's seed, and before each panel
    roll that would fail it rolls once itself from the command line (``dicetower roll
    --state-dir``, which shares the tower's session), so the table gets the next roll instead.
    The panel showed each result's true number (with the gaps)."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    stream = RollStream(_material(out, sid))
    forged: Entries = []
    for e in out:
        if e.get("session") == sid and e["kind"] == "table_seed":
            stream.set_table_seed(e["table_seed"])
        if e.get("session") == sid and e["kind"] == "roll":
            for _ in range(20):
                if _succeeds(stream, e, b""):
                    break
                cli = {k: v for k, v in e.items() if k not in ("source", "player_state", "player")}
                forged.append(cli)
                _roll_once(stream, e, b"")
            _roll_once(stream, e, b"")
        forged.append(e)
    return recompute(forged, sid)


def session_rolls(entries: Entries) -> int:
    """The rolls of the log's sessions (typed-in rolls outside them are not counted)."""
    return sum(1 for e in entries if e["kind"] == "roll" and e.get("session"))


def noted_at(entries: Entries, seen: list[int], *, counted: bool = False) -> tuple[str, ...]:
    """What players who note everything the docs ask noted of ``entries`` (rehashed): each
    session's commitment, each result they saw (the rolls at ``seen``) as ``N:HEX``, and the
    last head; players who counted (``counted``) noted the first commitment and their last
    result only."""
    sessions = [e["commitment"][:FINGERPRINT_HEX] for e in entries if e["kind"] == "session"]
    results = [noted_roll(entries, entries[i]) for i in seen]
    heads = [e["hash"] for e in entries if e["kind"] == "reveal"][-1:]
    if counted:
        return (sessions[0], results[-1], *heads)
    return (*sessions, *results, *heads)


def roll_in_between(entries: Entries, *, as_command_line: bool = False) -> tuple[Entries, list[int]]:
    """Root with the unmodified program, before the fix of issue 37: before each table roll
    that would fail, it rolls in the tower's session itself (the stock ``dicetower sim`` on the
    tower's state directory, whose rolls are the panel's; or ``dicetower roll --state-dir``,
    its line rewritten to say ``panel``), so the table gets the next roll instead. Returns the
    log and the indexes of the rolls the table saw (each result's number shows the gaps)."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    stream = RollStream(_material(out, sid))
    forged: Entries = []
    seen: list[int] = []
    for e in out:
        if e.get("session") == sid and e["kind"] == "table_seed":
            stream.set_table_seed(e["table_seed"])
        if e.get("session") == sid and e["kind"] == "roll":
            for _ in range(20):
                if _succeeds(stream, e, b""):
                    break
                extra = {k: v for k, v in e.items() if k not in ("player_state", "player")} if as_command_line \
                    else dict(e)
                forged.append({**extra, "source": "panel"})
                _roll_once(stream, e, b"")
            _roll_once(stream, e, b"")
            seen.append(len(forged))
        forged.append(e)
    return recompute(forged, sid), seen


def grind_a_code(entries: Entries, rolls: int = 4) -> Entries:
    """Root before the table arrives: it opens a session and grinds a code until the next
    ``rolls`` rolls succeed (``000576`` after 577 tries in the issue), sets it with ``dicetower
    session seed`` and leaves it for the panel, which (before issue 37) showed it as ``code set:
    000576`` and ``ROLL: roll``. The panel's rolls then go into that session."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    material = _material(out, sid)
    table = [e for e in out if e["kind"] == "roll" and e.get("session") == sid][:rolls]
    for tries in range(200_000):
        code = f"{tries:06d}"
        stream = RollStream(material)
        stream.set_table_seed(code)
        if all(_succeeds(stream, e, b"") and _roll_once(stream, e, b"") for e in table):
            break
    for e in out:
        if e["kind"] == "table_seed":
            e["table_seed"], e["source"] = code, "command-line"
    return recompute(out, sid)


def reveal_before_each_failure(entries: Entries, sessions: int = 80) -> tuple[Entries, list[int]]:
    """Root (or a modified program) ends the session whenever its next roll would fail, once the
    session holds two rolls: the table gets a new session and a new code each time, and never
    the failing roll (issue 37: 3 failures in 20 rolls at 1-in-6 odds). Each ending's reveal says
    the table's menu ended it. Returns the log and the rolls the table saw (all of them)."""
    out = copy.deepcopy(entries)
    sid = _sid(out)
    names = _names(out, sid)
    session = next(e for e in out if e["kind"] == "session")
    reveal = next(e for e in out if e["kind"] == "reveal")
    roll = next(e for e in out if e["kind"] == "roll")
    forged: Entries = []
    seen: list[int] = []
    for n in range(sessions):
        material = _fake_material(f"ends early {n}", names)
        new_sid = material.commitment[:16]
        stream = RollStream(material)
        code = f"{31425512 + n}"
        stream.set_table_seed(code)
        forged += [{**session, "session": new_sid, "commitment": material.commitment},
                   {"kind": "table_seed", "session": new_sid, "table_seed": code, "source": "panel"}]
        count = 0
        while count < 2 or _succeeds(stream, roll, b""):
            start = stream.blocks
            result = _roll_once(stream, roll, b"")
            seen.append(len(forged))
            forged.append({**roll, "session": new_sid, "start": start, "end": stream.blocks, "result": result})
            count += 1
        forged.append({**reveal, "session": new_sid, "seed": material.encode().hex(), "rolls": count,
                       "end": stream.blocks, "reason": "reveal", "by": "table"})
    return forged, seen


def karma_never_earned(entries: Entries) -> Entries:
    """A modified program logs, after a roll that left player 1 no karma, the karma it likes
    (5): fed to the player's next roll, whose spend then succeeds where it should not."""
    out = copy.deepcopy(entries)
    roll = next(e for e in out if e["kind"] == "roll" and e["result"]["karma_after"] < 5)
    roll["player_state"] = {**roll["player_state"], "fingers": {**roll["player_state"]["fingers"], "karma": 5}}
    return out


def card_of(entries: Entries, n: int = -1, *, rolls: int | None = None) -> str:
    """The text of the reveal card (its QR code) of the ``n``-th revealed session of
    ``entries`` (rehashed), as a device showed it (with ``rolls`` it claimed)."""
    from engine.fingerprints import reveal_card

    entries = rehash(entries)
    reveal = [e for e in entries if e["kind"] == "reveal"][n]
    sid = reveal["session"]
    session = next(e for e in entries if e["kind"] == "session" and e["session"] == sid)
    seed = next((e["table_seed"] for e in entries if e["kind"] == "table_seed" and e["session"] == sid), None)
    return reveal_card(session["commitment"], seed, reveal["rolls"] if rolls is None else rolls, reveal["hash"])


@dataclass(frozen=True)
class _Attack:
    """One attack: the honest log it starts from, the forger, the codes every checker reports
    (the first one first), and what the players noted: names in the honest log's notes, or
    ``shown`` to take them from what the forged device showed (a modified device)."""

    source: str
    forge: Callable[[Entries], Entries]
    codes: tuple[str, ...]
    noted: tuple[str, ...] = ()
    seeds: tuple[str, ...] = ()
    shown: Callable[[Entries], tuple[str, ...]] | None = None
    mixes: tuple[str, ...] = ()
    cards: Callable[[Entries], tuple[str, ...]] | None = None  # the reveal cards the device showed
    #: a forger that also says which rolls the table saw (their indexes in its log): the players
    #: noted each of those results, every commitment and the last head
    seen: Callable[[Entries], tuple[Entries, list[int]]] | None = None
    count: int | None = None  # the rolls the players counted (they noted only the first commitment and the last result)
    rules_only: bool = False


_ATTACKS: dict[str, _Attack] = {
    "grinding the start of each roll, true offsets": _Attack(
        "table", lambda e: grind_offsets(e, claim_continuity=False), ("continuity",)),
    "grinding the start of each roll, continuity claimed": _Attack(
        "table", lambda e: grind_offsets(e, claim_continuity=True), ("roll-mismatch",)),
    "grinding the device-measured mix (press times)": _Attack("table", grind_mix, ("mix",)),
    "grinding the table seed (the device's own)": _Attack(
        "table", grind_table_seed, ("table-seed-not-found", "unnoted-table-seed"), ("commitment",), (TABLE_SEED,),
        mixes=MIXES),
    "table seed set after the first roll": _Attack("table", table_seed_after_the_first_roll, ("table-seed",)),
    "grinding the block size": _Attack("table", grind_block_size, ("block-size",)),
    "hidden sessions beside the photographed one": _Attack(
        "table", hidden_sessions, ("table-seed-not-found", "overlap", "not-open"), ("commitment",), (TABLE_SEED,),
        mixes=MIXES),
    "a session opened before the previous reveal": _Attack("two", session_before_the_reveal, ("overlap",)),
    "a dropped roll, count fixed": _Attack(
        "table", lambda e: drop_a_roll(e, recompute_later=False), ("continuity",)),
    "a dropped roll, later rolls recomputed": _Attack(
        "table", lambda e: drop_a_roll(e, recompute_later=True), ("not-in-log",), ("commitment", "last roll"),
        (TABLE_SEED,), mixes=MIXES),
    "the last rolls cut, the reveal fixed": _Attack(
        "table", cut_the_last_rolls, ("not-in-log",), ("commitment", "last roll"), (TABLE_SEED,), mixes=MIXES),
    "an edited result": _Attack("table", edit_a_result, ("roll-mismatch",)),
    "an eased roll (difficulty lowered)": _Attack(
        "table", ease_a_roll, ("not-in-log",), ("commitment", "head"), (TABLE_SEED,), mixes=MIXES),
    "reused entropy with a new nonce": _Attack("two", reuse_entropy, ("reused-entropy",)),
    "zero entropy claiming 896 bits": _Attack("table", zero_entropy, ("seed-claim",)),
    "an entropy input shorter than 32 bytes": _Attack("table", short_entropy, ("seed-claim",)),
    "edited credited bits": _Attack("table", edit_credited_bits, ("seed-claim",)),
    "an edited credited total": _Attack("table", edit_credited_total, ("seed-claim",)),
    "edited sources": _Attack("table", edit_sources, ("seed-claim",)),
    "a test session relabelled as rolled": _Attack("seeded", relabel_test_session_as_rolled, ("roll-kind",)),
    "an entered roll relabelled as rolled": _Attack("entered", relabel_entered_as_rolled, ("outside-session",)),
    "an old stream format to grind the mix again": _Attack(
        "table", downgrade_to_stream_2, ("table-seed-not-found", "no-table-seed"), ("commitment",), (TABLE_SEED,),
        mixes=MIXES),
    "a roll after its session's reveal": _Attack("table", a_roll_after_the_reveal, ("not-open",)),
    # the panel's own log: the OLED showed each roll's number and entry hash, the players noted some
    "a panel roll dropped, later rolls recomputed (the OLED's fingerprints noted)": _Attack(
        "panel", lambda e: drop_a_roll(e, recompute_later=True), ("not-in-log",),
        ("panel commitment", "panel middle roll", "panel last roll"), (PANEL_CODE,)),
    "the players' code taken out of a panel session": _Attack(
        "panel", without_the_table_seed, ("table-seed-not-found", "no-table-seed"), ("panel commitment",),
        (PANEL_CODE,)),
    # issue 26: what root and a modified program did against the photographed facts
    "the reopen loop with the unmodified command line (root)": _Attack(
        "reopened", lambda e: e, ("unnoted-commitment", "unnoted-table-seed"), ("reopened",), (TABLE_SEED,)),
    "a chain of sessions ground under the players' code": _Attack(
        "table", ground_session_chain, ("unnoted-commitment", "table-seed-reused"), seeds=(TABLE_SEED,),
        shown=lambda e: shown(e, rolls="all")),
    "the head re-ground at a short fingerprint's length": _Attack(
        "table", lambda e: e, ("not-in-log",), ("commitment", "head"), (TABLE_SEED,), mixes=MIXES),
    "an invisible mix ground into panel rolls": _Attack(
        "panel", invisible_mix, ("mix",), seeds=(PANEL_CODE,), shown=lambda e: shown(e, rolls="all")),
    "the press time as decimal text ground into panel rolls": _Attack(
        "panel", decimal_press_time, ("mix",), seeds=(PANEL_CODE,), shown=lambda e: shown(e, rolls="all")),
    "the press time as decimal text, rolls relabelled as the command line's": _Attack(
        "panel", decimal_press_time_as_typed, ("mix-not-named",), seeds=(PANEL_CODE,),
        shown=lambda e: shown(e, rolls="all")),
    "failing rolls rewritten as typed-in faces": _Attack(
        "panel", failing_rolls_typed_in, ("entered-not-named",), seeds=(PANEL_CODE,),
        shown=lambda e: shown(e, rolls="last")),
    "a noted head that is a source failure's hash": _Attack(
        "table", lambda e: noted_on_a_kind_players_never_see(e, "source_failed"), ("not-in-log",),
        seeds=(TABLE_SEED,), shown=lambda e: (*shown(e, head=False), rehash(e)[-1]["hash"]), mixes=MIXES),
    "a noted head that is an unknown kind's hash": _Attack(
        "table", lambda e: noted_on_a_kind_players_never_see(e, "note"), ("not-in-log",),
        seeds=(TABLE_SEED,), shown=lambda e: (*shown(e, head=False), rehash(e)[-1]["hash"]), mixes=MIXES),
    "the night's rolls in a session logged before the photographed one": _Attack(
        "table", rolls_before_the_photographed_session, ("unnoted-commitment", "unnoted-table-seed"),
        seeds=(TABLE_SEED,), shown=lambda e: shown(e, commitment=1, rolls="last")),
    # what a second look found (docs/fairness.md, "Who can do what")
    "the night's rolls before the photographed session, only its reveal card noted": _Attack(
        "table", rolls_before_the_photographed_session, ("missing-roll", "card"), seeds=(TABLE_SEED,),
        shown=lambda e: shown(e, commitment=1, rolls="none", head=False),
        cards=lambda e: (card_of(e, rolls=30),)),
    "a typed-in hand put in the session in place of each failing roll": _Attack(
        "panel", lambda e: e, ("roll-kind",), seeds=(PANEL_CODE,), shown=lambda e: shown(e, rolls="all")),
    "the players' one mix put on the rolls it makes succeed": _Attack(
        "table", reuse_the_players_mix, ("mix-not-named",), seeds=(TABLE_SEED,), shown=lambda e: shown(e, rolls="all"),
        mixes=(MIXES[0],)),
    "root skips the table's failing rolls with command-line rolls in the panel's session": _Attack(
        "panel", skip_with_a_command_line_roll, ("command-line-roll",), seeds=(PANEL_CODE,),
        shown=lambda e: shown(e, rolls="all")),
    # issue 37: what root did with the unmodified program against players who noted everything
    "root rolls between the table's rolls with the stock simulator (every result noted)": _Attack(
        "panel", lambda e: e, ("unseen-roll",), seeds=(PANEL_CODE,), seen=roll_in_between),
    "root rolls between from the command line, its lines rewritten as the panel's": _Attack(
        "panel", lambda e: e, ("unseen-roll",), seeds=(PANEL_CODE,),
        seen=lambda e: roll_in_between(e, as_command_line=True)),
    "root rolls between, and the players counted their rolls": _Attack(
        "panel", lambda e: e, ("unseen-roll",), seeds=(PANEL_CODE,), seen=roll_in_between, count=12),
    "root's ground code set from the command line, passed by the players as theirs": _Attack(
        "panel", grind_a_code, ("table-seed-source",), seeds=LOGGED_CODES, shown=lambda e: shown(e, rolls="all")),
    "root's ground code set from the command line, the players passing only codes they typed": _Attack(
        "panel", grind_a_code, ("unnoted-table-seed", "table-seed-source"), shown=lambda e: shown(e, rolls="all")),
    "root reveals whenever the next roll would fail, once a session holds two rolls": _Attack(
        "table", lambda e: e, ("early-endings",), seeds=LOGGED_CODES, seen=reveal_before_each_failure,
        rules_only=True),
    "karma a player never earned logged after a roll": _Attack(
        "fingers", karma_never_earned, ("player-state",), seeds=("karma night",),
        shown=lambda e: shown(e, rolls="all")),
}

#: The corpus's case names (known before the honest logs are made, for test parameters).
NAMES: tuple[str, ...] = tuple(_ATTACKS)


def corpus(honest: Honest) -> dict[str, Case]:
    """Every case, built from ``honest``'s logs."""
    noted_all: dict[str, tuple[str, ...]] = {k: (v,) for k, v in {**honest.noted, **honest.panel_noted}.items()}
    noted_all["reopened"] = honest.reopened_noted
    cases = {}
    for name, a in _ATTACKS.items():
        source = honest.log(a.source)
        seen: list[int] | None = None
        if a.seen is not None:
            made, seen = a.seen(copy.deepcopy(source))
            forged = rehash(made)
        elif name == "the head re-ground at a short fingerprint's length":
            forged = rehash(grind_the_head(source, honest.noted["head"]))
        elif name == "a typed-in hand put in the session in place of each failing roll":
            typed = next(e for e in honest.entered if e["kind"] == "roll" and e["session"] is None)
            forged = rehash(typed_in_inside_the_session(source, typed))
        else:
            forged = rehash(a.forge(copy.deepcopy(source)))
        logged_codes = tuple(e["table_seed"] for e in forged if e["kind"] == "table_seed")
        codes = logged_codes if a.seeds == LOGGED_CODES else a.seeds
        if seen is not None:
            expect = noted_at(forged, seen, counted=a.count is not None)
        else:
            expect = a.shown(forged) if a.shown is not None else tuple(v for n in a.noted for v in noted_all[n])
        # the reopen loop's log is the attack itself (no honest log of it): its notes are its own
        honest_notes = a.shown is None and seen is None and a.source != "reopened"
        cards = a.cards(forged) if a.cards is not None else ()
        count = a.count
        if count is None and seen is None and (expect or codes or cards):
            # players who did not note every result counted them, as the docs tell them: every
            # roll the tower (honest, or the forged device) showed with its number
            count = session_rolls(source if honest_notes else forged)
        cases[name] = Case(name, tuple(forged), a.codes, expect, codes, a.mixes, a.source, honest_notes, cards,
                           count, a.rules_only)
    return cases
