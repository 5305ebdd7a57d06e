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
const stores = new Set();  // the stores that have a tower of this id (no store given: it must be one)
box.dataset.seq = "";  // the roll shown (none yet)

function note(text) {
  document.getElementById("badge").textContent = text;
}

function ambiguous() {
  return store === null && stores.size > 1;
}

// No store given and the tower id is in several stores: no roll is shown (it could be either
// store's), only what to add to the address.
function sayAmbiguous() {
  last = null;
  document.getElementById("tower").textContent = str(tower, 64);
  document.getElementById("dice").replaceChildren();
  document.getElementById("outcome").textContent = "";
  document.getElementById("name").textContent = "";
  box.className = "overlay waiting ambiguous";
  box.dataset.seq = "";
  const names = [...stores].map((s) => str(s, 64)).sort().join(", ");
  note(`"${str(tower, 64)}" is in several stores (${names}): add &store=STORE to the address`);
}

function mine(card) {
  return card && typeof card === "object" && card.tower === tower && (store === null || card.store === store);
}

function take(card) {
  if (!mine(card)) return;
  stores.add(card.store);
  if (ambiguous()) sayAmbiguous();
  else show(card);
}

function show(card) {
  if (!mine(card) || ambiguous()) return;
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
  stores.clear();
  const cards = list(all).filter(mine);
  for (const card of cards) stores.add(card.store);
  if (ambiguous()) sayAmbiguous();
  else cards.forEach(show);
}

function board(info) {
  boardNow = info && typeof info.state === "string" ? info.state : "unreachable";
  if (last) show(last);
}

if (!tower) {
  note("add ?store=STORE&tower=TOWER to the address");
} else {
  const query = "tower=" + encodeURIComponent(tower) + (store !== null ? "&store=" + encodeURIComponent(store) : "");
  listen("/events?" + query, {snapshot, tower: take, board,
                              unreachable: () => board({state: "unreachable"})});
}
