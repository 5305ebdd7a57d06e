// The OBS overlay: the latest roll of one tower, large, on a transparent page.
// /overlay?store=S&tower=T names the tower (two stores may each have a "table1"); without
// store, a tower id that is in one store only.
"use strict";

const params = new URLSearchParams(location.search);
const tower = params.get("tower") || "";
const store = params.get("store");
const box = document.getElementById("overlay");
let boardNow = "live";
let last = null;
let ambiguous = false;  // no store given, and the tower id is in several stores

function note(text) {
  document.getElementById("badge").textContent = text;
}

function show(card) {
  if (!card || typeof card !== "object" || card.tower !== tower || (store !== null && card.store !== store)) return;
  last = card;
  try {
    document.getElementById("tower").textContent = str(card.tower, 64);
    const roll = list(card.last)[0];
    const dice = document.getElementById("dice");
    dice.replaceChildren(...(roll ? diceNode(roll.dice).childNodes : []));
    const outcome = document.getElementById("outcome");
    outcome.textContent = roll ? str(roll.outcome, 40).toUpperCase() + (num(roll.total) !== null ? ` (${num(roll.total)})` : "") : "";
    document.getElementById("name").textContent = roll ? str(roll.name, 40) : "";
    box.className = "overlay " + (roll ? outcomeClass(roll) : "waiting") + (card.state === "red" ? " red" : "");
    box.dataset.seq = roll ? str(roll.seq, 12) : "";
    note(card.state === "red" ? "✗ not verified: " + str(card.problem, 200)
      : boardNow !== "live" ? `not verified now (the board is ${boardNow})`
        : roll && roll.check === "unchecked" ? "unchecked until the session is revealed" : "");
  } catch (error) {
    note("this roll could not be shown");
  }
}

function snapshot(all) {
  const mine = list(all).filter((c) => c && c.tower === tower && (store === null || c.store === store));
  ambiguous = store === null && mine.length > 1;
  if (ambiguous) {
    const stores = mine.map((c) => str(c.store, 64)).sort().join(", ");
    note(`"${str(tower, 64)}" is in several stores (${stores}): add &store=STORE to the address`);
    return;
  }
  mine.forEach(show);
}

function board(info) {
  boardNow = info && typeof info.state === "string" ? info.state : "unreachable";
  if (last) show(last);
}

if (!tower) {
  note("add ?store=STORE&tower=TOWER to the address");
} else {
  const query = "tower=" + encodeURIComponent(tower) + (store !== null ? "&store=" + encodeURIComponent(store) : "");
  listen("/events?" + query, {snapshot, tower: (c) => ambiguous || show(c), board,
                              unreachable: () => board({state: "unreachable"})});
}
