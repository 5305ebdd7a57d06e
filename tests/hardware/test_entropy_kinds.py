"""An entropy source is one row of ``hardware.backends.ENTROPY_SOURCES`` (its opener, claim,
design factor, floor, windows, place in ``auto``), read by ``--entropy``, the help text,
``auto`` and the estimators. These tests add one, as a contributor would, and follow it
through every reader; and hold the shipped rows to what docs/fairness.md says."""

from __future__ import annotations

import contextlib
import io
import os

import pytest

from hardware import backends
from hardware.backends import EntropyKind
from hardware.cli import main
from hardware.entropy.assessment import EntropyAssessor
from hardware.entropy.pipeline import open_dice, parse_spec
from hardware.entropy.sources import ByteSource, SourceContext, claim

TOY = EntropyKind("toy", "a test's own source", "tests.hardware.test_entropy_kinds:toy_entry",
                  claim=3.0, design_factor=0.25, floor=1.0, auto=5)


def toy_entry(ctx: SourceContext) -> ByteSource:
    """How the new source is built: here, the kernel's bytes under its own name and row."""
    return ByteSource("toy", claim("toy"), read=os.getrandom)


@pytest.fixture
def with_toy(monkeypatch):
    monkeypatch.setattr(backends, "ENTROPY_SOURCES", backends.ENTROPY_SOURCES.adding(TOY))


def test_one_row_makes_a_new_source_for_entropy_auto_the_help_and_the_estimators(with_toy, tmp_path) -> None:
    assert parse_spec("toy,kernel") == ("toy", "kernel")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["roll", "d6cv", "--stat", "3", "--cv", "7", "--entropy", "toy", "--json"]) == 0
    assert '"success"' in out.getvalue()
    dice = open_dice("auto", getrandom=os.getrandom, hwrng_path=str(tmp_path / "no-hwrng"))
    assert dice.sources[-1] == "toy"  # auto=5: after the shipped ones
    assessor = EntropyAssessor("toy", "toy")
    assert (assessor.startup, assessor.window) == TOY.windows
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
        main(["roll", "d6cv", "--help"])
    assert "toy" in help_text.getvalue()


def test_a_source_without_a_row_is_refused_in_one_line() -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["roll", "d6cv", "--stat", "3", "--cv", "7", "--entropy", "toy"]) == 2
    assert err.getvalue() == ("dicetower: error: --entropy: expected auto, kernel, hwrng, buttons, bridge, file:PATH, "
                              "or a comma list such as hwrng,kernel, got 'toy'\n")


def test_auto_is_derived_from_the_rows_in_their_order() -> None:
    assert [k.name for k in backends.auto_sources()] == ["hwrng", "kernel", "buttons", "bridge"]
    assert "file" not in backends.ENTROPY_SOURCES.config_names()  # only as file:PATH


@pytest.mark.parametrize(("name", "factor", "floor"), [("kernel", 0.5, 2.0), ("hwrng", 0.5, 2.0), ("file", 0.25, 2.0),
                                                       ("bridge", 0.5, 0.25), ("buttons", 1.0, 0.5)])
def test_the_shipped_rows_say_what_docs_fairness_says(name: str, factor: float, floor: float) -> None:
    row = backends.ENTROPY_SOURCES.get(name)
    assert (row.design_factor, row.floor) == (factor, floor)
