"""How the button panel offers and shows horizons (see :mod:`engine.systems.panel`).

Opposed rolls (the opponent's pool rolled by the tower, or the successes the opponent
counted at the table), damage onto a wound track and the Stability track are flows. The wound track
is the defender's: the flow names a player slot (``target``), reads that slot's marked boxes
and stores the roll's track back into it, so damage accumulates on the right character and
spill-over into the next tier shows as boxes. The Stability track is the roller's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.params import Param
from engine.systems.horizons.speech import SPEECH
from engine.systems.horizons.tracks import CRITICAL_BOXES, MAJOR_BOXES, MINOR_MAX
from engine.systems.panel import (
    Carried,
    Flow,
    Line,
    ListShape,
    PanelSpec,
    Part,
    Versus,
    boxes,
    numbers,
    outcome_line,
    phrase,
    signed,
)

_TIERS = ("minor", "major", "critical")


def _headline(data: Mapping[str, Any]) -> str:
    against = data.get("opponent_successes")
    if not isinstance(against, int):
        against = data["params"]["need"]
    return f"{data['successes']} vs {against}"


def _versus(data: Mapping[str, Any]) -> Versus:
    """The headline for speech: the successes against the need, or the opponent's entered ones."""
    against = data.get("opponent_successes")
    if isinstance(against, int):
        return Versus(data["successes"], against, "opponent_successes")
    return Versus(data["successes"], data["params"]["need"], "need")


def _details(data: Mapping[str, Any]) -> list[str]:
    net = data.get("net")
    successes = data["successes"]
    out: list[str] = [outcome_line(data, f"{successes} succ.", said=phrase("horizons.successes", n=successes))]
    if isinstance(net, int):
        against = data.get("opponent_successes")
        out.append(Line(f"net {net:+d} (opp. {against})", phrase("horizons.net", net=signed(net), opponent=against)))
    own = data.get("opponent_dice") or []
    mine = data["dice"][: len(data["dice"]) - len(own)]
    out.append(numbers("dice", mine))
    if own:
        out.append(numbers("opp.", own, key="horizons.opponent_dice"))
    if data.get("explosions"):
        n = data["explosions"]
        out.append(Line(f"{n} exploded", phrase("horizons.exploded", n=n)))
    if data.get("damage") is not None:
        out.append(Line(f"damage {data['damage']}", phrase("damage", n=data["damage"])))
    track = data.get("wounds_after")
    if isinstance(track, Mapping):
        out.extend(boxes(t, track[t], track[f"{t}_boxes"]) for t in _TIERS)
        out.append(Line(f"status {track['status']}", phrase("horizons.status", status=track["status"])))
    stability = data.get("stability_after")
    if isinstance(stability, Mapping):
        out.append(boxes("stab.", stability["marked"], stability["boxes"], track="stability"))
        if stability.get("breakdown"):
            out.append(Line("BREAKDOWN", phrase("horizons.breakdown")))
    return out


#: The defender's player slot in the wounds flow (a panel row, not a roll parameter).
TARGET = Param("target", "int", "the defender's player slot: its wound track takes the damage", 1,
               lo=1, hi=9)

PANEL = PanelSpec(
    speech=SPEECH,
    sides=10,
    labels={"opponent_pool": "opp. pool", "opponent_successes": "opp. succ.",
            "mitigation_mode": "mit. mode", "damage_tier": "tier", "stability_boxes": "stab. boxes",
            "stability_loss": "stab. loss", "target": "defender"},
    flows=(
        Flow("opposed", ("opponent_pool", "opponent_successes"),
             "an opposed roll: the opponent's pool, which the tower rolls with the roller's "
             "(0 = unopposed), or the successes the opponent counted from their own dice at the "
             "table (- = not entered; entered, they replace the opponent's pool)"),
        Flow("wounds", ("target", "body", "resolve", "wounds", "damage_tier", "spill", "mitigation",
                        "mitigation_mode"),
             "damage onto a player slot's wound track: pick the defender's slot, its Body, "
             "Resolve and Mitigation; the track's boxes are kept in that slot"),
        Flow("stability", ("stability", "stability_boxes", "stability_loss"),
             "the roller's Stability track: boxes marked (kept in the player slot), its "
             "length, and the boxes a failed roll marks"),
    ),
    lists={
        # The tiers' boxes: Minor at most 10, Major and Critical "a fixed 4 boxes" each.
        "wounds": ListShape((Part("minor", 0, MINOR_MAX, 0), Part("major", 0, MAJOR_BOXES, 0),
                             Part("critical", 0, CRITICAL_BOXES, 0)),
                            lambda v: v, fixed=1),
    },
    extra=(TARGET,),
    target="target",
    omit={"trait": "pool", "skill": "pool", "opponent_pool": "opponent_successes"},
    needs={"wounds": "body"},
    carried=(Carried("stability", "stability_after.marked"),
             Carried("wounds", "wounds_after", who="target")),
    count="successes",
    headline=_headline,
    versus=_versus,
    details=_details,
)
