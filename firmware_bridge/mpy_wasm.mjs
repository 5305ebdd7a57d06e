// Runs one job under real MicroPython (the WebAssembly port, npm package
// @micropython/micropython-webassembly-pyscript): node mpy_wasm.mjs PATH/TO/micropython.mjs < job.json
// job = {"files": {"name.py": "source", ...}, "script": "python source", "heapsize": bytes}
// The files are written to the root of MicroPython's in-memory file system (on sys.path), the
// script runs, its output goes to stdout; a Python exception goes to stderr with exit status 1.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const { loadMicroPython } = await import(pathToFileURL(process.argv[2]).href);
const job = JSON.parse(readFileSync(0, "utf8"));
const mp = await loadMicroPython({
  heapsize: job.heapsize || 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
for (const [name, text] of Object.entries(job.files || {})) {
  mp.FS.writeFile("/" + name, text);
}
try {
  mp.runPython(job.script);
} catch (error) {
  if (error.name !== "PythonError") throw error;
  process.stderr.write(error.message + "\n");
  process.exit(1);
}
