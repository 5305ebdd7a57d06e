"""engine/systems/registry.py: the dicetower_systems entry points read into systems by id, each
mistake of a distribution refused in one line naming it, and MODE's order read from each
module's ORDER line without importing it."""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint, EntryPoints

import pytest

import engine
from engine.systems import registry


class _Dist:
    """What an entry point knows of its distribution: its name."""

    def __init__(self, name: str) -> None:
        self.name = name


def points(*rows: tuple[str, str, str]) -> EntryPoints:
    made = []
    for name, value, dist in rows:
        point = EntryPoint(name, value, registry.GROUP)
        vars(point).update(dist=_Dist(dist))  # as importlib.metadata attaches a distribution
        made.append(point)
    return EntryPoints(made)


def test_each_entry_point_is_a_system_by_id() -> None:
    found = registry.read(points(("coin", "dicetower_coin:SYSTEM", "dicetower-coin")))
    assert found["coin"] == registry.Installed("coin", "dicetower_coin", "SYSTEM", "dicetower-coin")


@pytest.mark.parametrize(("rows", "said"), [
    ((("Coin", "c:SYSTEM", "d"),), "distribution d registers a system named 'Coin': an id is a lower-case letter"),
    ((("coin", "c", "d"),), "distribution d: system 'coin' points at 'c', not module:attribute"),
    ((("coin", "a:SYSTEM", "d1"), ("coin", "b:SYSTEM", "d2")), "system 'coin' is registered by both d1 and d2"),
])
def test_a_distributions_mistake_is_one_line_naming_it(rows, said) -> None:
    with pytest.raises(registry.SystemPluginError) as caught:
        registry.read(points(*rows))
    assert str(caught.value).startswith(said) and "\n" not in str(caught.value)


def test_the_shipped_systems_are_found_and_ordered_without_importing_one() -> None:
    assert set(registry.installed()) == {"infinity", "horizons", "d6cv", "immortal", "fingers"}
    orders = {key: entry.declared_order() for key, entry in registry.installed().items()}
    assert orders == {key: engine.get(key).order for key in orders}  # each ORDER line is its spec's
    assert engine.ids() == ("infinity", "horizons", "d6cv", "immortal", "fingers")


def test_ids_import_no_system(monkeypatch) -> None:
    for name in [m for m in sys.modules if m.startswith("engine.systems.") and m.count(".") == 2
                 and m.rsplit(".", 1)[1] in registry.installed()]:
        monkeypatch.delitem(sys.modules, name)
    assert engine.ids()[0] == "infinity"
    assert not [m for m in sys.modules if m.rsplit(".", 1)[-1] in registry.installed()]


def test_an_unknown_id_names_the_installed_ones_and_a_membership_test_imports_nothing() -> None:
    with pytest.raises(engine.UnknownSystemError, match="choose one of: infinity, horizons, d6cv, immortal, fingers"):
        engine.get("chess")
    assert engine.installed(" D6CV ") and not engine.installed("chess")
