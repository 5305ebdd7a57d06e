"""The command line's one writer (hardware.cli.output): a closed or full standard output is
exit 5 with one line, whatever prints (results, help, --version); a reader that closed the pipe
is 0; a line on stderr stays one line whatever it quotes."""

from __future__ import annotations

import errno
import io
import subprocess
import sys

import pytest

from hardware.cli import main
from hardware.cli.output import OutputError, out, say
from tests.hardware.planted import REPO


class _Full(io.StringIO):
    """A standard output on a full card: every flush fails."""

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_out_refuses_a_closed_stdout(monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(OutputError, match="standard output is closed"):
        out("x")


def test_every_printing_command_in_process_is_exit_5_on_a_full_stdout(monkeypatch, capsys) -> None:
    for argv in (["systems"], ["odds", "d6cv", "--cv", "4"], ["roll", "d6cv", "--cv", "4", "--seed", "s"]):
        monkeypatch.setattr(sys, "stdout", _Full())
        assert main(argv) == 5, argv
        monkeypatch.undo()
        assert capsys.readouterr().err.endswith("dicetower: cannot write the output: No space left on device\n")


def test_help_that_cannot_be_written_is_exit_5(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["--help"]) == 5
    assert capsys.readouterr().err == "dicetower: cannot write the output: standard output is closed\n"


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["roll", "--help"], ["roll", "d6cv", "--help"],
                                  ["systems"], ["log", "--help"]])
def test_as_a_process_closed_and_full_are_5(argv) -> None:
    run = [sys.executable, "-m", "hardware", *argv]
    closed = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *run], cwd=REPO, capture_output=True, timeout=120)
    assert closed.returncode == 5, closed.stderr
    assert closed.stderr == b"dicetower: cannot write the output: standard output is closed\n"
    with open("/dev/full", "wb") as full:
        filled = subprocess.run(run, cwd=REPO, stdout=full, stderr=subprocess.PIPE, timeout=120)
    assert filled.returncode == 5 and filled.stderr == b"dicetower: cannot write the output: No space left on device\n"


def test_a_closed_stdout_never_hands_its_number_to_the_roll_log(tmp_path) -> None:
    """fd 1 closed at start would be the next file opened (the roll log): it is held by
    /dev/null, so the roll is logged to its file and nothing is written to the log by print."""
    state = tmp_path / "s"
    run = [sys.executable, "-m", "hardware", "roll", "d6cv", "--cv", "4", "--seed", "s", "--state-dir", str(state)]
    done = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *run], cwd=REPO, capture_output=True, timeout=120)
    assert done.returncode == 5
    from hardware.files.rolllog import verify

    assert verify(state / "rolls.jsonl").ok


def test_help_into_a_full_stdout_is_exit_5(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdout", _Full())
    with pytest.raises(SystemExit) as done:  # argparse exits once the help is written
        main(["--help"])
    assert done.value.code == 5
    assert capsys.readouterr().err.endswith("cannot write the output: No space left on device\n")


def test_say_keeps_one_line_whatever_it_quotes(capsys) -> None:
    say("dicetower: bridge: refused: \x1b[31mred\x1b[0m\nforged: line\r\x00")
    err = capsys.readouterr().err
    assert err == "dicetower: bridge: refused: \\x1b[31mred\\x1b[0m\\nforged: line\\r\\x00\n"


def test_say_with_stderr_closed_is_silent(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stderr", None)
    say("nowhere to say it")  # no exception
    assert capsys.readouterr().out == ""  # and nothing sent to stdout instead
