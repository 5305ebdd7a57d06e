"""The phone page (docs/phone.md): one static page that runs the engine's verifier in the
player's browser on Pyodide, and the small read-only server a tower runs for it (``[web]``).

:mod:`hardware.web.assets` finds what the page needs (its two files, Pyodide, the engine as a
zip built from the installed package); :mod:`hardware.web.server` serves them and the roll log
over HTTP, with a stream of new entries. The store's board serves the same page from its own
web stack (hardware/board/web.py).
"""

from __future__ import annotations

from hardware.web.assets import PageAssets, PageError

__all__ = ["PageAssets", "PageError"]
