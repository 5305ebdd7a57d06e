// Shared by the board and the overlay. Everything a tower sends is untrusted: it is put on the
// page with textContent only, never as HTML.
"use strict";

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// The parameters worth showing: set ones, not the defaults that are empty, off or zero.
function settingText(system, params) {
  const parts = [];
  for (const [key, value] of Object.entries(params || {})) {
    if (value === null || value === false || value === 0 || value === "none" || value === "" ||
        (Array.isArray(value) && value.length === 0)) continue;
    const shown = Array.isArray(value) ? value.join(",") : (value === true ? "yes" : value);
    parts.push(`${key.replace(/_/g, " ")} ${shown}`);
    if (parts.length >= 6) break;
  }
  return [system || "no roll yet", ...parts].join(" · ");
}

function outcomeClass(roll) {
  if (roll.success === true) return "good";
  if (roll.success === false) return "bad";
  return "neutral";
}

function diceNode(dice, cls) {
  const box = el("span", cls || "dice");
  for (const d of (Array.isArray(dice) ? dice : [])) box.append(el("span", "die", d));
  return box;
}

// Server-sent events with a visible state; the browser reconnects by itself and the server
// starts every stream with a snapshot, so a reconnect never leaves stale cards.
function listen(url, onSnapshot, onTower, onState) {
  const source = new EventSource(url);
  source.addEventListener("open", () => onState("live"));
  source.addEventListener("error", () => onState("reconnecting"));
  source.addEventListener("snapshot", (e) => onSnapshot(JSON.parse(e.data)));
  source.addEventListener("tower", (e) => onTower(JSON.parse(e.data)));
  return source;
}
