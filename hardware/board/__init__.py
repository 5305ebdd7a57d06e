"""``dicetower board``: an independent auditor and live display for a store's towers.

It subscribes to the towers' roll logs over MQTT (docs/network.md), checks every message
(:mod:`~hardware.board.messages`) and each tower's hash chain entry by entry
(:mod:`~hardware.board.ledger`), keeps everything in an SQLite record
(:mod:`~hardware.board.record`), takes its verdict on the dice from ``dicetower replay``'s
verifier through one seam (:mod:`~hardware.board.verdict`, run in a child process:
:mod:`~hardware.board.worker`), keeps statistics of verified rolls against the exact odds,
and serves a web page, an OBS overlay and a JSON API (Starlette on uvicorn).
"""

from __future__ import annotations

from hardware.errors import HardwareError

__all__ = ["BoardError"]


class BoardError(HardwareError, ValueError):
    """A board option cannot be used (listen address, broker URL, a webhook): ``what`` names it
    (``--listen``, a config file's table), ``detail`` says what is wrong."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"{what}: {detail}")
        self.what = what
        self.detail = detail
