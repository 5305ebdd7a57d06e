"""A state directory's one open session, kept on disk and shared by every writer there.

One session at a time per roll log: a checker flags a ``session`` entry while another session
is unrevealed, and a roll naming any session but the open one. So the tower, every ``roll
--state-dir`` command, ``session open|seed|show|close`` all roll in *the* open session of the
state directory, whoever opened it, and open a new one only when none is open:

- Each session is written to ``DIR/open-sessions/ID.json`` (:mod:`~hardware.entropy.
  session_file`: the seed, who opened it, a cache of where it stands) *before* its
  ``session`` entry goes into the log, and removed once its ``reveal`` entry is in the log.
  A power cut or ``kill -9`` can therefore never leave a session in the log whose seed is lost.
- A writer (under the state directory's lock) first reveals the sessions whose opener is gone
  (:meth:`OpenSessions.joinable`): a tower's session left by an earlier run of the tower, a
  ``roll`` command's own session whose process died. It appends the ``reveal`` those
  sessions' logged rolls need (``"reason": "restart"``). A session opened with ``dicetower
  session open`` stays open until ``session close``, whoever rolls in it.
- Then it joins the session still open, if any, and only if none is open opens its own. A
  kept file is a cache: only its seed (which must hash to the commitment its ``session``
  entry holds) and who opened it are taken from it; its DRBG, roll count, table seed and
  every other fact are re-derived from the seed and the session's logged entries
  (:class:`~hardware.session.progress.Progress`, :meth:`OpenSessions._check`), and a cache
  the log contradicts is rewritten from the log. A file that cannot be trusted at all (its
  seed unusable, its bytes damaged, gone) ends its session as damaged: a ``reveal`` with
  reason ``damaged`` when its seed is still good, else a ``session_damaged`` entry.
- Before each roll it reads the log entries appended since it last looked (:meth:`news`: the
  log's tail, read backwards; nothing when nothing was appended), so a roll another writer
  made in between, a table seed set by ``dicetower session seed`` and a reveal by ``session
  close`` are all taken into account.
- Every file here is read and written by the one rule of :mod:`hardware.files.safefile` (the folder
  and its files never followed through a link, no FIFO waited on, sizes and depths capped),
  the log too. A kept file that cannot be opened as one (a link, a FIFO) is left for a
  person; if it is the only file of the session the log holds open, writers stop rather than
  open one beside it.
  ``session show`` reads all this without the lock and writes nothing (:meth:`showable`).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from engine.seeds import BLOCK_BYTES, SeedMaterial
from hardware.files.rolllog import MAX_LINE_BYTES, LogError, chain_files, entry_hash, open_regular, read_error
from hardware.files.safefile import list_dir
from hardware.session import file as session_file
from hardware.session.file import DamagedFile, Owner, SessionFileError, SessionWriteError, StoredSession
from hardware.session.progress import Progress, SessionSyncError

__all__ = ["ENDINGS", "OPEN_SESSIONS_DIR", "Damaged", "Joined", "News", "OpenSessions", "SessionKeeper",
           "damaged_since", "log_head"]

OPEN_SESSIONS_DIR = "open-sessions"
_CHUNK = 1 << 16
_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


#: The log entries that end a session: its reveal, or (its seed lost with its file) ``session_damaged``.
ENDINGS = ("reveal", "session_damaged")


@dataclass(frozen=True)
class Damaged:
    """A session the log held open whose kept file could not be trusted, ended as damaged:
    revealed (reason ``damaged``) when its seed was still good, else a ``session_damaged``
    entry (no seed is known to reveal)."""

    session: str
    why: str
    rolls: int
    revealed: bool


@dataclass(frozen=True)
class _Kept:
    """One kept file held against the log (:meth:`OpenSessions._check`). ``state``: ``open``
    (the log holds it open, its seed is the one committed to), ``ended`` (the log revealed it,
    or ended it as damaged: ``ending`` is that entry's kind), ``unlogged`` (its session never
    made the log: a stop between the file and the entry) or ``damaged`` (the log holds it open
    and the file cannot be trusted: ``why``; ``stored`` is set when its seed is still good)."""

    path: Path
    sid: str
    state: str
    stored: StoredSession | None = None  # as the log gives it
    progress: Progress | None = None
    why: str = ""
    mended: tuple[str, ...] = ()  # the cached facts the log contradicted
    commitment: str = ""
    rolls: int = 0  # the session's logged rolls
    end: int = 0  # the generate calls they used (the table seed's included)
    ending: str = ""
    legacy: bool = False  # the legacy session.json


def _counted(entries: Iterable[dict[str, Any]]) -> tuple[int, int]:
    """A session's logged roll count and where its last roll ended (generate calls; 1 after
    a table seed alone), read from its entries without its seed."""
    rolls = end = 0
    for entry in entries:
        kind = entry.get("kind")
        if kind == "table_seed" and end == 0:
            end = 1
        elif kind == "roll":
            rolls += 1
            last = entry.get("end")
            if isinstance(last, int) and not isinstance(last, bool):
                end = last
    return rolls, end


_Snapshot = tuple[tuple[bytes, bytes, int], int, str | None]


def _snapshot(progress: Progress) -> _Snapshot:
    return progress.stream.drbg.export_state(), progress.rolls, progress.table_seed


def _rebuilt(material: SeedMaterial, opened: dict[str, Any], entries: Iterable[dict[str, Any]],
             file_seq: Any) -> tuple[Progress, _Snapshot | None]:
    """The session replayed from its seed through its logged entries (its ``session`` entry
    first): its progress now, and as it stood at the file's own ``log_seq`` (None when the
    file names no entry), for telling a cache that is merely behind from one that is wrong."""
    block = opened.get("block_bytes", BLOCK_BYTES)
    try:
        if isinstance(block, bool) or not isinstance(block, int):
            raise ValueError(block)
        progress = Progress.fresh(material, block, None)
    except ValueError:
        raise SessionSyncError(f"entry {opened.get('seq')}: session {opened.get('session')}'s block size {block!r} "
                               "cannot be followed; reveal it (dicetower session close) and check the log") from None
    at = file_seq if isinstance(file_seq, int) and not isinstance(file_seq, bool) else None
    as_of: _Snapshot | None = None
    for entry in entries:
        if at is not None and as_of is None and entry["seq"] > at:
            as_of = _snapshot(progress)
        progress.apply(entry)
    if at is not None and as_of is None:
        as_of = _snapshot(progress)
    return progress, as_of


def _time_ns(text: Any) -> int | None:
    if not isinstance(text, str):
        return None
    try:
        return int(datetime.fromisoformat(text).timestamp() * 1000) * 1_000_000
    except (ValueError, OverflowError):
        return None


def _from_log(material: SeedMaterial, opened: dict[str, Any], progress: Progress, owner: Owner,
              data: dict[str, Any]) -> StoredSession:
    """The session as its ``session`` entry and its replayed progress give it: the file gives
    only its seed and its owner (and when it was opened, if the entry's time cannot be read)."""
    listed = opened.get("sources")
    names = tuple(str(s.get("name")) for s in listed if isinstance(s, dict)) if isinstance(listed, list) else ()
    if not names and material.is_test:
        names = ("seed",)
    credited = opened.get("credited_bits")
    opened_ns = _time_ns(opened.get("time"))
    if opened_ns is None:
        cached = data.get("opened_ns")
        opened_ns = cached if isinstance(cached, int) and not isinstance(cached, bool) else 0
    key, v, counter = progress.stream.drbg.export_state()
    return StoredSession(material, key, v, counter, progress.rolls, opened_ns, progress.stream.block_bytes,
                         str(opened.get("mode", "seed" if material.is_test else "auto")), names,
                         credited if isinstance(credited, int) and not isinstance(credited, bool) else None,
                         progress.table_seed, progress.log_seq, progress.logged, owner)


def _mended(data: dict[str, Any], stored: StoredSession, as_of: _Snapshot | None, head: int) -> tuple[str, ...]:
    """The cached facts of a file that the log contradicts. The cache of where the session
    stands is compared as of the file's own ``log_seq`` (a file merely behind the log, left by
    a writer stopped between its append and its save, is not wrong)."""
    wrong = [name for name, want in (("commitment", stored.commitment), ("block_bytes", stored.block_bytes),
                                      ("mode", stored.mode), ("sources", list(stored.sources)),
                                      ("credited_bits", stored.credited_bits)) if data.get(name) != want]
    seq = data.get("log_seq")
    if as_of is None or not isinstance(seq, int) or seq > head:
        wrong.append("log_seq")
    if as_of is not None:
        (key, v, counter), rolls, table_seed = as_of
        drbg = data.get("drbg")
        if not isinstance(drbg, dict) or (drbg.get("key"), drbg.get("v"), drbg.get("counter")) != (key.hex(), v.hex(),
                                                                                                    counter):
            wrong.append("DRBG state")
        if data.get("rolls") != rolls or isinstance(data.get("rolls"), bool):
            wrong.append("roll count")
        if data.get("table_seed") != table_seed:
            wrong.append("table seed")
    return tuple(wrong)


@dataclass(frozen=True)
class News:
    """One session's log entries after a given entry (in log order), and the log's last seq."""

    entries: tuple[dict[str, Any], ...]
    head: int


@dataclass(frozen=True)
class Joined:
    """The state directory's open session, up to date with the log, and its kept file."""

    stored: StoredSession
    progress: Progress


class SessionKeeper(Protocol):
    """Where :class:`~hardware.session.dice.SessionDice` keeps its sessions and learns what
    other writers did to them (a state directory; :class:`OpenSessions`). The caller holds the
    state directory's lock around every call."""

    owner: Owner
    #: the state directory it keeps them in (named in messages; a ``file:`` capture's offsets
    #: are kept there too)
    state_dir: Path

    def mine(self, stored: StoredSession) -> bool:
        """Whether this keeper's owner opened ``stored``."""
        ...

    def opened(self, stored: StoredSession, *, kind: str | None = None) -> StoredSession:
        """Keep a session about to be logged (as opened by ``kind``, default the keeper's
        owner) and return it as kept; ``SessionFileError`` if it cannot be kept."""
        ...

    def saved(self, stored: StoredSession) -> None:
        """Refresh a kept session's cache (best effort)."""
        ...

    def closed(self, session_id: str) -> None:
        """Forget a session whose reveal is in the log."""
        ...

    def head(self) -> int:
        """The seq of the log's last entry (0 for an empty log)."""
        ...

    def news(self, session_id: str, after: int | None) -> News:
        """The session's entries after entry ``after`` (None: from its session entry on)."""
        ...

    def joinable(self, log: _Appends, *, skip: frozenset[str] = frozenset()) -> Joined | None:
        """Reveal the sessions whose opener is gone, then the session still open, if any
        (never one of ``skip``: sessions the caller closed whose reveal waits for the log)."""
        ...


class _Appends(Protocol):
    def append(self, kind: str, **fields: Any) -> dict[str, Any]: ...


def _boot_id() -> str:
    try:
        return _BOOT_ID.read_text(encoding="ascii").strip()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    except OSError:
        return False
    return True


class OpenSessions:
    """``DIR/open-sessions`` and the roll log beside it, as :class:`SessionKeeper`.

    ``owner`` is who opens sessions through this keeper: ``tower`` (a run of the tower: it
    reveals every other tower session it finds, left by an earlier run), ``open`` (``dicetower
    session open``: the session outlives the command) or ``command`` (a ``roll`` command's own
    session). ``log`` hears problems with the files, which never stop a roll that can be
    logged and replayed."""

    def __init__(self, state_dir: str | os.PathLike[str], *, owner: str = "tower",
                 log: Callable[[str], None] | None = None) -> None:
        self.state_dir = Path(state_dir)
        self.directory = self.state_dir / OPEN_SESSIONS_DIR  # never followed through a link (hardware.files.safefile)
        self.log_path = self.state_dir / "rolls.jsonl"
        self.owner = Owner(owner, os.getpid(), _boot_id(), secrets.token_hex(8))
        self._say = log or (lambda message: None)
        self._said: set[str] = set()  # problems said once (a broken directory is not news every 5 s)
        self._listing_problem: str | None = None  # why open-sessions/ could not be listed, last time
        #: the sessions this keeper ended as damaged (their files could not be trusted), oldest first
        self.damaged: list[Damaged] = []

    def _log(self, message: str) -> None:
        if message not in self._said:
            self._said.add(message)
            self._say(message)

    def __repr__(self) -> str:
        return f"OpenSessions({str(self.directory)!r}, owner={self.owner.kind!r})"

    def _file(self, session_id: str) -> Path:
        if not session_id.isalnum():
            raise ValueError(f"a session id is letters and digits, got {session_id!r}")
        return self.directory / f"{session_id}.json"

    # --- keeping the files ---------------------------------------------------------------------------

    def opened(self, stored: StoredSession, *, kind: str | None = None) -> StoredSession:
        """Keep ``stored`` as opened by this keeper's owner (or, with ``kind``, by that kind of
        owner: a session that takes over from a ``session open`` one stays open like it);
        returns it as kept. A session whose seed cannot be kept is not opened: if this process
        stopped, its logged rolls could never be revealed. A full or read-only card is
        :class:`~hardware.session.file.SessionWriteError` (a ``LogError``: cannot
        record, exit 4); an ``open-sessions`` that is not a directory of ours (a link, a file)
        is :class:`~hardware.session.file.SessionFileError` (exit 2: a person moves it)."""
        owner = self.owner if kind is None else replace(self.owner, kind=kind)
        kept = replace(stored, owner=owner)
        try:
            session_file.save_file(self._file(stored.id), kept, below=self.state_dir)
        except SessionWriteError as exc:
            raise SessionWriteError(f"cannot keep the new session's seed in {self.directory}: {exc.reason}",
                                    exc.reason) from None
        return kept

    def saved(self, stored: StoredSession) -> None:
        """Refresh the cache of a kept session (never recreating one that was forgotten). Best
        effort: the log is the truth, and the next writer catches up from it."""
        path = self._file(stored.id)
        try:
            if os.path.lexists(path):
                session_file.save_file(path, stored, below=self.state_dir)
        except SessionFileError as exc:
            self._log(f"session {stored.id}: {exc}")

    def closed(self, session_id: str) -> None:
        try:
            session_file.remove_file(self._file(session_id), below=self.state_dir)
        except SessionFileError as exc:
            self._log(f"session {session_id}: revealed, but {exc}")

    def mine(self, stored: StoredSession) -> bool:
        """Whether this keeper's owner opened ``stored``."""
        return stored.owner.token == self.owner.token

    def left_open(self, *, say: bool = True) -> list[Path]:
        """The kept files in ``open-sessions/`` (listed through a descriptor: the folder is
        never followed through a link). Only lists: nothing is moved or written. A folder that
        cannot be listed lists nothing, and is said (unless not ``say`` and it is the folder
        itself, which the caller refuses: :meth:`_refuse_lost`)."""
        self._listing_problem = None
        try:
            names = list_dir(self.directory, below=self.state_dir)
        except FileNotFoundError:
            return []
        except OSError as exc:
            problem = f"cannot look for sessions left open in {self.directory}: {exc.strerror or exc}"
            if exc.filename == str(self.directory):  # the folder itself, not the state directory
                self._listing_problem = problem
            if say or self._listing_problem is None:
                self._log(problem)
            return []
        return sorted(self.directory / name for name in names if name.endswith(".json") and not name.startswith("."))

    @property
    def legacy_file(self) -> Path:
        """Where earlier versions kept the ``session open`` session."""
        return self.state_dir / session_file.SESSION_FILE

    def _legacy(self) -> StoredSession | None:
        """The session in an earlier version's ``DIR/session.json`` (a ``session open`` one),
        read by the one rule (a link, a FIFO, a huge or deep file there is refused, never
        followed or waited on); None when there is none. Raises ``SessionFileError``."""
        stored = session_file.load_file(self.legacy_file)
        return replace(stored, owner=Owner("open")) if stored is not None else None

    def _migrate(self, stored: StoredSession) -> None:
        """Move the legacy session in with the rest (under the lock, like every keeper write);
        trouble is said and the file stays where it is, read again next time."""
        try:
            session_file.save_file(self._file(stored.id), stored, below=self.state_dir)
            session_file.remove_file(self.legacy_file)
        except SessionFileError as exc:
            self._log(f"cannot move {self.legacy_file} into {self.directory}: {exc}")

    # --- reading the log -----------------------------------------------------------------------------

    def head(self) -> int:
        return log_head(self.log_path)

    def news(self, session_id: str, after: int | None, *, whole: bool = False) -> News:
        """The session's entries after entry ``after`` (None: from its ``session`` entry on).
        With ``whole`` (``after`` None), the log must be read back whole to that entry (or to
        its first entry, when the session is not in it): entries missing on the way (a seq
        skipped, a rotated file that holds no entry) are ``LogError``, since the log then
        cannot say where the session stands, and nothing is guessed in its place."""
        found: list[dict[str, Any]] = []
        head = 0
        expect: int | None = None  # the seq the next entry read back must have
        started = False
        for entry in _backwards(self.log_path):
            seq = entry["seq"]
            head = max(head, seq)
            if after is not None and seq <= after:
                break
            if whole and expect is not None and seq != expect:
                raise self._gap(session_id, seq, expect)
            expect = seq - 1
            if entry.get("session") == session_id:
                found.append(entry)
                if after is None and entry.get("kind") == "session":
                    started = True
                    break  # the session's first entry: nothing of it comes before
        if whole and not started and expect not in (None, 0):
            raise self._gap(session_id, 0, expect)
        found.reverse()
        return News(tuple(found), head)

    def _gap(self, session_id: str, seq: int, expect: int) -> LogError:
        where = f"entries {seq + 1}..{expect}" if seq + 1 < expect else f"entry {expect}"
        return LogError(f"cannot read the roll log {self.log_path} back to session #{session_id[:8]}'s start: {where} "
                        "cannot be read (a rotated file missing or damaged); the session's state is re-derived from "
                        "the log, never guessed: put the log's files back", "log cannot be read back")

    # --- the open session ----------------------------------------------------------------------------

    def _kept(self, skip: Iterable[str], unreadable: dict[Path, str] | None = None, *,
              migrate: bool = True) -> Iterator[_Kept]:
        """The kept files but ``skip``, the legacy ``session.json`` first (moved in when
        ``migrate``; read where it is otherwise), each checked against the log (:meth:`_check`).
        A file (or the folder) that cannot be read, and is not the file of a session the log
        holds open, is left for a person to look at: noted in ``unreadable`` (path -> why) for
        the caller to refuse or say (:meth:`_passed_over`), or said at once without it."""
        problems: dict[Path, str] = {} if unreadable is None else unreadable
        listed = self.left_open(say=False)
        if self._listing_problem is not None:
            problems[self.directory] = self._listing_problem
        paths: list[Path | None] = [None, *listed]  # None: the legacy file
        seen: set[str] = set()  # a legacy file moved in, but not yet removed, is there twice
        for path in paths:
            if path is not None and (path.stem in skip or path.stem in seen):
                continue
            try:
                kept = self._check(path)
            except SessionFileError as exc:
                problems[path or self.legacy_file] = str(exc)
                continue
            if kept is None or kept.sid in skip or kept.sid in seen:
                continue
            seen.add(kept.sid)
            if path is None and migrate and kept.stored is not None:
                self._migrate(kept.stored)
                kept = replace(kept, path=self._file(kept.sid), legacy=False)
            yield kept
        if unreadable is None:
            self._passed_over(problems)

    def _check(self, path: Path | None) -> _Kept | None:
        """One kept file (None: the legacy ``session.json``) held against the log; None when
        there is no such file. The log decides every fact the file caches: whether the session
        was logged and is still open, its DRBG (re-derived from the seed and the session's
        logged entries), its rolls, its table seed, its block size, mode, sources and credit,
        when it was opened. Only its seed (which must hash to the commitment the log holds)
        and who opened it come from the file. ``SessionFileError``: a file the log does not
        hold open that cannot be read (left for a person), or one that cannot be read at all
        (a link, a FIFO: a person must look, see :meth:`_refuse_lost`)."""
        damage = damage_why = ""
        data: dict[str, Any] | None
        if path is None:
            stored = self._legacy()  # strict: a damaged earlier version's file is left where it is
            if stored is None:
                return None
            where, sid, data = self.legacy_file, stored.id, stored.to_json()
            material: SeedMaterial | str = stored.material
            owner: Owner | str = stored.owner
        else:
            where, sid = path, path.stem
            try:
                data = session_file.read_raw(path, below=self.state_dir)
            except DamagedFile as exc:
                data, damage, damage_why = {}, str(exc), exc.why
            if data is None:
                return None
            material = damage or session_file.seed_of(data)
            owner = session_file.owner_of(data)
        news = self.news(sid, None, whole=True)
        entries = news.entries
        opened = entries[0] if entries and entries[0].get("kind") == "session" else None
        ending = next((e for e in entries if e.get("kind") in ENDINGS), None)
        if ending is not None and ending.get("kind") == "session_damaged":
            return _Kept(where, sid, "ended", ending="session_damaged", legacy=path is None)
        if ending is not None or opened is None:
            if isinstance(material, str):  # a file the log holds no open session of, that cannot be used
                raise SessionFileError(damage or f"the session file {where} is damaged ({material})")
            if ending is not None:
                return _Kept(where, sid, "ended", ending=str(ending.get("kind")), legacy=path is None)
            return _Kept(where, sid, "unlogged", legacy=path is None)  # a stop between the file and the entry
        rolls, end = _counted(entries)
        kept = _Kept(where, sid, "damaged", commitment=str(opened.get("commitment", "")), rolls=rolls, end=end,
                     legacy=path is None)
        if damage:
            return replace(kept, why=f"its kept file is damaged ({damage_why})")
        if isinstance(material, str):
            return replace(kept, why=material)
        if material.commitment != kept.commitment:
            return replace(kept, why="its seed is not the one its commitment in the log was made to")
        progress, as_of = _rebuilt(material, opened, entries, data.get("log_seq"))
        progress.log_seq = max(progress.log_seq or 0, news.head)
        stored = _from_log(material, opened, progress, owner if isinstance(owner, Owner) else Owner(), data)
        if isinstance(owner, str):  # the seed is good: it is revealed, as damaged
            return replace(kept, why=owner, stored=stored, progress=progress)
        mended = () if path is None or data.get("version") == 1 else _mended(data, stored, as_of, news.head)
        return replace(kept, state="open", stored=stored, progress=progress, mended=mended)

    def _passed_over(self, unreadable: dict[Path, str]) -> None:
        """Say each file (or the folder) that could not be read and is left for a person."""
        for path, why in unreadable.items():
            if path == self.directory:
                self._log(why)
            elif path == self.legacy_file:
                self._log(f"cannot move {path} into {self.directory}: {why}")
            else:
                self._log(f"a session left open cannot be revealed: {why}")

    def joinable(self, log: _Appends, *, skip: frozenset[str] = frozenset()) -> Joined | None:
        """Reveal every kept session whose opener is gone (see the module docstring) and end
        each the log holds open whose file cannot be trusted (:meth:`_end_damaged`); return
        the session still open, up to date with the log (its file rewritten from the log if
        its cache said otherwise), or None. When none is, but the log holds a session open
        whose file cannot be read at all (a link, a FIFO), that file is
        :class:`~hardware.session.file.SessionFileError`: a session opened now would
        stand beside it in the log, for ever, though a person could still put the file back.
        A session the log holds open that has no file at all is ended as damaged."""
        joined: Joined | None = None
        unreadable: dict[Path, str] = {}
        checked = list(self._kept(skip, unreadable))
        for kept in checked:
            if kept.state in ("ended", "unlogged"):
                self._forget(kept)
            elif kept.state == "damaged":
                self._end_damaged(log, kept)
            elif kept.stored is not None and kept.progress is not None:
                stored = kept.stored
                if not self.mine(stored) and self._gone(stored.owner):
                    self._reveal(log, kept)
                elif joined is None:
                    self._mend(kept)
                    joined = Joined(stored, kept.progress)
                else:
                    self._log(f"session {stored.id} is open beside session {joined.stored.id}: one is revealed")
                    self._reveal(log, kept)
        if joined is None and unreadable:
            self._refuse_lost(unreadable, skip)
        if joined is None:
            self._end_lost(log, checked, unreadable, skip)
        self._passed_over(unreadable)
        return joined

    def showable(self) -> Joined | None:
        """The open session as :meth:`joinable` would find it, read without writing anything:
        no lock is needed (kept files are replaced atomically, the log is only appended to),
        and nothing is moved, revealed or removed, so it works on a read-only card. The legacy
        ``session.json`` is read where it is. A session whose opener is gone (the next writer
        reveals it) is passed over, as is a kept file the log has revealed or never logged; one
        whose file cannot be trusted is said (the next writer ends it as damaged)."""
        unreadable: dict[Path, str] = {}
        shown: Joined | None = None
        checked = list(self._kept((), unreadable, migrate=False))
        for kept in checked:
            if kept.state == "damaged":
                raise SessionFileError(f"session #{kept.sid[:8]} cannot go on: {kept.why}; the next writer (a roll, "
                                       "session close, the tower) ends it as damaged")
            if kept.state == "open" and shown is None and kept.stored is not None and kept.progress is not None \
                    and (self.mine(kept.stored) or not self._gone(kept.stored.owner)):
                shown = Joined(kept.stored, kept.progress)
        if shown is None and unreadable:
            self._refuse_lost(unreadable, frozenset())
        if shown is None:
            open_id = self._open_in_log()
            if open_id is not None and not any(k.sid == open_id for k in checked):
                raise SessionFileError(f"session #{open_id[:8]} is open in the log, but its kept file is missing (its "
                                       "seed is lost): the next writer (a roll, session close, the tower) ends it as "
                                       "damaged")
        self._passed_over(unreadable)
        return shown

    def _refuse_lost(self, unreadable: dict[Path, str], skip: frozenset[str]) -> None:
        """Raise ``SessionFileError`` when ``open-sessions/`` cannot be looked into (no session
        can be found or kept there), or when the session the log holds open has only a file
        that cannot be read (its own, or the legacy ``session.json``)."""
        if self.directory in unreadable:
            raise SessionFileError(f"{unreadable[self.directory]}; every session's seed is kept there: move it away")
        open_id = self._open_in_log()
        if open_id is None or open_id in skip:
            return
        for path, why in unreadable.items():
            if path.stem == open_id or path == self.legacy_file:
                raise SessionFileError(f"{why}; the log holds session #{open_id[:8]} open and only this file can "
                                       "reveal it: put it back, or move it away to give up its seed")

    def _open_in_log(self) -> str | None:
        """The session the log holds open: its last ``session`` entry, unless ended after."""
        ended: set[Any] = set()
        for entry in _backwards(self.log_path):
            kind, sid = entry.get("kind"), entry.get("session")
            if kind in ENDINGS:
                ended.add(sid)
            elif kind == "session":
                return sid if isinstance(sid, str) and sid not in ended else None
        return None

    def reveal_left_open(self, log: _Appends, log_path: Any = None, *, skip: str | None = None) -> list[str]:
        """Reveal the sessions a stopped opener left open (the tower calls this at start-up,
        before it opens or joins one), and end as damaged those whose file cannot be trusted;
        returns their ids. A reveal the log cannot take leaves its file for the next time (a
        raised error, or an unrecorded entry)."""
        done = []
        for kept in self._kept([skip] if skip else []):
            if kept.state in ("ended", "unlogged"):
                self._forget(kept)
            elif kept.state == "damaged":
                if self._end_damaged(log, kept):
                    done.append(kept.sid)
            elif kept.stored is not None and not self.mine(kept.stored) and self._gone(kept.stored.owner) \
                    and self._reveal(log, kept):
                done.append(kept.sid)
        return done

    def _gone(self, owner: Owner) -> bool:
        """Whether a session's opener can no longer reveal it itself."""
        if owner.kind == "open":
            return False  # open until `dicetower session close`
        if owner.kind == "tower" and self.owner.kind == "tower":
            return True  # one tower per state directory: an earlier run's
        if owner.boot != self.owner.boot:
            return True  # opened before the machine last started
        if owner.pid == self.owner.pid:
            # commands in one process run one after another: another command's is left over
            return owner.kind == "command" and owner.token != self.owner.token
        return not _alive(owner.pid)

    def _forget(self, kept: _Kept) -> None:
        """The file of a session the log has ended, or never logged: it goes (a damaged one is
        set aside for a person, whose session the log ended as damaged)."""
        if kept.ending == "session_damaged" and not kept.legacy:
            aside = self._set_aside(kept)
            if aside:
                self._log(f"session {kept.sid} was ended as damaged{aside}")
        else:
            self._remove(kept)

    def _remove(self, kept: _Kept) -> None:
        try:
            session_file.remove_file(kept.path, below=None if kept.legacy else self.state_dir)
        except SessionFileError as exc:
            self._log(f"session {kept.sid}: revealed, but {exc}")

    def _set_aside(self, kept: _Kept) -> str:
        """Set a damaged file aside (see :func:`~hardware.session.file.set_aside`);
        returns where it went, said as a clause ("" when there was none)."""
        if not os.path.lexists(kept.path):
            return ""
        try:
            aside = session_file.set_aside(kept.path, below=self.state_dir)
        except SessionFileError as exc:
            return f" ({exc})"
        return f" (its file is kept for a person to look at as {aside})"

    def _mend(self, kept: _Kept) -> None:
        """Rewrite a kept file whose cache the log contradicted (said once); the log decides."""
        if not kept.mended or kept.stored is None:
            return
        self._log(f"session {kept.sid}: its file's cached {', '.join(kept.mended)} did not match the roll log; the "
                  "log decides, and the file is rewritten from it")
        self.saved(kept.stored)

    def _reveal(self, log: _Appends, kept: _Kept, *, reason: str = "restart", note: str | None = None,
                **extra: Any) -> bool:
        stored, progress = kept.stored, kept.progress
        assert stored is not None and progress is not None
        note = note or (f"revealed by the next writer: its opener ({stored.owner.kind}) stopped before revealing it "
                        "(a power cut, a crash, a kill)")
        entry = log.append("reveal", session=stored.id, seed=stored.material.encode().hex(), rolls=progress.rolls,
                           end=progress.position, reason=reason, by=self._by(), note=note, **extra)
        if entry.get("unrecorded"):  # a lenient log that could not write: try again next time
            return False
        self._remove(kept)
        if reason == "restart":
            self._log(f"session {stored.id}, left open when its {stored.owner.kind} stopped, is revealed in the log")
        return True

    def _by(self) -> str:
        return "tower" if self.owner.kind == "tower" else "command-line"

    def _end_damaged(self, log: _Appends, kept: _Kept) -> bool:
        """End a session the log holds open whose kept file cannot be trusted. With its seed
        still good (only who opened it is damaged) it is revealed, reason ``damaged``; with no
        seed to trust, a ``session_damaged`` entry names the session, why, and the rolls and
        generate calls the log holds of it, and its file is set aside for a person. Nothing of
        the file is guessed at. Said (:attr:`damaged` and the keeper's log)."""
        why, aside = kept.why, ""
        if kept.stored is not None:
            done = self._reveal(log, kept, reason="damaged", why=why,
                                note="its kept file cannot be trusted; its seed matches its commitment, so it is "
                                     "revealed with the rolls the log holds")
        else:
            entry = log.append("session_damaged", session=kept.sid, rolls=kept.rolls, end=kept.end,
                               reason="damaged", why=why, by=self._by(),
                               note="its kept file cannot be trusted, so no seed is known to reveal: its rolls "
                                    "cannot be checked")
            done = not entry.get("unrecorded")
            if done:
                aside = self._set_aside(kept)
        if done:
            self.damaged.append(Damaged(kept.sid, why, kept.rolls, kept.stored is not None))
            self._log(f"session #{kept.sid[:8]} ended as damaged: {why}; "
                      + ("revealed, its seed being good" if kept.stored is not None else
                         f"its {kept.rolls} roll(s) cannot be checked") + aside)
        return done

    def _end_lost(self, log: _Appends, checked: list[_Kept], unreadable: dict[Path, str],
                  skip: frozenset[str]) -> None:
        """End as damaged the session the log holds open when no file holds it at all (taken
        away, or lost with the card's damage): nobody can reveal it, and a session opened
        beside it would leave it open in the log for ever."""
        open_id = self._open_in_log()
        if open_id is None or open_id in skip or any(k.sid == open_id for k in checked) \
                or any(path.stem == open_id or path == self.legacy_file for path in unreadable):
            return
        news = self.news(open_id, None, whole=True)
        rolls, end = _counted(news.entries)
        self._end_damaged(log, _Kept(self._file(open_id) if open_id.isalnum() else self.directory / open_id,
                                     open_id, "damaged", rolls=rolls, end=end,
                                     why="its kept file is missing (its seed is lost)"))


def damaged_since(path: str | os.PathLike[str], after: int) -> tuple[list[dict[str, Any]], int]:
    """The entries after entry ``after`` that ended a session as damaged (a ``session_damaged``
    entry, or a reveal with reason ``damaged``), oldest first, and the log's last seq."""
    found: list[dict[str, Any]] = []
    head = after
    for entry in _backwards(Path(path)):
        seq = entry["seq"]
        head = max(head, seq)
        if seq <= after:
            break
        if entry.get("kind") in ENDINGS and entry.get("reason") == "damaged":
            found.append(entry)
    found.reverse()
    return found, head


def log_head(path: str | os.PathLike[str]) -> int:
    """The seq of the last whole entry of the log (0 when there is none)."""
    for entry in _backwards(Path(path)):
        return int(entry["seq"])
    return 0


def _backwards(path: Path) -> Iterator[dict[str, Any]]:
    """The log's whole entries, last first (the current file, then the rotated ones); lines
    that are not whole entries (a torn tail, damage) are skipped. Reads a chunk at a time;
    each file is opened by the one rule (:func:`hardware.files.rolllog.open_regular`: a FIFO or a
    link at ``rolls.jsonl`` is refused, never waited on or followed)."""
    try:
        files = chain_files(path)
    except FileNotFoundError:
        return
    except OSError as exc:  # the state directory is not one (a file in its place, no permission)
        raise LogError(f"cannot open the roll log {path}: {exc.strerror or exc}", exc.strerror or "") from None
    for file in reversed(files):
        try:
            fd = open_regular(file, os.O_RDONLY)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise read_error(exc, file) from None
        try:
            yield from _file_backwards(fd)
        except OSError as exc:
            raise read_error(exc, file) from None
        finally:
            os.close(fd)


def _file_backwards(fd: int) -> Iterator[dict[str, Any]]:
    end = os.fstat(fd).st_size
    rest = b""  # the start of a line whose end was read already
    overlong = False  # inside a line longer than any entry: damage, skipped without holding it
    chunk = 4096  # the last entry or two first (most reads want only those), then more at a time
    while end > 0:
        start = max(0, end - chunk)
        chunk = min(chunk * 4, _CHUNK)
        data = os.pread(fd, end - start, start)
        end = start
        if overlong:
            newline = data.rfind(b"\n")
            if newline < 0:
                continue
            data, overlong = data[:newline], False
        else:
            data += rest
        lines = data.split(b"\n")
        rest = lines.pop(0) if end > 0 else b""
        if len(rest) > MAX_LINE_BYTES:
            rest, overlong = b"", True
        for raw in reversed(lines):
            entry = _whole(raw)
            if entry is not None:
                yield entry


def _whole(raw: bytes) -> dict[str, Any] | None:
    if not raw.startswith(b"{") or len(raw) > MAX_LINE_BYTES:
        return None
    with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
        entry = json.loads(raw)
        if isinstance(entry, dict) and isinstance(entry.get("seq"), int) and not isinstance(entry["seq"], bool) \
                and entry.get("hash") == entry_hash(entry):
            return entry
    return None
