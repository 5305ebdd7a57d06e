#!/usr/bin/env python3
"""Check a dicetower roll log on your own machine:

    python3 verify_rolls.py rolls.jsonl [--expect HEX]... [--table-seed TEXT]... [--all-revealed]

Standard library only, no dicetower code: written from the "Verify it yourself" section of
docs/fairness.md, so a player can read both and trust neither the tower nor its program.
Checks the hash chain; one session at a time; each revealed seed against its commitment and
against what its session entry claimed (sources, credited bits, weak or reused entropy); the
table seed; the continuity of every session (each roll starts at the generate call where the
previous one ended; the reveal's count and end); every die and finger hand of every roll
against the HMAC_DRBG output; and what you noted at the table: `--expect HEX` (a prefix of at
least 8 hex digits of an entry's hash or a commitment you photographed; repeatable) and
`--table-seed TEXT` (the table seed you set; repeatable). Prints one line per problem and a
summary; exit status 0 when everything checks out, 1 when something does not, 2 for a usage
mistake or an unreadable file (the log is opened without following a link or waiting on a
FIFO, and must be a regular file: name rolls.jsonl itself).

What it does not check: the game rules' arithmetic from the dice to the outcome (totals,
successes, karma). For that, feed a roll's dice back with `dicetower roll ... --faces`, or
work it out from docs/rules.md.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import hmac
import json
import os
import re
import stat
import sys

SEED_MAGIC = b"dicetower-seed-v1\n"
TEST_PERSONALIZATION = b"dicetower/from_seed/v1"
SESSION_PERSONALIZATION = b"dicetower/session/v1;"
TABLE_SEED_LABEL = b"dicetower/table-seed/v1;"
SESSION_ROLLS = 1000
BLOCK = 64
MIN_DISTINCT = 16


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
        if pos + 2 > len(data):
            raise ValueError("the seed ends early")
        n = int.from_bytes(data[pos:pos + 2], "big")
        if pos + 2 + n > len(data):
            raise ValueError("the seed ends early")
        parts.append(data[pos + 2:pos + 2 + n])
        pos += 2 + n
    if pos != len(data):
        raise ValueError("stray bytes after the seed material")
    return parts[0], parts[1], parts[2]


def table_seed_ok(text: object) -> bool:
    """1 to 64 printable ASCII characters, no space at either end."""
    return (isinstance(text, str) and 1 <= len(text) <= 64 and all(" " <= c <= "~" for c in text)
            and text == text.strip(" "))


def mix_ok(mix: bytes) -> bool:
    """Text a player typed: UTF-8, no control characters, at most 256 bytes."""
    if len(mix) > 256:
        return False
    try:
        text = mix.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not any(c < " " or c == "\x7f" for c in text)


def redraw(roll: RollBytes, result: dict) -> str | None:
    """Draw the roll's dice again; None if they match the logged ones."""
    system = result.get("system")
    how = REDRAW.get(system) if isinstance(system, str) else None
    if how is None:
        return f"unknown system {system!r}"
    return how(roll, result)


def dice_of(sides: int):
    """A system whose result is its dice, each drawn as 1..sides in the logged order."""

    def again(roll: RollBytes, result: dict) -> str | None:
        drawn = [roll.below(sides) + 1 for _ in result.get("dice", [])]
        if drawn != result.get("dice"):
            return f"dice logged {result.get('dice')}, the seed gives {drawn}"
        return None

    return again


def hands(roll: RollBytes, result: dict) -> str | None:
    """fingers: each test's winning fingers, a partial Fisher-Yates draw of k of n."""
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


#: How each system's roll is drawn again from its bytes: one entry per system (a new system
#: adds its line here; tests/engine/systems/test_system_contract.py holds every system to it).
REDRAW = {
    "infinity": dice_of(10),
    "horizons": dice_of(10),
    "immortal": dice_of(10),
    "d6cv": dice_of(6),
    "fingers": hands,
}


def kind_of(result: dict, personalization: bytes) -> str:
    if (result.get("params") or {}).get("winners_set"):
        return "entered"
    return "test" if personalization == TEST_PERSONALIZATION else "rolled"


def seed_problems(entropy: bytes, personalization: bytes, session: dict) -> list[str]:
    """What "Verify it yourself" step 4 asks of a session seeded from entropy."""
    sources = session.get("sources")
    if not isinstance(sources, list) or not all(isinstance(s, dict) for s in sources):
        return ["its session entry's sources are not a list"]
    names = [str(s.get("name")) for s in sources]
    out = []
    if personalization != SESSION_PERSONALIZATION + ",".join(names).encode("utf-8", "replace"):
        out.append("the revealed personalization does not name the session entry's sources: sources edited")
    if len(entropy) < 32:
        out.append(f"its entropy input is {len(entropy)} bytes, shorter than 32")
    elif len(entropy) != BLOCK * len(names):
        out.append(f"its entropy input is {len(entropy)} bytes, not one 64-byte block per source: sources edited")
    total, bad = 0, False
    for s in sources:
        bits = s.get("credited_bits")
        if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= 448:
            out.append(f"source {s.get('name')} claims {bits!r} credited bits; one block is credited 1 to 448")
            bad = True
        else:
            total += bits
    claimed = session.get("credited_bits")
    if isinstance(claimed, bool) or not isinstance(claimed, int):
        out.append(f"its credited_bits {claimed!r} is not a whole number")
    else:
        if not bad and claimed != total:
            out.append(f"its credited_bits {claimed} is not the sum of its sources' ({total}): credit edited")
        if claimed > 8 * len(entropy):
            out.append(f"it claims {claimed} credited bits, more than its {len(entropy)}-byte entropy input "
                       "could carry")
        if claimed < 256:
            out.append(f"it claims {claimed} credited bits; a session needs at least 256")
    seen: dict[bytes, int] = {}
    for i, block in enumerate(blocks(entropy)):
        if block and len(set(block)) < MIN_DISTINCT:
            out.append(f"entropy block {i + 1} has only {len(set(block))} distinct byte value(s): trivially weak "
                       "entropy")
        if block in seen:
            out.append(f"entropy block {i + 1} repeats entropy block {seen[block] + 1}")
        seen.setdefault(block, i)
    return out


def blocks(entropy: bytes) -> list[bytes]:
    if len(entropy) < BLOCK:
        return [entropy]
    return [entropy[i:i + BLOCK] for i in range(0, len(entropy), BLOCK)]


class Checker:
    def __init__(self, expect: list[str], table_seeds: list[str]) -> None:
        self.problems: list[tuple[int, str]] = []
        self.open: dict[str, dict] = {}
        self.left: dict[str, dict] = {}
        self.closed: set[str] = set()
        self.entropy: dict[bytes, str] = {}
        self.counts = {"rolled": 0, "entered": 0, "test": 0}
        self.expect = {p: False for p in expect}
        self.table_seeds = table_seeds
        self.no_table_seed: list[str] = []
        self.sessions = 0

    def problem(self, line: int, text: str) -> None:
        self.problems.append((line, text))

    def chain(self, lines: list[bytes]) -> None:
        prev, seq = "0" * 64, 0
        for line_no, raw in enumerate(lines, start=1):
            try:
                entry = json.loads(raw)
                ok = (entry["hash"] == hashlib.sha256(canonical({k: v for k, v in entry.items() if k != "hash"}))
                      .hexdigest() and entry["seq"] == seq + 1 and entry["prev"] == prev)
            except (ValueError, KeyError, TypeError, AttributeError):
                ok = False
            if not ok:
                self.problem(line_no, "hash chain broken (edited, dropped, moved or damaged entry)")
                return
            prev, seq = entry["hash"], seq + 1

    def noted(self, e: dict) -> bool:
        values = [str(e.get("hash", ""))]
        if e.get("kind") == "session":
            values.append(str(e.get("commitment", "")))
        hit = False
        for prefix in self.expect:
            if any(v.startswith(prefix) for v in values):
                self.expect[prefix] = hit = True
        return hit

    def entry(self, line: int, e: dict) -> None:
        kind, sid = e.get("kind"), e.get("session")
        noted = self.noted(e)
        if kind == "session":
            self.start(line, e, noted)
        elif kind == "roll" and sid is None:
            if e.get("roll_kind") != "entered":
                self.problem(line, "a roll outside a session that is not marked entered")
            self.counts["entered"] += 1
        elif kind in ("roll", "reveal", "table_seed"):
            s = self.open.get(sid)
            if s is None:
                why = ("after that session was revealed" if sid in self.closed else
                       "which is not the open session" if sid in self.left else "which was never started")
                self.problem(line, f"{kind} of session {sid}, {why}")
                return
            s["noted"] = s["noted"] or noted
            if kind == "table_seed":
                self.table_seed(line, e, s)
            elif kind == "roll":
                self.roll(line, e, s)
            else:
                del self.open[sid]
                self.closed.add(sid)
                self.session(sid, s, line, e)

    def start(self, line: int, e: dict, noted: bool) -> None:
        sid = e.get("session")
        if sid in self.open or sid in self.closed or sid in self.left:
            self.problem(line, f"session {sid} started twice")
            return
        for other in list(self.open):
            self.problem(line, f"session {sid} opened while session {other} is still open: one session at a time")
            self.left[other] = self.open.pop(other)
        stream, block = e.get("stream"), e.get("block_bytes", 64)
        if stream not in (2, 3):
            self.problem(line, f"session {sid} is not stream format 2 or 3")
        elif isinstance(block, bool) or not isinstance(block, int) or not 1 <= block <= 65536 \
                or (stream == 3 and block != 64):
            self.problem(line, f"session {sid} has a bad block size {block!r}")
        else:
            self.sessions += 1
            self.open[sid] = {"line": line, "entry": e, "stream": stream, "block": block, "table_seed": None,
                              "rolls": [], "spoiled": False, "noted": noted}

    def table_seed(self, line: int, e: dict, s: dict) -> None:
        sid = e.get("session")
        if s["stream"] != 3:
            why = f"a table seed in session {sid}, a stream 2 session"
        elif s["table_seed"] is not None:
            why = f"session {sid} has a second table seed"
        elif s["rolls"]:
            why = f"the table seed of session {sid} comes after its first roll"
        elif not table_seed_ok(e.get("table_seed")):
            why = f"session {sid}: its table seed is not 1 to 64 printable ASCII characters"
        else:
            s["table_seed"] = e.get("table_seed")
            return
        self.problem(line, why)
        s["spoiled"] = True

    def roll(self, line: int, e: dict, s: dict) -> None:
        if len(s["rolls"]) >= SESSION_ROLLS:
            self.problem(line, f"session {e.get('session')} has more than {SESSION_ROLLS} rolls")
            return
        if s["stream"] == 3:
            try:
                ok = mix_ok(bytes.fromhex(e.get("mix")))
            except (ValueError, TypeError):
                ok = False
            if not ok:
                self.problem(line, "the mix of a stream 3 roll is not text a player typed")
        s["rolls"].append((line, e))

    def session(self, sid: str, s: dict, line: int, reveal: dict) -> None:
        try:
            entropy, nonce, pers = decode_seed(str(reveal.get("seed")))
        except ValueError as exc:
            self.problem(line, f"session {sid}: {exc}")
            return
        commitment = str(s["entry"].get("commitment"))
        if hashlib.sha256(bytes.fromhex(reveal["seed"])).hexdigest() != commitment or commitment[:16] != sid:
            self.problem(line, f"session {sid}: the revealed seed does not match the commitment")
            return
        if pers != TEST_PERSONALIZATION:
            for text in seed_problems(entropy, pers, s["entry"]):
                self.problem(line, f"session {sid}: {text}")
            for i, block in enumerate(blocks(entropy)):
                earlier = self.entropy.get(block)
                if earlier is not None and earlier != sid:
                    self.problem(line, f"session {sid}: entropy block {i + 1} was already used by session {earlier}: "
                                       "a reused seed")
                self.entropy.setdefault(block, sid)
            if s["table_seed"] is None:
                self.no_table_seed.append(sid)
        self.check_table_seed(line, sid, s, pers == TEST_PERSONALIZATION)
        if reveal.get("rolls") != len(s["rolls"]):
            self.problem(line, f"session {sid}: the reveal counts {reveal.get('rolls')} rolls, "
                               f"the log holds {len(s['rolls'])}")
        if s["spoiled"]:
            return
        if len(entropy) < 32:
            return  # not an HMAC_DRBG seed (said above)
        drbg = Drbg(entropy, nonce, pers)
        if s["table_seed"] is not None:
            drbg.generate(s["block"], TABLE_SEED_LABEL + s["table_seed"].encode("ascii"))
        for roll_line, e in s["rolls"]:
            result = e.get("result") or {}
            if e.get("start") != drbg.calls:
                self.problem(roll_line, f"roll starts at generate call {e.get('start')}, the previous roll "
                                        f"ended at {drbg.calls}")
                return
            try:
                mix = bytes.fromhex(e.get("mix", ""))
                problem = redraw(RollBytes(drbg, mix, s["block"]), result)
            except (ValueError, TypeError, KeyError) as exc:
                problem = f"the roll cannot be redrawn ({exc})"
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

    def check_table_seed(self, line: int, sid: str, s: dict, test: bool) -> None:
        """--table-seed: the noted sessions (with --expect), else every random session, carry one."""
        if not self.table_seeds or (self.expect and not s["noted"]) or (not self.expect and test):
            return
        if s["table_seed"] is None:
            self.problem(line, f"session {sid} has no table seed, but the players set one")
        elif s["table_seed"] not in self.table_seeds:
            self.problem(line, f"session {sid}: its table seed {s['table_seed']!r} is not one the players set")

    def finish(self, entries: int, all_revealed: bool) -> None:
        for sid, s in self.open.items():
            self.check_table_seed(entries, sid, s, False)
            if all_revealed:
                self.problem(s["line"], f"session {sid} is still open")
        for prefix, found in self.expect.items():
            if not found:
                self.problem(0, f"expected fingerprint {prefix} is not in the log")


def read_log(path: str) -> bytes:
    """The bytes of the log file at ``path``, opened without following a link and without
    blocking (a FIFO or a device named here is refused, never waited on or read for ever),
    and checked to be a regular file before anything is read."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
            raise OSError(errno.EINVAL, f"it is {what}; name the roll log file (rolls.jsonl)")
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read()
    finally:
        os.close(fd)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="verify_rolls.py", description="Check a dicetower roll log.")
    parser.add_argument("log", metavar="ROLLS.JSONL")
    parser.add_argument("--expect", metavar="HEX", action="append", default=[])
    parser.add_argument("--table-seed", metavar="TEXT", action="append", default=[])
    parser.add_argument("--all-revealed", action="store_true")
    args = parser.parse_args(argv[1:])
    expect = [p.strip().lower() for p in args.expect]
    bad = [p for p in expect if not re.fullmatch(r"[0-9a-f]{8,64}", p)]
    if bad:
        print(f"verify_rolls: --expect needs 8 to 64 hex digits, got {bad[0]!r}", file=sys.stderr)
        return 2
    try:
        lines = read_log(args.log).split(b"\n")
    except OSError as exc:
        why = "it is a symbolic link; name the log file itself" if exc.errno == errno.ELOOP else exc.strerror
        print(f"verify_rolls: cannot read {args.log}: {why}", file=sys.stderr)
        return 2
    if lines and lines[-1] == b"":
        lines.pop()
    checker = Checker(expect, args.table_seed)
    checker.chain(lines)
    for line_no, raw in enumerate(lines, start=1):
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict):
            checker.entry(line_no, entry)
    checker.finish(len(lines), args.all_revealed)
    for line_no, text in sorted(checker.problems, key=lambda p: p[0]):
        print(f"entry {line_no}: {text}" if line_no else f"log: {text}")
    if checker.no_table_seed:
        print(f"{len(checker.no_table_seed)} session(s) without a table seed (the owner could have chosen their "
              f"seed): {', '.join(checker.no_table_seed)}")
    open_rolls = sum(len(s["rolls"]) for s in checker.open.values())
    c = checker.counts
    print(f"{len(lines)} entries; verified {c['rolled']} rolled, {c['entered']} entered (not checkable), "
          f"{c['test']} test (--seed, not fair), {open_rolls} in {len(checker.open)} open session(s); "
          + ("all good" if not checker.problems else f"{len(checker.problems)} problem(s)"))
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
