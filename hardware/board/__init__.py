"""``dicetower board``: an independent auditor and live display for a store's towers.

It subscribes to the towers' roll logs over MQTT (docs/network.md), checks each tower's hash
chain entry by entry, replays every revealed session with the same verifier as ``dicetower
replay`` (it trusts no tower), keeps statistics against the exact odds, and serves a web page,
an OBS overlay and a JSON API (Starlette on uvicorn).
"""

from __future__ import annotations

from engine.errors import EngineError

__all__ = ["BoardError"]


class BoardError(EngineError, ValueError):
    """A board option cannot be used (listen address, broker URL); the message names it."""
