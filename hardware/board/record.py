"""The board's record on disk: one SQLite database (stdlib ``sqlite3``, WAL, one writer).

``DIR/board.sqlite3`` holds every tower the board has heard of, each tower's entries (the
hash chain as received, conflicting entries included and marked), the findings against it,
the evidence (rejected messages and conflicting entries, bounded per tower), the verifier's
state and counts, and the statistics of verified rolls. The board process is the one writer
(:class:`Record`, used from one thread; ``DIR/board.lock`` keeps a second board out); the web
side and the verifier process read through their own connections (:class:`Reader`), which WAL
lets run beside the writer. So memory stays flat as entries grow, and a restart keeps every
verdict and every tower's history.

Tables (``entries.path`` marks the entries on the tower's chain as the board follows it; two
entries for one seq both have ``conflict`` = 1 and only one of them, at most, is on the path):

- ``towers``: id, store, tower, when first and last heard, the last status, the head, counts,
  ``verifier_state`` (JSON, owned by :mod:`hardware.board.verdict`) and ``verdict`` (its counts);
- ``entries``: tower, seq, hash, prev, kind, session, path, conflict, mark (a roll's check:
  :data:`hardware.board.messages.MARKS`), when received, the entry (zlib of its canonical JSON);
- ``findings``: tower, seq (NULL: a message with no entry), source (``board``: about an entry
  of the chain, its fields or a conflict; ``message``: a message rejected, not data;
  ``verifier``: the replay), the message, ``pending`` (a verifier finding about entries after
  its last decided point, replaced at each check), ``digest`` (of a rejected message: the
  same message, retained and delivered again at every start, is one finding);
- ``evidence``: tower, seq, when, why, the message's bytes (clipped);
- ``stats``: tower, system, outcome, observed, expected, variance; ``stat_rolls``: tower,
  system, rolls, unpriced.

What the webhooks are told (:mod:`hardware.board.feeds`) is kept in the same transactions:

- ``hooks``: one row per webhook (keyed by a hash of its URL, never the URL), what it was sent,
  what was dropped (its queue full) and given up (the receiver refused it);
- ``outbox``: the posts not acknowledged yet, per hook, in order (``id`` only grows: AUTOINCREMENT);
- ``feed_towers``: per tower, the last roll announced (a roll is posted once, even when its
  session is checked again) and whether a red alert went out.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import clip
from hardware.board import BoardError
from hardware.files.rolllog import GENESIS
from hardware.files.safefile import open_file

DB_NAME = "board.sqlite3"
LOCK_NAME = "board.lock"
SCHEMA_VERSION = 1
#: Evidence kept per tower: at most this many messages, each clipped to this many bytes.
EVIDENCE_ROWS = 64
EVIDENCE_BYTES = 64 << 10
#: Board findings kept per tower (later ones are counted, not kept).
FINDING_ROWS = 200
#: A roll's check mark (the ``mark`` column; the names are hardware.board.messages.MARKS).
MARK_VERIFIED, MARK_ENTERED, MARK_TEST, MARK_FAILED, MARK_UNCODED = 1, 2, 3, 4, 5
#: The marks of a roll replay verified (``uncoded``: in a session without a table seed).
VERIFIED_MARKS = (MARK_VERIFIED, MARK_UNCODED)
MARK_BY_LABEL = {"entered": MARK_ENTERED, "test": MARK_TEST}

#: Columns added to schema 1 since (table, column, type): made by :meth:`Record._migrate`.
_ADDED: tuple[tuple[str, str, str], ...] = (
    ("towers", "marked", "INTEGER"),  # the tower's rolls marked verified (a card never counts more than it has)
    ("outbox", "tried", "INTEGER NOT NULL DEFAULT 0"),  # a Discord post handed to the receiver at least once
    ("findings", "digest", "TEXT"),  # a rejected message's SHA-256: the same message is one finding, ever
    ("entries", "edited", "INTEGER NOT NULL DEFAULT 0"),  # its content does not match its own hash
)
#: Indexes on columns of :data:`_ADDED` (made once the columns are there).
_ADDED_INDEXES = ("CREATE UNIQUE INDEX IF NOT EXISTS findings_digest ON findings(tower_id, digest) "
                  "WHERE digest IS NOT NULL",)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS towers(
    id INTEGER PRIMARY KEY, store TEXT NOT NULL, tower TEXT NOT NULL,
    first_seen REAL NOT NULL, last_heard REAL NOT NULL, status TEXT,
    head_seq INTEGER NOT NULL DEFAULT 0, head_hash TEXT NOT NULL DEFAULT '',
    rolls INTEGER NOT NULL DEFAULT 0, sessions INTEGER NOT NULL DEFAULT 0,
    duplicates INTEGER NOT NULL DEFAULT 0, findings_dropped INTEGER NOT NULL DEFAULT 0,
    verifier_state TEXT, verdict TEXT,
    UNIQUE(store, tower));
CREATE TABLE IF NOT EXISTS entries(
    tower_id INTEGER NOT NULL, seq INTEGER NOT NULL, hash TEXT NOT NULL, prev TEXT NOT NULL,
    kind TEXT NOT NULL, session TEXT, path INTEGER NOT NULL, conflict INTEGER NOT NULL DEFAULT 0,
    mark INTEGER NOT NULL DEFAULT 0, received REAL NOT NULL, body BLOB NOT NULL,
    UNIQUE(tower_id, seq, hash));
CREATE INDEX IF NOT EXISTS entries_sessions ON entries(tower_id, session, seq) WHERE kind = 'session';
CREATE INDEX IF NOT EXISTS entries_conflicts ON entries(tower_id, seq) WHERE conflict = 1;
CREATE INDEX IF NOT EXISTS entries_rolls ON entries(tower_id, session, seq) WHERE kind = 'roll';
CREATE TABLE IF NOT EXISTS findings(
    id INTEGER PRIMARY KEY, tower_id INTEGER NOT NULL, seq INTEGER, source TEXT NOT NULL,
    message TEXT NOT NULL, pending INTEGER NOT NULL DEFAULT 0, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS findings_tower ON findings(tower_id, seq);
CREATE TABLE IF NOT EXISTS evidence(
    id INTEGER PRIMARY KEY, tower_id INTEGER NOT NULL, seq INTEGER, at REAL NOT NULL,
    reason TEXT NOT NULL, body BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS evidence_tower ON evidence(tower_id);
CREATE TABLE IF NOT EXISTS stats(
    tower_id INTEGER NOT NULL, system TEXT NOT NULL, outcome TEXT NOT NULL,
    observed INTEGER NOT NULL, expected REAL NOT NULL, variance REAL NOT NULL,
    PRIMARY KEY(tower_id, system, outcome));
CREATE TABLE IF NOT EXISTS stat_rolls(
    tower_id INTEGER NOT NULL, system TEXT NOT NULL, rolls INTEGER NOT NULL, unpriced INTEGER NOT NULL,
    PRIMARY KEY(tower_id, system));
CREATE TABLE IF NOT EXISTS hooks(
    id INTEGER PRIMARY KEY, ident TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0, dropped INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0,
    last_ok REAL);
CREATE TABLE IF NOT EXISTS outbox(
    id INTEGER PRIMARY KEY AUTOINCREMENT, hook_id INTEGER NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
    at REAL NOT NULL, body BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS outbox_hook ON outbox(hook_id, id);
CREATE TABLE IF NOT EXISTS feed_towers(
    tower_id INTEGER PRIMARY KEY, announced INTEGER NOT NULL, red INTEGER NOT NULL);
"""

Entry = dict[str, Any]
#: The largest integer SQLite stores (a seq, a count): 2^63 - 1.
MAX_INTEGER = (1 << 63) - 1


class RecordError(BoardError):
    """The record cannot be used at all (damaged, full, read-only) when the board starts:
    one line, and the command line's exit status 4 ("cannot record")."""

    def __str__(self) -> str:
        return clip(Exception.__str__(self), 1000)  # its path and what to do, whole


class Unstorable(BoardError):
    """A value a tower sent that no column can hold (an integer past 64 bits): the finding of
    the message that carried it, never the board's failure. Its message is the finding alone
    (no option is at fault)."""

    def __init__(self, detail: str) -> None:
        Exception.__init__(self, detail)
        self.what = ""
        self.detail = detail


#: SQLite's primary result codes that mean the record itself is in trouble (not a message's
#: fault): what the page, the API and the journal say instead of "live".
_TROUBLE = {
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_READONLY: "the record is read-only",
    sqlite3.SQLITE_IOERR: "the disk gives an I/O error",
    sqlite3.SQLITE_CANTOPEN: "the record cannot be opened",
    sqlite3.SQLITE_CORRUPT: "the record is damaged",
    sqlite3.SQLITE_NOTADB: "the record is damaged (not an SQLite database)",
    sqlite3.SQLITE_NOMEM: "out of memory",
    sqlite3.SQLITE_PERM: "no permission to write the record",
    sqlite3.SQLITE_BUSY: "the record is locked by another process",
    sqlite3.SQLITE_LOCKED: "the record is locked",
    sqlite3.SQLITE_PROTOCOL: "the record's lock protocol failed",
}


def record_trouble(exc: BaseException) -> str | None:
    """What is wrong with the record if ``exc`` says the record itself failed (a full disk,
    a read-only or damaged file), else None (the message or the board's code is at fault)."""
    if isinstance(exc, MemoryError):
        return "out of memory"
    if not isinstance(exc, sqlite3.DatabaseError) or isinstance(
            exc, sqlite3.IntegrityError | sqlite3.ProgrammingError | sqlite3.DataError):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:  # raised without SQLite's code: by its words
        text = str(exc)
        return next((why for words, why in _WORDS if words in text), "the record failed")
    return _TROUBLE.get(code & 0xFF)


_WORDS = (("full", _TROUBLE[sqlite3.SQLITE_FULL]), ("readonly", _TROUBLE[sqlite3.SQLITE_READONLY]),
          ("malformed", _TROUBLE[sqlite3.SQLITE_CORRUPT]), ("not a database", _TROUBLE[sqlite3.SQLITE_NOTADB]),
          ("disk I/O", _TROUBLE[sqlite3.SQLITE_IOERR]))


def storable_text(text: str) -> str:
    """``text`` as the record can keep it: UTF-8, so a lone surrogate (which a tower can send
    as ``"\\udfff"`` in JSON, and JSON decodes) is kept as the escape ``\\udfff``."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _storable(value: Any) -> Any:
    if isinstance(value, str):
        return storable_text(value)
    if type(value) is int and not -MAX_INTEGER - 1 <= value <= MAX_INTEGER:
        digits = str(value) if abs(value) < 10**40 else f"{str(value)[:20]}… ({len(str(abs(value)))} digits)"
        raise Unstorable(f"the number {digits} is past 64 bits, more than the record holds")
    return value


class _Connection(sqlite3.Connection):
    """A connection whose every parameter is made storable first: text as UTF-8 (lone
    surrogates escaped), integers checked against 64 bits (:class:`Unstorable`). Whatever a
    tower put in a value, writing it never raises an encoding or overflow error."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return super().execute(sql, tuple(_storable(v) for v in parameters))

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> sqlite3.Cursor:
        return super().executemany(sql, (tuple(_storable(v) for v in row) for row in parameters))


def canonical(entry: Entry) -> bytes:
    """The bytes an entry's hash is computed over: its canonical JSON without ``hash`` (as
    :func:`hardware.files.rolllog.entry_hash` makes them; a test holds the two together)."""
    return json.dumps({k: v for k, v in entry.items() if k != "hash"}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True).encode("ascii")


def pack(canon: bytes) -> bytes:
    """An entry as stored: zlib of its canonical JSON (the hash is a column of its own)."""
    return zlib.compress(canon, 1)


def unpack(body: bytes, digest: str) -> Entry:
    entry: Entry = json.loads(zlib.decompress(body))  # stored by pack(): an entry's JSON object
    entry["hash"] = digest
    return entry


def session_column(entry: Entry) -> str | None:
    """The ``session`` column: the id as the replay reads it (``str`` of the field for a
    session entry, None for an entry outside any session)."""
    sid = entry.get("session")
    if entry.get("kind") == "session":
        return str(sid)
    return None if sid is None else str(sid)


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    uri = f"file:{path}?mode=ro" if readonly else f"file:{path}"
    conn = sqlite3.connect(uri, uri=True, timeout=30, check_same_thread=False, isolation_level=None,
                           factory=_Connection)
    conn.execute("PRAGMA busy_timeout = 30000")
    if readonly:
        conn.execute("PRAGMA query_only = 1")
    return conn


def database_path(directory: str | os.PathLike[str]) -> Path:
    return Path(directory) / DB_NAME


@dataclass(frozen=True)
class TowerRow:
    id: int
    store: str
    tower: str
    first_seen: float
    last_heard: float
    status: dict[str, Any] | None
    head_seq: int
    head_hash: str
    rolls: int
    sessions: int
    duplicates: int
    findings_dropped: int
    verdict: dict[str, Any] | None
    marked: int | None = None  # rolls marked verified (None: a record from before it was kept)


class Record:
    """The writer: every change to the database goes through one instance, in one thread.
    Changes are grouped into transactions by :meth:`batch`."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory).absolute()
        self._lock_fd = _take_lock(self.directory)
        self.path = database_path(self.directory)
        try:
            self.conn = _connect(self.path, readonly=False)
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.executescript(SCHEMA)
            self._check_version()
            self._migrate()
        except (sqlite3.DatabaseError, MemoryError) as exc:
            os.close(self._lock_fd)
            raise unusable(self.path, exc) from None
        self._in_batch = False

    def _check_version(self) -> None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            self.conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif row[0] != str(SCHEMA_VERSION):
            raise sqlite3.DatabaseError(f"it was written by another version of the board (schema {row[0]})")

    def _migrate(self) -> None:
        """Columns added since schema 1 (an older board ignores them)."""
        for table, column, kind in _ADDED:
            names = {r[1] for r in self.conn.execute(f"PRAGMA table_info({table})")}
            if column not in names:
                self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        for sql in _ADDED_INDEXES:
            self.conn.execute(sql)

    def check(self) -> None:
        """Read every page of the record once (SQLite's quick check): a damaged record is
        found at start-up, one line, not halfway through the night."""
        try:
            rows = self.conn.execute("PRAGMA quick_check(1)").fetchall()
        except (sqlite3.DatabaseError, MemoryError) as exc:
            raise unusable(self.path, exc) from None
        if rows != [("ok",)]:
            raise unusable(self.path, sqlite3.DatabaseError(f"database disk image is malformed ({rows[0][0]})"))

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.conn.close()
        os.close(self._lock_fd)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction around a group of changes (nested: the outer one commits). Any
        failure rolls the whole of it back (SQLite may have rolled it back itself already,
        after a full disk or an I/O error)."""
        if self._in_batch:
            yield
            return
        self._in_batch = True
        self.conn.execute("BEGIN")
        try:
            yield
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
            raise
        finally:
            self._in_batch = False

    # --- towers ------------------------------------------------------------------------------------

    def towers(self) -> list[TowerRow]:
        rows = self.conn.execute(
            "SELECT id, store, tower, first_seen, last_heard, status, head_seq, head_hash, rolls, sessions, "
            "duplicates, findings_dropped, verdict, marked FROM towers ORDER BY id").fetchall()
        return [TowerRow(id=r[0], store=r[1], tower=r[2], first_seen=r[3], last_heard=r[4], status=_json(r[5]),
                         head_seq=r[6], head_hash=r[7] or GENESIS, rolls=r[8], sessions=r[9], duplicates=r[10],
                         findings_dropped=r[11], verdict=_json(r[12]), marked=r[13]) for r in rows]

    def add_tower(self, store: str, tower: str, now: float) -> int:
        cur = self.conn.execute("INSERT INTO towers(store, tower, first_seen, last_heard, head_hash) "
                                "VALUES (?, ?, ?, ?, ?)", (store, tower, now, now, GENESIS))
        return int(cur.lastrowid or 0)

    def save_tower(self, tower_id: int, **fields: Any) -> None:
        """Update some columns of a tower's row (dicts are stored as JSON)."""
        names = list(fields)
        values = [json.dumps(v, separators=(",", ":")) if isinstance(v, dict) else v for v in fields.values()]
        self.conn.execute(f"UPDATE towers SET {', '.join(n + ' = ?' for n in names)} WHERE id = ?",
                          (*values, tower_id))

    def drop_tower(self, tower_id: int) -> None:
        for table in ("entries", "findings", "evidence", "stats", "stat_rolls", "feed_towers"):
            self.conn.execute(f"DELETE FROM {table} WHERE tower_id = ?", (tower_id,))
        self.conn.execute("DELETE FROM towers WHERE id = ?", (tower_id,))

    # --- entries ------------------------------------------------------------------------------------

    def add_entry(self, tower_id: int, entry: Entry, canon: bytes, *, path: bool, conflict: bool, now: float,
                  mark: int = 0, edited: bool = False) -> None:
        """Keep an entry (``canon``: its :func:`canonical` bytes, already hashed by the caller;
        ``edited``: they do not match its hash)."""
        self.conn.execute(
            "INSERT OR IGNORE INTO entries(tower_id, seq, hash, prev, kind, session, path, conflict, mark, received, "
            "body, edited) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (tower_id, entry["seq"], entry["hash"], entry["prev"], entry["kind"], session_column(entry), int(path),
             int(conflict), mark, now, pack(canon), int(edited)))

    def unedit(self, tower_id: int, entry: Entry, canon: bytes) -> bool:
        """Put ``entry`` (its content matching its hash) in the place of an edited entry kept
        with the same seq and hash; False if none was kept (a plain duplicate)."""
        cur = self.conn.execute(
            "UPDATE entries SET body = ?, kind = ?, session = ?, prev = ?, edited = 0, mark = 0 "
            "WHERE tower_id = ? AND seq = ? AND hash = ? AND edited = 1",
            (pack(canon), entry["kind"], session_column(entry), entry["prev"], tower_id, entry["seq"], entry["hash"]))
        return cur.rowcount > 0

    def first_edited(self, tower_id: int, first: int, last: int) -> int | None:
        """The first edited entry of the path between two seqs (None: none)."""
        (seq,) = self.conn.execute("SELECT min(seq) FROM entries WHERE tower_id = ? AND seq BETWEEN ? AND ? "
                                   "AND path = 1 AND edited = 1", (tower_id, first, last)).fetchone()
        return None if seq is None else int(seq)

    def hashes_at(self, tower_id: int, seq: int) -> list[tuple[str, str, bool]]:
        """(hash, prev, on the path) of every entry kept at ``seq``."""
        rows = self.conn.execute("SELECT hash, prev, path FROM entries WHERE tower_id = ? AND seq = ?",
                                 (tower_id, seq)).fetchall()
        return [(h, p, bool(on)) for h, p, on in rows]

    def mark_conflict(self, tower_id: int, seq: int) -> None:
        self.conn.execute("UPDATE entries SET conflict = 1 WHERE tower_id = ? AND seq = ?", (tower_id, seq))

    def set_path(self, tower_id: int, seq: int, digest: str) -> None:
        """Put the entry ``digest`` at ``seq`` on the path (and the others at that seq off it)."""
        self.conn.execute("UPDATE entries SET path = (hash = ?) WHERE tower_id = ? AND seq = ?",
                          (digest, tower_id, seq))

    def mark_rolls(self, tower_id: int, first: int, last: int, session: str, verified: set[int]) -> list[Entry]:
        """Set the check mark of the path's rolls of a revealed ``session`` between two seqs:
        verified for the seqs in ``verified`` (``uncoded`` when the session has no table seed),
        else by their label (entered, test), else failed. Returns the entries marked verified,
        in seq order."""
        coded = self.conn.execute(
            "SELECT 1 FROM entries WHERE tower_id = ? AND seq BETWEEN ? AND ? AND path = 1 AND kind = 'table_seed' "
            "AND session = ? LIMIT 1", (tower_id, first, last, session)).fetchone() is not None
        good = MARK_VERIFIED if coded else MARK_UNCODED
        rows = self.conn.execute(
            "SELECT seq, hash, body FROM entries WHERE tower_id = ? AND seq BETWEEN ? AND ? AND path = 1 "
            "AND kind = 'roll' AND session = ? ORDER BY seq", (tower_id, first, last, session)).fetchall()
        out = []
        for seq, digest, body in rows:
            entry = unpack(body, digest)
            label = entry.get("roll_kind", "rolled")
            mark = good if seq in verified else MARK_BY_LABEL.get(label, MARK_FAILED) \
                if isinstance(label, str) else MARK_FAILED
            self.conn.execute("UPDATE entries SET mark = ? WHERE tower_id = ? AND seq = ? AND hash = ?",
                              (mark, tower_id, seq, digest))
            if mark in VERIFIED_MARKS:
                out.append(entry)
        return out

    def reset_marks(self, tower_id: int) -> None:
        """Every roll of a session unchecked again (a typed-in roll outside any session keeps its mark)."""
        self.conn.execute("UPDATE entries SET mark = 0 WHERE tower_id = ? AND kind = 'roll' AND mark != 0 "
                          "AND session IS NOT NULL", (tower_id,))

    def conflicts_between(self, tower_id: int, first: int, last: int) -> bool:
        row = self.conn.execute("SELECT 1 FROM entries WHERE tower_id = ? AND seq BETWEEN ? AND ? AND conflict = 1 "
                                "LIMIT 1", (tower_id, first, last)).fetchone()  # the partial index
        return row is not None

    # --- findings and evidence ----------------------------------------------------------------------

    def add_finding(self, tower_id: int, seq: int | None, source: str, message: str, now: float, *,
                    pending: bool = False, digest: str | None = None) -> bool:
        """Keep a finding; False when the tower has :data:`FINDING_ROWS` of the board's own already.
        ``digest``: the SHA-256 of the message it is about (:meth:`knows_message`)."""
        if source != "verifier":
            (count,) = self.conn.execute("SELECT count(*) FROM findings WHERE tower_id = ? AND source != 'verifier'",
                                         (tower_id,)).fetchone()
            if count >= FINDING_ROWS:
                self.conn.execute("UPDATE towers SET findings_dropped = findings_dropped + 1 WHERE id = ?",
                                  (tower_id,))
                return False
        self.conn.execute("INSERT INTO findings(tower_id, seq, source, message, pending, at, digest) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?)", (tower_id, seq, source, message, int(pending), now, digest))
        return True

    def knows_message(self, tower_id: int, digest: str) -> bool:
        """Whether a finding about the message of this SHA-256 is kept already (a retained
        message the broker delivers again at every start of the board is one finding)."""
        row = self.conn.execute("SELECT 1 FROM findings WHERE tower_id = ? AND digest = ?",
                                (tower_id, digest)).fetchone()
        return row is not None

    def claims_ahead(self, tower_id: int, marker: str) -> int:
        """The lowest seq of the tower's findings about a message whose seq was too far ahead
        (0: none)."""
        (low,) = self.conn.execute("SELECT min(seq) FROM findings WHERE tower_id = ? AND source = 'message' "
                                   "AND instr(message, ?) > 0", (tower_id, marker)).fetchone()
        return int(low or 0)

    def drop_claims_ahead(self, tower_id: int, marker: str, upto: int) -> None:
        """Take back the findings of seqs too far ahead up to ``upto``: the board holds enough of
        the tower's chain now for them to be plausible."""
        self.conn.execute("DELETE FROM findings WHERE tower_id = ? AND source = 'message' AND seq <= ? "
                          "AND instr(message, ?) > 0", (tower_id, upto, marker))

    def drop_findings(self, tower_id: int, source: str, *, pending_only: bool = False,
                      seq: int | None = None, starting: str | None = None) -> None:
        sql = "DELETE FROM findings WHERE tower_id = ? AND source = ?"
        args: list[Any] = [tower_id, source]
        if pending_only:
            sql += " AND pending = 1"
        if seq is not None:
            sql += " AND seq = ?"
            args.append(seq)
        if starting is not None:
            sql += " AND substr(message, 1, ?) = ?"
            args += [len(starting), starting]
        self.conn.execute(sql, args)

    def findings(self, tower_id: int, limit: int = 1) -> list[tuple[int | None, str, str]]:
        """The first ``limit`` findings (seq, source, message), lowest seq first (a message
        with no entry first of all), then in the order they were found."""
        return self.conn.execute("SELECT seq, source, message FROM findings WHERE tower_id = ? "
                                 "ORDER BY coalesce(seq, 0), id LIMIT ?", (tower_id, limit)).fetchall()

    def count_findings(self, tower_id: int) -> int:
        (n,) = self.conn.execute("SELECT count(*) FROM findings WHERE tower_id = ?", (tower_id,)).fetchone()
        return int(n)

    def findings_between(self, tower_id: int, first: int, last: int, *, source: str) -> bool:
        """Whether a finding of ``source`` is about an entry between two seqs (``board``: an
        entry of the chain; a rejected message that named a seq there is ``message``)."""
        row = self.conn.execute("SELECT 1 FROM findings WHERE tower_id = ? AND seq BETWEEN ? AND ? AND source = ? "
                                "LIMIT 1", (tower_id, first, last, source)).fetchone()
        return row is not None

    def add_evidence(self, tower_id: int, seq: int | None, reason: str, body: bytes, now: float) -> None:
        (count,) = self.conn.execute("SELECT count(*) FROM evidence WHERE tower_id = ?", (tower_id,)).fetchone()
        if count < EVIDENCE_ROWS:
            self.conn.execute("INSERT INTO evidence(tower_id, seq, at, reason, body) VALUES (?, ?, ?, ?, ?)",
                              (tower_id, seq, now, reason, body[:EVIDENCE_BYTES]))

    # --- statistics ---------------------------------------------------------------------------------

    def add_stats(self, tower_id: int, tallies: dict[str, Any]) -> None:
        """Add per-system tallies (``{system: {"rolls", "unpriced", "outcomes": {name: [observed,
        expected, variance]}}}``) to the tower's statistics."""
        for system, t in tallies.items():
            self.conn.execute(
                "INSERT INTO stat_rolls VALUES (?, ?, ?, ?) ON CONFLICT(tower_id, system) DO UPDATE SET "
                "rolls = rolls + excluded.rolls, unpriced = unpriced + excluded.unpriced",
                (tower_id, system, t["rolls"], t["unpriced"]))
            for name, (obs, exp, var) in t["outcomes"].items():
                self.conn.execute(
                    "INSERT INTO stats VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(tower_id, system, outcome) DO UPDATE "
                    "SET observed = observed + excluded.observed, expected = expected + excluded.expected, "
                    "variance = variance + excluded.variance", (tower_id, system, name, obs, exp, var))

    def reset_stats(self, tower_id: int) -> None:
        self.conn.execute("DELETE FROM stats WHERE tower_id = ?", (tower_id,))
        self.conn.execute("DELETE FROM stat_rolls WHERE tower_id = ?", (tower_id,))

    def stats(self, tower_id: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for system, rolls, unpriced in self.conn.execute(
                "SELECT system, rolls, unpriced FROM stat_rolls WHERE tower_id = ?", (tower_id,)):
            out[system] = {"rolls": rolls, "unpriced": unpriced, "outcomes": {}}
        for system, name, obs, exp, var in self.conn.execute(
                "SELECT system, outcome, observed, expected, variance FROM stats WHERE tower_id = ?", (tower_id,)):
            out.setdefault(system, {"rolls": 0, "unpriced": 0, "outcomes": {}})["outcomes"][name] = [obs, exp, var]
        return out

    # --- what the webhooks are told (hardware.board.feeds) ------------------------------------------------

    def hook(self, ident: str, name: str) -> tuple[int, int, int, int, float | None]:
        """(id, sent, dropped, failed, last_ok) of the hook ``ident`` (made if new)."""
        self.conn.execute("INSERT INTO hooks(ident, name) VALUES (?, ?) ON CONFLICT(ident) DO UPDATE SET "
                          "name = excluded.name", (ident, name))
        row = self.conn.execute("SELECT id, sent, dropped, failed, last_ok FROM hooks WHERE ident = ?",
                                (ident,)).fetchone()
        return row[0], row[1], row[2], row[3], row[4]

    def forget_hooks(self, keep: Iterable[int]) -> int:
        """Forget every hook but ``keep`` and what waited for them; how many posts waited."""
        kept = list(keep)
        marks = ",".join("?" * len(kept)) or "NULL"
        cur = self.conn.execute(f"DELETE FROM outbox WHERE hook_id NOT IN ({marks})", kept)
        self.conn.execute(f"DELETE FROM hooks WHERE id NOT IN ({marks})", kept)
        return max(0, cur.rowcount)

    def outbox_add(self, hook_id: int, kind: str, key: str, at: float, body: bytes) -> int:
        cur = self.conn.execute("INSERT INTO outbox(hook_id, kind, key, at, body) VALUES (?, ?, ?, ?, ?)",
                                (hook_id, kind, key, at, zlib.compress(body, 1)))
        return int(cur.lastrowid or 0)

    def outbox_waiting(self, hook_id: int) -> list[tuple[int, str]]:
        """(id, kind) of every post waiting for a hook, oldest first."""
        return self.conn.execute("SELECT id, kind FROM outbox WHERE hook_id = ? ORDER BY id", (hook_id,)).fetchall()

    def outbox_done(self, hook_id: int, ids: Iterable[int], *, sent: int = 0, failed: int = 0, dropped: int = 0,
                    ok_at: float | None = None) -> None:
        """Posts delivered (``sent``), given up (``failed``) or dropped: out of the outbox, counted."""
        self.conn.executemany("DELETE FROM outbox WHERE id = ? AND hook_id = ?", [(i, hook_id) for i in ids])
        self.conn.execute("UPDATE hooks SET sent = sent + ?, failed = failed + ?, dropped = dropped + ?, "
                          "last_ok = coalesce(?, last_ok) WHERE id = ?", (sent, failed, dropped, ok_at, hook_id))

    def outbox_tried(self, ids: Iterable[int]) -> None:
        """Posts about to be handed to a receiver that keeps no idempotency key (Discord): if the
        board stops before their answer, they go again marked as a possible repeat."""
        self.conn.executemany("UPDATE outbox SET tried = 1 WHERE id = ?", [(i,) for i in ids])

    def feed_towers(self) -> dict[int, tuple[int, bool]]:
        """tower id -> (the last roll announced, whether its red alert went out)."""
        return {t: (a, bool(r)) for t, a, r in self.conn.execute("SELECT tower_id, announced, red FROM feed_towers")}

    def save_feed_tower(self, tower_id: int, announced: int, red: bool) -> None:
        self.conn.execute("INSERT INTO feed_towers VALUES (?, ?, ?) ON CONFLICT(tower_id) DO UPDATE SET "
                          "announced = excluded.announced, red = excluded.red", (tower_id, announced, int(red)))

    def count_marked(self, tower_id: int) -> int:
        """The tower's rolls on the path, not in conflict, marked verified."""
        (n,) = self.conn.execute("SELECT count(*) FROM entries WHERE tower_id = ? AND path = 1 AND conflict = 0 "
                                 "AND kind = 'roll' AND mark = ?", (tower_id, MARK_VERIFIED)).fetchone()
        return int(n)

    def roll_numbers(self, tower_id: int, rolls: Iterable[Entry]) -> dict[int, int]:
        """seq -> a roll's number in its session (1 for its first roll), as the tower's screen
        shows it: the rolls on the path since the session's entry. Rolls outside any session,
        or in one whose session entry the record does not hold, are left out."""
        wanted: dict[str, int] = {}
        for entry in rolls:
            sid = session_column(entry)
            if sid is not None and entry.get("kind") == "roll":
                wanted[sid] = max(wanted.get(sid, 0), entry["seq"])
        out: dict[int, int] = {}
        for sid, last in wanted.items():
            (first,) = self.conn.execute("SELECT min(seq) FROM entries WHERE tower_id = ? AND kind = 'session' "
                                         "AND session = ? AND path = 1", (tower_id, sid)).fetchone()
            if first is None or first > last:
                continue
            seqs = self.conn.execute(
                "SELECT seq FROM entries WHERE tower_id = ? AND seq BETWEEN ? AND ? AND path = 1 AND kind = 'roll' "
                "AND session = ? ORDER BY seq", (tower_id, first, last, sid)).fetchall()
            out.update((seq, n) for n, (seq,) in enumerate(seqs, start=1))
        return out

    def last_verified(self, tower_id: int) -> int:
        """The seq of the tower's last verified roll (0: none)."""
        (seq,) = self.conn.execute("SELECT coalesce(max(seq), 0) FROM entries WHERE tower_id = ? AND mark IN (?, ?)",
                                   (tower_id, *VERIFIED_MARKS)).fetchone()
        return int(seq)

    # --- reading the path ----------------------------------------------------------------------------

    def last_rolls(self, tower_id: int, n: int) -> list[tuple[Entry, int, int | None]]:
        """The last ``n`` rolls on the path that are not in conflict, newest first, with their
        marks and their numbers in their sessions (``roll #N``, as the OLED showed them; None
        for a typed-in roll, outside every session)."""
        rows = self.conn.execute(
            "SELECT body, hash, mark, session, seq FROM entries WHERE tower_id = ? AND path = 1 AND kind = 'roll' "
            "AND conflict = 0 ORDER BY seq DESC LIMIT ?", (tower_id, n)).fetchall()
        return [(unpack(body, digest), mark, self.roll_number(tower_id, session, seq))
                for body, digest, mark, session, seq in rows]

    def roll_number(self, tower_id: int, session: Any, seq: int) -> int | None:
        """A roll's number in its session on the path (``roll #N``; None outside every session)."""
        if not isinstance(session, str):
            return None
        (number,) = self.conn.execute(
            "SELECT count(*) FROM entries WHERE tower_id = ? AND kind = 'roll' AND session = ? AND path = 1 "
            "AND seq <= ?", (tower_id, session, seq)).fetchone()
        return int(number)

    def last_of_kind(self, tower_id: int, kind: str) -> Entry | None:
        row = self.conn.execute("SELECT body, hash FROM entries WHERE tower_id = ? AND path = 1 AND kind = ? "
                                "ORDER BY seq DESC LIMIT 1", (tower_id, kind)).fetchone()
        return unpack(*row) if row else None

    def count_path(self, tower_id: int, kind: str) -> int:
        (n,) = self.conn.execute("SELECT count(*) FROM entries WHERE tower_id = ? AND path = 1 AND kind = ?",
                                 (tower_id, kind)).fetchone()
        return int(n)

    def path_entry(self, tower_id: int, seq: int) -> tuple[str, str] | None:
        """(hash, prev) of the path's entry at ``seq``."""
        row = self.conn.execute("SELECT hash, prev FROM entries WHERE tower_id = ? AND seq = ? AND path = 1",
                                (tower_id, seq)).fetchone()
        return (row[0], row[1]) if row else None

    def path_head(self, tower_id: int) -> tuple[int, str]:
        """(seq, hash) of the path's last entry (0 and GENESIS when none)."""
        row = self.conn.execute("SELECT seq, hash FROM entries WHERE tower_id = ? AND path = 1 ORDER BY seq DESC "
                                "LIMIT 1", (tower_id,)).fetchone()
        return (row[0], row[1]) if row else (0, GENESIS)


def unusable(path: Path, exc: BaseException) -> RecordError:
    """The one line for a record the board cannot start with, and what to do about it."""
    why = record_trouble(exc) or "it cannot be read"
    damaged = "damaged" in why or "another version" in str(exc)
    advice = ("keep it as evidence (move its directory aside) and start the board with an empty --data: it asks "
              "the towers for their logs again (docs/network.md, \"A damaged record\")") if damaged else \
        "free the disk or fix the permissions, then start the board again"
    return RecordError("--data", f"cannot use the board's record {path}: {why} ({str(exc)[:120]}); {advice}")


def _json(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _take_lock(directory: Path) -> int:
    """The board's lock in ``directory`` (made if missing): one board per record."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = open_file(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT)  # the one rule: a FIFO there never blocks
    except OSError as exc:
        raise RecordError("--data", f"cannot use {directory}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise BoardError("--data", f"another board is using {directory}; give each board its own --data") from None
        raise RecordError("--data", f"cannot lock {directory}: {exc.strerror or exc}") from None
    return fd


class Reader:
    """A read-only connection to the record (the web side, the verifier process)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.conn = _connect(Path(path), readonly=True)

    def close(self) -> None:
        self.conn.close()

    def verifier_state(self, tower_id: int) -> dict[str, Any] | None:
        """The verifier's state saved for a tower (None: none yet, or thrown away)."""
        row = self.conn.execute("SELECT verifier_state FROM towers WHERE id = ?", (tower_id,)).fetchone()
        return _json(row[0]) if row else None

    def path_entries(self, tower_id: int, first: int, last: int, *, chunk: int = 500) -> Iterator[Entry]:
        """The path's entries ``first..last`` in seq order, read ``chunk`` at a time."""
        seq = first
        while seq <= last:
            rows = self.conn.execute(
                "SELECT seq, body, hash FROM entries WHERE tower_id = ? AND path = 1 AND seq BETWEEN ? AND ? "
                "ORDER BY seq LIMIT ?", (tower_id, seq, last, chunk)).fetchall()
            if not rows:
                return
            for _, body, digest in rows:
                yield unpack(body, digest)
            seq = rows[-1][0] + 1

    def rolls(self, tower_id: int, after: int = 0, limit: int = 500) -> list[Entry]:
        """Up to ``limit`` roll entries on the path after seq ``after`` (conflicting ones left out)."""
        rows = self.conn.execute(
            "SELECT body, hash FROM entries WHERE tower_id = ? AND path = 1 AND kind = 'roll' AND conflict = 0 "
            "AND seq > ? ORDER BY seq LIMIT ?", (tower_id, after, limit)).fetchall()
        return [unpack(b, h) for b, h in rows]

    def session_rolls(self, tower_id: int, first: int, last: int, session: str) -> Iterable[Entry]:
        rows = self.conn.execute(
            "SELECT body, hash FROM entries WHERE tower_id = ? AND seq BETWEEN ? AND ? AND path = 1 AND kind = 'roll' "
            "AND session = ? ORDER BY seq", (tower_id, first, last, session)).fetchall()
        return [unpack(b, h) for b, h in rows]

    def outbox_posts(self, ids: Iterable[int]) -> dict[int, tuple[str, str, bytes, bool]]:
        """id -> (kind, key, body, tried) of posts in the outbox (a post no longer there is left
        out); ``tried``: handed to the receiver before and not known to have arrived."""
        wanted = list(ids)
        rows = self.conn.execute(f"SELECT id, kind, key, body, tried FROM outbox WHERE id IN "
                                 f"({','.join('?' * len(wanted))})", wanted).fetchall() if wanted else []
        return {i: (kind, key, zlib.decompress(body), bool(tried)) for i, kind, key, body, tried in rows}

    def evidence(self, tower_id: int) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT seq, at, reason, body FROM evidence WHERE tower_id = ? ORDER BY id",
                                 (tower_id,)).fetchall()
        return [{"seq": s, "at": at, "reason": r, "message": b.decode("utf-8", "replace")} for s, at, r, b in rows]

    def conflicting(self, tower_id: int) -> list[Entry]:
        rows = self.conn.execute("SELECT body, hash FROM entries WHERE tower_id = ? AND conflict = 1 "
                                 "ORDER BY seq, hash", (tower_id,)).fetchall()
        return [unpack(b, h) for b, h in rows]

    def findings(self, tower_id: int, limit: int = 100) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT seq, source, message, pending FROM findings WHERE tower_id = ? "
                                 "ORDER BY coalesce(seq, 0), id LIMIT ?", (tower_id, limit)).fetchall()
        return [{"seq": s, "source": src, "message": m, "pending": bool(p)} for s, src, m, p in rows]


class RecordEntries:
    """:class:`hardware.board.verdict.TowerEntries` over a :class:`Reader`: one tower's path."""

    def __init__(self, reader: Reader, tower_id: int) -> None:
        self.reader = reader
        self.tower_id = tower_id

    def between(self, first: int, last: int) -> Iterable[Entry]:
        return self.reader.path_entries(self.tower_id, first, last)
