#!/usr/bin/env python3
"""Check a dicetower roll log on your own machine: python3 verify_rolls.py rolls.jsonl

Standard library only, no dicetower code: written from the "Verify it yourself" section of
docs/fairness.md, so a player can read both and trust neither the tower nor its program.
Checks the hash chain, each revealed seed against its commitment, the continuity of every
session (each roll starts at the generate call where the previous one ended; the reveal's
count and end), and every die and finger hand of every roll against the HMAC_DRBG output.
Prints one line per problem and a summary; exit status 0 when everything checks out.

What it does not check: the game rules' arithmetic from the dice to the outcome (totals,
successes, karma). For that, feed a roll's dice back with `dicetower roll ... --faces`, or
work it out from docs/rules.md.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys

SEED_MAGIC = b"dicetower-seed-v1\n"
TEST_PERSONALIZATION = b"dicetower/from_seed/v1"
SIDES = {"infinity": 10, "horizons": 10, "immortal": 10, "d6cv": 6}
SESSION_ROLLS = 1000


class Drbg:
    """HMAC_DRBG with SHA-256 (NIST SP 800-90A section 10.1.2), no reseeding."""

    def __init__(self, entropy: bytes, nonce: bytes, personalization: bytes) -> None:
        self.key, self.v = b"\x00" * 32, b"\x01" * 32
        self.update(entropy + nonce + personalization)
        self.calls = 0

    def hmac(self, data: bytes) -> bytes:
        return hmac.new(self.key, data, hashlib.sha256).digest()

    def update(self, data: bytes) -> None:
        self.key = self.hmac(self.v + b"\x00" + data)
        self.v = self.hmac(self.v)
        if data:
            self.key = self.hmac(self.v + b"\x01" + data)
            self.v = self.hmac(self.v)

    def generate(self, n: int, additional: bytes = b"") -> bytes:
        if additional:
            self.update(additional)
        out = b""
        while len(out) < n:
            self.v = self.hmac(self.v)
            out += self.v
        self.update(additional)
        self.calls += 1
        return out[:n]


class RollBytes:
    """One roll's bytes: generate(block, mix) first, generate(block) when it needs more."""

    def __init__(self, drbg: Drbg, mix: bytes, block: int) -> None:
        self.drbg, self.mix, self.block = drbg, mix, block
        self.buf, self.pos = b"", 0

    def take(self, n: int) -> int:
        while len(self.buf) - self.pos < n:
            self.buf = self.buf[self.pos:] + self.drbg.generate(self.block, self.mix)
            self.pos, self.mix = 0, b""
        value = int.from_bytes(self.buf[self.pos:self.pos + n], "big")
        self.pos += n
        return value

    def below(self, n: int) -> int:
        """Uniform 0..n-1: the fewest whole bytes covering n, values at or above the largest
        multiple of n they can hold are rejected, the rest taken mod n."""
        if n == 1:
            return 0
        width = ((n - 1).bit_length() + 7) // 8
        limit = 256 ** width - (256 ** width) % n
        while True:
            value = self.take(width)
            if value < limit:
                return value % n


def canonical(entry: dict) -> bytes:
    return json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def decode_seed(text: str) -> tuple[bytes, bytes, bytes]:
    data = bytes.fromhex(text)
    if not data.startswith(SEED_MAGIC):
        raise ValueError("the seed does not start with dicetower-seed-v1")
    parts, pos = [], len(SEED_MAGIC)
    for _ in range(3):
        n = int.from_bytes(data[pos:pos + 2], "big")
        parts.append(data[pos + 2:pos + 2 + n])
        pos += 2 + n
    if pos != len(data):
        raise ValueError("stray bytes after the seed material")
    return parts[0], parts[1], parts[2]


def redraw(roll: RollBytes, result: dict) -> str | None:
    """Draw the roll's dice again; None if they match the logged ones."""
    system = result.get("system")
    if system in SIDES:
        again = [roll.below(SIDES[system]) + 1 for _ in result.get("dice", [])]
        if again != result.get("dice"):
            return f"dice logged {result.get('dice')}, the seed gives {again}"
        return None
    if system == "fingers":
        for test in result.get("tests", []):
            if test.get("automatic"):
                continue
            n, k = test["choices"], test["winning"]
            pool = list(range(1, n + 1))
            for i in range(k):
                j = i + roll.below(n - i)
                pool[i], pool[j] = pool[j], pool[i]
            if sorted(pool[:k]) != sorted(test["winners"]):
                return f"test {test.get('number')}: winners logged {test['winners']}, the seed gives {sorted(pool[:k])}"
        return None
    return f"unknown system {system!r}"


def kind_of(result: dict, personalization: bytes) -> str:
    if (result.get("params") or {}).get("winners_set"):
        return "entered"
    return "test" if personalization == TEST_PERSONALIZATION else "rolled"


class Checker:
    def __init__(self) -> None:
        self.problems: list[str] = []
        self.open: dict[str, dict] = {}
        self.closed: set[str] = set()
        self.counts = {"rolled": 0, "entered": 0, "test": 0}

    def problem(self, line: int, text: str) -> None:
        self.problems.append(f"entry {line}: {text}")

    def chain(self, lines: list[bytes]) -> None:
        prev, seq = "0" * 64, 0
        for line_no, raw in enumerate(lines, start=1):
            try:
                entry = json.loads(raw)
                ok = (entry["hash"] == hashlib.sha256(canonical({k: v for k, v in entry.items() if k != "hash"}))
                      .hexdigest() and entry["seq"] == seq + 1 and entry["prev"] == prev)
            except (ValueError, KeyError, TypeError):
                ok = False
            if not ok:
                self.problem(line_no, "hash chain broken (edited, dropped, moved or damaged entry)")
                return
            prev, seq = entry["hash"], seq + 1

    def entry(self, line: int, e: dict) -> None:
        kind, sid = e.get("kind"), e.get("session")
        if kind == "session":
            if sid in self.open or sid in self.closed:
                self.problem(line, f"session {sid} started twice")
            elif e.get("stream") != 2:
                self.problem(line, f"session {sid} is not stream format 2")
            else:
                self.open[sid] = {"line": line, "commitment": e.get("commitment"),
                                  "block": e.get("block_bytes", 64), "rolls": []}
        elif kind == "roll" and sid is None:
            if e.get("roll_kind") != "entered":
                self.problem(line, "a roll outside a session that is not marked entered")
            self.counts["entered"] += 1
        elif kind in ("roll", "reveal"):
            s = self.open.get(sid)
            if s is None:
                self.problem(line, f"{kind} of session {sid}, which is not open")
            elif kind == "roll":
                if len(s["rolls"]) >= SESSION_ROLLS:
                    self.problem(line, f"session {sid} has more than {SESSION_ROLLS} rolls")
                else:
                    s["rolls"].append((line, e))
            else:
                del self.open[sid]
                self.closed.add(sid)
                self.session(sid, s, line, e)

    def session(self, sid: str, s: dict, line: int, reveal: dict) -> None:
        try:
            entropy, nonce, pers = decode_seed(str(reveal.get("seed")))
        except ValueError as exc:
            self.problem(line, f"session {sid}: {exc}")
            return
        if hashlib.sha256(bytes.fromhex(reveal["seed"])).hexdigest() != s["commitment"] or \
                str(s["commitment"])[:16] != sid:
            self.problem(line, f"session {sid}: the revealed seed does not match the commitment")
            return
        if reveal.get("rolls") != len(s["rolls"]):
            self.problem(line, f"session {sid}: the reveal counts {reveal.get('rolls')} rolls, "
                               f"the log holds {len(s['rolls'])}")
        drbg = Drbg(entropy, nonce, pers)
        for roll_line, e in s["rolls"]:
            result = e.get("result") or {}
            if e.get("start") != drbg.calls:
                self.problem(roll_line, f"roll starts at generate call {e.get('start')}, the previous roll "
                                        f"ended at {drbg.calls}")
                return
            problem = redraw(RollBytes(drbg, bytes.fromhex(e.get("mix", "")), s["block"]), result)
            if problem is None and e.get("end") != drbg.calls:
                problem = f"roll used generate calls up to {drbg.calls}, the log says {e.get('end')}"
            kind = kind_of(result, pers)
            if problem is None and e.get("roll_kind") != kind:
                problem = f"labelled {e.get('roll_kind')} but it is {kind}"
            if problem is not None:
                self.problem(roll_line, problem)
                return
            self.counts[kind] += 1
        if reveal.get("end") != drbg.calls:
            self.problem(line, f"session {sid}: the reveal says it ended at generate call {reveal.get('end')}, "
                               f"its last roll ended at {drbg.calls}")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: verify_rolls.py ROLLS.JSONL", file=sys.stderr)
        return 2
    try:
        with open(argv[1], "rb") as f:
            lines = f.read().split(b"\n")
    except OSError as exc:
        print(f"verify_rolls: cannot read {argv[1]}: {exc.strerror}", file=sys.stderr)
        return 2
    if lines and lines[-1] == b"":
        lines.pop()
    checker = Checker()
    checker.chain(lines)
    for line_no, raw in enumerate(lines, start=1):
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict):
            checker.entry(line_no, entry)
    for problem in checker.problems:
        print(problem)
    open_rolls = sum(len(s["rolls"]) for s in checker.open.values())
    c = checker.counts
    print(f"{len(lines)} entries; verified {c['rolled']} rolled, {c['entered']} entered (not checkable), "
          f"{c['test']} test (--seed, not fair), {open_rolls} in {len(checker.open)} open session(s); "
          + ("all good" if not checker.problems else f"{len(checker.problems)} problem(s)"))
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
