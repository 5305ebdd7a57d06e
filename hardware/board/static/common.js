// Shared by the board and the overlay. Everything a tower sends is untrusted: it is put on the
// page with textContent only, never as HTML. The server type-checks every value in a card,
// and the page still treats each one as possibly anything (str, num and list below).
"use strict";

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// A value as short text ("" for null and undefined); a number as a finite number or null.
function str(value, limit) {
  if (value === null || value === undefined) return "";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return text.length > (limit || 200) ? text.slice(0, (limit || 200) - 1) + "…" : text;
}

function num(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function list(value) {
  return Array.isArray(value) ? value : [];
}

// The parameters worth showing: set ones, not the defaults that are empty, off or zero.
function settingText(system, params) {
  const parts = [];
  const given = params && typeof params === "object" && !Array.isArray(params) ? params : {};
  for (const [key, value] of Object.entries(given)) {
    if (value === null || value === false || value === 0 || value === "none" || value === "" ||
        (Array.isArray(value) && value.length === 0)) continue;
    const shown = Array.isArray(value) ? value.map((v) => str(v, 20)).join(",") : (value === true ? "yes" : str(value, 40));
    parts.push(`${str(key, 30).replace(/_/g, " ")} ${shown}`);
    if (parts.length >= 6) break;
  }
  return [str(system, 40) || "no roll yet", ...parts].join(" · ");
}

function outcomeClass(roll) {
  if (roll.success === true) return "good";
  if (roll.success === false) return "bad";
  return "neutral";
}

function diceNode(dice, cls) {
  const box = el("span", cls || "dice");
  for (const d of list(dice).slice(0, 40)) box.append(el("span", "die", str(d, 6)));
  return box;
}

// Server-sent events. The stream's own state (open, error) says whether the page reaches the
// board; the board's "board" events say whether the board reaches the broker (live,
// reconnecting, stale). The browser reconnects by itself and the server starts every stream
// with a snapshot, so a reconnect never leaves stale cards.
function listen(url, handlers) {
  const source = new EventSource(url);
  const call = (name, e) => {
    let data;
    try { data = JSON.parse(e.data); } catch (err) { console.error("bad event", err); return; }
    handlers[name](data);
  };
  source.addEventListener("error", () => handlers.unreachable());
  source.addEventListener("board", (e) => call("board", e));
  source.addEventListener("snapshot", (e) => call("snapshot", e));
  source.addEventListener("tower", (e) => call("tower", e));
  return source;
}
