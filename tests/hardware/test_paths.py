"""Paths a person typed: one function (hardware.files.paths.user_path) for every option and config key.
Whatever the string (NUL, ``~user``, 100 KB, newlines), the answer is a path or one line naming
the option, and every command that takes a path ends with one line and status 2, never a
traceback."""

from __future__ import annotations

import pwd
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hardware.files.paths import MAX_PATH_CHARS, PathError, home_directory, user_path

#: Characters that make a path interesting: NUL, ~, /, newline and other controls, non-ASCII.
_ODD = st.sampled_from(["\0", "~", "/", "\n", "\r", "\t", "\x1b", " ", ".", "é", "\u2028", "a", "Z", "-"])
PATHS = st.one_of(
    st.text(_ODD, max_size=40),
    st.text(max_size=40),
    st.builds(lambda user, rest: f"~{user}{rest}", st.text(_ODD, max_size=12), st.text(_ODD, max_size=12)),
    st.builds(lambda n, c: c * n, st.integers(0, 100_000), st.sampled_from(["a", "/", "~", "\n"])),
)


def _no_such_user() -> str:
    for n in range(1000):
        name = f"dicetower-nobody-{n}"
        try:
            pwd.getpwnam(name)
        except KeyError:
            return name
    raise AssertionError("every name exists")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS)
def test_any_string_is_a_path_or_one_line_naming_the_option(text: str) -> None:
    try:
        path = user_path(text, "--state-dir")
    except PathError as exc:
        message = str(exc)
        assert message.startswith("--state-dir: ")
        assert "\n" not in message and len(message) < 400
        return
    assert "\0" not in str(path) and len(text) <= MAX_PATH_CHARS
    if text.startswith("~"):
        assert not str(path).startswith("~")  # expanded, never taken as a directory named ~
    else:
        assert path == Path(text)  # anything else is kept as written (newlines are legal in a name)


def test_tilde_and_user_are_expanded(monkeypatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    assert str(user_path("~", "x")) == "/home/someone"
    assert str(user_path("~/s", "x")) == "/home/someone/s"
    root = pwd.getpwuid(0)
    assert str(user_path(f"~{root.pw_name}/s", "x")) == f"{root.pw_dir}/s"
    assert str(user_path("a~b/~c", "x")) == "a~b/~c"  # only a leading ~ is a home


@pytest.mark.parametrize(("text", "words"), [
    ("", "is empty"),
    ("a\0b", "holds a NUL byte"),
    ("a" * 100_000, "100000 characters long"),
])
def test_what_no_path_can_be(text: str, words: str) -> None:
    with pytest.raises(PathError, match=words):
        user_path(text, "--state-dir")


def test_a_missing_user_is_one_line() -> None:
    name = _no_such_user()
    with pytest.raises(PathError, match=rf"--state-dir: '~{name}/x' names the home of user '{name}', and there is "
                                        "no such user"):
        user_path(f"~{name}/x", "--state-dir")


def test_no_home_at_all_is_one_line(monkeypatch) -> None:
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: (_ for _ in ()).throw(KeyError(uid)))
    with pytest.raises(PathError, match=r"needs a home directory, and this user has none"):
        home_directory()


@pytest.mark.parametrize("argv", [
    ["log", "verify", "{path}"],
    ["log", "show", "{path}", "--last", "3"],
    ["stats", "{path}"],
    ["replay", "{path}"],
    ["session", "show", "{path}"],
    ["roll", "d6cv", "--cv", "4", "--state-dir", "{path}"],
    ["sim", "--script", "{path}"],
    ["sim", "--config", "{path}", "--press", "roll"],
    ["run", "--config", "{path}"],
])
@pytest.mark.parametrize("path", ["~{nobody}/x", "{long}", "a\nb/c", "~{nobody}"])
def test_every_command_taking_a_path_says_one_line(capsys, tmp_path, monkeypatch, argv, path) -> None:
    from hardware.cli import main

    monkeypatch.chdir(tmp_path)
    value = path.format(nobody=_no_such_user(), long="d/" * 50_000)
    code = main([a.replace("{path}", value) for a in argv])
    out, err = capsys.readouterr()
    if "\n" in value:  # a legal name: whatever the command says of it, each message is one line
        assert code in (0, 1, 2) and all(line.startswith("dicetower: ") for line in err.splitlines()), err
        return
    assert code == 2, err
    assert err.startswith("dicetower: error: ") and err.count("\n") == 1 and len(err) < 1100, err
    assert out == ""


@pytest.mark.parametrize(("key", "value"), [
    ("kiosk.state_dir", "a\\u0000b"),
    ("kiosk.state_dir", "~{nobody}/state"),
    ("network.password_file", "p\\u0000w"),
    ("network.ca_file", "~{nobody}/ca.pem"),
])
def test_a_bad_path_in_the_config_names_the_key(tmp_path, capsys, key, value) -> None:
    from hardware.cli import main

    table, name = key.split(".")
    extra = ('mqtt = "mqtt://127.0.0.1:9"\nstore = "s"\ntower = "t"\n' if table == "network" else "")
    state = f'[kiosk]\nstate_dir = "{tmp_path / "s"}"\n' if table == "network" else ""
    config = tmp_path / "tower.toml"
    config.write_text(f'{state}[{table}]\n{extra}{name} = "{value.format(nobody=_no_such_user())}"\n')
    assert main(["sim", "--config", str(config), "--press", "roll"]) == 2
    err = capsys.readouterr().err
    assert f": {key}: " in err and err.count("\n") == 1, err


def test_entropy_file_paths_go_through_it_too(capsys) -> None:
    from hardware.cli import main

    assert main(["roll", "d6cv", "--cv", "4", "--entropy", f"file:~{_no_such_user()}/noise"]) == 2
    err = capsys.readouterr().err
    assert "--entropy: file:" in err and "no such user" in err and err.count("\n") == 1
