"""Forged roll logs, made the way a dishonest owner with the seed and write access would.

Each forger takes the entries of a genuine log (one or more revealed sessions) and returns
new entries with a re-hashed chain, so ``log verify`` passes and only the replay (and
``tools/verify_rolls.py``) can catch them. Used by the replay and verifier tests.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.systems import get
from hardware.entropy.seed import RollStream, SeedMaterial
from hardware.rolllog import GENESIS, entry_hash

Entries = list[dict[str, Any]]


def read(path: Path) -> Entries:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path: Path, entries: Entries) -> None:
    """Write entries with seq/prev/hash rebuilt, as a forger with write access would."""
    prev, lines = GENESIS, []
    for seq, e in enumerate(entries, start=1):
        e = {**e, "seq": seq, "prev": prev}
        e["hash"] = entry_hash(e)
        prev = e["hash"]
        lines.append(json.dumps(e, sort_keys=True, separators=(",", ":")))
    path.write_text("".join(line + "\n" for line in lines))


def _reveals(entries: Entries) -> dict[str, SeedMaterial]:
    return {e["session"]: SeedMaterial.from_hex(e["seed"]) for e in entries if e["kind"] == "reveal"}


def _grind(entries: Entries, *, claim_continuity: bool) -> Entries:
    """Skip generate calls before each roll until the roll succeeds (at most 40 tries)."""
    out = copy.deepcopy(entries)
    streams = {sid: RollStream(m) for sid, m in _reveals(out).items()}
    last_end: dict[str, int] = {}
    for e in out:
        sid = e.get("session")
        if sid not in streams:
            continue
        stream = streams[sid]
        if e["kind"] == "reveal":
            e["end"] = last_end.get(sid, 0)
            continue
        if e["kind"] != "roll":
            continue
        spec = get(e["result"]["system"])
        params = spec.resolve(e["result"]["params"])
        claimed_start = stream.blocks
        for _ in range(40):
            start = stream.blocks
            result = spec.roll(stream.begin(bytes.fromhex(e["mix"])), params)
            if result.success:
                break
        e["result"] = json.loads(json.dumps(result.to_dict()))
        e["start"] = claimed_start if claim_continuity else start
        e["end"] = stream.blocks
        last_end[sid] = stream.blocks
    return out


def grind_with_true_offsets(entries: Entries) -> Entries:
    return _grind(entries, claim_continuity=False)


def grind_claiming_continuity(entries: Entries) -> Entries:
    return _grind(entries, claim_continuity=True)


def drop_middle_roll_fix_count(entries: Entries) -> Entries:
    out = copy.deepcopy(entries)
    rolls = [i for i, e in enumerate(out) if e["kind"] == "roll" and e.get("session")]
    victim = out[rolls[len(rolls) // 2]]
    del out[rolls[len(rolls) // 2]]
    for e in out:
        if e["kind"] == "reveal" and e["session"] == victim["session"]:
            e["rolls"] -= 1
    return out


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


#: name -> forger, for the genuine log it applies to ("random" or "seeded" or "entered")
FORGERIES: dict[str, tuple[str, Callable[[Entries], Entries]]] = {
    "grinding, true offsets": ("random", grind_with_true_offsets),
    "grinding, continuity claimed": ("random", grind_claiming_continuity),
    "dropped middle roll, count fixed": ("random", drop_middle_roll_fix_count),
    "edited result": ("random", edit_a_result),
    "test session relabelled": ("seeded", relabel_test_session_as_rolled),
    "entered roll relabelled": ("entered", relabel_entered_as_rolled),
}
