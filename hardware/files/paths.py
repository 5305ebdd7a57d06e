"""Paths a person typed or wrote in a config file: one function reads all of them.

:func:`user_path` is the only way a path from the command line or the config becomes a
:class:`~pathlib.Path`: ``~`` and ``~user`` are expanded, a NUL byte (which no path can hold)
and an over-long path are refused, and a ``~user`` with no such user, or a ``~`` with no home
directory, is one line naming the option, not a ``RuntimeError``. Newlines and other odd
characters are legal in a Linux path and are kept; messages show them escaped.
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from engine.errors import ParameterError
from hardware.errors import HardwareError

__all__ = ["MAX_PATH_CHARS", "PathError", "home_directory", "option_path", "user_path"]

#: Linux's PATH_MAX: no longer path can be opened, so a longer one is refused up front.
MAX_PATH_CHARS = 4096


class PathError(HardwareError, ValueError):
    """A path that cannot name a file: the message names the option (``what``) and what is
    wrong (``detail``)."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"{what}: {detail}")
        self.what = what
        self.detail = detail


def user_path(text: str, what: str) -> Path:
    """``text`` as a path, ``~`` expanded; :class:`PathError` (naming ``what``, e.g. ``--state-dir``
    or ``kiosk.state_dir``) when it is empty, holds a NUL, is too long, or names a missing user."""
    if not isinstance(text, str) or not text:
        raise PathError(what, "is empty; name a file or directory")
    if "\0" in text:
        raise PathError(what, f"{text!r} holds a NUL byte, which no path can")
    if len(text) > MAX_PATH_CHARS:
        raise PathError(what, f"the path is {len(text)} characters long; at most {MAX_PATH_CHARS}")
    if not text.startswith("~"):
        return Path(text)
    head, sep, rest = text.partition("/")
    home = _home_of(head[1:], what, text)
    return Path(home + sep + rest) if rest or sep else Path(home)


def option_path(text: str, option: str) -> Path:
    """:func:`user_path` for a command-line option: a mistake is a
    :class:`~engine.errors.ParameterError` naming it (``--state-dir``, or ``DIR``), exit 2."""
    try:
        return user_path(text, option)
    except PathError as exc:
        raise ParameterError(option, exc.detail) from None


def home_directory(what: str = "the default state directory") -> Path:
    """This user's home (``$HOME``, else the password database), or :class:`PathError`."""
    return Path(_home_of("", what, "~"))


def _home_of(user: str, what: str, text: str) -> str:
    if not user:
        home = os.environ.get("HOME")
        if home:
            return home
        try:
            return pwd.getpwuid(os.getuid()).pw_dir
        except KeyError:
            raise PathError(what, f"{text!r} needs a home directory, and this user has none "
                            "($HOME is not set); give the full path") from None
    try:
        return pwd.getpwnam(user).pw_dir
    except (KeyError, UnicodeEncodeError):
        raise PathError(what, f"{text!r} names the home of user {user!r}, and there is no such user "
                        "on this machine") from None
