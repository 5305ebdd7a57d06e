"""The twin's MicroPython, as far as the firmware and ``mpremote`` use it: a flash file system
(a directory on the host), an import system that loads the firmware's files from that flash
with the simulated ``machine``, ``time``, ``micropython``, ``framebuf``, ``os`` and ``sys``, and
the execution of the code a raw REPL is sent (CPython runs it against the simulated Pico).

One :class:`Interpreter` is one MicroPython session: its modules (``sys.modules``) and the
REPL's globals, both gone at a soft reset, as on a Pico. It is a simulation for trying hosts
and update tools, not a sandbox: the code it runs is CPython's, limited only in that its files
are the flash directory's.
"""

from __future__ import annotations

import builtins
import errno
import os
import stat
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Modules the firmware and mpremote's snippets may import from CPython as they are.
PASSTHROUGH = frozenset({"binascii", "hashlib", "errno", "gc", "json", "struct", "random", "math", "re",
                         "collections", "io", "zlib", "array", "select"})
ALIASES = {"ubinascii": "binascii", "uhashlib": "hashlib", "uerrno": "errno", "ujson": "json", "ustruct": "struct",
           "uos": "os", "utime": "time", "urandom": "random", "ucollections": "collections", "uio": "io",
           "uselect": "select", "uzlib": "zlib", "uarray": "array"}


def os_error(code: int) -> OSError:
    """An OSError as MicroPython raises it (``OSError: [Errno 2] ENOENT``)."""
    return OSError(code, errno.errorcode.get(code, str(code)))


class Flash:
    """The Pico's file system: paths (``main.py``, ``/main.py``, ``lib/x.py``) inside ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()

    def path(self, name: str | bytes) -> Path:
        text = os.fsdecode(name)
        parts = [p for p in text.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise os_error(errno.EACCES)
        return self.root.joinpath(*parts)

    def open(self, name: str, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        try:
            return open(self.path(name), mode, *args, **kwargs)
        except OSError as exc:
            raise os_error(exc.errno or errno.EIO) from None

    def module(self, base: types.ModuleType) -> types.ModuleType:
        """``os`` as MicroPython's: ``base`` (its ``uname``) and the file functions on this flash."""
        m = types.ModuleType("os")
        vars(m).update({k: v for k, v in vars(base).items() if not k.startswith("__")})

        def call(fn: Callable[..., Any], *args: Any) -> Any:
            try:
                return fn(*args)
            except OSError as exc:
                raise os_error(exc.errno or errno.EIO) from None

        def stat_(name: str) -> tuple[int, ...]:
            st = call(os.stat, self.path(name))
            kind = stat.S_IFDIR if stat.S_ISDIR(st.st_mode) else stat.S_IFREG
            return (kind, 0, 0, 0, 0, 0, st.st_size if kind == stat.S_IFREG else 0,
                    int(st.st_mtime), int(st.st_mtime), int(st.st_mtime))

        def ilistdir(name: str = "") -> Any:
            entries = call(lambda p: sorted(os.scandir(p), key=lambda e: e.name), self.path(name))
            for e in entries:
                kind = stat.S_IFDIR if e.is_dir() else stat.S_IFREG
                yield (e.name, kind, 0, 0 if kind == stat.S_IFDIR else e.stat().st_size)

        vars(m).update(
            stat=stat_,
            ilistdir=ilistdir,
            listdir=lambda name="": [e[0] for e in ilistdir(name)],
            mkdir=lambda name: call(os.mkdir, self.path(name)),
            rmdir=lambda name: call(os.rmdir, self.path(name)),
            remove=lambda name: call(os.remove, self.path(name)),
            rename=lambda a, b: call(os.rename, self.path(a), self.path(b)),
            getcwd=lambda: "/",
            chdir=lambda name: None,
            sync=lambda: None,
            statvfs=lambda name="": (4096, 4096, 352, 300, 300, 0, 0, 0, 0, 255),
            sep="/",
        )
        return m


class NoFlash:
    """A Pico without a file system (the unit tests' bare Picos): nothing opens."""

    def open(self, name: str, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        raise os_error(errno.ENOENT if "r" in mode and "+" not in mode else errno.EROFS)

    def module(self, base: types.ModuleType) -> types.ModuleType:
        return base


class Interpreter:
    """One MicroPython session: the firmware files of ``directory`` importable (each seeing
    ``sim_modules`` as MicroPython's own), ``open`` on ``flash``, ``print`` to ``write``."""

    def __init__(self, sim_modules: dict[str, types.ModuleType], directory: Path,
                 flash: Flash | NoFlash, write: Callable[[bytes], object] | None = None) -> None:
        self.directory = Path(directory)
        self.flash = flash
        self.write = write
        self.modules: dict[str, types.ModuleType] = {}
        self.sim = dict(sim_modules)
        self.sim["os"] = flash.module(sim_modules.get("os") or types.ModuleType("os"))
        self.sim["sys"] = self._sys()
        self.builtins = dict(vars(builtins), __import__=self._import, open=flash.open, print=self._print)
        self.globals: dict[str, Any] = {"__builtins__": self.builtins, "__name__": "__main__"}

    # -- output ----------------------------------------------------------------------------------
    def _out(self, text: str) -> None:
        if self.write is not None:
            self.write(text.replace("\r\n", "\n").replace("\n", "\r\n").encode())

    def _print(self, *args: Any, sep: str = " ", end: str = "\n", file: Any = None) -> None:
        text = sep.join(str(a) for a in args) + end
        if file is not None and file is not self.sim["sys"].stdout:
            file.write(text)
        else:
            self._out(text)

    def _sys(self) -> types.ModuleType:
        interp = self

        class Buffer:
            def write(self, data: bytes) -> int:
                if interp.write is not None:
                    interp.write(bytes(data))
                return len(data)

        class Stdout:
            buffer = Buffer()

            def write(self, text: str) -> int:
                interp._out(text)
                return len(text)

        stdout = Stdout()
        m = types.ModuleType("sys")
        vars(m).update(
            stdout=stdout,
            stderr=stdout,
            modules=self.modules,
            path=["", "/lib"],
            platform="rp2",
            implementation=types.SimpleNamespace(name="micropython", version=(1, 27, 0, ""), _machine="rp2"),
            version="3.4.0; MicroPython v1.27.0 (dicetower twin)",
            byteorder="little",
            maxsize=2**31 - 1,
            exit=lambda code=0: (_ for _ in ()).throw(SystemExit(code)),
        )
        return m

    # -- imports ---------------------------------------------------------------------------------
    def _import(self, name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level == 0:
            name = ALIASES.get(name, name)
            if name in self.sim:
                return self.sim[name]
            if name in self.modules:
                return self.modules[name]
            if (self.directory / f"{name}.py").is_file():
                return self.load(name)
            if name.split(".")[0] in PASSTHROUGH:
                return builtins.__import__(name, globals, locals, fromlist, level)
        raise ImportError(f"no module named '{name}'")

    def load(self, name: str) -> types.ModuleType:
        """Import the flash's ``name.py`` (as MicroPython: a module that raises is not kept)."""
        path = self.directory / f"{name}.py"
        module = types.ModuleType(name)
        module.__file__ = str(path)
        module.__dict__["__builtins__"] = self.builtins
        self.modules[name] = module
        try:
            exec(compile(path.read_text(encoding="utf-8", errors="replace"), f"{name}.py", "exec"), module.__dict__)
        except BaseException:
            self.modules.pop(name, None)
            raise
        return module

    # -- the REPL --------------------------------------------------------------------------------
    def execute(self, code: str) -> str:
        """Run ``code`` as the raw REPL does (output to ``write``); the traceback's text, or ""."""
        from firmware_bridge.simpico import SimReset

        try:
            exec(compile(code, "<stdin>", "exec"), self.globals)
        except SimReset:
            raise
        except SystemExit:
            return ""
        except BaseException as exc:
            return self.traceback(exc)
        return ""

    def interactive(self, line: str) -> str:
        """One line at the friendly REPL: an expression's value is printed, as MicroPython does."""
        from firmware_bridge.simpico import SimReset

        try:
            try:
                code = compile(line, "<stdin>", "eval")
            except SyntaxError:
                exec(compile(line, "<stdin>", "exec"), self.globals)
            else:
                value = eval(code, self.globals)
                if value is not None:
                    self._out(repr(value) + "\n")
        except SimReset:
            raise
        except SystemExit:
            return ""
        except BaseException as exc:
            return self.traceback(exc)
        return ""

    @staticmethod
    def traceback(exc: BaseException) -> str:
        """The exception as MicroPython prints it (``OSError: [Errno 2] ENOENT``)."""
        line = 1
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "<stdin>":
                line = tb.tb_lineno
            tb = tb.tb_next
        if isinstance(exc, OSError) and exc.errno is not None:
            text = f"OSError: [Errno {exc.errno}] {errno.errorcode.get(exc.errno, exc.errno)}"
        else:
            text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return f'Traceback (most recent call last):\r\n  File "<stdin>", line {line}, in <module>\r\n{text}\r\n'

