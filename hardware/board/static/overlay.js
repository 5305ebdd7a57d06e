// The OBS overlay: the latest roll of one tower, large, on a transparent page.
"use strict";

const params = new URLSearchParams(location.search);
const tower = params.get("tower") || "";
const box = document.getElementById("overlay");

function show(card) {
  if (card.tower !== tower) return;
  document.getElementById("tower").textContent = card.tower;
  const roll = card.last[0];
  const dice = document.getElementById("dice");
  dice.replaceChildren(...(roll ? diceNode(roll.dice).childNodes : []));
  const outcome = document.getElementById("outcome");
  outcome.textContent = roll ? String(roll.outcome).toUpperCase() + (roll.total != null ? ` (${roll.total})` : "") : "";
  box.className = "overlay " + (roll ? outcomeClass(roll) : "waiting") + (card.verified ? "" : " red");
  box.dataset.seq = roll ? roll.seq : "";
  document.getElementById("badge").textContent = card.verified ? "" : "✗ not verified: " + card.problem;
}

if (!tower) {
  document.getElementById("badge").textContent = "add ?tower=TOWER to the address";
} else {
  listen("/events?tower=" + encodeURIComponent(tower), (all) => all.forEach(show), show, () => {});
}
