# shellcheck shell=bash
# Sourced by ./run-tests: install real MicroPython (its WebAssembly port, run with node) for the
# bridge firmware's tests, pinned by .ci/micropython-wasm/package-lock.json, into
# .ci/micropython-wasm/node_modules (git-ignored). node and npm come from .ci/apt-packages.txt.
# Without node or the npm registry it says so; the tests that need it are then skipped outside
# CI and fail under CI=true.
ensure_micropython_wasm() {
    local dir=".ci/micropython-wasm" stamp=".ci/micropython-wasm/node_modules/.installed"
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        echo "dicetower: node and npm are missing: the firmware's tests under real MicroPython will not run" >&2
        return 0
    fi
    if [ -f "$stamp" ] && [ ! "$dir/package-lock.json" -nt "$stamp" ]; then
        return 0
    fi
    echo "dicetower: installing MicroPython's WebAssembly port for the firmware tests (npm ci)..." >&2
    if (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >/tmp/dicetower-npm.log 2>&1; then
        touch "$stamp"
    else
        cat /tmp/dicetower-npm.log >&2
        echo "dicetower: installing MicroPython's WebAssembly port failed (log above)" >&2
    fi
}
