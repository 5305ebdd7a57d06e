"""One roll recomputed from its session's stream and compared whole with its entry."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.errors import EngineError
from engine.results import to_jsonable
from engine.seeds import ROLL_KINDS, RollStream, SeedMaterial
from engine.systems import get, typed_in

__all__ = ["check_roll", "never_rolled", "roll_kind", "screen_line"]


def roll_kind(material: SeedMaterial, entry: dict[str, Any]) -> str:
    """What the roll really is, from its content (the label is checked against this)."""
    result = entry.get("result")
    if isinstance(result, Mapping) and typed_in(result):
        return "entered"
    return "test" if material.is_test else "rolled"


def check_roll(stream: RollStream, material: SeedMaterial, entry: dict[str, Any]) -> tuple[str, str] | None:
    """The roll recomputed and compared: None, or (code, why)."""
    start, end, logged, mix = entry.get("start"), entry.get("end"), entry.get("result"), entry.get("mix")
    if not isinstance(start, int) or not isinstance(end, int) or not isinstance(logged, dict) \
            or not isinstance(mix, str):
        return "roll-malformed", "roll entry is malformed (start, end, mix or result missing)"
    if start != stream.blocks:
        how = "skipped" if start > stream.blocks else "used twice"
        return "continuity", (f"roll starts at generate call {start}, the previous roll ended at {stream.blocks} "
                              f"(calls {how}: a dropped, moved or re-drawn roll)")
    system = logged.get("system")
    try:
        spec = get(str(system))
        params = spec.resolve(logged.get("params") or {})
        dice = stream.begin(bytes.fromhex(mix))
        replayed = _as_logged(spec, logged, json.loads(json.dumps(spec.roll(dice, params).to_dict())))
    except (EngineError, ValueError, TypeError, KeyError) as exc:
        return "roll-mismatch", f"cannot replay the {system} roll: {exc}"
    if replayed != logged:
        return "roll-mismatch", f"{system} roll does not match the revealed seed: {_difference(logged, replayed)}"
    if stream.blocks != end:
        return "continuity", f"{system} roll used generate calls {start}..{stream.blocks}, the log says {start}..{end}"
    label = _check_label(entry.get("roll_kind"), roll_kind(material, entry))
    return ("roll-kind", label) if label is not None else None


def _as_logged(spec: Any, logged: dict[str, Any], replayed: dict[str, Any]) -> dict[str, Any]:
    """``replayed`` without the parameters a later dicetower added that the entry's writer did
    not know, where they hold their default: an older entry lacks them, and the default is the
    rule that writer rolled by (a new parameter must default to the old behaviour). A parameter
    the entry has, or one set to anything but its default, is compared as it is."""
    old = logged.get("params")
    new = replayed.get("params")
    if not isinstance(old, dict) or not isinstance(new, dict):
        return replayed
    known = {p.name: p for p in spec.params}
    added = [name for name, value in new.items()
             if name not in old and name in known and not known[name].required
             and value == json.loads(json.dumps(to_jsonable(known[name].default)))]
    if not added:
        return replayed
    return {**replayed, "params": {k: v for k, v in new.items() if k not in added}}


def _check_label(label: Any, kind: str) -> str | None:
    if label not in ROLL_KINDS:
        return f"roll kind {label!r} is not one of {', '.join(ROLL_KINDS)}"
    if label == kind:
        return None
    why = {"test": " (the session's seed is a --seed test seed)", "entered": " (its outcome was typed in)"}
    return f"labelled {label} but it is {kind}{why.get(kind, '')}"


def _difference(logged: dict[str, Any], replayed: dict[str, Any]) -> str:
    for key in ("dice", *logged.keys(), *replayed.keys()):
        if logged.get(key) != replayed.get(key):
            return f"{key} logged {json.dumps(logged.get(key))}, replay gives {json.dumps(replayed.get(key))}"
    return "results differ"


def screen_line(result: Mapping[str, Any]) -> str:
    """The result screen's first line as the OLED draws it from this result (the system and its
    headline: ``d6cv 3 vs 7``), to set beside the photo: an entry logged with eased parameters
    reads otherwise than the screen the table saw. "" for a result no system can read."""
    try:
        spec = get(str(result.get("system")))
        return f"{spec.id} {spec.panel.headline(result)}"
    except (EngineError, KeyError, TypeError, ValueError, IndexError, AttributeError):
        return ""


def never_rolled(stream: RollStream, last: Mapping[str, Any]) -> tuple[bool, float] | None:
    """The roll a session would have made next, with its last roll's setting (no mix), drawn
    from ``stream`` where its last roll ended: whether it fails, and the setting's chance of
    failing. None for a last roll that gives no setting to roll again (typed in, malformed)."""
    logged = last.get("result")
    if not isinstance(logged, Mapping):
        return None
    params = logged.get("params")
    if not isinstance(params, Mapping) or typed_in(logged):
        return None
    try:
        spec = get(str(logged.get("system")))
        resolved = spec.resolve(params)
        result = spec.roll(stream.begin(b""), resolved)
        chance = 1.0 - float(spec.known_odds(resolved).success)
    except (EngineError, ValueError, TypeError, KeyError):
        return None
    return (not result.success, chance)
