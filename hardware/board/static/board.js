// The board page: one card per tower, updated in place from the event stream (no reload).
// Each card is rendered on its own: a card that cannot be shown says so and never takes the
// others with it. Updates are drawn at most once per frame (many rolls a second make one draw).
"use strict";

const grid = document.getElementById("towers");
const cards = new Map();
const waiting = new Map();
window.boardPageId = Math.random().toString(36).slice(2);  // a reload would change it (tests)
let updates = 0;
let drawing = false;

const CHECK_MARKS = {verified: "✓", uncoded: "✓ no code", unchecked: "?", entered: "typed", test: "test",
                     failed: "✗"};
// What a witness without photos flags (docs/fairness.md, "Problem codes" and the flags beside them).
const FLAG_WORDS = {
  "no-table-seed": ["session", "without a table seed: its owner could have chosen its seed"],
  "early-endings": ["warning", "(sessions end just before a roll that would have failed more often than its " +
                    "odds make likely: look at who ends them)"],
};

function plural(n, word, many) {
  return `${n} ${n === 1 ? word : many || word + "s"}`;
}

// The board's own state (from its "board" events): while it is not live, no card is green.
let boardNow = {state: "connecting", detail: ""};

// A card's verdict, then what it lacks and what waits, whatever the verdict: a red badge keeps
// the missing and unchecked lines; "chain ok" with nothing verified is not good news (grey);
// green only for verified rolls on a board that is verifying now.
function badge(card) {
  const checked = card.checked && typeof card.checked === "object" ? card.checked : {};
  const verified = num(checked.verified) || 0, missing = num(card.missing) || 0;
  const box = el("div", "badges");
  if (card.state === "red") {
    const more = num(card.problems) > 1 ? ` (and ${num(card.problems) - 1} more)` : "";
    box.append(el("p", "badge red", "✗ " + str(card.problem, 300) + more));
  } else {
    const parts = [`chain ok · ${plural(num(card.seq) || 0, "entry", "entries")}`,
                   `${verified} verified`, plural(num(card.revealed) || 0, "session") + " revealed and replayed"];
    if (boardNow.state !== "live") {
      box.append(el("p", "badge paused", `‖ not verified now (the board is ${boardNow.state}): as last checked, ` +
                                         parts.join(" · ")));
    } else if (verified === 0) {
      box.append(el("p", "badge none", "… nothing verified yet: " + parts[0] + " · no session revealed and replayed"));
    } else {
      box.append(el("p", missing ? "badge amber" : "badge green", (missing ? "… " : "✓ ") + parts.join(" · ")));
    }
  }
  if (missing) box.append(el("p", "badge amber missing", `… ${plural(missing, "entry", "entries")} missing, asked again`));
  if (num(checked.unchecked)) {
    box.append(el("p", "badge amber unchecked",
                  `? ${plural(num(checked.unchecked), "roll")} unchecked until the session is revealed`));
  }
  const flags = checked.flags && typeof checked.flags === "object" ? checked.flags : {};
  for (const [code, [noun, words]] of Object.entries(FLAG_WORDS)) {
    if (num(flags[code])) box.append(el("p", "badge amber flag", `! ${plural(num(flags[code]), noun)} ${words}`));
  }
  return box;
}

function rollsList(card) {
  const box = el("ol", "rolls");
  for (const roll of list(card.last).slice(0, 8)) {
    if (!roll || typeof roll !== "object") continue;
    const check = Object.hasOwn(CHECK_MARKS, roll.check) ? roll.check : "unchecked";
    const item = el("li", `roll ${outcomeClass(roll)} ${check}`);
    item.append(el("span", "check", CHECK_MARKS[check]));
    item.append(diceNode(roll.dice));
    item.append(el("span", "outcome", str(roll.outcome, 40)));
    if (num(roll.total) !== null) item.append(el("span", "total", "= " + num(roll.total)));
    const player = num(roll.player) ? ` · P${num(roll.player)}` : "";
    // named as the OLED named it: its number in its session and its fingerprint
    const name = str(roll.name, 40) || `entry ${str(roll.seq, 12)}`;
    item.append(el("span", "meta", `${str(roll.system, 40)} ${name}${player}`));
    item.dataset.seq = str(roll.seq, 12);
    item.title = check === "unchecked" ? "unchecked: its session is not revealed yet"
      : check === "uncoded" ? "verified, in a session without a table seed: its owner could have chosen its seed"
      : check;
    box.append(item);
  }
  if (!box.children.length) box.append(el("li", "roll none", "no rolls yet"));
  return box;
}

function statsTable(stats, title) {
  const box = el("details", "stats");
  box.append(el("summary", null, title || "verified rolls against the exact odds"));
  const systems = stats && typeof stats === "object" ? Object.entries(stats) : [];
  for (const [system, tally] of systems) {
    if (!tally || typeof tally !== "object") continue;
    const table = el("table");
    table.append(el("caption", null, `${str(system, 40)}: ${plural(num(tally.rolls) || 0, "roll")}`));
    const head = el("tr");
    for (const h of ["outcome", "seen", "expected", "z"]) head.append(el("th", null, h));
    table.append(head);
    const outcomes = tally.outcomes && typeof tally.outcomes === "object" ? Object.entries(tally.outcomes) : [];
    for (const [name, o] of outcomes) {
      if (!o || typeof o !== "object") continue;
      // z means little until an outcome is expected a few times: shown from 5 expected on
      const expected = num(o.expected) || 0, z = num(o.z) || 0;
      const judged = expected >= 5;
      const row = el("tr", judged && Math.abs(z) >= 4 ? "odd" : null);
      row.append(el("td", null, str(name, 40)), el("td", null, num(o.observed) || 0),
                 el("td", null, expected.toFixed(1)), el("td", null, judged ? z.toFixed(2) : "–"));
      table.append(row);
    }
    box.append(table);
  }
  return box;
}

function headNode(card) {
  const head = el("header");
  head.append(el("span", "dot " + (card.online === true ? "online" : "offline"), card.online === true ? "online" : "offline"));
  head.append(el("h2", null, str(card.tower, 64)), el("span", "store", str(card.store, 64)));
  return head;
}

function commitmentNode(card) {
  const commitment = str(card.commitment, 80);
  return el("p", "commitment", commitment ? "commitment " + commitment.slice(0, 16) + "…" : "no session open");
}

function countsNode(card) {
  const conflicts = num(card.conflicts) ? ` · ${plural(num(card.conflicts), "conflicting seq")}` : "";
  return el("p", "counts", `${plural(num(card.rolls) || 0, "roll")} · ${plural(num(card.sessions) || 0, "session")} · ` +
                           `${num(card.duplicates) || 0} duplicates dropped${conflicts}`);
}

function statsNode(card) {
  const stats = card.stats && typeof card.stats === "object" ? card.stats : {};
  return Object.keys(stats).length ? statsTable(stats) : el("div", "stats none");
}

// A card's parts in order: each is drawn again only when what it shows changed (a roll
// redraws the badge, the list and the counts; the statistics change at a reveal).
const PARTS = [
  ["head", headNode, (c) => [c.tower, c.store, c.online]],
  ["badge", badge, (c) => [c.state, c.verified, c.problem, c.problems, c.seq, c.checked, c.revealed, c.missing,
                          c.replay_pending, boardNow.state]],
  ["setting", (c) => el("p", "setting", settingText(c.system, c.params)), (c) => [c.system, c.params]],
  ["commitment", commitmentNode, (c) => [c.commitment]],
  ["rolls", rollsList, (c) => [c.last]],
  ["counts", countsNode, (c) => [c.rolls, c.sessions, c.duplicates, c.conflicts]],
  ["stats", statsNode, (c) => [c.stats]],
];

function cardNode(card, old) {
  const node = old && old.drawn ? old : el("article");
  // red only for a problem (the board's state "red"); nothing verified yet is grey, not red
  const red = card.state === "red";
  node.className = "card " + (red ? "red" : boardNow.state !== "live" ? "paused" : card.verified === true ? "ok" : "none");
  node.dataset.tower = str(card.tower, 64);
  node.dataset.rolls = num(card.rolls) || 0;
  node.dataset.verified = card.verified === true;
  node.dataset.state = red ? "red" : str(card.state, 20);
  const drawn = node.drawn || {};
  const parts = {};
  for (const [name, make, shows] of PARTS) {
    const sig = JSON.stringify(shows(card));
    if (drawn[name] && drawn[name].sig === sig) {
      parts[name] = drawn[name];
      continue;
    }
    parts[name] = {sig, node: make(card)};
  }
  for (const [name] of PARTS) {  // only what changed is replaced, in place
    const before = drawn[name] && drawn[name].node;
    const part = parts[name].node;
    if (before === part) continue;
    if (before && before.open) part.setAttribute("open", "");  // an open statistics table stays open
    if (before) node.replaceChild(part, before);
    else node.append(part);
  }
  node.drawn = parts;
  return node;
}

// A card that cannot be drawn: said on its own card, the others stay.
function brokenNode(card, error) {
  let name = "a tower";
  try { name = str(card.tower, 64) || name; } catch (e) { /* the name itself is the trouble */ }
  const node = el("article", "card red broken");
  node.dataset.tower = name;
  node.dataset.rolls = 0;
  node.dataset.verified = false;
  node.dataset.state = "red";
  node.append(el("h2", null, name));
  node.append(el("p", "badge red", "✗ this card could not be shown: " + str(String(error), 200)));
  return node;
}

function render(card) {
  if (!card || typeof card !== "object" || typeof card.key !== "string") {
    console.error("a card without a key", card);
    return;
  }
  const old = cards.get(card.key);
  let node;
  try {
    node = cardNode(card, old);
  } catch (error) {
    console.error("card", card.key, error);
    node = brokenNode(card, error);
  }
  node.dataset.key = card.key;
  if (old === node) {
    // drawn in place
  } else if (old) {
    grid.replaceChild(node, old);
  } else {
    const after = [...cards.keys()].sort().find((k) => k > card.key);
    grid.insertBefore(node, after ? cards.get(after) : null);
  }
  cards.set(card.key, node);
  updates += 1;
}

function draw() {
  drawing = false;
  for (const card of waiting.values()) {
    try { render(card); } catch (error) { console.error("render", error); }
  }
  waiting.clear();
  document.body.dataset.updates = updates;
  refreshSummary();
}

const lastStats = new Map();

const latest = new Map();  // each card as last received (drawn again when the board's state changes)

function later(card) {
  if (!card || typeof card !== "object" || typeof card.key !== "string") return;
  latest.set(card.key, card);
  try {  // the board sends a card's statistics only when they changed
    if (Object.hasOwn(card, "stats")) lastStats.set(card.key, card.stats);
    else card.stats = lastStats.get(card.key);
  } catch (error) { /* drawn as a card that cannot be shown */ }
  waiting.set(card.key, card);
  if (!drawing) {
    drawing = true;
    requestAnimationFrame(draw);
  }
}

function snapshot(all) {
  const keys = new Set(list(all).map((c) => c && c.key));
  for (const [key, node] of cards) {  // towers the board forgot
    if (!keys.has(key)) { node.remove(); cards.delete(key); latest.delete(key); }
  }
  list(all).forEach(later);
}

function refreshSummary() {
  let rolls = 0, red = 0;
  for (const node of cards.values()) {
    rolls += Number(node.dataset.rolls) || 0;
    if (node.dataset.state === "red") red += 1;
  }
  document.getElementById("count-towers").textContent = cards.size;
  document.getElementById("count-rolls").textContent = rolls;
  document.getElementById("count-red").textContent = red;
  document.getElementById("empty").hidden = cards.size > 0;
}

function setState(state, detail) {
  const live = document.getElementById("live");
  live.dataset.state = state;
  document.body.dataset.board = state;
  live.textContent = BOARD_STATES[state] + (detail ? ": " + str(detail, 200) : "");
  if (state !== boardNow.state) {
    boardNow = {state, detail};
    for (const card of latest.values()) later(card);  // every card says whether it is verified now
  }
}

function boardState(info) {
  const state = info && Object.hasOwn(BOARD_STATES, info.state) && info.state !== "unreachable" ? info.state : "unreachable";
  const restarts = num(info && info.restarts);
  const detail = [str(info && info.detail, 200), restarts ? `MQTT loop restarted ${restarts}×` : ""].filter(Boolean).join("; ");
  setState(state, state === "live" ? (restarts ? `MQTT loop restarted ${restarts}×` : "") : detail);
}

// The store's statistics by system (all towers together): refreshed every few seconds.
async function refreshStoreStats() {
  try {
    const stats = await (await fetch("/api/stats")).json();
    const box = document.getElementById("store-stats");
    const open = box.querySelector("details[open]") !== null;
    const table = statsTable(stats, "all towers: verified rolls by system against the exact odds");
    if (open) table.setAttribute("open", "");
    box.replaceChildren(...(Object.keys(stats).length ? [table] : []));
  } catch (e) { /* the next refresh tries again */ }
}

// The webhooks (from /api/board): what each sent, what waits, what was dropped or given up.
function hookText(hook) {
  const parts = [`${num(hook.sent) || 0} sent`];
  if (num(hook.waiting)) parts.push(`${num(hook.waiting)} waiting`);
  if (num(hook.dropped)) parts.push(`${num(hook.dropped)} dropped (queue full)`);
  if (num(hook.failed)) parts.push(`${num(hook.failed)} given up`);
  if (hook.state === "retrying") {
    const wait = num(hook.retry_in);
    parts.push(`retrying: ${str(hook.detail, 80)}` + (wait !== null ? ` (next try in ${Math.ceil(wait)} s)` : ""));
  } else if (hook.state === "stopped") {
    parts.push(`stopped: ${str(hook.detail, 80)}`);
  }
  return `${str(hook.name, 80)}: ${parts.join(" · ")}`;
}

async function refreshHooks() {
  try {
    const hooks = list((await (await fetch("/api/board")).json()).webhooks);
    const box = document.getElementById("hooks");
    box.hidden = hooks.length === 0;
    const trouble = hooks.some((h) => h && (h.state === "retrying" || h.state === "stopped" || num(h.dropped) ||
                                            num(h.failed)));
    box.dataset.state = trouble ? "trouble" : "ok";
    box.textContent = "webhooks: " + hooks.map((h) => hookText(h || {})).join(" | ");
  } catch (e) { /* the next refresh tries again */ }
}

listen("/events", {snapshot, tower: later, board: boardState, unreachable: () => setState("unreachable", "")});
refreshStoreStats();
setInterval(refreshStoreStats, 5000);
refreshHooks();
setInterval(refreshHooks, 2000);
