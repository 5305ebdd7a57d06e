"""``--entropy SOURCE`` to dice: parse the source spec, build the sources, open the session dice.

Specs: ``auto`` (default: every source available and healthy, failures tolerated while the
rest still credit 256 bits), ``kernel``, ``hwrng``, ``buttons``, ``bridge``, ``file:PATH``,
or a comma list of named sources (``hwrng,buttons``: all of them required).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from engine.errors import ParameterError
from hardware import backends
from hardware.session.dice import SESSION_ROLLS, SessionDice

if TYPE_CHECKING:
    # the sources (and their health tests and estimators) are imported where they are opened:
    # a ``--seed`` session needs none of them (start-up, docs/architecture.md)
    from hardware.entropy.buttons import ButtonTiming
    from hardware.entropy.sources import EntropySource, SourceContext
    from hardware.files.rolllog import RollLog
    from hardware.session.open_sessions import SessionKeeper

__all__ = ["open_dice", "parse_spec"]


def _allowed() -> str:
    """What ``--entropy`` takes, from the rows (read when asked: a plug-in's row too)."""
    named = ", ".join(backends.ENTROPY_SOURCES.config_names())
    return f"auto, {named}, file:PATH, or a comma list such as hwrng,kernel"


def kernel_entry(ctx: SourceContext) -> EntropySource:
    from hardware.entropy.sources import kernel_source

    return kernel_source(getrandom=ctx.getrandom)


def hwrng_entry(ctx: SourceContext) -> EntropySource:
    from hardware.entropy.sources import hwrng_source

    return hwrng_source(ctx.hwrng_path)


def buttons_entry(ctx: SourceContext) -> EntropySource:
    if ctx.buttons is not None:
        return ctx.buttons
    return _Missing("buttons", "no button panel here: button timing is gathered by the tower (dicetower run)")


def bridge_entry(ctx: SourceContext) -> EntropySource:
    source = ctx.extras.get("bridge")
    if source is not None:
        return source
    if ctx.auto:  # auto takes the tower's Pico when it has one, and opens none of its own
        return _Missing("bridge", "no Pico configured")
    from hardware.entropy.ring_oscillator import CommandBridgeSource  # a command's own link to the Pico

    return CommandBridgeSource()


def parse_spec(spec: str) -> tuple[str, ...]:
    """``("auto",)`` or the named sources, validated; ``ParameterError`` names ``--entropy``."""
    text = str(spec).strip()
    if not text:
        raise ParameterError("entropy", f"expected {_allowed()}, got an empty value")
    if text.lower() == "auto":
        return ("auto",)
    names: list[str] = []
    for part in (p.strip() for p in text.split(",")):  # so a file path may not hold a comma
        if part.startswith("file:"):
            if len(part) == 5:
                raise ParameterError("entropy", "file: needs a path, e.g. file:/dev/urandom or file:capture.bin")
            name = "file:" + str(_file_path(part[5:]))
        elif part.lower() in backends.ENTROPY_SOURCES.config_names():
            name = part.lower()
        else:
            raise ParameterError("entropy", f"expected {_allowed()}, got {part!r}")
        if name in names:
            raise ParameterError("entropy", f"{name} is listed twice")
        names.append(name)
    return tuple(names)


def _file_path(text: str) -> Path:
    """The path of a ``file:PATH`` source, read by :func:`hardware.files.paths.user_path` (``~``, NUL)."""
    from hardware.files.paths import PathError, user_path

    try:
        return user_path(text, "file:")
    except PathError as exc:
        raise ParameterError("entropy", str(exc)) from None


class _Missing:
    """A named source that cannot exist here (``buttons`` without a panel, ``bridge`` unplugged)."""

    def __init__(self, name: str, why: str) -> None:
        self.name = name
        self._why = why

    @property
    def failed(self) -> str | None:
        return None

    def status(self) -> str:
        return "absent"

    def gather(self) -> NoReturn:
        from hardware.entropy.sources import SourceUnavailable

        raise SourceUnavailable(self.name, self._why)


def open_dice(
    spec: str = "auto",
    *,
    seed: bytes | None = None,
    buttons: ButtonTiming | None = None,
    log: RollLog | None = None,
    hwrng_path: str | None = None,
    extra_sources: Sequence[EntropySource] = (),
    session_rolls: int = SESSION_ROLLS,
    clock_ns: Callable[[], int] = time.time_ns,
    getrandom: Callable[[int], bytes] | None = None,
    mix: Callable[[], bytes] | None = None,
    keeper: SessionKeeper | None = None,
    writer: str = "command-line",
    state_dir: str | os.PathLike[str] | None = None,
) -> SessionDice:
    """The tower's dice for ``--entropy spec`` (or ``--seed``).

    ``buttons`` is the panel's :class:`ButtonTiming` (a credited source in ``auto``: its presses
    seed the *next* session, never the roll they make); ``extra_sources`` are more sources such
    as the Pico (``bridge``). ``mix`` gives each roll's mix (the command line's
    ``--mix``; default none). Nothing is read until the first roll or ``commitment``.
    ``keeper`` is the state directory's record of its one open session
    (:class:`~hardware.session.open_sessions.OpenSessions`): the dice roll in the session open
    there, whoever opened it, and keep the ones they open. ``hwrng_path`` defaults to
    :data:`~hardware.entropy.sources.HWRNG_PATH`. ``state_dir`` (default: the keeper's) keeps
    how far each ``file:PATH`` has been read (:mod:`hardware.entropy.file_offsets`); without
    one, a regular file is refused.
    """
    if seed is not None:
        if parse_spec(spec) != ("auto",):
            raise ParameterError("seed", "--seed gives deterministic dice; it cannot be combined with --entropy")
        return SessionDice(seed=bytes(seed), log=log, session_rolls=session_rolls, clock_ns=clock_ns, mix=mix,
                           keeper=keeper, writer=writer)
    from hardware.entropy.sources import HWRNG_PATH, SourceContext, file_source

    if hwrng_path is None:
        hwrng_path = HWRNG_PATH
    names = parse_spec(spec)
    extras = {s.name: s for s in extra_sources}
    if names == ("auto",):
        # auto: every row that says so (hardware.backends.ENTROPY_SOURCES), in its order, that
        # is here; then any other source passed in
        ctx = SourceContext(buttons=buttons, hwrng_path=hwrng_path, getrandom=getrandom, extras=extras, auto=True)
        built = [backends.ENTROPY_SOURCES.load(row.name)(ctx) for row in backends.auto_sources()]
        sources: list[EntropySource] = [s for s in built if not isinstance(s, _Missing)]
        sources.extend(s for s in extra_sources if s not in sources)
        return SessionDice(sources, strict=False, label="auto", buttons=buttons, log=log,
                           session_rolls=session_rolls, clock_ns=clock_ns, mix=mix, keeper=keeper, writer=writer)
    ctx = SourceContext(buttons=buttons, hwrng_path=hwrng_path, getrandom=getrandom, extras=extras)
    offsets = None
    if any(name.startswith("file:") for name in names):
        from hardware.entropy.file_offsets import FileOffsets

        # how far each file was read is kept beside the log (none without a state directory)
        where = state_dir if state_dir is not None else keeper.state_dir if keeper is not None else None
        offsets = FileOffsets(where) if where is not None else None
    chosen: list[EntropySource] = [
        file_source(name[5:], offsets=offsets) if name.startswith("file:")
        else backends.ENTROPY_SOURCES.load(name)(ctx)
        for name in names
    ]
    return SessionDice(chosen, strict=True, label=",".join(names), buttons=buttons, log=log,
                       session_rolls=session_rolls, clock_ns=clock_ns, mix=mix, keeper=keeper, writer=writer)
