"""The OLED's QR codes: segno's encoder loaded on its own gives exactly segno's modules, and
drawing a code does not load what segno's file writers need (xml.sax, urllib, http)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import segno
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.display import qr

REPO = Path(__file__).resolve().parents[2]
HEX = "0123456789abcdef"


def segno_modules(text: str) -> tuple[tuple[bool, ...], ...]:
    if len(text) == 64 and set(text) <= set(HEX + HEX.upper()):
        code = segno.make(text.upper(), error="l", micro=False)
    else:
        code = segno.make(text, error="l", micro=False, mode="byte")
    return tuple(tuple(bool(m) for m in row) for row in code.matrix)


@settings(max_examples=60, deadline=None)
@given(st.text(HEX, min_size=64, max_size=64) | st.text(min_size=1, max_size=120))
def test_the_encoder_alone_draws_segnos_modules(text):
    assert qr._encoder() is not None  # this segno is laid out as expected: the fast way is taken
    assert qr.qr_matrix(text) == segno_modules(text)


def test_without_the_encoder_alone_the_whole_package_draws_the_same(monkeypatch):
    card = "dicetower reveal\ncommitment " + "ab" * 32 + "\ntable seed 31425512\nrolls 12"
    fast = qr.qr_matrix(card), qr.qr_matrix("cd" * 32)
    monkeypatch.setattr(qr, "_encoder", lambda: None)
    assert (qr.qr_matrix(card), qr.qr_matrix("cd" * 32)) == fast


def test_drawing_a_code_loads_no_file_writer_modules():
    probe = ("import sys; from hardware.display.qr import qr_matrix; qr_matrix('ab' * 32); "
             "print(sorted(m for m in ('segno', 'segno.writers', 'xml.sax', 'urllib.request', 'http.client') "
             "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
