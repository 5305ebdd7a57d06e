"""Updating the firmware (docs/bridge.md, "Updating the firmware" and "An interrupted update"):
the docs' recipe run as written with the real ``mpremote`` against the twin on a pty, an update
cut off after each file in turn (then finished by the recipe's last step and a reset), and,
under real MicroPython, every state an interrupted copy can leave, in whatever order the files
were copied: each is a Pico in safe mode that says why, with no watchdog armed and Ctrl-C
live, so mpremote gets in.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import mpy_wasm
from firmware_bridge.firmware import codec
from firmware_bridge.link import Link
from firmware_bridge.simframebuf import FrameBuffer
from firmware_bridge.twin import FIRMWARE_DIR, Twin
from tests.firmware_bridge.polling import wait_for

ROOT = Path(__file__).resolve().parents[2]
MPY = Path(__file__).resolve().parent / "mpy"
BIN = Path(sys.executable).parent
FILES = sorted(p.stem for p in FIRMWARE_DIR.glob("*.py"))  # the order `cp firmware/*.py :` copies them
NEW = codec.BUILD
OLD = NEW - 1


def old_version(name: str) -> str:
    """The previous build's ``name.py``: this checkout's, with the BUILD before and its own
    description (so a test sees which one runs)."""
    text = (FIRMWARE_DIR / f"{name}.py").read_text(encoding="utf-8")
    text = text.replace('FIRMWARE = "dicetower-bridge 1.2"', 'FIRMWARE = "dicetower-bridge 1.2 (the old build)"')
    old = re.sub(rf"\nBUILD = {NEW}\n", f"\nBUILD = {OLD}\n", text)
    assert old != text
    return old


def old_flash(path: Path) -> Path:
    path.mkdir()
    for name in FILES:
        (path / f"{name}.py").write_text(old_version(name), encoding="utf-8")
    return path


def mpremote(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(BIN / "mpremote"), *args], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"mpremote {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


def shell(script: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)


def recipe() -> str:
    """The docs' chained update recipe, exactly as docs/bridge.md shows it."""
    text = (ROOT / "docs" / "bridge.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\n(dicetower bridge repl --port /dev/ttyACM0 &&\n.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/bridge.md shows the chained update recipe once"
    return blocks[0]


def status(port: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "hardware", "bridge", "status", "--port", port], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    return done.returncode, done.stdout + done.stderr


def firmware_of(twin: Twin) -> str:
    with Link(find=twin.find) as link:
        return link.wait_up(10).firmware


# -- the recipe, as written ---------------------------------------------------------------------
def test_the_docs_update_recipe_runs_as_written_with_the_real_mpremote(tmp_path: Path) -> None:
    with Twin(seed=11, flash=old_flash(tmp_path / "flash")) as twin:
        assert firmware_of(twin).startswith("dicetower-bridge 1.2 (the old build)")
        boots = twin.boots
        script = recipe().replace("/dev/ttyACM0", shlex.quote(twin.port))
        done = shell(script)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"bridge at {twin.port}: " in done.stdout and "watchdog disarmed" in done.stdout
        assert twin.repl is None or twin.repl.executed > 0
        wait_for(lambda: twin.mode == "bridge" and twin.boots > boots, what="the new build's bridge")
        assert twin.watchdog_resets == 0  # nothing rebooted the Pico in the middle of the copy
        for name in FILES:
            assert (twin.flash / f"{name}.py").read_bytes() == (FIRMWARE_DIR / f"{name}.py").read_bytes()
        assert firmware_of(twin) == "dicetower-bridge 1.2 on Raspberry Pi Pico with RP2040"
        assert status(twin.port)[0] == 0


# -- an update cut off after each file --------------------------------------------------------
@pytest.mark.parametrize("copied", range(1, len(FILES)), ids=lambda k: f"after-{FILES[k - 1]}")
def test_an_update_cut_off_after_each_file_is_safe_mode_then_the_recipe_finishes_it(copied: int,
                                                                                     tmp_path: Path) -> None:
    """`mpremote cp firmware/*.py :` copies the files in the glob's order; the cable is pulled
    after ``copied`` of them. The Pico comes back in safe mode, says why (`bridge status`),
    mpremote gets in, and the recipe's last step and a reset bring up the new build."""
    from hardware.cli import main

    with Twin(seed=copied, flash=old_flash(tmp_path / "flash")) as twin:
        assert main(["bridge", "repl", "--port", twin.port]) == 0  # the recipe's first step
        mpremote("connect", twin.port, "cp", *(str(FIRMWARE_DIR / f"{n}.py") for n in FILES[:copied]), ":")
        twin.replug()  # the cable pulled and put back: a fresh boot from what the flash holds
        assert twin.mode == "safe" and not twin.pico.wdt_armed and twin.pico.kbd_intr == 3
        new_main = "main" in FILES[:copied]
        other = FILES[copied:] if new_main else FILES[:copied]
        reason = " ".join(f"{n}.py" for n in _checked() if n in other) + f" not build {NEW if new_main else OLD}"
        assert twin.safe.reason == reason
        code, said = status(twin.port)
        assert code == 1 and f"safe mode, not running the bridge: {reason}; copy all of" in said
        twin.advance(10.0)  # far beyond the watchdog's 4 s: nothing reboots it
        twin.wait_passes(3)
        assert twin.mode == "safe" and twin.watchdog_resets == 0
        got = mpremote("connect", twin.port, "exec", "import main; print(main.why())")
        assert got.stdout.strip() == reason  # mpremote got in, and the Pico says why there too
        assert twin.mode == "repl"
        mpremote("connect", twin.port, "cp", *(str(FIRMWARE_DIR / f"{n}.py") for n in FILES), ":")
        boots = twin.boots
        mpremote("connect", twin.port, "reset")
        wait_for(lambda: twin.mode == "bridge" and twin.boots > boots, what="the new build's bridge")
        assert firmware_of(twin) == "dicetower-bridge 1.2 on Raspberry Pi Pico with RP2040"


def test_bridge_repl_on_a_pico_in_safe_mode_prints_the_steps_and_sends_nothing(tmp_path: Path, capsys) -> None:
    from hardware.cli import main

    flash = old_flash(tmp_path / "flash")
    shutil.copyfile(FIRMWARE_DIR / "pins.py", flash / "pins.py")  # one file of the new build
    with Twin(seed=12, flash=flash) as twin:
        assert main(["bridge", "repl", "--port", twin.port]) == 0
        out = capsys.readouterr().out
        assert f"the Pico is in safe mode, not running the bridge: pins.py not build {OLD}; copy all" in out
        assert f"mpremote connect {twin.port} cp " in out and f"mpremote connect {twin.port} reset" in out
        assert twin.mode == "safe"  # nothing was typed into it


def test_safe_mode_shows_its_reason_on_the_display_the_host_set_up(tmp_path: Path) -> None:
    with Twin(seed=13, flash=tmp_path / "flash") as twin:
        with Link(find=twin.find) as link:
            link.wait_up(10)
            link.request(codec.DISPLAY_INIT, bytes((128, 64, 0x3C)))
        assert (twin.flash / "display.cfg").read_text() == "128 64 60"  # kept on the Pico's flash
        text = (twin.flash / "rosc.py").read_text(encoding="utf-8")
        (twin.flash / "rosc.py").write_text(text[: len(text) // 2], encoding="utf-8")  # cut short
        twin.replug()
        assert twin.mode == "safe" and twin.safe.shown
        assert twin.safe.reason == "rosc.py does not load (SyntaxError)"
        expected = bytearray(128 * 8)
        fb = FrameBuffer(expected, 128, 64, 0)
        for row, line in enumerate(["SAFE MODE", *twin.modules["main"].wrap(twin.safe.reason, 16)]):
            fb.text(line, 0, row * 8, 1)
        assert bytes(twin.pico.oled.gddram) == bytes(expected) and twin.pico.oled.on


# -- every interrupted state, under real MicroPython ----------------------------------------
@pytest.fixture(scope="module")
def micropython() -> str:
    try:
        mpy_wasm.entry()
    except mpy_wasm.MicroPythonUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"real MicroPython is not available: {exc}")
        pytest.skip(str(exc))
    return mpy_wasm.version()


def _cases() -> list[dict]:
    """Every mix of old and new files (any order of copying reaches each), and each file cut
    short at a 256-byte boundary (mpremote writes 256 bytes at a time) with the glob's earlier
    files new and its later ones old."""
    cases: list[dict] = []
    for new in itertools.product(("old", "new"), repeat=len(FILES)):
        cases.append({"id": len(cases), **dict(zip(FILES, new, strict=True)), "cut_at": 0})
    for k, name in enumerate(FILES):
        size = len((FIRMWARE_DIR / f"{name}.py").read_text(encoding="utf-8"))
        for cut in sorted({256, (size // 2) // 256 * 256, (size - 1) // 256 * 256}):
            case = {n: ("new" if i < k else "old") for i, n in enumerate(FILES)}
            cases.append({"id": len(cases), **case, name: "cut", "cut_at": cut})
    return cases


def test_every_state_an_interrupted_update_leaves_is_safe_mode_under_micropython(micropython: str) -> None:
    cases = _cases()
    hello = b"\x00" + codec.encode(codec.HELLO, 7, bytes((1, 2, 9, 9, 9, 9, 1)))
    job = {"cases": cases, "hello": hello.hex(), "display": "128 64 60"}
    files = {**{f"stub_{n}.py": (MPY / f"stub_{n}.py").read_text(encoding="utf-8")
                for n in ("machine", "micropython", "os", "time")},
             "update.py": (MPY / "update.py").read_text(encoding="utf-8"), "job.json": json.dumps(job)}
    for name in FILES:
        files[f"v_new__{name}.txt"] = (FIRMWARE_DIR / f"{name}.py").read_text(encoding="utf-8")
        files[f"v_old__{name}.txt"] = old_version(name)
    out = mpy_wasm.run("import json, update\nupdate.run(json.loads(open('job.json').read()))", files, timeout=600)
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["case"] for r in results] == [c["id"] for c in cases]
    seen = {"safe": 0, "bridge": 0, "main cut": 0}
    for case, got in zip(cases, results, strict=True):
        versions = {n: case[n] for n in FILES}
        where = f"case {versions} cut at {case['cut_at']}: {got}"
        if versions["main"] == "cut":
            # a main.py cut short never reaches its last line (main()): MicroPython's REPL, nothing armed
            seen["main cut"] += 1
            assert got["kind"] in ("nothing ran", "main.py: SyntaxError") and not got["wdt"], where
            assert -1 not in got["kbd"], where  # Ctrl-C was never taken away
            continue
        if len(set(versions.values())) == 1:
            seen["bridge"] += 1
            assert got["kind"] == "bridge" and got["wdt"] == [4000], where
            continue
        seen["safe"] += 1
        assert got["kind"] == "safe" and not got["wdt"] and got["kbd"] == [3], where
        build = NEW if versions["main"] == "new" else OLD
        wrong = {n for n in FILES if n != "main" and versions[n] != versions["main"]}
        broken, other = _reason(got["reason"], build)
        assert broken | other <= wrong and not broken & other, where
        # every file of the other build is named as such; a file cut short as not loading or
        # as lacking the BUILD (its last line); bridge.py, which imports the rest, only when they load
        assert {n for n in wrong if versions[n] != "cut"} - {"bridge"} <= other, where
        assert {n for n in wrong if versions[n] == "cut"} <= broken | other, where
        assert "bridge" not in wrong or "bridge" in broken | other or broken, where
        # the same reason, to a host that says HELLO (ERROR 7), and on its display
        frames = codec.Decoder().feed(bytes.fromhex(got["sent"]))
        assert frames[0][:3] == (1, codec.ERROR, 7) and frames[0][3][0] == codec.E_SAFE_MODE, where
        assert got["reason"] in bytes(frames[0][3][1:]).decode(), where
        assert f"dicetower bridge safe mode: {got['reason']}" in bytes.fromhex(got["sent"]).decode("latin-1"), where
        expected = bytearray(128 * 8)
        fb = FrameBuffer(expected, 128, 64, 0)
        lines = ["SAFE MODE", *_wrap(got["reason"], 16)][:8]
        for row, line in enumerate(lines):
            fb.text(line, 0, row * 8, 1)
        assert got["display"] == ["40" + bytes(expected).hex()], where
    assert seen["bridge"] == 2 and seen["main cut"] >= 2 and seen["safe"] >= 2 ** len(FILES) - 2, seen


def _reason(reason: str, build: int) -> tuple[set[str], set[str]]:
    """The files a safe-mode reason names as not loading, and as of another build."""
    broken: set[str] = set()
    other: set[str] = set()
    for part in reason.split("; "):
        if match := re.fullmatch(r"(\w+)\.py does not load \(\w+\)", part):
            broken.add(match.group(1))
        else:
            match = re.fullmatch(rf"((?:\w+\.py )+)not build {build}", part)
            assert match, f"{reason!r}: {part!r} is not a part safe mode says"
            other |= {name.removesuffix(".py") for name in match.group(1).split()}
    return broken, other


def _main() -> Any:
    from firmware_bridge.simpico import SimPico
    from firmware_bridge.twin import load_firmware

    return load_firmware(SimPico().modules())["main"]


def _checked() -> tuple[str, ...]:
    """The files main.py checks, in its order (bridge.py last)."""
    return tuple(_main().MODULES)


def _wrap(text: str, width: int) -> list[str]:
    return list(_main().wrap(text, width))
