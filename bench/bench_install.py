"""What a tower installs, without the store's board and with it: site-packages bytes and start-up.

A tower installs ``dicetower`` (its dependencies in pyproject.toml's ``[project]``); the store's
board needs the ``store`` extra on top (starlette, uvicorn and what they pull in). This builds
two real venvs, offline, from the distributions the running Python has installed (the
checkout's ``.venv``, which ``./run-tests`` fills with every extra):

- ``tower``: ``python -m venv --without-pip``, then each distribution of the requirement closure
  of ``dicetower`` (markers evaluated for this Python, each requirement's extras followed)
  linked file by file, as its RECORD lists them, into the new site-packages; dicetower itself
  as the running venv has it (an editable install of this checkout);
- ``tower+store``: the same for ``dicetower[store]``.

**Installed size** is the bytes of every file in each venv's site-packages (links followed),
measured before anything ran there: what ``pip install`` of the same versions writes,
bytecode included (pip compiles it and lists it in RECORD). dicetower's own package (the same
in both) is counted apart: its source files under engine/, hardware/ and firmware_bridge/.

**Start-up** is ``bench/bench_startup.py``'s, under each venv's Python, the runs interleaved:
``bare`` (the hardware libraries' import, the baseline under the same Python), ``sim --press
roll`` and ``sim --press roll,roll`` (to the first rolled frame). The figure is each venv's
ratio to its own baseline, and the ratio of the two towers' medians; the tower's processes
are also checked to import nothing of the store's stack where it is installed.

    .venv/bin/python bench/bench_install.py [--runs 7] [--json]
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_startup import Figure, all_times, spread  # noqa: E402

PROJECT = "dicetower"
#: Top-level modules of the store's web stack (hardware/cli/board.py's STORE_MODULES and what
#: they pull in) that a tower process must never import.
STORE_STACK = ("starlette", "uvicorn", "anyio", "h11", "click", "sniffio", "hardware.board")


class ClosureError(RuntimeError):
    """A distribution the closure needs is not installed in the running Python."""


def project_requirements(extras: Iterable[str] = ()) -> list[Requirement]:
    """dicetower's requirements from pyproject.toml (the source of truth, not an installed
    copy of its metadata), with those of ``extras``; a requirement naming dicetower itself
    (``dicetower[store]`` in ``test``) is followed into its extras."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    optional = project.get("optional-dependencies", {})
    wanted, seen, found = list(extras), set(), [Requirement(r) for r in project["dependencies"]]
    while wanted:
        extra = wanted.pop()
        if extra in seen:
            continue
        seen.add(extra)
        if extra not in optional:
            raise ClosureError(f"pyproject.toml has no extra {extra!r} (it has {', '.join(optional)})")
        for text in optional[extra]:
            req = Requirement(text)
            if canonicalize_name(req.name) == PROJECT:
                wanted.extend(req.extras)
            elif req.marker is None or req.marker.evaluate({"extra": extra}):
                found.append(req)
    return [r for r in found if r.marker is None or r.marker.evaluate({"extra": ""})]


def closure(requirements: Iterable[Requirement]) -> dict[str, metadata.Distribution]:
    """Every installed distribution the requirements pull in, by canonical name."""
    found: dict[str, metadata.Distribution] = {}
    queue = [(req, frozenset(req.extras)) for req in requirements]
    done: set[tuple[str, frozenset[str]]] = set()
    while queue:
        req, extras = queue.pop()
        name = canonicalize_name(req.name)
        if (name, extras) in done:
            continue
        done.add((name, extras))
        try:
            dist = found.get(name) or metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            raise ClosureError(f"{req.name} is not installed in {sys.prefix} "
                               "(./run-tests installs every extra)") from None
        found[name] = dist
        for text in dist.requires or ():
            sub = Requirement(text)
            contexts = [{"extra": e} for e in extras] or [{"extra": ""}]
            if sub.marker is None or any(sub.marker.evaluate(c) for c in contexts):
                queue.append((sub, frozenset(sub.extras)))
    return found


def site_packages(venv: Path) -> Path:
    return Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))


def files_of(dist: metadata.Distribution) -> list[tuple[Path, Path]]:
    """(path under site-packages, the file) for each file of ``dist`` its RECORD lists that is
    there and inside site-packages (not its scripts in bin/)."""
    where = Path(str(dist.locate_file(""))).resolve()
    pairs = []
    for entry in dist.files or ():
        real = Path(str(dist.locate_file(entry))).resolve()
        if real.is_file() and real.is_relative_to(where):
            pairs.append((real.relative_to(where), real))
    return pairs


@dataclass(frozen=True)
class Built:
    """A venv built from the running Python's distributions."""

    name: str
    venv: Path
    distributions: tuple[str, ...]
    site_bytes: int
    files: int

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"


def build_venv(dest: Path, extras: Iterable[str] = (), name: str = "") -> Built:
    """A real venv at ``dest`` holding dicetower and the closure of its requirements (with
    ``extras``), each file linked from the running Python's site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True, capture_output=True)
    target = site_packages(dest)
    dists = closure(project_requirements(extras))
    dists[PROJECT] = metadata.distribution(PROJECT)  # this checkout, as the running venv installed it
    for dist in dists.values():
        for rel, real in files_of(dist):
            link = target / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.exists():
                link.symlink_to(real)
    sizes = [p.stat().st_size for p in target.rglob("*") if p.is_file()]
    return Built(name or "+".join(["tower", *extras]), dest, tuple(sorted(dists)), sum(sizes), len(sizes))


def own_package_bytes() -> int:
    """dicetower's own files (what a non-editable install copies), the same in both venvs."""
    total = 0
    for package in ("engine", "hardware", "firmware_bridge"):
        for path in (ROOT / package).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                total += path.stat().st_size
    return total


def store_modules_imported(python: Path, scratch: Path) -> list[str]:
    """The store stack's modules a tower process (``sim --press roll,roll``) has loaded at its end."""
    code = ("import sys\nfrom hardware.cli import main\n"
            "code = main(['sim', '--seed', '1', '--press', 'roll,roll'])\n"
            f"stack = {STORE_STACK!r}\n"
            "print('store modules:', *sorted(m for m in sys.modules if m.startswith(stack)))\n"
            "sys.exit(code)\n")
    env = dict(os.environ, XDG_STATE_HOME=str(scratch / "imports"))
    env.pop("DICETOWER_STATE_DIR", None)
    env.pop("STATE_DIRECTORY", None)
    done = subprocess.run([str(python), "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    line = next(line for line in done.stdout.splitlines() if line.startswith("store modules:"))
    return line.split()[2:]


def report(built: list[Built], figures: dict[str, dict[str, Figure]], own: int,
           imported: dict[str, list[str]]) -> dict[str, object]:
    tower, store = built
    ft, fs = figures[str(tower.python)], figures[str(store.python)]
    return {
        "python": sys.version.split()[0],
        "own_package_bytes": own,
        "venvs": {b.name: {"site_packages_bytes": b.site_bytes, "files": b.files,
                           "distributions": list(b.distributions)} for b in built},
        "store_extra_bytes": store.site_bytes - tower.site_bytes,
        "store_extra_distributions": sorted(set(store.distributions) - set(tower.distributions)),
        "startup_ms": {b.name: {n: round(f.wall * 1e3, 1) for n, f in figures[str(b.python)].items()}
                       for b in built},
        "startup_ratio_to_bare": {b.name: round(figures[str(b.python)]["roll,roll"].wall
                                                / figures[str(b.python)]["bare"].wall, 3) for b in built},
        "tower_over_store_roll_roll": round(ft["roll,roll"].wall / fs["roll,roll"].wall, 3),
        "tower_over_store_roll_roll_cpu": round(ft["roll,roll"].cpu / fs["roll,roll"].cpu, 3),
        "store_modules_imported_by_a_tower": imported,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each process (median and spread; default 7)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    with tempfile.TemporaryDirectory(prefix="dicetower-bench-install-") as tmp:
        scratch = Path(tmp)
        try:
            built = [build_venv(scratch / "tower"), build_venv(scratch / "tower-store", ["store"])]
        except ClosureError as exc:
            parser.error(str(exc))
        own = own_package_bytes()
        imported = {b.name: store_modules_imported(b.python, scratch) for b in built}
        figures = all_times(args.runs, [str(b.python) for b in built], scratch)
        figs = report(built, figures, own, imported)
    if args.json:
        print(json.dumps(figs, indent=2))
        return 0
    tower, store = built
    print(f"installed size (site-packages, Python {figs['python']}; dicetower's own package, "
          f"{own / 1e6:.2f} MB, the same in both, apart):")
    for b in built:
        print(f"  {b.name:<12} {b.site_bytes / 1e6:7.2f} MB in {b.files} files, {len(b.distributions)} distributions")
    print(f"  the store extra adds {figs['store_extra_bytes'] / 1e6:.2f} MB "
          f"({store.site_bytes / tower.site_bytes:.2f}x): {', '.join(figs['store_extra_distributions'])}")
    print(f"start-up, {args.runs} runs each, interleaved: median (lowest-highest) ms, ratio to the bare "
          "import under the same venv")
    for b in built:
        fig = figures[str(b.python)]
        print(f"  {b.name}:")
        for name, f in fig.items():
            label = "bare import" if name == "bare" else f"sim --press {name}"
            print(f"    {label:<24} {f.wall * 1e3:6.1f} ({spread(f.walls):>9}) {f.wall / fig['bare'].wall:5.2f}x"
                  f"   CPU {f.cpu * 1e3:6.1f} {f.cpu / fig['bare'].cpu:5.2f}x")
    print(f"  first rolled frame, tower / tower+store: {figs['tower_over_store_roll_roll']:.2f}x wall clock, "
          f"{figs['tower_over_store_roll_roll_cpu']:.2f}x CPU")
    for name, modules in imported.items():
        print(f"  store modules a tower process imported ({name}): {' '.join(modules) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
