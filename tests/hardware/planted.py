"""Planted files and broken streams: the rig of the fault suite (test_hostile_files.py).

A *plant* puts something hostile where the tower expects one of its files: a FIFO (a read
that never ends, an open that blocks), a symbolic link to ``/dev/zero`` (endless bytes) or to
another directory (writes that land elsewhere), a huge sparse file, deep nesting, or a
directory where a file belongs (a file where a directory belongs). Each case runs one real
``dicetower`` command in a fresh process on a state directory copied from a template (an open
session, kept in ``open-sessions/ID.json``, one player, a rotated log; ``session open`` gets
the same directory with that session closed), and records its exit status and stderr.

``python -m tests.hardware.planted [--repo DIR]`` prints every case with its status: run
against another checkout (``--repo /path/to/main``) it shows the behaviour before a change.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: A command that has not ended by then hung (a guard, not a speed test: each takes about 1 s).
HANG_GUARD_S = float(os.environ.get("DICETOWER_HANG_GUARD_S", "30"))
#: The id of a planted ``open-sessions/ID.json`` of no logged session (16 hex digits, as
#: session ids are).
SESSION_ID = "0123456789abcdef"
#: A "huge" planted file: far beyond every cap, and sparse, so it costs no disk.
HUGE_BYTES = 256 << 20
#: Nesting far deeper than any parser's recursion limit (and still under the state files' size cap).
DEEP = 30_000


# --- the kinds of plant ------------------------------------------------------------------------

def _fifo(path: Path, elsewhere: Path) -> None:
    os.mkfifo(path)


def _zero(path: Path, elsewhere: Path) -> None:
    path.symlink_to("/dev/zero")


def _dirlink(path: Path, elsewhere: Path) -> None:
    path.symlink_to(elsewhere, target_is_directory=True)


def _huge(path: Path, elsewhere: Path) -> None:
    with open(path, "wb") as f:
        f.truncate(HUGE_BYTES)


def _deep(path: Path, elsewhere: Path) -> None:
    if path.suffix == ".toml":
        path.write_text("a = " + "[" * DEEP + "\n")
    elif path.suffix in (".json", ".jsonl"):
        path.write_text("[" * DEEP + "\n")
    else:  # a script, a password
        path.write_text("(" * DEEP + "\n")


def _dir(path: Path, elsewhere: Path) -> None:
    path.mkdir()
    (path / "inside").write_text("x")


def _file(path: Path, elsewhere: Path) -> None:
    path.write_text("a file where a directory belongs\n")


#: kind -> planting function(path, another directory)
KINDS: dict[str, Callable[[Path, Path], None]] = {
    "fifo": _fifo, "zero": _zero, "dirlink": _dirlink, "huge": _huge, "deep": _deep, "dir": _dir, "file": _file,
}
#: What a file target gets, and what a directory target gets.
FILE_KINDS = ("fifo", "zero", "dirlink", "huge", "deep", "dir")
DIR_KINDS = ("fifo", "zero", "dirlink", "huge", "file")


# --- commands ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Paths:
    """Where one case's files are: the state directory, a config using it, a script, a
    password file, and another directory (what a symlink points into)."""

    root: Path

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def config(self) -> Path:
        return self.root / "tower.toml"

    @property
    def net_config(self) -> Path:
        return self.root / "net.toml"

    @property
    def script(self) -> Path:
        return self.root / "script.txt"

    @property
    def password(self) -> Path:
        return self.root / "password.txt"

    @property
    def elsewhere(self) -> Path:
        return self.root / "elsewhere"

    @property
    def open_session(self) -> Path:
        """The kept file of the session the template's log holds open (:func:`prepare` notes
        its id; a state directory with that session closed keeps no file under that name)."""
        marker = self.root / "open-session-id"
        sid = marker.read_text() if marker.exists() else SESSION_ID
        return self.state / "open-sessions" / f"{sid}.json"


S = "{state}"
ROLL = ["roll", "fingers", "--guess", "2", "--state-dir", S, "--player", "1", "--json"]
#: name -> argv (``{state}``, ``{config}``, ... filled from :class:`Paths`)
COMMANDS: dict[str, list[str]] = {
    "roll": ROLL,
    "roll-times": [*ROLL, "--times", "3"],
    "session-open": ["session", "open", S],  # on the template with its session closed
    "session-show": ["session", "show", S],
    "session-close": ["session", "close", S],
    "log-verify": ["log", "verify", S],
    "log-show": ["log", "show", S],
    "log-show-last": ["log", "show", S, "--last", "2"],
    "stats": ["stats", S],
    "replay": ["replay", S],
    "sim": ["sim", "--config", "{config}", "--press", "roll,wait:2"],
    "sim-net": ["sim", "--config", "{net_config}", "--press", "roll,wait:2"],
    "sim-script": ["sim", "--script", "{script}"],
    "run": ["run", "--config", "{config}"],
    "systems": ["systems"],
    "odds": ["odds", "fingers", "--guess", "2"],
    "help": ["--help"],
    "version": ["--version"],
    "roll-nolog": ["roll", "d6cv", "--cv", "4"],
    "fairness": ["fairness", "--n", "100", "--seed", "s"],
    "board": ["board", "--mqtt", "mqtt://127.0.0.1:9", "--password-file", "{password}"],
}
#: Commands that print their result on standard output.
PRINTING = ("roll", "roll-times", "session-open", "session-show", "session-close", "log-verify", "log-show",
            "log-show-last", "stats", "replay", "sim", "sim-script", "systems", "odds", "help", "version",
            "roll-nolog", "fairness")
#: Commands that do not need the template state directory's open session closed first.
LOG_READERS = ("log-verify", "log-show", "log-show-last", "stats", "replay")


def argv(command: str, paths: Paths) -> list[str]:
    fill = {"state": paths.state, "config": paths.config, "net_config": paths.net_config,
            "script": paths.script, "password": paths.password}
    return [a.format(**{k: str(v) for k, v in fill.items()}) for a in COMMANDS[command]]


# --- targets -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """A file or directory the tower uses, and the commands that read or write it."""

    name: str
    where: Callable[[Paths], Path]
    commands: tuple[str, ...]
    directory: bool = False

    @property
    def kinds(self) -> tuple[str, ...]:
        return DIR_KINDS if self.directory else FILE_KINDS


#: Commands of the state directory's open session (all but ``session open`` on a directory
#: whose log holds it open).
SESSION_COMMANDS = ("roll", "roll-times", "session-show", "session-close")

TARGETS: tuple[Target, ...] = (
    Target("rolls.jsonl", lambda p: p.state / "rolls.jsonl",
           ("roll", "roll-times", "session-open", "session-show", "session-close", *LOG_READERS, "sim")),
    Target("rolls.1.jsonl", lambda p: p.state / "rolls.1.jsonl", ("roll", "session-show", *LOG_READERS)),
    Target("players/1.json", lambda p: p.state / "players" / "1.json", ("roll", "roll-times")),
    Target("players/", lambda p: p.state / "players", ("roll",), directory=True),
    # the kept file of the session the log holds open (its seed: the only way to reveal it)
    Target("open-sessions/ID.json", lambda p: p.open_session, (*SESSION_COMMANDS, "session-open", "sim")),
    # a kept file of no session in the log
    Target("open-sessions/OTHER.json", lambda p: p.state / "open-sessions" / f"{SESSION_ID}.json",
           ("roll", "session-show", "sim")),
    Target("open-sessions/", lambda p: p.state / "open-sessions", (*SESSION_COMMANDS, "session-open", "sim"),
           directory=True),
    # where earlier versions kept the `session open` session: here the open session's only file
    Target("session.json", lambda p: p.state / "session.json", (*SESSION_COMMANDS, "session-open", "sim")),
    Target("panel.json", lambda p: p.state / "panel.json", ("sim",)),
    Target("mqtt-cursor.json", lambda p: p.state / "mqtt-cursor.json", ("sim-net",)),
    Target(".lock", lambda p: p.state / ".lock", ("roll", "session-open", "session-show", "session-close", "sim")),
    Target("config", lambda p: p.config, ("sim", "run")),
    Target("script", lambda p: p.script, ("sim-script",)),
    Target("password_file", lambda p: p.password, ("sim-net", "board")),
)


# --- the template state directory --------------------------------------------------------------

def python() -> str:
    return sys.executable


def cli(args: Sequence[str], *, repo: Path = REPO, stdout: int | None = subprocess.PIPE,
        env: dict[str, str] | None = None, wrap: Sequence[str] = ()) -> subprocess.CompletedProcess:
    """``dicetower ARGS`` in a fresh process from ``repo``; a hang past the guard is killed and
    reported as status None."""
    command = [*wrap, python(), "-m", "hardware", *args]
    proc = subprocess.Popen(command, cwd=repo, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env=env or _env(), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=HANG_GUARD_S)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    return subprocess.CompletedProcess(command, code, out or b"", err or b"")  # type: ignore[arg-type]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DICETOWER_STATE_DIR", "STATE_DIRECTORY")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def make_template(root: Path, *, repo: Path = REPO) -> Path:
    """A state directory as a night at the table leaves it: a rotated log (``rolls.1.jsonl``)
    and the current one, player 1's file, and an open session (``open-sessions/ID.json``)
    with a roll in it. Beside it (``closed``) the same directory after ``session close``, for
    ``session open``."""
    state = root / "state"
    for args in (["roll", "fingers", "--guess", "1", "--state-dir", str(state), "--player", "1"],
                 ["session", "open", str(state)]):
        _setup(args, repo)
    os.rename(state / "rolls.jsonl", state / "rolls.1.jsonl")  # as a rotation leaves it
    _setup(["roll", "fingers", "--guess", "3", "--state-dir", str(state), "--player", "1"], repo)
    closed = _closed(root) / "state"
    shutil.copytree(state, closed, symlinks=True)
    _setup(["session", "close", str(closed)], repo)
    return state


def _closed(template_root: Path) -> Path:
    return template_root / "closed"


def _setup(args: list[str], repo: Path) -> None:
    done = cli(args, repo=repo)
    if done.returncode != 0:
        raise RuntimeError(f"template: {args}: {done.stderr.decode()}")


def prepare(template: Path, root: Path, target: Target | None = None, command: str = "") -> Paths:
    """A fresh copy of the template and the config, script and password files of one case
    (``session open`` gets the template with its session closed), and how many of its log
    lines a plant at ``target`` leaves intact. The id of the session the template holds open
    is noted for :attr:`Paths.open_session`; when ``session.json`` is planted, its kept file
    is taken away, so the planted file is the open session's only one (as an earlier
    version's ``session open`` left it)."""
    paths = Paths(root)
    kept = sorted((template / "open-sessions").glob("*.json"))
    source = _closed(template.parent) / "state" if command == "session-open" else template
    shutil.copytree(source, paths.state, symlinks=True)
    (root / "open-session-id").write_text(kept[0].stem if kept else SESSION_ID)
    intact = 0
    if target is None or target.name != "rolls.1.jsonl":
        intact += _lines(paths.state / "rolls.1.jsonl")
        if target is None or target.name != "rolls.jsonl":
            intact += _lines(paths.state / "rolls.jsonl")
    (root / "template-lines").write_text(str(intact))
    if target is not None and target.name == "session.json" and paths.open_session.exists():
        paths.open_session.unlink()
    paths.elsewhere.mkdir()
    (paths.elsewhere / "1.json").write_text('{"player": 1, "systems": {}, "log_seq": 0, "version": 1}\n')
    paths.config.write_text(f'[kiosk]\nstate_dir = "{paths.state}"\n[entropy]\nsource = "kernel"\n')
    paths.net_config.write_text(
        f'[kiosk]\nstate_dir = "{paths.state}"\n[entropy]\nsource = "kernel"\n'
        '[network]\nmqtt = "mqtt://127.0.0.1:9"\nstore = "store1"\ntower = "tower1"\n'
        f'password_file = "{paths.password}"\n')
    paths.script.write_text("roll\nwait:1\n")
    paths.password.write_text("secret\n")
    (paths.state / "open-sessions").mkdir(mode=0o700, exist_ok=True)
    return paths


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.is_file() else 0


def plant(target: Target, kind: str, paths: Paths) -> Path:
    where = target.where(paths)
    if where.is_dir() and not where.is_symlink():
        shutil.rmtree(where)
    elif os.path.lexists(where):
        where.unlink()
    where.parent.mkdir(parents=True, exist_ok=True)
    KINDS[kind](where, paths.elsewhere)
    return where


def unplant(where: Path) -> None:
    if where.is_dir() and not where.is_symlink():
        shutil.rmtree(where)
    elif os.path.lexists(where):
        where.unlink()


# --- what a case leaves behind -----------------------------------------------------------------

@dataclass
class Outcome:
    """One command's end: exit status (None: it hung), stderr lines, and what was checked after."""

    code: int | None
    err: list[str]
    out: bytes = b""
    problems: list[str] = field(default_factory=list)

    @property
    def line(self) -> str:
        return self.err[-1] if self.err else ""


def lock_is_free(state: Path) -> bool:
    """Whether the state directory's lock can be taken now (no process left holding it)."""
    lock = state / ".lock"
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return True  # no lock file (or a plant there): nothing holds it
    try:
        if not os.path.isfile(lock):
            return True
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def check_after(outcome: Outcome, paths: Paths, expected: set[int]) -> None:
    """The suite's promises: ended, a documented status, one line on an error, no traceback,
    no lock held, and the log (rotated part untouched) still verifies."""
    from hardware.files.rolllog import verify

    if outcome.code is None:
        outcome.problems.append(f"hung (killed after {HANG_GUARD_S:g} s)")
        return
    if outcome.code not in expected:
        outcome.problems.append(f"exit {outcome.code}, expected {sorted(expected)}: {outcome.line}")
    text = "\n".join(outcome.err)
    if "Traceback" in text:
        outcome.problems.append(f"traceback: {text[-400:]}")
    if outcome.code not in (0, None) and len(outcome.err) < 1:
        outcome.problems.append("failed without a line on stderr")
    if outcome.code in (2, 3, 4, 5) and len(outcome.err) > 1 and not _runs_on(outcome):
        outcome.problems.append(f"{len(outcome.err)} lines on stderr, not one: {outcome.err[:3]}")
    if outcome.code not in (0, None) and outcome.code != 130 and not all(
            line.startswith("dicetower") for line in outcome.err):
        outcome.problems.append(f"stderr lines that are not ours: {outcome.err[:3]}")
    if not lock_is_free(paths.state):
        outcome.problems.append("the state lock is still held")
    intact = paths_entries(paths)
    if intact:
        try:
            report = verify(paths.state / "rolls.jsonl")
        except Exception as exc:  # a plant the reader refuses (a FIFO as the log): nothing was written past it
            report = None
            if "cannot read" not in str(exc):
                outcome.problems.append(f"log verify: {exc}")
        if report is not None and report.problem is not None and report.problem.line_no <= intact:
            outcome.problems.append(f"log verify: {report.problem} (the {intact} lines before the plant)")


def _runs_on(outcome: Outcome) -> bool:
    """Whether the command was the tower, which says what it meets in its journal as it runs."""
    return any(line.startswith("dicetower: running (") for line in outcome.err)


def paths_entries(paths: Paths) -> int:
    """How many lines the template's log had (a problem after them is the plant's own)."""
    marker = paths.root / "template-lines"
    return int(marker.read_text()) if marker.exists() else 0


def run_case(command: str, paths: Paths, *, repo: Path = REPO, stdout: int | None = subprocess.PIPE,
             wrap: Sequence[str] = ()) -> Outcome:
    if command == "run":
        return _run_tower(paths, repo=repo)
    done = cli(argv(command, paths), repo=repo, stdout=stdout, wrap=wrap)
    err = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return Outcome(done.returncode, err, done.stdout or b"")


def _run_tower(paths: Paths, *, repo: Path) -> Outcome:
    """``dicetower run`` on mock pins: started, then stopped by SIGTERM once it runs (or ended
    by itself, refusing to start)."""
    config = paths.config
    plain = config.is_file() and not config.is_symlink() and config.stat().st_size < 4096
    text = config.read_text() if plain else None
    if text is not None and "[gpio]" not in text:
        config.write_text(text + '[gpio]\nfactory = "mock"\n[display]\nkind = "none"\n')
    proc = subprocess.Popen([python(), "-m", "hardware", "run", "--config", str(config)], cwd=repo,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env={**_env(), "PYTHONUNBUFFERED": "1"}, start_new_session=True)
    deadline = time.monotonic() + HANG_GUARD_S
    lines: list[str] = []
    assert proc.stderr is not None
    os.set_blocking(proc.stderr.fileno(), False)
    buffer = b""
    while time.monotonic() < deadline and proc.poll() is None:
        chunk = proc.stderr.read() or b""
        buffer += chunk
        if b"dicetower: running (" in buffer:
            proc.send_signal(signal.SIGTERM)
            break
        time.sleep(0.05)
    try:
        out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    buffer += err or b""
    lines = [line for line in buffer.decode("utf-8", "replace").splitlines() if line.strip()]
    return Outcome(code, lines, out or b"")


def closed_stdout() -> list[str]:
    """A wrapper that starts the command with its standard output closed (``>&-``)."""
    return ["sh", "-c", 'exec "$@" >&-', "sh"]


def read_only(state: Path) -> list[str] | None:
    """A wrapper that runs the command with ``state`` mounted read-only (a private mount
    namespace); None where this machine does not allow one."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rm", "true"], capture_output=True, timeout=30).returncode:
        return None
    return [unshare, "-rm", "sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@"',
            str(state)]


#: A read-only state directory: what writes cannot record, what reads works, showing shows.
READ_ONLY = {"roll": {4}, "roll-times": {4}, "session-open": {4}, "session-show": {0}, "session-close": {4},
             "log-verify": {0}, "log-show": {0}, "log-show-last": {0}, "stats": {0}, "replay": {0}, "sim": {0}}


def stream_cases(template: Path, tmp: Path, repo: Path) -> list[tuple[str, str, Outcome, float]]:
    """Every printing command with standard output closed and full, and every state command on
    a read-only state directory."""
    done = []
    for command in PRINTING:
        for how in ("closed", "full", "read-only"):
            if how == "read-only" and command not in READ_ONLY:
                continue
            with tempfile.TemporaryDirectory(prefix="case-", dir=tmp) as case:
                paths = prepare(template, Path(case), None, command)
                start = time.monotonic()
                if how == "closed":
                    outcome = run_case(command, paths, repo=repo, wrap=closed_stdout())
                elif how == "full":
                    with open("/dev/full", "wb") as full:
                        outcome = run_case(command, paths, repo=repo, stdout=full.fileno())
                else:
                    wrap = read_only(paths.state)
                    if wrap is None:
                        continue
                    outcome = run_case(command, paths, repo=repo, wrap=wrap)
                done.append((how, command, outcome, time.monotonic() - start))
    return done


def each_case() -> list[tuple[Target, str, str]]:
    return [(t, kind, command) for t in TARGETS for kind in t.kinds for command in t.commands]


def main(argv_: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="run every planted-file case and print its status")
    parser.add_argument("--repo", default=str(REPO), help="the checkout whose dicetower is run")
    parser.add_argument("--only", default=None, help="only targets whose name contains this")
    args = parser.parse_args(argv_)
    repo = Path(args.repo)
    with tempfile.TemporaryDirectory(prefix="planted-") as tmp:
        template = make_template(Path(tmp) / "template", repo=repo)
        for target, kind, command in each_case():
            if args.only and args.only not in target.name:
                continue
            with tempfile.TemporaryDirectory(prefix="case-", dir=tmp) as case:
                paths = prepare(template, Path(case), target, command)
                plant(target, kind, paths)
                start = time.monotonic()
                outcome = run_case(command, paths, repo=repo)
                took = time.monotonic() - start
                status = "HUNG" if outcome.code is None else str(outcome.code)
                trace = " TRACEBACK" if any("Traceback" in line for line in outcome.err) else ""
                print(f"{target.name:<25}{kind:<8}{command:<14}{status:>5} {took:5.1f}s {len(outcome.err)}L{trace}  "
                      f"{outcome.line[:110]}", flush=True)
        if args.only is None:
            for how, command, outcome, took in stream_cases(template, Path(tmp), repo):
                status = "HUNG" if outcome.code is None else str(outcome.code)
                trace = " TRACEBACK" if any("Traceback" in line for line in outcome.err) else ""
                print(f"{'stdout ' + how if how != 'read-only' else 'state dir read-only':<33}{command:<14}{status:>5} "
                      f"{took:5.1f}s {len(outcome.err)}L{trace}  {outcome.line[:110]}", flush=True)


if __name__ == "__main__":
    main()
