#!/usr/bin/env python3
"""Check a dicetower roll log on your own machine:

    python3 verify_rolls.py rolls.jsonl [--expect NOTE]... [--table-seed CODE]... [--card TEXT]...
                            [--all-revealed] [--allow-mix TEXT]... [--allow-entered N]
                            [--allow-command-line N] [--count N] [--rules PATH]...

Standard library only, no dicetower code: written from the "Verify it yourself" section of
docs/fairness.md, so a player can read both and trust neither the tower nor its program.
Checks the hash chain (a log the tower rotated is read as one: rolls.1.jsonl, rolls.2.jsonl,
... then rolls.jsonl, found beside the file you name); one session at a time; one table seed
per session; each revealed seed against its commitment and against what its session entry
claimed (sources, credited bits, weak or reused entropy); the table seed; the continuity of
every session (each roll starts at the generate call where the previous one ended; the
reveal's count and end); every die and finger hand of every roll against the HMAC_DRBG
output; and what you noted at the table (player mode): `--expect NOTE` (a commitment or the
reveal's head, 16 to 64 hex digits, or a result as N:HEX, its roll number and fingerprint;
repeatable), `--table-seed CODE` (each code you set; repeatable), `--card TEXT` (a reveal
card, the text its QR code holds; repeatable), `--allow-mix TEXT` (a --mix you typed, once
for each roll it went into), `--allow-entered N` (how many rolls you typed in) and
`--allow-command-line N` (how many rolls you made on the command line in a session the
tower's panel rolled in), `--count N` (the rolls you counted at the table, every session of
your night together). In player mode every session of your night (from the first to the last
session anything you noted belongs to) that holds a roll must have its commitment noted and one
of your codes, and carry no mix, typed-in roll or roll off the panel you did not name; and every
roll of it must be one you saw: noted as N:HEX, or, with --count N, the night holds exactly the
N rolls you counted. A session the tower ended with a `session_damaged` entry (its kept seed
was lost with a damaged file) is over, with the entry's reason: its rolls cannot be checked,
and in your night one that holds rolls is a problem (`damaged-session`). It also checks the
state each roll entry logs for its player against what its result carries (fingers' karma,
horizons' Stability), and prints each result you noted with the first line of its result
screen as the tower drew it from the log (compare it with your photo: a setting eased in the
log reads otherwise).

What is a game system's own (how its roll is drawn from the bytes, which parameters type a
roll in, what a player carries, its screen's first line) is in that system's rules module, a
standard-library file of its own: `--rules PATH` names one (repeatable; a plug-in system ships
its own), and in a dicetower checkout the shipped systems' are found beside this tool
(engine/systems/ID/verify_rules.py). It prints the path and sha256 of each rules module a roll
of the log used: compare them with the ones published for the system. A rules module may
import nothing but the standard library; one that does is refused.

Prints one line per problem, `entry N: CODE: what` (the codes are docs/fairness.md's "Problem
codes", the same as `dicetower replay`'s), and a summary; exit status 0 when everything checks
out, 1 when something does not, 2 for a usage mistake or an unreadable file (a log is opened
without following a link or waiting on a FIFO, and must be a regular file).

What it does not check: the game rules' arithmetic from the dice to the outcome (totals,
successes, karma): a log whose dice are the seed's but whose outcome is false passes here and
fails `dicetower replay`. For that, feed a roll's dice back with `dicetower roll ... --faces`,
or work it out from docs/rules.md. For the same reason it does not compute the odds of the
rolls sessions ended early would have made next (`dicetower replay`'s `early-endings`).
"""

from __future__ import annotations

import argparse
import ast
import errno
import hashlib
import hmac
import json
import os
import re
import stat
import sys
import types

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
    """Text a player typed and can read back: printable ASCII (space to ~), at most 256 bytes."""
    return len(mix) <= 256 and all(0x20 <= b <= 0x7E for b in mix)


class Rules:
    """One system's rules module (``--rules PATH``): ``SYSTEM`` (its id), ``redraw(roll,
    result)`` (None when the bytes give the logged draws, else what differs), ``screen_line(result)``
    (the result screen's first line after the id), ``ENTERED`` (parameters that type a roll in)
    and ``CARRIED`` ((state name, result field) a player keeps). Loaded from its path after its
    imports are checked to be the standard library's; ``sha256`` is the file's."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as f:
            data = f.read()
        self.path, self.sha256 = path, hashlib.sha256(data).hexdigest()
        try:
            tree = ast.parse(data, filename=path)
        except (SyntaxError, ValueError) as exc:
            raise RulesError(f"{path} is not Python: {exc}") from None
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or "."] if isinstance(node, ast.ImportFrom) and node.module != "__future__" else []
            outside = [n for n in names if n.split(".")[0] not in sys.stdlib_module_names or
                       (isinstance(node, ast.ImportFrom) and node.level)]
            if outside:
                raise RulesError(f"{path} imports {outside[0]}: a rules module uses the standard library only")
        module = types.ModuleType(f"verify_rules_{self.sha256[:16]}")
        module.__file__ = path
        try:
            exec(compile(tree, path, "exec"), module.__dict__)
        except Exception as exc:  # the module's own code failed: say which file
            raise RulesError(f"{path} does not load: {type(exc).__name__}: {exc}") from None
        system, redraw, screen = (getattr(module, n, None) for n in ("SYSTEM", "redraw", "screen_line"))
        if not isinstance(system, str) or not callable(redraw) or not callable(screen):
            raise RulesError(f"{path} is not a rules module: it needs SYSTEM (a system id), redraw(roll, result) "
                             "and screen_line(result)")
        self.system, self.redraw, self.screen_line = system, redraw, screen
        self.entered = tuple(str(n) for n in getattr(module, "ENTERED", ()))
        self.carried = tuple((str(a), str(b)) for a, b in getattr(module, "CARRIED", ()))
        self.used = False

    def typed_in(self, params: object) -> bool:
        """Whether a roll of these parameters was typed in (rule 13)."""
        return isinstance(params, dict) and any(params.get(name) for name in self.entered)


class RulesError(ValueError):
    """A rules module that cannot be used (unreadable, not one, importing beyond the standard library)."""


def shipped_rules() -> list[str]:
    """The shipped systems' rules modules, found beside this tool in a dicetower checkout
    (tools/../engine/systems/ID/verify_rules.py); none when it is run on its own."""
    systems = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "engine", "systems")
    try:
        names = sorted(os.listdir(systems))
    except OSError:
        return []
    found = [os.path.join(systems, n, "verify_rules.py") for n in names]
    return [os.path.normpath(p) for p in found if os.path.isfile(p)]


def load_rules(paths: list[str], given: list[str]) -> dict[str, Rules]:
    """Every rules module by system: the shipped ones, then those given (a given one replaces a
    shipped one of the same system; two given for one system are a mistake)."""
    out: dict[str, Rules] = {}
    named: dict[str, str] = {}
    for path in [*paths, *given]:
        rules = Rules(path)
        if path in given and rules.system in named:
            raise RulesError(f"--rules {path} and --rules {named[rules.system]} are both rules of {rules.system!r}")
        if path in given:
            named[rules.system] = path
        out[rules.system] = rules
    return out


def redraw(roll: RollBytes, result: dict, rules: dict[str, Rules]) -> str | None:
    """Draw the roll again by its system's rules; None if the draws match the logged ones."""
    system = result.get("system")
    how = rules.get(system) if isinstance(system, str) else None
    if how is None:
        return f"unknown system {system!r}: no rules module for it (name the system's with --rules PATH)"
    how.used = True
    return how.redraw(roll, result)


def kind_of(result: dict, personalization: bytes, rules: dict[str, Rules]) -> str:
    how = rules.get(result.get("system")) if isinstance(result.get("system"), str) else None
    if how is not None and how.typed_in(result.get("params")):
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


NOTED_KINDS = ("session", "table_seed", "roll", "reveal")


def field_at(result: dict, path: str) -> object:
    value: object = result
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def screen_line(result: dict, rules: dict[str, Rules]) -> str:
    """The result screen's first line as the tower draws it (docs/fairness.md, rule 18), by
    its system's rules module ("" without one, or for a result it cannot read)."""
    system = result.get("system")
    how = rules.get(system) if isinstance(system, str) else None
    if how is None:
        return ""
    try:
        said = how.screen_line(result)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        return ""
    return f"{system} {said}" if isinstance(said, str) else ""


def numbers(found: list[int]) -> str:
    """``#1..#3, #6, #7``: roll numbers, runs of three or more joined (at most 12 shown)."""
    runs: list[list[int]] = []
    for n in found:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    parts = [f"#{r[0]}..#{r[-1]}" if len(r) >= 3 else ", ".join(f"#{n}" for n in r) for r in runs]
    return ", ".join(parts[:12]) + (", ..." if len(parts) > 12 else "")
NOTE = re.compile(r"(?:(?:roll\s*)?#?\s*(\d{1,9})\s*[:\s]\s*)?([0-9a-f]+)")


def parse_note(text: str) -> tuple[str, int | None] | None:
    """What a player typed for --expect: HEX, or a result as N:HEX (#N:HEX, #N HEX, roll #N HEX).
    None when it is not 16 to 64 hex digits (with a roll number from 1)."""
    found = NOTE.fullmatch(" ".join(text.lower().split()))
    if found is None or not 16 <= len(found[2]) <= 64 or (found[1] is not None and int(found[1]) == 0):
        return None
    return found[2], int(found[1]) if found[1] is not None else None


class Checker:
    def __init__(self, notes: list[tuple[str, int | None]], table_seeds: list[str], allow_mix: list[str],
                 allow_entered: int, allow_command_line: int = 0, cards: list[tuple] | None = None,
                 count: int | None = None, rules: dict[str, Rules] | None = None) -> None:
        self.rules = rules if rules is not None else {}
        self.problems: list[tuple[int, str, str]] = []
        self.open: dict[str, dict] = {}
        self.left: dict[str, dict] = {}
        self.closed: set[str] = set()
        self.entropy: dict[bytes, str] = {}
        self.codes: dict[str, str] = {}
        self.counts = {"rolled": 0, "entered": 0, "test": 0}
        # each noted value: [prefix, number, found (False, True or what it matched instead), session, line]
        self.notes = [[prefix, number, False, None, 0] for prefix, number in notes]
        self.cards = cards or []  # (commitment, table seed as the card says it, rolls, head)
        self.player = bool(notes or table_seeds or self.cards)
        self.table_seeds = table_seeds
        self.allow_mix = allow_mix
        self.allow_entered = allow_entered
        self.allow_command_line = allow_command_line
        self.no_table_seed: list[str] = []
        self.sessions: list[dict] = []  # every session started, in log order
        self.entered_lines: list[int] = []
        self.noted_rolls: list[tuple[int | None, dict]] = []
        self.seen: dict[str, set[int]] = {}  # session -> the numbers of its noted results
        self.count = count
        self.entries = 0
        self.damaged: list[tuple[str, int, int, str]] = []  # sessions ended as damaged: id, line, rolls, why

    def problem(self, line: int, code: str, text: str) -> None:
        self.problems.append((line, code, text))

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
                self.problem(line_no, "chain", "hash chain broken (edited, dropped, moved or damaged entry)")
                return
            prev, seq = entry["hash"], seq + 1

    def match(self, line: int, e: dict, sid: str | None, number: int | None) -> None:
        """Rule 14: mark the noted values this entry's hash (or a session's commitment) starts."""
        if e.get("kind") not in NOTED_KINDS:
            return
        digest = str(e.get("hash", ""))
        commitment = str(e.get("commitment", "")) if e.get("kind") == "session" else ""
        for n in self.notes:
            prefix, want = n[0], n[1]
            on_hash, on_commitment = digest.startswith(prefix), bool(commitment) and commitment.startswith(prefix)
            if not (on_hash or on_commitment) or n[2] is True:
                continue
            if want is not None and (not on_hash or e.get("kind") != "roll" or number != want):
                n[2] = f"roll #{number}" if e.get("kind") == "roll" and number else f"a {e.get('kind')} entry"
                n[3], n[4] = sid, line
                continue
            n[2], n[3], n[4] = True, sid, line
            if e.get("kind") == "roll" and on_hash:
                self.noted_rolls.append((number, e))
                if sid is not None and number is not None:
                    self.seen.setdefault(sid, set()).add(number)
            if on_commitment and sid in self.open:
                self.open[sid]["commitment_noted"] = True

    def entry(self, line: int, e: dict) -> None:
        kind, sid = e.get("kind"), e.get("session")
        if kind == "session":
            self.start(line, e)
        elif kind == "roll" and sid is None:
            self.carried(line, e)
            if e.get("roll_kind") != "entered":
                self.problem(line, "outside-session", "a roll outside a session that is not marked entered")
            self.counts["entered"] += 1
            self.match(line, e, None, None)
            self.entered_lines.append(line)
        elif kind in ("roll", "reveal", "table_seed", "session_damaged"):
            s = self.open.get(sid)
            self.match(line, e, sid if s is not None else None,
                       len(s["rolls"]) + 1 if s is not None and kind == "roll" else None)
            if s is None:
                why = ("after that session was revealed" if sid in self.closed else
                       "which is not the open session" if sid in self.left else "which was never started")
                self.problem(line, "not-open", f"{kind} of session {sid}, {why}")
                return
            if kind == "table_seed":
                self.table_seed(line, e, s)
            elif kind == "roll":
                self.carried(line, e)
                self.roll(line, e, s)
            elif kind == "session_damaged":
                # the tower lost the session's seed with its kept file: ended, its rolls uncheckable
                del self.open[sid]
                self.closed.add(sid)
                s["end"], s["damaged"] = line, str(e.get("why") or e.get("reason") or "no reason given")
                self.damaged.append((sid, line, len(s["rolls"]), s["damaged"]))
                if e.get("rolls") != len(s["rolls"]):
                    self.problem(line, "reveal-count", f"session {sid}: the session_damaged entry counts "
                                                       f"{e.get('rolls')} rolls, the log holds {len(s['rolls'])}")
            else:
                del self.open[sid]
                self.closed.add(sid)
                s["end"], s["head"] = line, str(e.get("hash", ""))
                self.session(sid, s, line, e)

    def carried(self, line: int, e: dict) -> None:
        """Rule 17: the state a roll entry logs for its player holds what its result carries."""
        result, player, state = e.get("result"), e.get("player"), e.get("player_state")
        if not isinstance(result, dict) or isinstance(player, bool) or not isinstance(player, int) \
                or not isinstance(state, dict):
            return
        system = result.get("system")
        logged = state.get(system) if isinstance(state.get(system), dict) else {}
        how = self.rules.get(system) if isinstance(system, str) else None
        for name, path in how.carried if how is not None else ():
            gives = field_at(result, path)
            if gives is not None and logged.get(name) != gives:
                self.problem(line, "player-state", f"player {player}'s {system} {name} after this roll is logged as "
                                                   f"{json.dumps(logged.get(name))}, its result gives "
                                                   f"{json.dumps(gives)}")

    def start(self, line: int, e: dict) -> None:
        sid = e.get("session")
        if sid in self.open or sid in self.closed or sid in self.left:
            self.problem(line, "session-twice", f"session {sid} started twice")
            return
        for other in list(self.open):
            self.problem(line, "overlap", f"session {sid} opened while session {other} is still open: one session "
                                          "at a time")
            self.left[other] = self.open.pop(other)
            self.sessions.remove(self.left[other])  # set aside: its rolls are not checked, nor counted as yours
        stream, block = e.get("stream"), e.get("block_bytes", 64)
        if stream not in (2, 3):
            self.problem(line, "stream", f"session {sid} is not stream format 2 or 3")
        elif isinstance(block, bool) or not isinstance(block, int) or not 1 <= block <= 65536 \
                or (stream == 3 and block != 64):
            self.problem(line, "block-size", f"session {sid} has a bad block size {block!r}")
        else:
            s = {"id": sid, "line": line, "entry": e, "stream": stream, "block": block, "table_seed": None,
                 "rolls": [], "spoiled": False, "commitment_noted": False, "mixes": [], "end": 0, "head": "",
                 "test": None, "panel": False, "not_panel": []}
            self.open[sid] = s
            self.sessions.append(s)
            self.match(line, e, sid, None)

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
            text = e.get("table_seed")
            s["table_seed"], s["seed_source"] = text, e.get("source")
            if text in self.codes:
                self.problem(line, "table-seed-reused", f"session {sid}'s table seed {text!r} was already session "
                                                        f"{self.codes[text]}'s: one code, one session")
            else:
                self.codes[text] = sid
            return
        self.problem(line, "table-seed", why)
        s["spoiled"] = True

    def roll(self, line: int, e: dict, s: dict) -> None:
        if len(s["rolls"]) >= SESSION_ROLLS:
            if not s.get("overflow"):
                self.problem(line, "too-many-rolls", f"session {e.get('session')} has more than {SESSION_ROLLS} rolls")
            s["overflow"] = True
            return
        number = len(s["rolls"]) + 1
        result = e.get("result") if isinstance(e.get("result"), dict) else {}
        how = self.rules.get(result.get("system")) if isinstance(result.get("system"), str) else None
        if how is not None and how.typed_in(result.get("params")):
            self.problem(line, "roll-kind", f"roll #{number} of session {e.get('session')} is typed in inside a "
                                            "session: typed-in rolls are logged outside every session")
        if e.get("source") == "panel":
            s["panel"] = True
            where = s.get("seed_source")
            if where is not None and where != "panel" and not s.get("foreign_code"):
                s["foreign_code"] = True
                self.problem(line, "table-seed-source", f"roll #{number} of session {e.get('session')} is the "
                                                        f"panel's, but its code was set by {where!r}, not on the "
                                                        "panel's keys")
        else:
            s["not_panel"].append((line, number))
        if s["stream"] == 3:
            try:
                mix = bytes.fromhex(e.get("mix"))
                ok = mix_ok(mix) and not (mix and e.get("source") == "panel")
            except (ValueError, TypeError):
                mix, ok = b"", False
            if not ok:
                self.problem(line, "mix", "the mix of a stream 3 roll is not printable text a player typed (or it is "
                                          "on a panel roll)")
            elif mix:
                s["mixes"].append((line, mix.decode("ascii")))
        s["rolls"].append((line, e))

    def session(self, sid: str, s: dict, line: int, reveal: dict) -> None:
        try:
            entropy, nonce, pers = decode_seed(str(reveal.get("seed")))
        except ValueError as exc:
            self.problem(line, "seed-unreadable", f"session {sid}: {exc}")
            return
        commitment = str(s["entry"].get("commitment"))
        if hashlib.sha256(bytes.fromhex(reveal["seed"])).hexdigest() != commitment or commitment[:16] != sid:
            self.problem(line, "commitment", f"session {sid}: the revealed seed does not match the commitment")
            return
        s["test"] = pers == TEST_PERSONALIZATION
        if not s["test"]:
            for text in seed_problems(entropy, pers, s["entry"]):
                self.problem(line, "seed-claim", f"session {sid}: {text}")
            for i, block in enumerate(blocks(entropy)):
                earlier = self.entropy.get(block)
                if earlier is not None and earlier != sid:
                    self.problem(line, "reused-entropy", f"session {sid}: entropy block {i + 1} was already used by "
                                                         f"session {earlier}: a reused seed")
                self.entropy.setdefault(block, sid)
            if s["table_seed"] is None and s["rolls"]:  # an empty session chose nothing
                self.no_table_seed.append(sid)
        if reveal.get("rolls") != len(s["rolls"]):
            self.problem(line, "reveal-count", f"session {sid}: the reveal counts {reveal.get('rolls')} rolls, "
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
            if not isinstance(e.get("start"), int) or not isinstance(e.get("end"), int) \
                    or not isinstance(e.get("mix"), str) or not isinstance(e.get("result"), dict):
                self.problem(roll_line, "roll-malformed", "roll entry is malformed (start, end, mix or result missing)")
                return
            if e.get("start") != drbg.calls:
                self.problem(roll_line, "continuity", f"roll starts at generate call {e.get('start')}, the previous "
                                                      f"roll ended at {drbg.calls}")
                return
            code = "roll-mismatch"
            try:
                problem = redraw(RollBytes(drbg, bytes.fromhex(e["mix"]), s["block"]), result, self.rules)
            except (ValueError, TypeError, KeyError) as exc:
                problem = f"the roll cannot be redrawn ({exc})"
            if problem is None and e.get("end") != drbg.calls:
                code = "continuity"
                problem = f"roll used generate calls up to {drbg.calls}, the log says {e.get('end')}"
            kind = kind_of(result, pers, self.rules)
            if problem is None and e.get("roll_kind") != kind:
                code, problem = "roll-kind", f"labelled {e.get('roll_kind')} but it is {kind}"
            if problem is not None:
                self.problem(roll_line, code, problem)
                return
            self.counts[kind] += 1
        if reveal.get("end") != drbg.calls:
            self.problem(line, "continuity", f"session {sid}: the reveal says it ended at generate call "
                                             f"{reveal.get('end')}, its last roll ended at {drbg.calls}")

    def finish(self, entries: int, all_revealed: bool) -> None:
        if all_revealed:
            for sid, s in self.open.items():
                self.problem(s["line"], "open-session", f"session {sid} is still open")
        if self.player:
            self.night(entries)

    def night(self, entries: int) -> None:
        """Player mode (rule 14): what was noted is in the log; each card is a session as it
        says; the players' night holds no session they did not note, none without one of their
        codes, no test session, no mix, typed-in roll or roll off the panel they did not name."""
        for prefix, number, hit, _sid, line in self.notes:
            shown = f"{number}:{prefix}" if number is not None else prefix
            if hit is False:
                self.problem(0, "not-in-log", f"the noted value {shown} is in no session, table seed, roll or reveal "
                                              "entry and no commitment")
            elif hit is not True:
                self.problem(line, "roll-number", f"the noted result roll #{number} {prefix} is {hit} in the log")
        carried = {s["table_seed"] for s in self.sessions}
        for text in self.table_seeds:
            if text not in carried:
                self.problem(0, "table-seed-not-found", f"no session carries the table seed {text!r} you set")
        touched = {n[3] for n in self.notes if n[3] is not None}
        codes = set(self.table_seeds)
        for commitment, seed, rolls, head in self.cards:
            s = next((s for s in self.sessions if s["entry"].get("commitment") == commitment), None)
            if s is None:
                self.problem(0, "card", f"the card #{commitment[:16]}: no session of the log has its commitment")
                continue
            touched.add(s["id"])
            if seed != "(none)":
                codes.add(seed)
            logged = (s["head"] or "(not revealed)", s["table_seed"] if s["table_seed"] is not None else "(none)",
                      len(s["rolls"]))
            if logged != (head, seed, rolls):
                self.problem(s["end"] or s["line"], "card", f"the card #{commitment[:16]} is not session {s['id']} as "
                                                            f"the log holds it: {logged} in the log, "
                                                            f"{(head, seed, rolls)} on the card")
        touched |= {s["id"] for s in self.sessions if s["table_seed"] in codes}
        marked = [s for s in self.sessions if s["id"] in touched]
        typed_noted = [n[4] for n in self.notes if n[3] is None and n[2] is True]
        starts = [s["line"] for s in marked] + typed_noted
        if not starts:
            return
        first, last = min(starts), max([s["end"] or entries for s in marked] + typed_noted)
        night = [s for s in self.sessions if s["line"] <= last and (s["end"] or entries) >= first]
        for s in night:
            sid = s["id"]
            if s.get("damaged") is not None:
                if s["rolls"]:
                    self.problem(s["end"], "damaged-session", f"session {sid} of your night ended as damaged: "
                                                              f"{s['damaged']}; its {len(s['rolls'])} roll(s) cannot "
                                                              "be checked")
                continue
            if not (s["rolls"] or s["id"] in touched):
                continue
            if not s["commitment_noted"]:
                self.problem(s["line"], "unnoted-commitment", f"session {sid} is in your night but you did not note "
                                                              "its commitment")
            if s["test"]:
                self.problem(s["line"], "test-session", f"session {sid} is a --seed test session")
            if s["table_seed"] is None:
                self.problem(s["line"], "no-table-seed", f"session {sid} has no table seed")
            elif s["table_seed"] not in codes:
                self.problem(s["line"], "unnoted-table-seed", f"session {sid}'s table seed {s['table_seed']!r} is "
                                                              "not one you set")
        budget = {text: self.allow_mix.count(text) for text in self.allow_mix}
        for mix_line, text, sid in sorted((m[0], m[1], s["id"]) for s in night for m in s["mixes"]):
            if budget.get(text, 0) > 0:
                budget[text] -= 1
            else:
                self.problem(mix_line, "mix-not-named", f"a roll of session {sid} carries the mix {text!r}, named "
                                                        f"{self.allow_mix.count(text)} time(s) (--allow-mix TEXT "
                                                        "names one roll)")
        off_panel = sorted((r[0], r[1], s["id"]) for s in night if s["panel"] for r in s["not_panel"])
        if len(off_panel) > self.allow_command_line:
            line, _, sid = off_panel[self.allow_command_line]
            self.problem(line, "command-line-roll", f"{len(off_panel)} roll(s) of your night were not made on the "
                                                    f"panel in a session it rolled in (session {sid}), you named "
                                                    f"{self.allow_command_line} (--allow-command-line)")
        self.unseen(night)
        typed = [line for line in self.entered_lines if first <= line <= last]
        if len(typed) > self.allow_entered:
            self.problem(typed[0], "entered-not-named", f"{len(typed)} typed-in roll(s) in your night, you named "
                                                        f"{self.allow_entered} (--allow-entered)")


    def unseen(self, night: list[dict]) -> None:
        """Rule 14: every roll of the night is one you saw: noted, or (--count N) counted."""
        with_rolls = [s for s in night if s["rolls"]]
        total = sum(len(s["rolls"]) for s in with_rolls)
        if self.count is not None:
            if total > self.count:
                self.problem(with_rolls[-1]["rolls"][-1][0], "unseen-roll",
                             f"your night holds {total} roll(s), you counted {self.count} (--count)")
            elif total < self.count:
                self.problem(0, "missing-roll", f"you counted {self.count} roll(s) (--count), your night holds "
                                                f"{total}: a result you saw is not in the log")
            return
        for s in with_rolls:
            seen = self.seen.get(s["id"], set())
            missing = [n for n in range(1, len(s["rolls"]) + 1) if n not in seen]
            if missing:
                self.problem(s["rolls"][missing[0] - 1][0], "unseen-roll",
                             f"roll(s) {numbers(missing)} of session {s['id']} are in your night but not among the "
                             "results you noted: note every result, or count them and give --count N")


CARD = re.compile(r"(?:dicetower\s+reveal\s+)?commitment\s+([0-9a-fA-F]{64})\s+table\s+seed\s+(\S(?:.*\S)?)"
                  r"\s+rolls\s+(\d{1,9})\s+head\s+([0-9a-fA-F]{64})", re.DOTALL)


def parse_card(text: str) -> tuple[str, str, int, str] | None:
    """A reveal card's text (its QR code's: "commitment HEX table seed CODE rolls N head HEX",
    its lines or one line; or the phone page's address with the card in its fragment,
    "http://...#card=...") as (commitment, table seed as the card says it, rolls, head)."""
    text = text.strip()
    if text.lower().startswith(("http://", "https://")) and "#" in text:
        from urllib.parse import parse_qs

        text = (parse_qs(text.partition("#")[2]).get("card") or [text])[0]
    found = CARD.fullmatch(text.strip())
    if found is None or "\n" in found[2] or "\r" in found[2]:
        return None
    return found[1].lower(), found[2], int(found[3]), found[4].lower()


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


def log_files(path: str) -> list[str]:
    """The files of the log whose current file is ``path``, oldest first: the tower renames a
    full rolls.jsonl to rolls.1.jsonl, rolls.2.jsonl, ... and goes on in a new rolls.jsonl,
    the chain running on from file to file (step 5)."""
    folder, name = os.path.split(path)
    stem, dot, suffix = name.rpartition(".")
    if not dot:
        stem, suffix = name, ""
    pattern = re.compile(re.escape(stem) + r"\.([1-9][0-9]*)" + (re.escape("." + suffix) if suffix else "") + "$")
    try:
        names = os.listdir(folder or ".")
    except OSError:
        names = []
    rotated = sorted((int(m[1]), os.path.join(folder, n)) for n in names if (m := pattern.match(n)))
    return [p for _, p in rotated] + [path]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="verify_rolls.py", description="Check a dicetower roll log.")
    parser.add_argument("log", metavar="ROLLS.JSONL")
    parser.add_argument("--expect", metavar="NOTE", action="append", default=[])
    parser.add_argument("--table-seed", metavar="CODE", action="append", default=[])
    parser.add_argument("--allow-mix", metavar="TEXT", action="append", default=[])
    parser.add_argument("--allow-entered", metavar="N", type=int, default=0)
    parser.add_argument("--allow-command-line", metavar="N", type=int, default=0)
    parser.add_argument("--card", metavar="TEXT", action="append", default=[])
    parser.add_argument("--count", metavar="N", type=int, default=None)
    parser.add_argument("--all-revealed", action="store_true")
    parser.add_argument("--rules", metavar="PATH", action="append", default=[],
                        help="a system's rules module (a plug-in's verify_rules.py); repeatable")
    args = parser.parse_args(argv[1:])
    try:
        rules = load_rules(shipped_rules(), args.rules)
    except (OSError, RulesError) as exc:
        why = f"cannot read {exc.filename}: {exc.strerror}" if isinstance(exc, OSError) else str(exc)
        print(f"verify_rolls: --rules: {why}", file=sys.stderr)
        return 2
    notes = [parse_note(p) for p in args.expect]
    bad = [p for p, n in zip(args.expect, notes, strict=True) if n is None]
    if bad:
        print(f"verify_rolls: --expect needs 16 to 64 hex digits, or a result as N:HEX, got {bad[0]!r}",
              file=sys.stderr)
        return 2
    bad = [t for t in args.table_seed if not table_seed_ok(t)]
    if bad:
        print(f"verify_rolls: --table-seed needs 1 to 64 printable ASCII characters, got {bad[0]!r}", file=sys.stderr)
        return 2
    if args.allow_entered < 0 or args.allow_command_line < 0 or (args.count is not None and args.count < 0):
        print("verify_rolls: --allow-entered, --allow-command-line and --count need a whole number from 0",
              file=sys.stderr)
        return 2
    cards = [parse_card(text) for text in args.card]
    if None in cards:
        bad = args.card[cards.index(None)]
        print(f"verify_rolls: --card needs the text of a reveal card's QR code ('commitment HEX64 table seed CODE "
              f"rolls N head HEX64', lines or one line), got {bad[:80]!r}", file=sys.stderr)
        return 2
    files = log_files(args.log)
    lines: list[bytes] = []
    for name in files:
        try:
            data = read_log(name).split(b"\n")
        except OSError as exc:
            why = "it is a symbolic link; name the log file itself" if exc.errno == errno.ELOOP else exc.strerror
            print(f"verify_rolls: cannot read {name}: {why}", file=sys.stderr)
            return 2
        if data and data[-1] == b"":
            data.pop()
        lines += data
    if len(files) > 1:
        print(f"reading {len(files)} files as one log: {', '.join(os.path.basename(f) for f in files)}")
    checker = Checker([n for n in notes if n is not None], args.table_seed, args.allow_mix, args.allow_entered,
                      args.allow_command_line, [c for c in cards if c is not None], args.count, rules)
    if args.count is not None and not checker.player:
        print("verify_rolls: --count counts the rolls of your night: give it with what you noted (--expect, "
              "--table-seed or --card)", file=sys.stderr)
        return 2
    checker.chain(lines)
    for line_no, raw in enumerate(lines, start=1):
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict):
            checker.entry(line_no, entry)
    checker.finish(len(lines), args.all_revealed)
    for line_no, code, text in sorted(checker.problems, key=lambda p: p[0]):
        print(f"entry {line_no}: {code}: {text}" if line_no else f"log: {code}: {text}")
    if checker.no_table_seed:
        print(f"{len(checker.no_table_seed)} session(s) without a table seed (the owner could have chosen their "
              f"seed): {', '.join(checker.no_table_seed)}")
    if checker.noted_rolls:  # what no checker can see: compare each with the photo of its screen
        print("your noted results as the log holds them (compare each with its photo):")
        for number, e in checker.noted_rolls:
            result = e.get("result") if isinstance(e.get("result"), dict) else {}
            dice = " ".join(str(d) for d in result.get("dice") or []) or "-"
            shown = screen_line(result, rules)
            print(f"  {f'roll #{number}' if number else 'typed-in roll'} {str(e.get('hash'))[:16]}: "
                  + (f'"{shown}": ' if shown else "") + f"{result.get('system')} {result.get('outcome')}, dice {dice}")
    for sid, line, rolls, why in checker.damaged:
        print(f"session {sid} ended as damaged (entry {line}): {why}; its {rolls} roll(s) cannot be checked (no seed "
              "is known)")
    for how in sorted((r for r in rules.values() if r.used), key=lambda r: r.system):
        print(f"rules {how.system}: {how.path} sha256 {how.sha256}")
    open_rolls = sum(len(s["rolls"]) for s in checker.open.values())
    c = checker.counts
    print(f"{len(lines)} entries; verified {c['rolled']} rolled, {c['entered']} entered (not checkable), "
          f"{c['test']} test (--seed, not fair), {open_rolls} in {len(checker.open)} open session(s); "
          + ("all good" if not checker.problems else f"{len(checker.problems)} problem(s)"))
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
