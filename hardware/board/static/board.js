// The board page: one card per tower, updated in place from the event stream (no reload).
"use strict";

const grid = document.getElementById("towers");
const cards = new Map();
window.boardPageId = Math.random().toString(36).slice(2);  // a reload would change it (tests)
let updates = 0;

function badge(card) {
  if (!card.verified) return el("p", "badge red", "✗ " + card.problem);
  const parts = [`chain ok · ${card.seq} entries`];
  parts.push(`${card.revealed} session${card.revealed === 1 ? "" : "s"} revealed and replayed`);
  if (card.open_sessions) parts.push(`${card.open_sessions} open`);
  if (card.missing) parts.push(`${card.missing} missing, asked again`);
  const waiting = card.missing || card.replay_pending;
  return el("p", waiting ? "badge amber" : "badge green", (waiting ? "… " : "✓ ") + parts.join(" · "));
}

function rollsList(card) {
  const list = el("ol", "rolls");
  for (const roll of card.last) {
    const item = el("li", "roll " + outcomeClass(roll));
    item.append(diceNode(roll.dice));
    item.append(el("span", "outcome", roll.outcome));
    if (roll.total !== null && roll.total !== undefined) item.append(el("span", "total", "= " + roll.total));
    item.append(el("span", "meta", `${roll.system} #${roll.seq}` + (roll.player ? ` · P${roll.player}` : "")));
    item.dataset.seq = roll.seq;
    list.append(item);
  }
  if (!card.last.length) list.append(el("li", "roll none", "no rolls yet"));
  return list;
}

function statsTable(stats, title) {
  const box = el("details", "stats");
  box.append(el("summary", null, title || "outcomes against the exact odds"));
  for (const [system, tally] of Object.entries(stats)) {
    const table = el("table");
    const cap = el("caption", null, `${system}: ${tally.rolls} roll${tally.rolls === 1 ? "" : "s"}`);
    table.append(cap);
    const head = el("tr");
    for (const h of ["outcome", "seen", "expected", "z"]) head.append(el("th", null, h));
    table.append(head);
    for (const [name, o] of Object.entries(tally.outcomes)) {
      // z means little until an outcome is expected a few times: shown from 5 expected on
      const judged = o.expected >= 5;
      const row = el("tr", judged && Math.abs(o.z) >= 4 ? "odd" : null);
      row.append(el("td", null, name), el("td", null, o.observed), el("td", null, o.expected.toFixed(1)),
                 el("td", null, judged ? o.z.toFixed(2) : "–"));
      table.append(row);
    }
    box.append(table);
  }
  return box;
}

function render(card) {
  const node = el("article", "card " + (card.verified ? "ok" : "red"));
  node.dataset.key = card.key;
  node.dataset.tower = card.tower;
  node.dataset.rolls = card.rolls;
  node.dataset.verified = card.verified;
  const head = el("header");
  head.append(el("span", "dot " + (card.online ? "online" : "offline"), card.online ? "online" : "offline"));
  head.append(el("h2", null, card.tower), el("span", "store", card.store));
  node.append(head, badge(card));
  node.append(el("p", "setting", settingText(card.system, card.params)));
  node.append(el("p", "commitment", card.commitment ? "commitment " + card.commitment.slice(0, 16) + "…"
                                                     : "no session open"));
  node.append(rollsList(card));
  node.append(el("p", "counts", `${card.rolls} rolls · ${card.sessions} sessions · ${card.duplicates} duplicates dropped`));
  if (Object.keys(card.stats).length) node.append(statsTable(card.stats));
  const old = cards.get(card.key);
  const open = old && old.querySelector("details.stats[open]");
  if (open) node.querySelector("details.stats")?.setAttribute("open", "");
  if (old) {
    grid.replaceChild(node, old);
  } else {
    const after = [...cards.keys()].sort().find((k) => k > card.key);
    grid.insertBefore(node, after ? cards.get(after) : null);
  }
  cards.set(card.key, node);
  updates += 1;
  document.body.dataset.updates = updates;
  refreshSummary();
}

function refreshSummary() {
  let rolls = 0, red = 0;
  for (const node of cards.values()) {
    rolls += Number(node.dataset.rolls);
    if (node.dataset.verified === "false") red += 1;
  }
  document.getElementById("count-towers").textContent = cards.size;
  document.getElementById("count-rolls").textContent = rolls;
  document.getElementById("count-red").textContent = red;
  document.getElementById("empty").hidden = cards.size > 0;
}

function setState(state) {
  const live = document.getElementById("live");
  live.dataset.state = state;
  live.textContent = state === "live" ? "● live" : "reconnecting…";
}

// The store's statistics by system (all towers together): refreshed every few seconds.
async function refreshStoreStats() {
  try {
    const stats = await (await fetch("/api/stats")).json();
    const box = document.getElementById("store-stats");
    const open = box.querySelector("details[open]") !== null;
    const table = statsTable(stats, "all towers: outcomes by system against the exact odds");
    if (open) table.setAttribute("open", "");
    box.replaceChildren(...(Object.keys(stats).length ? [table] : []));
  } catch (e) { /* the next refresh tries again */ }
}

listen("/events", (all) => all.forEach(render), render, setState);
refreshStoreStats();
setInterval(refreshStoreStats, 5000);
