"""The topic layout and the message bodies the towers and the board agree on.

``dicetower/STORE/TOWER/log``     every roll-log entry, QoS 1, in log order (not retained)
``dicetower/STORE/TOWER/status``  retained: online/offline (the last will), system, commitment, rolls
``dicetower/STORE/TOWER/resend``  a consumer asks the tower to publish its log again from a seq

A log message is ``{"store": S, "tower": T, "entry": ENTRY}``: the entry exactly as the log
holds it, with the ids it claims to come from, so a consumer can check them against the topic.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from hardware.network import NetworkError

PREFIX = "dicetower"
#: What a store or tower id may be: no MQTT wildcards, no topic separator, short.
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
KINDS = ("log", "status", "resend")


def check_id(what: str, value: str) -> str:
    """``value`` if it is a usable store/tower id, else a :class:`NetworkError` naming it."""
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise NetworkError(
            what, f"expected 1 to 64 letters, digits, '_', '-' or '.' (starting with a letter or digit), got {value!r}"
        )
    return value


def topic(store: str, tower: str, kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"topic kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return f"{PREFIX}/{store}/{tower}/{kind}"


def subscription(store: str | None, kind: str) -> str:
    """The filter for ``kind`` messages of every tower of ``store`` (of every store if None)."""
    return f"{PREFIX}/{store or '+'}/+/{kind}"


@dataclass(frozen=True)
class Topic:
    store: str
    tower: str
    kind: str


def parse_topic(name: str) -> Topic | None:
    """The parts of one of our topics, or None for anything else."""
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != PREFIX or parts[3] not in KINDS:
        return None
    if not (ID_PATTERN.fullmatch(parts[1]) and ID_PATTERN.fullmatch(parts[2])):
        return None
    return Topic(parts[1], parts[2], parts[3])


def dumps(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def log_message(store: str, tower: str, entry: dict[str, Any]) -> bytes:
    return dumps({"store": store, "tower": tower, "entry": entry})
