// The OBS overlay: the latest roll of one tower, large, on a transparent page.
"use strict";

const params = new URLSearchParams(location.search);
const tower = params.get("tower") || "";
const box = document.getElementById("overlay");

function show(card) {
  if (!card || typeof card !== "object" || card.tower !== tower) return;
  try {
    document.getElementById("tower").textContent = str(card.tower, 64);
    const roll = list(card.last)[0];
    const dice = document.getElementById("dice");
    dice.replaceChildren(...(roll ? diceNode(roll.dice).childNodes : []));
    const outcome = document.getElementById("outcome");
    outcome.textContent = roll ? str(roll.outcome, 40).toUpperCase() + (num(roll.total) !== null ? ` (${num(roll.total)})` : "") : "";
    box.className = "overlay " + (roll ? outcomeClass(roll) : "waiting") + (card.verified === true ? "" : " red");
    box.dataset.seq = roll ? str(roll.seq, 12) : "";
    const note = card.verified !== true ? "✗ not verified: " + str(card.problem, 200)
      : roll && roll.check === "unchecked" ? "unchecked until the session is revealed" : "";
    document.getElementById("badge").textContent = note;
  } catch (error) {
    document.getElementById("badge").textContent = "this roll could not be shown";
  }
}

if (!tower) {
  document.getElementById("badge").textContent = "add ?tower=TOWER to the address";
} else {
  listen("/events?tower=" + encodeURIComponent(tower), {snapshot: (all) => list(all).forEach(show), tower: show,
                                                          board: () => {}, unreachable: () => {}});
}
