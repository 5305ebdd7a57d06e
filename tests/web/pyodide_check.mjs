// Runs engine.verify.night in Pyodide under node: reads cases (a JSON list of {name, text, notes})
// from the file named first, writes [{name, verdict, problems}] to the file named second. The
// phone page makes the same calls in the browser (hardware/web/static/verify.js).
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [casesPath, outPath, pyodideDir, enginePath] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(pyodideDir + "/pyodide.mjs").href);
const py = await loadPyodide({ indexURL: pyodideDir + "/" });
py.unpackArchive(new Uint8Array(readFileSync(enginePath)), "zip", { extractDir: "/dicetower" });
py.runPython("import sys; sys.path.insert(0, '/dicetower')");
const night = py.pyimport("engine.verify.night");
const out = [];
for (const c of JSON.parse(readFileSync(casesPath, "utf8"))) {
  const view = JSON.parse(night.check_text(c.text, py.toPy(c.notes)));
  out.push({ name: c.name, verdict: view.verdict, problems: view.problems.map((p) => [p.entry, p.code]),
             rolls: view.rolls.length, version: py.version });
}
writeFileSync(outPath, JSON.stringify(out));
