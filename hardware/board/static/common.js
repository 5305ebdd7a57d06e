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

// Characters a tower's text never shows as themselves: controls, bidi overrides and isolates,
// zero-width and other format characters, line/paragraph separators, lone surrogates. The
// board escapes them already; the page does it again, trusting nothing.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u070f\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeHidden(text) {
  return text.replace(HIDDEN, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

// A value as short text ("" for null and undefined), hidden characters shown escaped; a number
// as a finite number or null.
function str(value, limit) {
  if (value === null || value === undefined) return "";
  const text = escapeHidden(typeof value === "object" ? JSON.stringify(value) : String(value));
  return text.length > (limit || 200) ? text.slice(0, (limit || 200) - 1) + "…" : text;
}

function num(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function list(value) {
  return Array.isArray(value) ? value : [];
}

// The setting as the board chose it: the system's main parameters and those not at their
// defaults, in the system's own order (hardware/board/messages.py, params_view); a value the
// board left as null does not apply to this roll.
function settingText(system, params) {
  const parts = [];
  const given = params && typeof params === "object" && !Array.isArray(params) ? params : {};
  for (const [key, value] of Object.entries(given)) {
    if (value === null || value === undefined) continue;
    const shown = Array.isArray(value) ? value.map((v) => str(v, 20)).join(",") : (value === true ? "yes" : str(value, 40));
    parts.push(`${str(key, 30).replace(/_/g, " ")} ${shown}`);
    if (parts.length >= 12) break;
  }
  return [str(system, 40) || "no roll yet", ...parts].join(" · ");
}

// The board's own state in words (the status line, and the note on every card while it is not live).
const BOARD_STATES = {
  live: "● live", reconnecting: "reconnecting…", stale: "stale", stalled: "✗ stalled: not verifying",
  failing: "✗ failing: its record cannot be written", unreachable: "board unreachable, reconnecting…",
};

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
