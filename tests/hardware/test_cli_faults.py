"""The command line's last faults (issue 27 item 7): Ctrl-C at any moment, line breaks inside a
quoted name, a state directory that cannot be used or read, and which commands only read."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import hardware.cli as cli
from hardware.cli import EXIT_INTERRUPTED, EXIT_UNRECORDED, EXIT_USAGE, main

REPO = Path(__file__).resolve().parents[2]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", ["a\rb", "a\vb", "a\fb", "a\x1cb", "a\x1db", "a\x1eb", "a\x85b", "a\u2028b",
                                  "a\u2029b"])
def test_a_line_break_inside_a_quoted_name_stays_on_the_error_s_one_line(name: str) -> None:
    code, out, err = run("replay", name)
    assert code == EXIT_USAGE and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("dicetower: ") and "no roll log at a" in err


def test_ctrl_c_after_start_up_is_130_and_no_traceback(monkeypatch) -> None:
    def interrupted(args_list: list[str]) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_run", interrupted)
    code, _out, err = run("roll", "d6cv")
    assert code == EXIT_INTERRUPTED == 130 and "Traceback" not in err


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_during_start_up_ends_the_process_as_sigint_does_never_a_traceback() -> None:
    """The entry point lets SIGINT end the process before the command line is imported: the
    shell reports 130 (killed by SIGINT), and nothing is printed."""
    seen = set()
    for _ in range(5):
        # as from a terminal: a suite started in the background by a non-interactive shell
        # inherits SIGINT ignored, and a process that ignores it rightly runs to the end
        proc = subprocess.Popen([sys.executable, "-m", "hardware", "odds", "d6cv", "--stat", "3", "--cv", "7"],
                                cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=_sigint_default)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
        assert "Traceback" not in err, err
        assert proc.returncode in (-signal.SIGINT, EXIT_INTERRUPTED, 0), (proc.returncode, err)
        seen.add(proc.returncode)
    assert seen & {-signal.SIGINT, EXIT_INTERRUPTED}  # at least one was interrupted, not finished


def test_sim_with_a_state_dir_that_is_a_file_is_one_line_and_exit_2(tmp_path) -> None:
    file = tmp_path / "afile"
    file.write_text("")
    code, out, err = run("sim", "--state-dir", str(file), "--press", "roll,roll", "--seed", "1")
    assert code == EXIT_USAGE and out == ""
    assert err == f"dicetower: error: --state-dir: cannot use {file} as the state directory: it is there, and not " \
                  "a directory\n"


@pytest.mark.parametrize("argv", [["log", "verify"], ["log", "show"], ["replay"], ["stats"]])
def test_a_state_directory_that_cannot_be_listed_is_exit_4_and_never_cannot_record(monkeypatch, tmp_path,
                                                                                     argv) -> None:
    """Run as root, a directory without permissions is still readable: the listing fails here
    as it would for another user (EACCES)."""
    import hardware.cli.log as cli_log

    def unlistable(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(cli_log, "chain_files", unlistable)
    monkeypatch.setenv("DICETOWER_STATE_DIR", str(tmp_path))
    code, _out, err = run(*argv, str(tmp_path))
    assert code == EXIT_UNRECORDED, err
    assert len(err.splitlines()) == 1 and "cannot record" not in err and "Permission denied" in err


def test_session_show_only_reads_so_never_says_cannot_record(monkeypatch, tmp_path) -> None:
    from hardware.files.rolllog import LogError

    def unreadable(*args, **kwargs):
        raise LogError(f"the roll log {tmp_path}/rolls.jsonl: Permission denied")

    import hardware.cli.session as cli_session

    monkeypatch.setattr(cli_session, "cmd_show", unreadable)
    code, _out, err = run("session", "show", str(tmp_path))
    assert code == EXIT_UNRECORDED and "cannot record" not in err


@pytest.mark.parametrize(("argv", "reads"), [(["session", "show", "D"], True), (["session", "close", "D"], False),
                                             (["log", "verify"], True), (["replay", "L"], True),
                                             (["roll", "d6cv"], False)])
def test_which_commands_only_read(argv: list[str], reads: bool) -> None:
    assert cli.build_parser(argv[0]).parse_known_args(argv)[0].reads_only is reads


def test_the_state_directory_from_the_environment_is_named_as_such(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("DICETOWER_STATE_DIR", str(tmp_path / "nothing"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    code, _, err = run("log", "verify")
    assert code == EXIT_USAGE and err.startswith("dicetower: error: $DICETOWER_STATE_DIR: no roll log at ")
    assert os.environ["DICETOWER_STATE_DIR"] in err
