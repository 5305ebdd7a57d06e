"""assemble() builds the whole tower and Tower.__init__ only stores what it is handed (issue
40): every part is made, opened and wired in assemble's named steps (hardware/tower/assembly.py),
so the tower's constructor cannot open a pin, a file or a display behind its caller's back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.panel.model import Event, EventKind
from hardware.cli.sim import SimClock
from hardware.config import reader as cfg
from hardware.display import ResilientDisplay, opener
from hardware.entropy import open_dice
from hardware.panel.io import open_pin_factory
from hardware.tower import assemble
from hardware.tower.dice import abilities
from hardware.tower.lock import DirectoryLock
from hardware.tower.sync import SessionSync

LOOP = Path(__file__).resolve().parents[2] / "hardware" / "tower" / "loop.py"
#: What Tower.__init__ may call while it stores its parts: its tick from the config, and the
#: memo of what it said last (hardware/once.py), which holds no resource.
STORING = frozenset({"max", "round", "Once"})


def _tower_init() -> ast.FunctionDef:
    tree = ast.parse(LOOP.read_text(encoding="utf-8"))
    tower = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tower")
    return next(n for n in tower.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")


def test_the_tower_constructor_only_stores_its_parts() -> None:
    init = _tower_init()
    for stmt in init.body:
        assert isinstance(stmt, ast.Assign | ast.AnnAssign), ast.unparse(stmt)
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            assert isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id == "self", ast.unparse(stmt)
        calls = [n for n in ast.walk(stmt) if isinstance(n, ast.Call)]
        named = {n.func.id for n in calls if isinstance(n.func, ast.Name)}
        assert len(named) == len(calls) and named <= STORING, ast.unparse(stmt)
    assert len(init.body) >= 20  # the scan sees the constructor, not an empty stand-in


@pytest.fixture
def tower():
    from luma.core.device import dummy

    config = cfg.loads('[display]\nkind = "dummy"\n')
    display = ResilientDisplay(opener(config.display, device=dummy(width=128, height=64, mode="1")))
    made = assemble(config, pin_factory=open_pin_factory("mock"), display=display, dice=open_dice(seed=b"wired"),
                    clock=SimClock())
    try:
        yield made
    finally:
        made.close()


def test_assemble_wires_the_session_sync_to_the_tower_and_tells_the_first_commitment(tower) -> None:
    assert tower.sessions.tell == tower.step
    assert tower.sessions.commitment  # the first session opened at start-up...
    assert tower.state.commitment == tower.sessions.commitment  # ...and the panel was told, before any roll
    assert tower.rolls == 0


def test_the_parts_say_things_to_the_log_the_tower_has_now(tower) -> None:
    said: list[str] = []
    tower.log = said.append
    tower.sessions.request("no such request")  # the sync says so through the tower's log line
    assert said == ["panel: unknown request 'no such request'"]
    assert tower.log == said.append


def test_a_session_sync_not_wired_to_a_tower_tells_nothing() -> None:
    sync = SessionSync(abilities(open_dice(seed=b"alone")), roll_log=None, state_dir=None, kept=False,
                       lock=DirectoryLock(None, log=print), log=print)
    with pytest.raises(RuntimeError, match="SESSION before the tower was assembled"):
        sync.tell(Event(EventKind.SESSION, text="x"), 0)
