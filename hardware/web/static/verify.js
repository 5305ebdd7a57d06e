// The phone page: loads Pyodide and the engine, fetches the roll log, and runs the engine's own
// verifier (engine/verify/night.py) on it with what the players noted; while a session is open it
// follows the tower's stream of new entries and sounds an alarm at once on what the table did not
// see happen. docs/phone.md says what it checks and how to open it.
import { loadPyodide } from "./pyodide/pyodide.mjs";

const query = new URLSearchParams(location.search);
const logUrl = query.get("log") || "api/log";
const eventsUrl = query.has("events") ? query.get("events") : "api/events";
const storeKey = "dicetower-notes:" + new URL(logUrl, location.href).href;
const $ = (id) => document.getElementById(id);

let night = null; // engine.verify.night, in Pyodide
let py = null;
let text = ""; // the log as the page holds it
let lines = 0;
let live = null; // the open stream
const seen = { seq: 0, sessions: {}, open: null, alarms: [] };

function setStatus(message) {
  $("status").textContent = message;
}

function alarm(message) {
  seen.alarms.push(message);
  const box = $("alarm");
  box.textContent = "ALARM: " + seen.alarms.join(" · ");
  box.classList.add("on");
  if (navigator.vibrate) navigator.vibrate([300, 100, 300]);
}

// --- what the players noted: the URL's fragment (the reveal's QR code), this phone's storage,
// and what they type here; kept in the phone, never sent anywhere
function readNotes() {
  const notes = { expect: [], table_seed: [], card: [], allow_mix: [] };
  const add = (key, value) => { if (value && !notes[key].includes(value)) notes[key].push(value); };
  const stored = taken();
  for (const key of Object.keys(stored)) for (const v of stored[key]) add(key, v);
  const fragment = new URLSearchParams(location.hash.slice(1));
  for (const [key, value] of fragment) {
    if (key === "count" && /^\d+$/.test(value)) notes.count = Number(value);
    else if (key in notes) add(key, value);
  }
  for (const raw of $("notes").value.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    if (/^code\s+/i.test(line)) add("table_seed", line.replace(/^code\s+/i, ""));
    else if (/^count\s+\d+$/i.test(line)) notes.count = Number(line.split(/\s+/)[1]);
    else if (/^(dicetower reveal|commitment)/i.test(line)) add("card", line);
    else add("expect", line);
  }
  const code = $("code").value.trim();
  if (code) add("table_seed", code);
  return notes;
}

// What the page itself took while following the tower (each commitment and result it saw arrive,
// the code the players typed here): kept in this phone for this tower, until "new night".
function taken() {
  const kept = JSON.parse(localStorage.getItem(storeKey) || "{}");
  return { expect: kept.expect || [], table_seed: kept.table_seed || [] };
}

function take(key, value) {
  const kept = taken();
  if (value && !kept[key].includes(value)) kept[key].push(value);
  localStorage.setItem(storeKey, JSON.stringify(kept));
}

// --- the check: the engine's verifier on the whole log, shown row by row
function check() {
  if (!night) return null;
  const notes = readNotes();
  const view = JSON.parse(night.check_text(text, py.toPy(notes)));
  show(view);
  return view;
}

function show(view) {
  const verdict = $("verdict");
  verdict.textContent = view.verdict;
  verdict.className = view.verdict === "pass" ? "pass" : "fail";
  const problems = $("problems");
  problems.replaceChildren(...view.problems.slice(0, 20).map((p) => {
    const li = document.createElement("li");
    li.className = "bad";
    li.textContent = p.text;
    return li;
  }));
  const body = $("rolls").tBodies[0];
  body.replaceChildren(...view.rolls.slice(-300).reverse().map((r) => {
    const tr = document.createElement("tr");
    tr.className = r.state;
    const cells = [r.number ? `#${r.number}` : "typed", r.fingerprint, r.screen, r.dice.join(" "), r.outcome,
                   r.state === "problem" ? r.problem : r.state === "verified" ? "✓" : r.state];
    cells.forEach((value, i) => {
      const td = document.createElement("td");
      if (i === 1) td.className = "fp";
      if (i === 5) td.className = r.state === "problem" ? "bad" : r.state === "verified" ? "ok" : "";
      td.textContent = value;
      tr.append(td);
    });
    return tr;
  }));
  setStatus(`${view.entries} entries; ${view.counts.verified} roll(s) verified, ${view.counts.open} unchecked` +
            (view.night_rolls !== null ? `; your night: ${view.night_rolls} roll(s)` : "") +
            (live ? "; following the tower" : ""));
}

// --- live: each entry as the tower logs it, and what the table must hear of at once
function follow() {
  if (!eventsUrl || live) return;
  const url = new URL(eventsUrl, location.href);
  url.searchParams.set("from", String(lines));
  live = new EventSource(url);
  live.onmessage = (event) => {
    const entry = parseEntry(event.data);
    text += event.data + "\n";
    lines += 1;
    if (entry) watch(entry);
    check();
  };
  live.onerror = () => setStatus("the tower's stream paused; trying again");
}

function parseEntry(line) {
  try {
    const entry = JSON.parse(line);
    return entry && typeof entry === "object" ? entry : null;
  } catch {
    return null;
  }
}

// What a live entry tells the table (quiet: an entry logged before the page opened, only counted).
function watch(entry, quiet = false) {
  const warn = quiet ? () => {} : alarm;
  const note = quiet ? () => {} : take;
  if (seen.seq && entry.seq !== seen.seq + 1) warn(`entries missing: #${seen.seq + 1} did not arrive in order`);
  seen.seq = entry.seq;
  const sid = entry.session;
  if (entry.kind === "session") {
    seen.sessions[sid] = { rolls: 0, code: null, commitment: String(entry.commitment || "") };
    seen.open = sid;
    note("expect", String(entry.commitment || "").slice(0, 16)); // seen here at its question
  } else if (entry.kind === "table_seed" && seen.sessions[sid]) {
    seen.sessions[sid].code = entry.table_seed;
    const typed = $("code").value.trim();
    if (entry.source !== "panel") warn(`session #${sid.slice(0, 8)}'s code was set on the command line, not on the tower's keys`);
    else if (typed && typed !== entry.table_seed) warn(`session #${sid.slice(0, 8)}'s code is ${entry.table_seed}, not the ${typed} you typed`);
    if (typed) note("table_seed", typed);
  } else if (entry.kind === "roll" && sid && seen.sessions[sid]) {
    const s = seen.sessions[sid];
    s.rolls += 1;
    if (entry.source !== "panel") {
      warn(`roll #${s.rolls} of session #${sid.slice(0, 8)} was not made on the tower's panel: a roll between yours`);
    } else {
      note("expect", `${s.rolls}:${String(entry.hash).slice(0, 16)}`); // seen arrive, in order
    }
  } else if (entry.kind === "reveal" && seen.sessions[sid]) {
    if (!["table", "staff", "limit"].includes(entry.by) && seen.sessions[sid].rolls > 0) {
      warn(`session #${sid.slice(0, 8)} was ended by ${entry.by || "?"} (${entry.reason}), not by the table`);
    }
    if (seen.open === sid) seen.open = null;
  }
}

// --- start: the log (from the tower, the board, or a file), then the stream
async function boot() {
  $("check").onclick = check;
  $("new-night").onclick = () => { localStorage.removeItem(storeKey); check(); };
  $("file").onchange = async () => {
    const file = $("file").files[0];
    if (!file) return;
    text = await file.text();
    lines = text.split("\n").filter(Boolean).length;
    if (live) { live.close(); live = null; }
    check();
  };
  py = await loadPyodide({ indexURL: new URL("pyodide/", location.href).href });
  const zip = await (await fetch("engine.zip")).arrayBuffer();
  py.unpackArchive(new Uint8Array(zip), "zip", { extractDir: "/dicetower" });
  py.runPython("import sys; sys.path.insert(0, '/dicetower')");
  night = py.pyimport("engine.verify.night");
  window.dicetower = {
    check: (logText, notes) => JSON.parse(night.check_text(logText, py.toPy(notes))),
    view: () => check(),
  };
  try {
    const hashes = await (await fetch("api/hashes")).json();
    $("hashes").textContent = Object.entries(hashes).map(([k, v]) => `${k} sha256 ${v}`).join(" · ");
  } catch {
    $("hashes").textContent = "";
  }
  if (!query.has("offline")) {
    const response = await fetch(logUrl, { cache: "no-store" });
    text = response.ok ? await response.text() : "";
    if (!response.ok) setStatus(`no log from ${logUrl} (${response.status}): pick a file below`);
  }
  for (const line of text.split("\n")) {
    const entry = line ? parseEntry(line) : null;
    if (entry) {
      lines += 1;
      watch(entry, true);
    }
  }
  if (seen.open && eventsUrl && !query.has("offline")) {
    // the session open now is the one the table will roll in: its commitment is on the tower's question
    take("expect", seen.sessions[seen.open].commitment.slice(0, 16));
  }
  check();
  document.body.dataset.ready = "1";
  follow();
}

boot().catch((error) => {
  setStatus("the checker could not start: " + error);
  $("verdict").textContent = "fail: page";
});
